//! Criterion benchmarks of the prediction core (issue #6), public API only.
//!
//! | group | what one iteration is |
//! |---|---|
//! | `perform_movement/{run,turn,brake}` | one 1/60 s move at full speed: straight on, turning 90°, braking with no input |
//! | `replay_client/{10,60,95}` | one `Client::tick` right after an Adjustment of the oldest SavedMove: the replay of the N moves left plus the frame's own new move (the real code path; the queue holds at most 96 moves, like UE) |
//! | `replay_kernel/{10,60,240}` | the replay loop alone (`perform_movement` per SavedMove, rewriting start/end) over a queue of N moves, so 240 is reachable |
//! | `server/server_move` | decode a ServerMove frame → verify time stamp → simulate → check location → pending adjustment → `flush` |
//! | `codec/*` | encode / decode of a ServerMove (client → server) and an Ack / Adjustment (server → client) frame |
//! | `conditioner/per_packet` | `LinkConditioner::send` + `poll` of one packet at RTT 100 ms, jitter ±10 ms, loss 10 % |
//!
//! Moves come from the built-in bot's tour from spawn, so the mix of
//! running, turning, braking and sliding along walls is the page's.
//! `web-client`'s `bench_replay` runs `replay_client/N` with the same
//! set-up in wasm; `scripts/bench.sh` reports the two side by side.
//! Run: `cargo bench -p sim --bench sim` (or `scripts/bench.sh`).

#![allow(missing_docs)] // criterion_group! generates undocumented items

mod common;

use common::{bot_frames, frame_time, receive, replay_setup, typical_frame, FRAME};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use sim::cmc::saved_move::SavedMoveQueue;
use sim::net::codec;
use sim::net::conditioner::{LinkConditioner, LinkConditions};
use sim::protocol::{ClientMsg, ServerMsg};
use sim::{perform_movement, Bot, CharacterState, MoveInput, MovementParams, Vec2, World};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn perform_movement_step(c: &mut Criterion) {
    let (params, world) = (MovementParams::default(), World::arena());
    // A clear lane between the north wall and the pillars: no wall contact.
    let mut running = CharacterState::at(Vec2::new(900.0, 250.0));
    running.velocity = Vec2::new(600.0, 0.0);
    let cases = [
        ("run", Vec2::new(1.0, 0.0)),
        ("turn", Vec2::new(0.0, 1.0)),
        ("brake", Vec2::ZERO),
    ];
    let mut g = c.benchmark_group("perform_movement");
    g.throughput(Throughput::Elements(1));
    for (name, dir) in cases {
        let input = MoveInput::from_direction(dir, false);
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut s = black_box(running);
                perform_movement(&mut s, black_box(&input), FRAME as f32, &params, &world);
                s
            })
        });
    }
    g.finish();
}

