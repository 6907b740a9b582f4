//! Hostile input against the server end of a connection (issue #7).
//!
//! Invariants, for any sequence of frames a client can send:
//! - [`ServerHost::receive_frame`] and [`ServerHost::poll`] never panic;
//! - the answers waiting between two polls stay bounded
//!   ([`sim::endpoints::link::MAX_IMMEDIATE`]);
//! - the authoritative character stays finite and inside the arena, and
//!   no move — whatever its time stamp — advances it by more than the
//!   0.125 s delta clamp allows (`000_…` §9.3).
//!
//! - in the rollback model, input packets with any ticks, ids or inputs
//!   change nothing but the server's counters unless they are this
//!   match's, and a packet of more than 8 inputs is refused.
//!
//! The client → server wire carries no float at all (acceleration is
//! `i16`, positions are `i32` 1/100 cm, time stamps `u32` ms, rollback
//! sticks `i8`), so NaN and infinity cannot arrive; the nearest thing,
//! full-scale and `i16::MIN` acceleration or `i32::MIN` positions, is
//! covered here.

use proptest::prelude::*;
use sim::cmc::rules::ServerRules;
use sim::cmc::wire::{NetPosition, NetworkMove, ServerMove};
use sim::endpoints::link::MAX_IMMEDIATE;
use sim::foundation::movement::MoveFlags;
use sim::net::codec;
use sim::net::settings::LinkSettings;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::rollback::wire::{Ids, PackedInput, MAGIC, VERSION};
use sim::rollback::{InputPacket, RollbackConfig, RollbackServerMsg, Tick};
use sim::{Model, MoveInput, NetSettings, ServerHost, SimTime, TimeStamp, Vec2};

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
        (
            any::<bool>(),
            any::<u8>(),
            any::<u8>(),
            any::<u8>(),
            any::<u8>()
        )
            .prop_map(
                |(cmc, redundancy, hold_last_limit, state_interval, input_buffer)| {
                    ClientMsg::SetModel(if cmc {
                        Model::Cmc
                    } else {
                        Model::Rollback(RollbackConfig {
                            redundancy,
                            hold_last_limit,
                            state_interval,
                            input_buffer,
                            ..RollbackConfig::default()
                        })
                    })
                }
            ),
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            proptest::collection::vec((any::<u16>(), any::<i8>(), any::<i8>()), 0..9)
        )
            .prop_map(|(session, match_id, newest, inputs)| {
                ClientMsg::Inputs(InputPacket {
                    ids: Ids::new(session, match_id % 4, 0),
                    newest: Tick(newest),
                    inputs: inputs
                        .into_iter()
                        .map(|(buttons, move_x, move_y)| PackedInput {
                            buttons,
                            move_x,
                            move_y,
                        })
                        .collect(),
                })
            }),
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
            .filter(|f| !matches!(codec::decode::<sim::protocol::ServerMsg>(f), Ok(sim::protocol::ServerMsg::Observer(_))))
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
                Ok(sim::protocol::ServerMsg::Error { reason }) => Some(reason),
                _ => None,
            })
            .collect();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains(field), "{}", errors[0]);
    }
    assert_eq!((h.settings(), h.rules()), before);
}

/// A host in the rollback model on a perfect link, its client greeted, and
/// the match's ids (from the Start).
fn rollback_host() -> (ServerHost, Ids) {
    let mut h = host();
    let now = SimTime::ZERO;
    for m in [
        ClientMsg::SetNetSettings(NetSettings::symmetric(0, 0, 0)),
        ClientMsg::Hello,
        ClientMsg::SetModel(Model::Rollback(RollbackConfig::default())),
    ] {
        h.receive_msg(now, 1, m).unwrap();
    }
    let ids = h
        .poll(now)
        .iter()
        .find_map(|f| match codec::decode(f) {
            Ok(ServerMsg::Rollback(RollbackServerMsg::Start(s))) => Some(s.ids),
            _ => None,
        })
        .expect("a Start");
    (h, ids)
}

