//! A relay run inspected from the page (issue 23), with the host on the
//! same clock so that both accounts can be compared: the page's end,
//! taped, plays again to any frame with the state it had; its corrections
//! are found; a correction's story, told from the relay's packet trace
//! alone, names the lost ServerMove that the host's own account (the
//! in-page story) names.

mod common;

use common::FRAME;
use sim::inspect::{Cause, RelayInspection};
use sim::net::codec;
use sim::net::trace::Direction;
use sim::net::trace_wire::TraceRequest;
use sim::protocol::{ServerMsg, Setup};
use sim::scenario::tape::{ClientTape, TapeEvent};
use sim::{Bot, ClientEndpoint, NetSettings, ServerHost, SimTime};

/// `seconds` of the bot through a host at `loss` % each way, the page's
/// end fed as the relay would feed it (frames at their arrival times, the
/// trace's batches as they are made) and taped.
fn relay_run(seconds: u32, loss: u8) -> (ClientEndpoint, ServerHost, ClientTape) {
    let setup = Setup {
        net: NetSettings::symmetric(150, 10, loss),
        ..Setup::default()
    };
    let mut host = ServerHost::new(9, SimTime::ZERO);
    host.inspect(100_000);
    let mut endpoint = ClientEndpoint::with_setup(9, &setup);
    endpoint.inspect(8192);
    endpoint.request_trace(TraceRequest::default());
    let mut tape = ClientTape::new(&endpoint, setup);
    let mut bot = Bot::new();
    let mut now = SimTime::ZERO;
    for _ in 0..seconds * 60 {
        now = now.plus_micros(16_667);
        let mut frames = host.poll_until(now);
        for b in host.take_trace() {
            frames.push((now, codec::encode(&ServerMsg::Trace(Box::new(b)))));
        }
        for (at, frame) in frames {
            let _ = endpoint.receive_frame(at, &frame);
            tape.record(TapeEvent::Receive { at, frame });
        }
        let (direction, dash) = bot.input(endpoint.position(), FRAME as f32);
        tape.record(TapeEvent::Frame {
            now,
            dt: FRAME,
            direction,
            dash,
            fire: false,
        });
        for f in endpoint.frame(now, FRAME, direction, dash, false) {
            let _ = host.receive_frame(now, &f);
        }
    }
    (endpoint, host, tape)
}

#[test]
fn a_relay_run_plays_again_to_any_frame_and_its_corrections_are_found() {
    let (live, _, tape) = relay_run(20, 10);
    let ins = RelayInspection::of(tape);
    assert_eq!(ins.marks().len(), 20 * 60);
    let end = ins.seek(ins.marks().len());
    assert_eq!(end.endpoint().state_hash(), live.state_hash());
    for frames in [1, 59, 60, 61, 700, 1199] {
        let at = ins.seek(frames);
        assert_eq!(at.frame_index(), frames);
        assert_eq!(
            at.endpoint().state_hash(),
            ins.marks()[frames - 1].state_hash,
            "frame {frames}"
        );
    }
    let adjustments = live.cmc().unwrap().counters().adjustments as usize;
    assert!(adjustments > 0);
    assert_eq!(ins.corrections().len(), adjustments);
    // The trace came along: the lanes have the whole run.
    assert!(ins.packets().unwrap().records().len() > 1500);
}

#[test]
fn a_story_told_from_the_trace_names_the_lost_server_move_the_host_names() {
    let (_, host, tape) = relay_run(30, 20);
    let ins = RelayInspection::of(tape);
    let host_log = host.packets().unwrap();
    let mut named = 0;
    for i in 0..ins.corrections().len() {
        let story = ins.explain(i).unwrap();
        assert!(story.forks.is_empty(), "no what-if on the relay");
        for cause in &story.causes {
            if let Cause::MissingMoves { packets, .. } = cause {
                for p in packets.iter().filter(|p| !p.fate.delivered()) {
                    // The host decided the same fate for the same packet.
                    let own = host_log
                        .records()
                        .iter()
                        .find(|r| r.direction == Direction::Up && r.index == p.index)
                        .unwrap();
                    assert_eq!(own.fate, p.fate);
                    assert_eq!(own.detail, p.detail);
                    named += 1;
                }
            }
        }
    }
    assert!(named >= 3, "{named} lost ServerMoves named");
    let lines = ins.explain(0).unwrap().lines();
    assert!(lines[0].starts_with("Adjustment of move @"), "{lines:?}");
}
