//! The packet trace (issue 23) between the two ends on one clock: what the
//! page gathers from the host's batches is what the host's conditioners
//! decided, record for record; tracing changes no fate; a page that reads
//! slowly is thinned by rank and told so; a forged request is refused with
//! a reason; in a room both the shooter and the target learn of a shot and
//! its verdict; a rollback room streams each player's own trace.

mod common;

use common::{run_bot, FRAME};
use sim::endpoints::host::HostError;
use sim::endpoints::room::{RoomEndpoint, RoomSession};
use sim::net::codec;
use sim::net::trace::PacketKind;
use sim::net::trace_wire::{TraceRequest, TRACE_FORMAT};
use sim::protocol::{ClientMsg, ServerMsg};
use sim::room::{PlayerId, RoomConfig};
use sim::{Bot, LocalSession, NetSettings, ServerHost, SimTime, Vec2};

fn session(trace: bool) -> LocalSession {
    let mut s = LocalSession::new(5, NetSettings::symmetric(150, 20, 10));
    if trace {
        s.endpoint.request_trace(TraceRequest::default());
    }
    s.host.inspect(100_000);
    s
}

#[test]
fn the_page_gathers_every_packet_the_host_decided_and_tracing_changes_no_fate() {
    let (mut traced, mut plain) = (session(true), session(false));
    let (mut b1, mut b2) = (Bot::new(), Bot::new());
    run_bot(&mut traced, &mut b1, 30.0);
    run_bot(&mut plain, &mut b2, 30.0);
    assert_eq!(
        traced.endpoint.state_hash(),
        plain.endpoint.state_hash(),
        "a traced run is the same run"
    );
    let host = traced.host.packets().unwrap().records();
    let trace = traced.endpoint.trace().unwrap();
    let page = trace.log().records();
    // One clock in one process: the offset is measured as 0.
    assert_eq!(
        trace.clock().map(|c| (c.offset_us, c.delay_us)),
        Some((0, 0))
    );
    assert_eq!(trace.start().map(|s| s.seed), Some(5));
    // The control messages the host acted on since: the request itself.
    let controls: Vec<_> = trace.controls().collect();
    assert_eq!(controls.len(), 1);
    assert_eq!(controls[0].msg, ClientMsg::Trace(TraceRequest::default()));
    // The trace starts with the request (the first frame); the batches of
    // the last interval are still on their way.
    let first = host.iter().position(|r| r == &page[0]).unwrap();
    assert!(first <= 2, "{first}");
    let n = page.len();
    assert!(n > 3_000, "{n} records in 30 s");
    assert!(host.range(first..first + n).eq(page.iter()));
    assert_eq!(trace.thinned().total(), 0);
    let (batches, missed, bad, bytes) = trace.counts();
    assert_eq!((missed, bad), (0, 0));
    assert!((295..=300).contains(&batches), "{batches} batches");
    // With the batches' own share (header, relay times), at ±20 ms jitter.
    let per_record = bytes as f64 / n as f64;
    assert!(per_record < 16.0, "{per_record:.1} bytes a packet");
    let lost = page.iter().filter(|r| !r.fate.delivered()).count();
    assert!(lost > 200, "{lost} lost at 10 % each way");
}

#[test]
fn a_slow_page_is_thinned_probes_first_and_told_how_much() {
    let mut s = session(true);
    let mut bot = Bot::new();
    run_bot(&mut s, &mut bot, 1.0);
    s.host.trace_congested(true);
    run_bot(&mut s, &mut bot, 5.0);
    s.host.trace_congested(false);
    run_bot(&mut s, &mut bot, 1.0);
    let t = s.endpoint.trace().unwrap();
    let thinned = t.thinned().0;
    // 5 s at ~100 packets/s, 256 may wait: Pings and Pongs (~20/s) went
    // first, then net updates (20/s), then routine moves and Acks; a lost
    // packet never.
    assert!(thinned[0] >= 90, "{thinned:?}");
    assert!(thinned[1] > 80, "{thinned:?}");
    assert_eq!(thinned[3], 0, "{thinned:?}");
    let kept = |kind: PacketKind, from: f64, to: f64| {
        t.log()
            .between(SimTime::from_secs_f64(from), SimTime::from_secs_f64(to))
            .filter(|r| r.kind == kind && r.fate.delivered())
            .count()
    };
    // Of the congested stretch the moves kept their latest seconds; no
    // Ping that arrived is left (a lost one is named: kept).
    assert_eq!(kept(PacketKind::Ping, 1.1, 5.5), 0);
    assert!(kept(PacketKind::ServerMove, 4.0, 5.9) > 60);
    // Every lost packet is there.
    let lost = t.log().records().iter().filter(|r| !r.fate.delivered());
    assert!(lost.count() > 50);
}

