//! Isolation (issue #7): a hostile client — garbage, text frames, floods of
//! moves, pings and Hellos, absurd time stamps and positions, settings out
//! of range, oversized frames, reconnecting whenever it is thrown out —
//! connected alongside a normal client does not change one Ack or
//! Adjustment the normal client gets.
//!
//! The normal client is a deterministic script run in lockstep (one move,
//! then wait for its response) with RTT 0 and both response intervals at
//! 0 ms, so the server answers every move and the answers depend only on
//! the moves: alone or not, the sequence must be identical. Every 25th
//! move reports a position 50 cm off (an Adjustment); every 60th dashes.

mod common;

use common::*;

use futures_util::{SinkExt, StreamExt};
use sim::cmc::rules::ServerRules;
use sim::cmc::wire::{MoveResponse, NetPosition, NetworkMove, ServerMove};
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::{perform_movement, CharacterState, MoveInput, NetSettings, TimeStamp, Vec2};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// Moves the normal client sends.
const MOVES: u32 = 240;
/// Client time per move, ms (and the wall-clock pace).
const STEP_MS: u32 = 16;

/// One response as the normal client saw it: time stamp and, for an
/// Adjustment, the reason and the state's hash.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    Ack(u32),
    Adjustment(u32, String, u64),
}

/// The scripted client; returns every response, in order.
async fn normal_client(url: &str) -> Vec<Seen> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    send(&mut ws, &ClientMsg::Hello).await;
    send(
        &mut ws,
        &ClientMsg::SetNetSettings(NetSettings::symmetric(0, 0, 0)),
    )
    .await;
    send(
        &mut ws,
        &ClientMsg::SetServerRules(ServerRules {
            ack_interval_ms: 0,
            adjustment_interval_ms: 0,
            ..ServerRules::default()
        }),
    )
    .await;
    let (world, params) = loop {
        match ws.next().await {
            Some(Ok(Message::Binary(b))) => {
                if let Ok(ServerMsg::Welcome { world, params, .. }) = codec::decode(&b) {
                    break (world, params);
                }
            }
            other => panic!("no Welcome: {other:?}"),
        }
    };
    let mut state = CharacterState::at(world.spawn);
    let mut seen = Vec::new();
    let pace = Duration::from_millis(u64::from(STEP_MS));
    let mut next_send = tokio::time::Instant::now();
    for i in 1..=MOVES {
        let ts = i * STEP_MS;
        let dir = HEADINGS[(i / 40) as usize % HEADINGS.len()];
        let input = MoveInput::from_direction(dir, i % 60 == 0);
        perform_movement(&mut state, &input, STEP_MS as f32 / 1000.0, &params, &world);
        let mut reported = state.position;
        if i % 25 == 0 {
            reported.x += 50.0;
        }
        tokio::time::sleep_until(next_send).await;
        next_send += pace;
        send(
            &mut ws,
            &ClientMsg::ServerMove(ServerMove::new(
                i,
                NetworkMove {
                    time_stamp: TimeStamp(ts),
                    input,
                },
                NetPosition::quantize(reported),
            )),
        )
        .await;
        // Lockstep: wait for this move's answer.
        let answer = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match ws.next().await {
                    Some(Ok(Message::Binary(b))) => match codec::decode::<ServerMsg>(&b) {
                        Ok(ServerMsg::MoveResponse(r)) => break r,
                        Ok(ServerMsg::Error { reason }) => panic!("normal client got {reason}"),
                        _ => {}
                    },
                    other => panic!("normal client's socket: {other:?}"),
                }
            }
        })
        .await
        .expect("an answer within 5 s");
        match answer {
            MoveResponse::Ack { time_stamp } => seen.push(Seen::Ack(time_stamp.0)),
            MoveResponse::Adjustment {
                time_stamp,
                state: s,
                reason,
            } => {
                seen.push(Seen::Adjustment(
                    time_stamp.0,
                    reason.label().to_string(),
                    s.state_hash(),
                ));
                state = s;
            }
        }
    }
    seen
}

/// The scripted walk's headings, 40 moves each.
const HEADINGS: [Vec2; 6] = [
    Vec2::new(1.0, 0.0),
    Vec2::new(0.0, 1.0),
    Vec2::new(-1.0, 0.0),
    Vec2::new(0.0, -1.0),
    Vec2::new(0.7, 0.7),
    Vec2::new(-0.7, 0.7),
];

/// What the hostile clients did.
#[derive(Debug, Default)]
struct Mischief {
    frames: AtomicU64,
    connections: AtomicU64,
    closed_by_server: AtomicU64,
    refused: AtomicU64,
}

