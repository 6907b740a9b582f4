//! Hostile input against the server end of a connection (issue #7).
//!
//! Invariants, for any sequence of frames a client can send:
//! - [`ServerHost::receive_frame`] and [`ServerHost::poll`] never panic;
//! - the answers waiting between two polls stay bounded
//!   ([`sim::host::MAX_IMMEDIATE`]);
//! - the authoritative character stays finite and inside the arena, and
//!   no move — whatever its time stamp — advances it by more than the
//!   0.125 s delta clamp allows (`000_…` §9.3).
//!
//! The client → server wire carries no float at all (acceleration is
//! `i16`, positions are `i32` 1/100 cm, time stamps `u32` ms), so NaN and
//! infinity cannot arrive; the nearest thing, full-scale and `i16::MIN`
//! acceleration or `i32::MIN` positions, is covered here.

use proptest::prelude::*;
use sim::host::MAX_IMMEDIATE;
use sim::movement::MoveFlags;
use sim::net::codec;
use sim::net::protocol::{
    ClientMsg, LinkSettings, NetPosition, NetworkMove, ServerMove, ServerRules,
};
use sim::{MoveInput, NetSettings, ServerHost, SimTime, TimeStamp, Vec2};

fn host() -> ServerHost {
    ServerHost::new(7, SimTime::ZERO)
}

fn network_move(ts: u32, ax: i16, ay: i16, flags: u8) -> NetworkMove {
    NetworkMove {
        time_stamp: TimeStamp(ts),
        input: MoveInput {
            accel_x: ax,
            accel_y: ay,
            flags: MoveFlags(flags),
        },
    }
}

fn arb_move() -> impl Strategy<Value = NetworkMove> {
    (any::<u32>(), any::<i16>(), any::<i16>(), any::<u8>())
        .prop_map(|(ts, ax, ay, f)| network_move(ts, ax, ay, f))
}

fn arb_client_msg() -> impl Strategy<Value = ClientMsg> {
    prop_oneof![
        Just(ClientMsg::Hello),
        (
            proptest::option::of(arb_move()),
            proptest::option::of(arb_move()),
            arb_move(),
            any::<i32>(),
            any::<i32>(),
            any::<u8>()
        )
            .prop_map(|(old_move, pending_move, new_move, x, y, seq)| {
                ClientMsg::ServerMove(ServerMove {
                    old_move,
                    pending_move,
                    new_move,
                    client_location: NetPosition { x, y },
                    seq: seq % ServerMove::SEQ_MODULUS,
                })
            }),
        (any::<u16>(), any::<u16>(), any::<u16>(), any::<u32>()).prop_map(
            |(latency_ms, jitter_ms, loss_tenth_percent, bandwidth_bytes_per_s)| {
                let link = LinkSettings {
                    latency_ms,
                    jitter_ms,
                    loss_tenth_percent,
                    bandwidth_bytes_per_s,
                    ..LinkSettings::simple(0, 0, 0)
                };
                ClientMsg::SetNetSettings(NetSettings {
                    uplink: link,
                    downlink: link,
                })
            }
        ),
        (
            any::<u16>(),
            any::<u16>(),
            any::<u16>(),
            any::<u8>(),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(a, b, c, d, e, f)| ClientMsg::SetServerRules(ServerRules {
                ack_interval_ms: a,
                adjustment_interval_ms: b,
                max_position_error_tenth_cm: c,
                forced_adjustment_percent: d,
                server_effects: e,
                time_discrepancy_resolution: f,
            })),
        any::<u32>().prop_map(|id| ClientMsg::Ping { id }),
    ]
}

/// A frame: mostly valid messages, some mutated, some pure noise.
fn arb_frame() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => arb_client_msg().prop_map(|m| codec::encode(&m)),
        2 => (arb_client_msg(), any::<usize>(), any::<u8>()).prop_map(|(m, i, b)| {
            let mut f = codec::encode(&m);
            let at = i % f.len();
            f[at] ^= b;
            f
        }),
        1 => (arb_client_msg(), any::<usize>()).prop_map(|(m, cut)| {
            let mut f = codec::encode(&m);
            f.truncate(cut % (f.len() + 1));
            f
        }),
        1 => proptest::collection::vec(any::<u8>(), 0..96),
    ]
}