#[test]
fn a_forged_or_greedy_request_is_refused_with_its_reason() {
    let mut host = ServerHost::new(1, SimTime::ZERO);
    for (request, reason) in [
        (
            TraceRequest {
                format: TRACE_FORMAT + 1,
                ..TraceRequest::default()
            },
            "bad settings: trace format = 3 is outside 2–2",
        ),
        (
            TraceRequest {
                budget_bytes_per_s: 1 << 30,
                ..TraceRequest::default()
            },
            "bad settings: trace budget (bytes/s) = 1073741824 is outside 1000–64000",
        ),
    ] {
        let frame = codec::encode(&ClientMsg::Trace(request));
        let err = host.receive_frame(SimTime::ZERO, &frame).unwrap_err();
        assert!(matches!(err, HostError::Settings(_)));
        assert_eq!(err.to_string(), reason);
        let answers = host.poll(SimTime::ZERO);
        let said: Vec<ServerMsg> = answers
            .iter()
            .map(|f| codec::decode::<ServerMsg>(f).unwrap())
            .collect();
        assert!(said.contains(&ServerMsg::Error {
            reason: reason.to_owned()
        }));
        host.poll(SimTime::from_millis(500));
        assert!(host.take_trace().is_empty());
    }
}

fn still(_: PlayerId, _: &RoomEndpoint) -> (Vec2, bool) {
    (Vec2::ZERO, false)
}

#[test]
fn both_ends_of_a_shot_see_it_and_its_verdict() {
    let mut s = RoomSession::new(RoomConfig::default(), 3).unwrap();
    let a = s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
    let b = s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
    for id in [a, b] {
        s.act(id, |e, _| e.request_trace(TraceRequest::default()));
    }
    for _ in 0..60 {
        s.step(FRAME, still);
    }
    let at = s
        .endpoint(a)
        .unwrap()
        .proxies()
        .get(b)
        .unwrap()
        .drawn_position();
    let seq = s.act(a, |e, now| e.fire(now, at)).unwrap().unwrap();
    for _ in 0..30 {
        s.step(FRAME, still);
    }
    for id in [a, b] {
        let e = s.endpoint(id).unwrap();
        let t = e.trace().unwrap();
        let shots: Vec<_> = t.shots().collect();
        assert_eq!(shots.len(), 1, "player {id:?}");
        assert_eq!((shots[0].shooter, shots[0].result.seq), (a, seq));
        assert!(shots[0].result.verdict.is_hit(), "{:?}", shots[0].result);
        assert_eq!(shots[0].result.target.map(|t| t.id), Some(b));
        // The player's own link, in their lanes.
        assert!(t.log().records().len() > 60);
    }
    // The shooter's lanes also have the shot and the verdict as packets.
    let log = s.endpoint(a).unwrap().trace().unwrap().log();
    let kinds: Vec<PacketKind> = log.records().iter().map(|r| r.kind).collect();
    assert!(kinds.contains(&PacketKind::Shot) && kinds.contains(&PacketKind::Verdict));
    // Net updates as the shooter's end saw them.
    let updates = s.endpoint(a).unwrap().events().updates().count();
    assert!(
        (25..=31).contains(&updates),
        "{updates} net updates in 1.5 s"
    );
}

