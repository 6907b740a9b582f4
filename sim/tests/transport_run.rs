//! Issue 24's "why games avoid TCP" over a whole run: the page's
//! Reliable-ordered switch ([`sim::protocol::Setting::Transport`]) on a
//! CMC session at RTT 100 ms ± 10 and 2 % loss each way, against
//! datagrams on the same link and seed. Reliable-ordered loses no
//! ServerMove, resends the lost ones one RTO later (RFC 6298's
//! `SRTT + 4 × RTTVAR`, at least Linux's 200 ms:
//! [`sim::NetSettings::transport`]) and holds every packet behind a
//! resend, so its p99 one-way delay reaches the RTO where datagrams stay
//! within RTT / 2 + jitter. The setting is saved in scenarios (version 5)
//! and a version-4 link reads as datagrams.

mod common;

use common::{open_scenario, scenarios_dir, FRAME};
use sim::net::trace::{Direction, PacketKind};
use sim::net::transport::{LinkTransport, Transport};
use sim::protocol::{Setting, Setup};
use sim::scenario::codec;
use sim::{Bot, LocalSession, NetSettings, ScenarioRun};

/// RTT 100 ms, ± 5 ms each way, 2 % loss each way.
const NET: NetSettings = NetSettings::symmetric(100, 5, 2);

/// What one 60 s run of the bot showed.
struct Run {
    /// ServerMoves the uplink lost.
    moves_lost: usize,
    /// Packets resent and held, both directions (the page's Link card).
    resent: u32,
    held: u32,
    /// Their extra delay, ms in all.
    held_ms: u32,
    /// Packets the trace marks resent and held (the lanes' ring and dot).
    marked: (u32, u32),
    /// The 99th percentile of delivered packets' one-way delay, ms, both
    /// directions.
    p99_ms: f64,
}

fn run(transport: LinkTransport) -> Run {
    let setup = Setup {
        net: NET,
        transport,
        ..Setup::default()
    };
    let mut s = LocalSession::with_setup(11, &setup);
    s.inspect(1 << 16);
    let mut bot = Bot::new();
    for _ in 0..60 * 60 {
        s.step_bot(&mut bot, FRAME);
    }
    let records = s.host.packets().expect("inspected").records();
    let moves_lost = records
        .iter()
        .filter(|r| {
            r.direction == Direction::Up && r.kind == PacketKind::ServerMove && !r.fate.delivered()
        })
        .count();
    let mut delays: Vec<f64> = records
        .iter()
        .filter_map(|r| match r.fate {
            sim::net::conditioner::Fate::Delivered { at, .. } => {
                Some(at.micros_since(r.sent) as f64 / 1000.0)
            }
            _ => None,
        })
        .collect();
    delays.sort_by(f64::total_cmp);
    let p99_ms = delays[(delays.len() * 99).div_ceil(100) - 1];
    let marked = records.iter().fold((0, 0), |(r, h), p| match p.fate {
        sim::net::conditioner::Fate::Delivered { resent, held, .. } => {
            (r + u32::from(resent), h + u32::from(held))
        }
        _ => (r, h),
    });
    let link = s.endpoint.metrics(s.now()).link;
    Run {
        moves_lost,
        resent: link.up.resent + link.down.resent,
        held: link.up.held + link.down.held,
        held_ms: link.up.held_ms + link.down.held_ms,
        marked,
        p99_ms,
    }
}

#[test]
fn the_rto_follows_the_link_in_force() {
    // RTT 100 ms ± 5 each way: SRTT 100 + 4 × 10 = 140, Linux's floor.
    assert_eq!(
        NET.transport(LinkTransport::ReliableOrdered),
        Transport::ReliableOrdered { rto_ms: 200 }
    );
    // RTT 300 ms ± 20 each way: 300 + 4 × 40.
    assert_eq!(
        NetSettings::symmetric(300, 20, 0).transport(LinkTransport::ReliableOrdered),
        Transport::ReliableOrdered { rto_ms: 460 }
    );
    assert_eq!(NET.transport(LinkTransport::Datagram), Transport::Datagram);
}

#[test]
fn reliable_ordered_at_2_percent_loss_loses_no_move_and_stalls_past_the_rto() {
    let datagram = run(LinkTransport::Datagram);
    let reliable = run(LinkTransport::ReliableOrdered);
    let rto = 200.0;
    println!(
        "60 s, RTT 100 ms ± 5, 2 % loss: datagrams {} moves lost, p99 {:.1} ms; \
         reliable-ordered {} lost, {} resent, {} held ({:.1} ms each on average), p99 {:.1} ms",
        datagram.moves_lost,
        datagram.p99_ms,
        reliable.moves_lost,
        reliable.resent,
        reliable.held,
        f64::from(reliable.held_ms) / f64::from(reliable.held.max(1)),
        reliable.p99_ms
    );
    // The same draws: what datagrams lose, TCP resends.
    assert!(datagram.moves_lost > 10, "{}", datagram.moves_lost);
    assert_eq!((datagram.resent, datagram.held), (0, 0));
    assert_eq!(reliable.moves_lost, 0);
    assert!(reliable.resent > 10, "{}", reliable.resent);
    assert!(reliable.held > reliable.resent, "{}", reliable.held);
    assert!(reliable.held_ms > 0);
    // The packet trace marks the same packets the totals count (a few
    // may still be in flight when the totals were last observed).
    let (resent, held) = reliable.marked;
    assert!(
        resent >= reliable.resent && resent <= reliable.resent + 2,
        "{resent}"
    );
    assert!(
        held >= reliable.held && held <= reliable.held + 20,
        "{held}"
    );
    assert_eq!(datagram.marked, (0, 0));
    // Datagrams: RTT / 2 + jitter at most; reliable-ordered: a resend
    // arrives one RTO late, and more than 1 % of packets wait for one.
    assert!(datagram.p99_ms <= 50.0 + 5.0, "{}", datagram.p99_ms);
    assert!(reliable.p99_ms >= rto, "{}", reliable.p99_ms);
}

#[test]
fn the_transport_is_saved_in_a_scenario_and_played_back() {
    let mut run = ScenarioRun::record(
        "transport",
        5,
        Setup {
            net: NET,
            ..Setup::default()
        },
    );
    let mut bot = Bot::new();
    for i in 0..240 {
        if i == 60 {
            run.change(Setting::Transport(LinkTransport::ReliableOrdered));
        }
        let (dir, dash) = bot.input(run.endpoint().position(), FRAME as f32);
        run.step_live(FRAME, dir, dash, false);
    }
    run.stop_recording();
    let saved = run.scenario().clone();
    assert!(saved
        .changes
        .iter()
        .any(|c| c.setting == Setting::Transport(LinkTransport::ReliableOrdered)));
    let back = codec::open(&codec::encode(&saved)).expect("decodes");
    assert_eq!(back.saved_version, 5);
    assert_eq!(back.scenario, saved);
    let text = serde_json::to_vec(&saved).unwrap();
    assert_eq!(codec::open_json(&text).unwrap().scenario, saved);
    let link = codec::from_fragment(&codec::to_fragment(&saved)).unwrap();
    assert_eq!(link, saved);
}

#[test]
fn a_version_4_link_reads_as_datagrams() {
    let old = open_scenario(&scenarios_dir().join("frozen/v4.bin"));
    assert_eq!(old.saved_version, 4);
    assert_eq!(old.scenario.setup.transport, LinkTransport::Datagram);
    assert!(!old
        .scenario
        .changes
        .iter()
        .any(|c| matches!(c.setting, Setting::Transport(_))));
}