/// Every character the host simulates, in either model, is finite and
/// inside the arena.
fn assert_sane(host: &ServerHost) {
    let size = host.world().size;
    let positions: Vec<Vec2> = match (host.cmc(), host.rollback()) {
        (Some(c), _) => {
            let s = c.state();
            assert!(
                s.velocity.x.is_finite() && s.velocity.y.is_finite(),
                "{s:?}"
            );
            vec![s.position]
        }
        (None, Some(r)) => r
            .snapshot()
            .players
            .iter()
            .map(|p| p.position.to_cm())
            .collect(),
        (None, None) => unreachable!("a host runs one model"),
    };
    for p in positions {
        assert!(p.x.is_finite() && p.y.is_finite(), "{p:?}");
        assert!(
            (0.0..=size.x).contains(&p.x) && (0.0..=size.y).contains(&p.y),
            "left the arena: {p:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any frame sequence: no panic, bounded answers, a sane character.
    #[test]
    fn any_frames_leave_the_host_sane(
        frames in proptest::collection::vec((arb_frame(), 0u64..200), 1..80),
    ) {
        let mut h = host();
        let mut now = SimTime::ZERO;
        for (frame, gap_ms) in frames {
            now = now.plus_millis(gap_ms);
            let _ = h.receive_frame(now, &frame);
            let out = h.poll(now);
            prop_assert!(out.iter().all(|f| f.len() <= codec::MAX_FRAME_LEN));
            assert_sane(&h);
        }
    }

    /// Many frames without a poll in between: the answers queue stays
    /// bounded (every frame below asks for an answer: Welcome or Error).
    #[test]
    fn unpolled_frames_queue_at_most_max_immediate_answers(
        frames in proptest::collection::vec(
            prop_oneof![Just(codec::encode(&ClientMsg::Hello)), proptest::collection::vec(any::<u8>(), 0..8)],
            1..400,
        ),
    ) {
        let mut h = host();
        for f in &frames {
            let _ = h.receive_frame(SimTime::ZERO, f);
        }
        let answers = h
            .poll(SimTime::ZERO)
            .iter()
            .filter(|f| !matches!(codec::decode::<sim::net::protocol::ServerMsg>(f), Ok(sim::net::protocol::ServerMsg::Observer(_))))
            .count();
        prop_assert!(answers <= MAX_IMMEDIATE, "{answers} answers");
    }

    /// Whatever time stamps a client claims, one packet (old + pending +
    /// new) advances the server by at most 3 × 0.125 s of movement: the
    /// delta clamp holds against time stamps far in the past, far in the
    /// future and across the wrap.
    #[test]
    fn time_stamps_cannot_inflate_dt(
        moves in proptest::collection::vec((any::<u32>(), any::<i16>(), any::<i16>()), 1..60),
    ) {
        let mut h = host();
        let mut now = SimTime::ZERO;
        let params = sim::MovementParams::default();
        for (i, (ts, ax, ay)) in (0u32..).zip(moves) {
            now = now.plus_millis(16);
            let before = h.cmc().unwrap().state().position;
            let m = ClientMsg::ServerMove(ServerMove::new(i, network_move(ts, ax, ay, 0), NetPosition::default()));
            h.receive_frame(now, &codec::encode(&m)).unwrap();
            // Default settings: 50 ms one way; deliver it.
            now = now.plus_millis(60);
            h.poll(now);
            let moved = (h.cmc().unwrap().state().position - before).length();
            // Max speed for 0.125 s, plus what a dash impulse can add.
            let bound = (params.max_speed + params.dash_impulse) * 0.125 + 1.0;
            prop_assert!(moved <= bound, "moved {moved} cm in one move (bound {bound})");
            assert_sane(&h);
        }
    }
}

#[test]
fn extreme_values_are_clamped_or_rejected_with_a_reason() {
    let mut h = host();
    let mut now = SimTime::ZERO;
    // i16::MIN acceleration and i32::MIN reported positions.
    for i in 1..=40u32 {
        now = now.plus_millis(16);
        let m = ClientMsg::ServerMove(ServerMove {
            old_move: Some(network_move(u32::MAX, i16::MIN, i16::MIN, 0xff)),
            pending_move: Some(network_move(i * 16 - 8, i16::MIN, i16::MAX, 0xff)),
            new_move: network_move(i * 16, i16::MIN, i16::MIN, 0xff),
            client_location: NetPosition {
                x: i32::MIN,
                y: i32::MAX,
            },
            seq: (i % 16) as u8,
        });
        h.receive_frame(now, &codec::encode(&m)).unwrap();
        h.poll(now);
        assert_sane(&h);
    }
    // A full-scale diagonal is no faster than a straight run: the direction
    // is clamped to length 1 (UE `ScaleInputAcceleration`).
    let diag = MoveInput {
        accel_x: i16::MIN,
        accel_y: i16::MIN,
        flags: MoveFlags(0),
    };
    assert!(diag.direction().length() <= 1.0 + 1e-6);

    // A time stamp 60 s ahead of the last one is inside UE's reset window
    // but still clamped to 0.125 s; 130 s ahead is rejected outright.
    let c0 = h.cmc().unwrap().counters();
    for (seq, ts, _) in [
        (41, 40 * 16 + 60_000, "clamped"),
        (42, 40 * 16 + 60_000 + 130_000, "rejected"),
    ] {
        now = now.plus_millis(16);
        let m = ClientMsg::ServerMove(ServerMove::new(
            seq,
            network_move(ts, 0, 0, 0),
            NetPosition::default(),
        ));
        h.receive_frame(now, &codec::encode(&m)).unwrap();
        now = now.plus_millis(100);
        h.poll(now);
    }
    let c1 = h.cmc().unwrap().counters();
    assert_eq!(c1.moves_clamped - c0.moves_clamped, 1);
    assert_eq!(c1.time_stamps_rejected - c0.time_stamps_rejected, 1);

    // Settings outside the slider ranges: refused with a reason naming the
    // field, nothing changed.
    let before = (h.settings(), h.rules());
    for (msg, field) in [
        (
            ClientMsg::SetNetSettings(NetSettings {
                uplink: LinkSettings::simple(1001, 0, 0),
                ..NetSettings::default()
            }),
            "uplink.latency_ms = 1001",
        ),
        (
            ClientMsg::SetNetSettings(NetSettings {
                downlink: LinkSettings::simple(50, u16::MAX, 0),
                ..NetSettings::default()
            }),
            "downlink.jitter_ms = 65535",
        ),
        (
            ClientMsg::SetNetSettings(NetSettings {
                uplink: LinkSettings::simple(50, 0, 51),
                ..NetSettings::default()
            }),
            "uplink.loss_tenth_percent = 510",
        ),
        (
            ClientMsg::SetServerRules(ServerRules {
                ack_interval_ms: 5000,
                ..ServerRules::default()
            }),
            "ack_interval_ms = 5000",
        ),
        (
            ClientMsg::SetServerRules(ServerRules {
                adjustment_interval_ms: 1001,
                ..ServerRules::default()
            }),
            "adjustment_interval_ms = 1001",
        ),
        (
            ClientMsg::SetServerRules(ServerRules {
                max_position_error_tenth_cm: 0,
                ..ServerRules::default()
            }),
            "max_position_error_tenth_cm = 0",
        ),
        (
            ClientMsg::SetServerRules(ServerRules {
                forced_adjustment_percent: 101,
                ..ServerRules::default()
            }),
            "forced_adjustment_percent = 101",
        ),
    ] {
        let err = h.receive_frame(now, &codec::encode(&msg)).unwrap_err();
        assert!(err.to_string().contains(field), "{err} lacks {field}");
        let errors: Vec<String> = h
            .poll(now)
            .iter()
            .filter_map(|f| match codec::decode(f) {
                Ok(sim::net::protocol::ServerMsg::Error { reason }) => Some(reason),
                _ => None,
            })
            .collect();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains(field), "{}", errors[0]);
    }
    assert_eq!((h.settings(), h.rules()), before);
}