/// One hostile connection's programme; loops until `stop`.
async fn hostile(url: String, stop: Arc<AtomicBool>, m: Arc<Mischief>, flavour: u64) {
    let mut round = 0u64;
    while !stop.load(Ordering::Relaxed) {
        round += 1;
        let Ok((ws, _)) = tokio_tungstenite::connect_async(&url).await else {
            m.refused.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        m.connections.fetch_add(1, Ordering::Relaxed);
        // Read (and discard) whatever comes back, so we are not a slow
        // reader; note when the server closes us.
        let (mut tx, mut rx) = ws.split();
        let mc = Arc::clone(&m);
        let reader = tokio::spawn(async move {
            while let Some(Ok(msg)) = rx.next().await {
                if let Message::Close(_) = msg {
                    mc.closed_by_server.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            }
        });
        let mut frames: Vec<Message> = Vec::new();
        let r = round.wrapping_mul(0x9e37_79b9).wrapping_add(flavour);
        match (flavour + round) % 5 {
            // Garbage of every kind.
            0 => {
                for k in 0..40u64 {
                    let x = r.wrapping_mul(k + 1);
                    frames.push(match k % 6 {
                        0 => Message::Binary(
                            vec![
                                sim::protocol::PROTOCOL_VERSION,
                                0xff,
                                0xff,
                                (x & 0xff) as u8,
                            ]
                            .into(),
                        ),
                        1 => Message::Binary(vec![(x % 250) as u8 + 2].into()),
                        2 => Message::Text("{\"hello\": 1}".into()),
                        3 => Message::Binary(vec![1u8; 3000].into()),
                        4 => Message::Binary(Vec::new().into()),
                        _ => {
                            let mut f = codec::encode(&ClientMsg::Ping { id: 1 });
                            f.extend_from_slice(&[0, 0, 0]);
                            Message::Binary(f.into())
                        }
                    });
                }
            }
            // A flood of moves with absurd values.
            1 => {
                for k in 0..2000u32 {
                    let mv = ClientMsg::ServerMove(ServerMove {
                        old_move: Some(NetworkMove {
                            time_stamp: TimeStamp(u32::MAX - k),
                            input: MoveInput {
                                accel_x: i16::MIN,
                                accel_y: i16::MAX,
                                flags: sim::foundation::movement::MoveFlags(0xff),
                            },
                        }),
                        pending_move: None,
                        new_move: NetworkMove {
                            time_stamp: TimeStamp(k.wrapping_mul(1_000_003)),
                            input: MoveInput {
                                accel_x: i16::MIN,
                                accel_y: i16::MIN,
                                flags: sim::foundation::movement::MoveFlags(0xff),
                            },
                        },
                        client_location: NetPosition {
                            x: i32::MIN,
                            y: i32::MAX,
                        },
                        seq: (k % 16) as u8,
                    });
                    frames.push(Message::Binary(codec::encode(&mv).into()));
                }
            }
            // Settings out of range, and Hello/ping floods.
            2 => {
                for k in 0..300u16 {
                    let msg = match k % 4 {
                        0 => ClientMsg::SetNetSettings(NetSettings::symmetric(
                            u16::MAX,
                            u16::MAX,
                            255,
                        )),
                        1 => ClientMsg::SetServerRules(ServerRules {
                            max_position_error_tenth_cm: 0,
                            forced_adjustment_percent: 255,
                            ..ServerRules::default()
                        }),
                        2 => ClientMsg::Hello,
                        _ => ClientMsg::Ping { id: u32::from(k) },
                    };
                    frames.push(Message::Binary(codec::encode(&msg).into()));
                }
            }
            // Valid settings churned as fast as possible (held and
            // coalesced), 100 % forced adjustments, 50 % loss, 1 s RTT.
            3 => {
                for k in 0..300u16 {
                    let msg = if k % 2 == 0 {
                        ClientMsg::SetNetSettings(NetSettings::symmetric(1000 - k, 100, 50))
                    } else {
                        ClientMsg::SetServerRules(ServerRules {
                            ack_interval_ms: 0,
                            adjustment_interval_ms: 0,
                            forced_adjustment_percent: 100,
                            ..ServerRules::default()
                        })
                    };
                    frames.push(Message::Binary(codec::encode(&msg).into()));
                }
            }
            // A frame over the socket's limit: the socket layer ends it.
            _ => frames.push(Message::Binary(vec![7u8; 64 * 1024].into())),
        }
        for f in frames {
            if tx.feed(f).await.is_err() {
                break;
            }
            m.frames.fetch_add(1, Ordering::Relaxed);
        }
        let _ = tx.flush().await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        reader.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_client_does_not_change_the_normal_clients_acks_and_adjustments() {
    // Alone.
    let relay = start().await;
    let alone = normal_client(&relay.ws_url("")).await;

    // With four hostile clients from the same address (the cap is 16),
    // each reconnecting after every programme.
    let relay = start().await;
    let url = relay.ws_url("");
    let stop = Arc::new(AtomicBool::new(false));
    let mischief = Arc::new(Mischief::default());
    let tasks: Vec<_> = (0..4)
        .map(|f| {
            tokio::spawn(hostile(
                url.clone(),
                Arc::clone(&stop),
                Arc::clone(&mischief),
                f,
            ))
        })
        .collect();
    // And one that never reads what the server sends.
    let (deaf, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let together = normal_client(&url).await;
    drop(deaf);
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        let _ = t.await;
    }

    let acks = |s: &[Seen]| s.iter().filter(|x| matches!(x, Seen::Ack(_))).count();
    let adjustments = |s: &[Seen]| s.len() - acks(s);
    println!(
        "normal client alone: {} acks, {} adjustments; with the hostile client: {} acks, {} adjustments",
        acks(&alone),
        adjustments(&alone),
        acks(&together),
        adjustments(&together)
    );
    println!("hostile client: {mischief:?}");
    assert_eq!(alone.len(), MOVES as usize);
    assert_eq!(adjustments(&alone), (MOVES / 25) as usize);
    assert_eq!(alone, together);
    assert!(mischief.frames.load(Ordering::Relaxed) > 1000);
    assert!(mischief.closed_by_server.load(Ordering::Relaxed) > 0);
    assert_eq!(mischief.refused.load(Ordering::Relaxed), 0);
}