/// A rollback room streams each connection's own trace (issue 22: a
/// match's packets in the page's lanes, as a CMC room's): at RTT 150 ms
/// and 10 % loss each way, the page that asked gathers its Inputs (up),
/// its Acks — one per tick — and States (down) with their fates, lost
/// ones among them, placed on its clock by its Pings; the player who did
/// not ask gets no batch; a forged request is refused with its reason.
#[test]
fn a_rollback_room_streams_each_players_own_trace() {
    use sim::endpoints::rollback_room::RollbackRoomHost;
    use sim::endpoints::trace::RelayTrace;
    use sim::rollback::{RollbackConfig, RollbackPredictor, TickRate};
    use sim::room::RoomClientMsg;
    let config = RollbackConfig::at_rate(TickRate::Hz60);
    let mut host = RollbackRoomHost::new(config, 2, 9, SimTime::ZERO).unwrap();
    let send = |host: &mut RollbackRoomHost, now, id, msg: ClientMsg| {
        let len = codec::encode(&msg).len();
        host.receive_msg(now, id, len, msg)
    };
    let (a, b) = (
        host.add_player(SimTime::ZERO).unwrap(),
        host.add_player(SimTime::ZERO).unwrap(),
    );
    let forged = TraceRequest {
        format: TRACE_FORMAT + 1,
        ..TraceRequest::default()
    };
    let refused = send(&mut host, SimTime::ZERO, b, ClientMsg::Trace(forged));
    assert_eq!(
        refused.unwrap_err().to_string(),
        "bad settings: trace format = 3 is outside 2–2"
    );
    let lossy = NetSettings::symmetric(150, 0, 10);
    send(
        &mut host,
        SimTime::ZERO,
        a,
        ClientMsg::SetNetSettings(lossy),
    )
    .unwrap();
    send(
        &mut host,
        SimTime::ZERO,
        a,
        ClientMsg::Trace(TraceRequest::default()),
    )
    .unwrap();
    let mut pages = [a, b].map(|id| {
        send(
            &mut host,
            SimTime::ZERO,
            id,
            ClientMsg::Room(RoomClientMsg::Join),
        )
        .unwrap();
        (id, RollbackPredictor::new(config).unwrap())
    });
    let mut trace = RelayTrace::default();
    let (mut batches_b, mut ping) = (0, 0);
    for ms in 1..=6_000u64 {
        let now = SimTime::from_millis(ms);
        for (_, id, frame) in host.poll_until(now) {
            match codec::decode::<ServerMsg>(&frame).unwrap() {
                ServerMsg::Rollback(m) => {
                    let page = pages.iter_mut().find(|(p, _)| *p == id).unwrap();
                    let _ = page.1.receive(m);
                }
                ServerMsg::Pong { id: n, .. } if id == a => trace.pong_arrived(n, now),
                _ => {}
            }
        }
        for (id, batch) in host.take_traces() {
            if id == a {
                let bytes = codec::encode(&ServerMsg::Trace(Box::new(batch.clone()))).len();
                trace.receive(now, &batch, bytes);
            } else {
                batches_b += 1;
            }
        }
        if ms % 16 != 0 {
            continue;
        }
        for (id, predictor) in &mut pages {
            for packet in predictor.frame(0.016, Vec2::new(1.0, 0.0), 0) {
                send(&mut host, now, *id, ClientMsg::Inputs(packet)).unwrap();
            }
        }
        if ms % 256 == 0 {
            ping += 1;
            trace.ping_sent(ping, now);
            send(&mut host, now, a, ClientMsg::Ping { id: ping }).unwrap();
        }
    }
    assert_eq!(batches_b, 0, "the player who did not ask gets no trace");
    let (batches, missed, bad, _) = trace.counts();
    assert_eq!((missed, bad), (0, 0));
    assert!((55..=60).contains(&batches), "{batches} batches in 6 s");
    assert_eq!(trace.start().map(|s| s.made), Some(SimTime::ZERO));
    let records = trace.log().records();
    let count = |kind| records.iter().filter(|r| r.kind == kind).count();
    // 60 Hz for 6 s (360 measured), less at most the last 100 ms still
    // batching.
    let acks = count(PacketKind::RollbackAck);
    assert!((350..=361).contains(&acks), "{acks} Acks");
    let states = count(PacketKind::State);
    assert!(
        (170..=181).contains(&states),
        "{states}: a State every 2 ticks"
    );
    let inputs = count(PacketKind::Inputs);
    assert!(
        (350..=375).contains(&inputs),
        "{inputs}: a packet every 16 ms frame"
    );
    let lost = records.iter().filter(|r| !r.fate.delivered()).count();
    assert!(
        (40..=160).contains(&lost),
        "{lost} of {} lost at 10 % each way",
        records.len()
    );
    // Placed on the page's clock by its Pings: one process, one clock.
    assert_eq!(trace.clock().map(|c| c.offset_us), Some(0));
}