fn replay_client(c: &mut Criterion) {
    let mut g = c.benchmark_group("replay_client");
    for n in [10usize, 60, 95] {
        let (client, adjustment, _, world) = replay_setup(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched(
                || {
                    let mut c = client.clone();
                    c.handle_move_response(&adjustment, &world);
                    c
                },
                |mut c| {
                    let _ = common::tick(&mut c, Vec2::new(1.0, 0.0), false, &world);
                    c
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

/// `n` SavedMoves of the bot's tour from spawn in a queue that holds them
/// all, and the state they start from.
fn saved_moves(n: usize) -> (SavedMoveQueue, CharacterState, World) {
    let (params, world) = (MovementParams::default(), World::arena());
    // A SavedMove to copy: the struct may grow fields; only these are set.
    let (template_client, _, _, _) = replay_setup(1);
    let template = *template_client.saved_moves().iter().next().expect("a move");
    let mut q = SavedMoveQueue::new(n);
    let mut bot = Bot::new();
    let start = CharacterState::at(world.spawn);
    let mut state = start;
    for i in 0..n {
        let (dir, dash) = bot.input(state.position, FRAME as f32);
        let mut m = template;
        m.input = MoveInput::from_direction(dir, dash);
        m.dt_ms = if i % 3 == 0 { 16 } else { 17 };
        m.time_stamp = sim::TimeStamp(17 * (i as u32 + 1));
        m.start = state;
        perform_movement(&mut state, &m.input, m.dt_secs(), &params, &world);
        m.end = state;
        q.push(m);
    }
    (q, start, world)
}

/// The replay loop as `Client` runs it (UE
/// `ClientUpdatePositionAfterServerUpdate`): every move again from the
/// snapped state, rewriting its start and end, collecting the path.
fn replay_kernel_run(
    q: &mut SavedMoveQueue,
    mut state: CharacterState,
    params: &MovementParams,
    world: &World,
) -> (CharacterState, Vec<Vec2>) {
    let mut path = Vec::with_capacity(q.len());
    for m in q.iter_mut() {
        m.start = state;
        let _ = perform_movement(&mut state, &m.input, m.dt_secs(), params, world);
        m.end = state;
        path.push(state.position);
    }
    (state, path)
}

fn replay_kernel(c: &mut Criterion) {
    let params = MovementParams::default();
    let mut g = c.benchmark_group("replay_kernel");
    for n in [10usize, 60, 240] {
        let (q, mut snap, world) = saved_moves(n);
        snap.position.y += 5.0;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched(
                || q.clone(),
                |mut q| {
                    let out = replay_kernel_run(&mut q, black_box(snap), &params, &world);
                    (q, out)
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

fn server_move(c: &mut Criterion) {
    let world = World::arena();
    // 100 s of the bot's tour, as frames on the wire.
    let frames = bot_frames(6000);
    let fresh = common::server(&world);
    let mut g = c.benchmark_group("server");
    g.throughput(Throughput::Elements(1));
    g.bench_function("server_move", |b| {
        b.iter_custom(|iters| {
            let mut server = fresh.clone();
            let started = Instant::now();
            for i in 0..iters {
                let k = (i % frames.len() as u64) as usize;
                if k == 0 && i > 0 {
                    // Time stamps start again: so does the character.
                    server = fresh.clone();
                }
                let now = frame_time(i);
                if let Ok(ClientMsg::ServerMove(m)) = codec::decode::<ClientMsg>(&frames[k]) {
                    black_box(receive(&mut server, &m, now, &world));
                }
                black_box(server.flush(now));
            }
            started.elapsed()
        })
    });
    g.finish();
}

fn codec_benches(c: &mut Criterion) {
    let typical = typical_frame(&bot_frames(6000));
    let server_move: ClientMsg = codec::decode(&typical).expect("decodes");
    let (_, adjustment, ack, _) = replay_setup(1);
    let ack = ServerMsg::MoveResponse(ack);
    let adjustment = ServerMsg::MoveResponse(adjustment);
    let (ack_frame, adj_frame) = (codec::encode(&ack), codec::encode(&adjustment));
    let mut g = c.benchmark_group("codec");
    g.throughput(Throughput::Elements(1));
    g.bench_function("encode_server_move", |b| {
        b.iter(|| codec::encode(black_box(&server_move)))
    });
    g.bench_function("decode_server_move", |b| {
        b.iter(|| codec::decode::<ClientMsg>(black_box(&typical)))
    });
    g.bench_function("encode_ack", |b| b.iter(|| codec::encode(black_box(&ack))));
    g.bench_function("decode_ack", |b| {
        b.iter(|| codec::decode::<ServerMsg>(black_box(&ack_frame)))
    });
    g.bench_function("encode_adjustment", |b| {
        b.iter(|| codec::encode(black_box(&adjustment)))
    });
    g.bench_function("decode_adjustment", |b| {
        b.iter(|| codec::decode::<ServerMsg>(black_box(&adj_frame)))
    });
    g.finish();
}

fn conditioner(c: &mut Criterion) {
    let msg: ClientMsg = codec::decode(&typical_frame(&bot_frames(600))).expect("decodes");
    let mut link = LinkConditioner::new(
        LinkConditions {
            latency_ms: 50,
            jitter_ms: 10,
            loss: 0.10,
            ..LinkConditions::PERFECT
        },
        7,
    );
    let mut i = 0u64;
    let mut g = c.benchmark_group("conditioner");
    g.throughput(Throughput::Elements(1));
    g.bench_function("per_packet", |b| {
        b.iter(|| {
            i += 1;
            let now = frame_time(i);
            link.send(now, 40, black_box(msg.clone()));
            while let Some(m) = link.poll(now) {
                black_box(m);
            }
        })
    });
    g.finish();
}

fn config() -> Criterion {
    // Short enough for a 2-core shared machine; criterion reports medians.
    Criterion::default()
        .warm_up_time(Duration::from_millis(800))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = perform_movement_step, replay_client, replay_kernel, server_move, codec_benches, conditioner
}
criterion_main!(benches);
