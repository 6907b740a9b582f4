//! Issue 24, part 1: each technique of the CMC model switched off shows
//! what it is for. Prediction off delays the first drawn movement after a
//! key by a round trip plus up to one ack interval (`000_…` §3.3, §5.2);
//! reconciliation off makes every Adjustment a visible jump back (`000_…`
//! §6.3–§6.4). Both switches on are the model as it always was.

mod common;

use common::FRAME;
use sim::protocol::Setup;
use sim::{Bot, ClientConfig, LocalSession, NetSettings, SmoothingMode, Vec2};

/// A setup at `rtt_ms` and `loss` % each way, no smoothing (so the drawn
/// position is the collision position), with these switches.
fn setup(rtt_ms: u16, loss: u8, prediction: bool, reconciliation: bool) -> Setup {
    Setup {
        net: NetSettings::symmetric(rtt_ms, 0, loss),
        client: ClientConfig {
            prediction,
            reconciliation,
            ..ClientConfig::default()
        },
        smoothing: SmoothingMode::Disabled,
        ..Setup::default()
    }
}

fn drawn(s: &LocalSession) -> Vec2 {
    s.endpoint.cmc().expect("the CMC model").drawn_position()
}

/// Stands still for 1 s, then holds "right": the time from the key to
/// the first frame whose drawn position moved, ms.
fn key_to_movement_ms(prediction: bool) -> f64 {
    let mut s = LocalSession::with_setup(7, &setup(200, 0, prediction, true));
    for _ in 0..60 {
        s.step(FRAME, Vec2::ZERO, false, false);
    }
    let before = drawn(&s);
    for frame in 1..=120 {
        s.step(FRAME, Vec2::new(1.0, 0.0), false, false);
        if (drawn(&s) - before).length() > 0.01 {
            let ms = frame as f64 * FRAME * 1000.0;
            // The client's own read-out (the page's Metrics card) agrees.
            let measured = s.endpoint.cmc().unwrap().key_delay_ms();
            assert!(
                measured.is_some_and(|m| (m - ms).abs() < 1.0),
                "{measured:?} vs {ms}"
            );
            return ms;
        }
    }
    panic!("never moved");
}

#[test]
fn prediction_off_shows_a_key_a_round_trip_later() {
    let on = key_to_movement_ms(true);
    let off = key_to_movement_ms(false);
    println!("key to movement at RTT 200 ms: prediction on {on:.1} ms, off {off:.1} ms");
    assert!(on <= 2.0 * FRAME * 1000.0, "on: {on} ms");
    assert!(off >= 200.0, "off: {off} ms, less than the RTT");
    // One RTT plus at most one ack interval (100 ms) plus the frames that
    // send and receive: never more.
    assert!(off <= 200.0 + 100.0 + 3.0 * FRAME * 1000.0, "off: {off} ms");
}

/// What 60 s of the bot running at RTT 200 ms and 10 % loss each way
/// showed: Adjustments taken, and backward jumps — runs of frames in which
/// the drawn character went back, against the way it was moving, by more
/// than the server's 16 cm error threshold in all (a frame of running is
/// 10 cm). Smoothing is off, so the drawn position is the collision
/// position: the page's Exponential smoothing spreads either kind of snap
/// over 0.1 s (UE `SmoothLocationTime`), which is what "beyond the
/// smoothing" means.
struct Jumps {
    adjustments: u64,
    backward: u64,
}

fn jumps(reconciliation: bool) -> Jumps {
    let mut setup = setup(200, 10, true, reconciliation);
    setup.smoothing = SmoothingMode::Disabled;
    let mut s = LocalSession::with_setup(11, &setup);
    let mut bot = Bot::new();
    let (mut backward, mut run_back) = (0, 0.0);
    for _ in 0..60 * 60 {
        let (before, v0) = (drawn(&s), s.endpoint.velocity());
        s.step_bot(&mut bot, FRAME);
        let along = (drawn(&s) - before).dot(v0.safe_normal());
        if along < 0.0 {
            run_back -= along;
        } else {
            if run_back > 16.0 {
                backward += 1;
            }
            run_back = 0.0;
        }
    }
    Jumps {
        adjustments: s.endpoint.cmc().unwrap().counters().adjustments,
        backward,
    }
}

#[test]
fn reconciliation_off_jumps_back_where_a_replay_would_not() {
    let on = jumps(true);
    let off = jumps(false);
    println!(
        "RTT 200 ms, 10 % loss, 60 s: reconciliation on: {} adjustments, {} backward jumps; \
         off: {} adjustments, {} backward jumps",
        on.adjustments, on.backward, off.adjustments, off.backward
    );
    assert!(on.adjustments > 0, "the loss must cause Adjustments");
    assert_eq!(
        on.backward, 0,
        "a replay and the smoothing leave no jump back"
    );
    // Every correction the link forces shows as a jump back.
    assert!(
        off.backward >= on.adjustments,
        "{} backward jumps, {} Adjustments with replay",
        off.backward,
        on.adjustments
    );
    // The dropped moves still run on the server, so the client stays
    // behind it and is corrected again: one loss starts a chain.
    assert!(
        off.adjustments > 2 * on.adjustments,
        "{} vs {}",
        off.adjustments,
        on.adjustments
    );
}

#[test]
fn a_correction_without_reconciliation_says_its_moves_were_dropped() {
    let mut run = sim::ScenarioRun::record("no replay", 11, setup(200, 10, true, false));
    let mut bot = Bot::new();
    for _ in 0..20 * 60 {
        let (direction, dash) = bot.input(run.endpoint().position(), FRAME as f32);
        run.step_live(FRAME, direction, dash, false);
    }
    run.stop_recording();
    let ins = sim::inspect::Inspection::of(run.scenario().clone());
    let story = ins.explain(0).expect("a correction");
    let lines = story.lines();
    assert!(
        lines
            .iter()
            .any(|l| l
                == "Replayed nothing: reconciliation off, the unacknowledged moves were dropped"),
        "{}",
        lines.join("\n")
    );
    assert_eq!(story.replayed_count, 0);
}