fn inputs(ids: Ids, newest: u32, n: usize) -> ClientMsg {
    ClientMsg::Inputs(InputPacket {
        ids,
        newest: Tick(newest),
        inputs: vec![
            PackedInput {
                buttons: u16::MAX,
                move_x: i8::MIN,
                move_y: i8::MAX,
            };
            n
        ],
    })
}

#[test]
fn rollback_inputs_with_absurd_ticks_or_foreign_ids_change_nothing_but_counters() {
    let (mut h, ids) = rollback_host();
    let mut now = SimTime::ZERO;
    let foreign = [
        Ids {
            magic: *b"XX",
            ..ids
        },
        Ids {
            version: VERSION + 1,
            ..ids
        },
        Ids {
            session: ids.session ^ 1,
            ..ids
        },
        Ids {
            match_id: ids.match_id + 1,
            ..ids
        },
        Ids { player: 1, ..ids },
    ];
    assert_eq!(MAGIC, *b"RB");
    for i in 0..60u32 {
        now = now.plus_millis(16);
        let tick = h.rollback().unwrap().server().tick().0;
        // Far ahead, far behind, across the wrap, and foreign ids.
        for newest in [tick + 10_000, tick.wrapping_sub(10_000), u32::MAX] {
            h.receive_frame(now, &codec::encode(&inputs(ids, newest, 8)))
                .unwrap();
        }
        let f = foreign[i as usize % foreign.len()];
        h.receive_frame(now, &codec::encode(&inputs(f, tick + 1, 8)))
            .unwrap();
        h.poll(now);
        assert_sane(&h);
    }
    let a = h.rollback().unwrap();
    let c = a.client_inputs();
    // Nothing was stored: the client's player never moved from its spawn.
    assert_eq!(c.received, 0, "{c:?}");
    assert_eq!(a.identity_rejected(), 60);
    assert_eq!(c.out_of_window + c.late, 60 * 3 * 8, "{c:?}");
    let spawn = sim::rollback::Arena::new(sim::rollback::TickRate::Hz60).initial(Tick(0));
    assert_eq!(a.snapshot().players[0].position, spawn.players[0].position);
}

#[test]
fn a_rollback_packet_of_more_than_8_inputs_is_refused_with_a_reason() {
    let (mut h, ids) = rollback_host();
    let frame = codec::encode(&inputs(ids, 5, 9));
    let err = h.receive_frame(SimTime::ZERO, &frame).unwrap_err();
    assert_eq!(
        err.to_string(),
        "input packet with 9 inputs: at most 8 per packet"
    );
    assert_eq!(h.uplink_stats().sent, 0, "it never entered the uplink");
    h.receive_frame(SimTime::ZERO, &codec::encode(&inputs(ids, 5, 8)))
        .unwrap();
}

#[test]
fn a_rollback_model_out_of_range_is_refused_and_nothing_changes() {
    let (mut h, _) = rollback_host();
    for (config, field) in [
        (
            RollbackConfig {
                redundancy: 0,
                ..RollbackConfig::default()
            },
            "redundancy = 0",
        ),
        (
            RollbackConfig {
                state_interval: 11,
                ..RollbackConfig::default()
            },
            "state_interval = 11",
        ),
        (
            RollbackConfig {
                max_prediction: Some(449),
                ..RollbackConfig::default()
            },
            "max_prediction = 449",
        ),
    ] {
        let msg = ClientMsg::SetModel(Model::Rollback(config));
        let err = h
            .receive_frame(SimTime::ZERO, &codec::encode(&msg))
            .unwrap_err();
        assert!(err.to_string().contains(field), "{err} lacks {field}");
        assert_eq!(h.model(), Model::Rollback(RollbackConfig::default()));
    }
    // From the CMC model too: no switch.
    h.receive_frame(
        SimTime::ZERO,
        &codec::encode(&ClientMsg::SetModel(Model::Cmc)),
    )
    .unwrap();
    let bad = ClientMsg::SetModel(Model::Rollback(RollbackConfig {
        hold_last_limit: 13,
        ..RollbackConfig::default()
    }));
    assert!(h
        .receive_frame(SimTime::ZERO, &codec::encode(&bad))
        .is_err());
    assert_eq!(h.model(), Model::Cmc);
}
