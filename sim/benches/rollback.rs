//! Criterion benchmarks of the rollback model (issue #12), public API only.
//!
//! | group | what one iteration is |
//! |---|---|
//! | `rollback_step/arena_2p_16` | one `Arena::step` with 2 players running and 16 projectiles in flight |
//! | `rollback_rebase/8` | `RollbackClient::receive_state` + `rebase_if_due` of a State 8 ticks old: hash check, desync check (1 tick), restore, 8 re-simulated ticks |
//! | `sync_test_vs_ggrs/ours` | one tick of our `SyncTest` with check distance 8: 1 step + rewind 8 + 8 re-simulated steps, every state hashed |
//! | `sync_test_vs_ggrs/ggrs` | one `advance_frame` of ggrs 0.13's `SyncTestSession` with check distance 8 on the same `Snapshot`, the same step (`Arena::step_in_place`, as ours) and the same hash (computed on every save), requests fulfilled as ggrs documents |
//! | `sync_test_vs_ggrs/ours_client` | one client tick plus a rebase that re-simulates 8 ticks (the real client path, no per-tick hashing) |
//! | `sync_test_machinery/{ours,ggrs}` | the same two sync tests on `001_…` §3's 1-D world (an `i32` and a tick): what each costs besides the game |
//! | `match_tick/{2,4,8}` | one server tick of a rollback match of 2 / 4 / 8 players (issue 22): each player's input packet (4 inputs) delivered, `MatchServer::run_tick`, an Ack to every player and, every other tick, a State to every player |
//! | `match_rebase/8` | `rollback_rebase/8` in a match of 8 players (issue 22): `sync_test::rebase_case(8)`, 8 ticks of 8 players re-simulated |
//!
//! Inputs are random (stick, fire 30 %, dash 5 %) from a fixed seed, the
//! same for every contender.
//!
//! After criterion, one JSON line (`match_report`, issue 22): per match
//! of 2 / 4 / 8 pages, `sim::endpoints::match_sample::MatchReport` over
//! 10 s at 60 Hz — the relay's room (`RollbackRoomHost`) with each page's
//! `RollbackPredictor` driven by a bot on the default link (RTT 100 ms):
//! the room's tick p50 / p99 (decode, deliver, `poll_until`) and the
//! bytes/s per player each way. Run: `cargo bench -p sim --bench rollback`
//! (`-- match` for issue 22's numbers alone).

#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{Criterion, Throughput};
use ggrs::{Config, GgrsRequest, PredictRepeatLast, SessionBuilder};
use rand_core::SeedableRng;
use rand_pcg::Pcg32;
use sim::endpoints::match_sample::MatchReport;
use sim::rollback::arena::PLAYERS;
use sim::rollback::snapshot::{MmVec, Projectile};
use sim::rollback::sync_test::{random_input, rebase_case};
use sim::rollback::{
    Arena, Game, InputCmd, RollbackClient, RollbackServer, Snapshot, StateUpdate, SyncTest, Tick,
    TickRate,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Pre-drawn random inputs, both players per tick.
fn inputs(ticks: usize) -> Vec<[InputCmd; PLAYERS]> {
    let mut rng = Pcg32::seed_from_u64(12);
    (0..ticks as u32)
        .map(|t| {
            [
                random_input(&mut rng, Tick(t)),
                random_input(&mut rng, Tick(t)),
            ]
        })
        .collect()
}

fn busy_snapshot(arena: &Arena) -> Snapshot {
    let mut s = arena.initial(Tick(0));
    s.players[0].velocity = MmVec { x: 6000, y: 0 };
    s.players[1].velocity = MmVec { x: 0, y: -6000 };
    // 16 projectiles in the open middle lanes, far from both players.
    s.projectiles = (0..16)
        .map(|i| Projectile {
            owner: (i % 2) as u8,
            position: MmVec {
                x: 3_000 + 1_000 * (i % 8),
                y: 2_500 + 10_000 * (i / 8),
            },
            velocity: MmVec { x: 250, y: 0 },
            life: 60,
        })
        .collect();
    s
}

fn step(c: &mut Criterion) {
    let arena = Arena::new(TickRate::Hz60);
    let s = busy_snapshot(&arena);
    let input = [
        InputCmd::from_direction(Tick(0), sim::Vec2::new(1.0, 0.0), 0),
        InputCmd::from_direction(Tick(0), sim::Vec2::new(0.0, -1.0), 0),
    ];
    assert_eq!(arena.step(&s, &input).projectiles.len(), 16);
    let mut g = c.benchmark_group("rollback_step");
    g.throughput(Throughput::Elements(1));
    g.bench_function("arena_2p_16", |b| {
        b.iter(|| arena.step(black_box(&s), black_box(&input)))
    });
    g.finish();
}

/// The server's States for `ticks` ticks of `inputs` (1 tick of inputs
/// each, so every State can be desync-checked against the previous one).
fn timeline(inputs: &[[InputCmd; PLAYERS]]) -> Vec<StateUpdate<Snapshot>> {
    let arena = Arena::new(TickRate::Hz60);
    let mut server = RollbackServer::new(arena.clone(), arena.initial(Tick(0)), 6);
    inputs
        .iter()
        .map(|i| {
            for (p, cmd) in i.iter().enumerate() {
                server.receive_inputs(p, &[cmd.at(server.tick())]).unwrap();
            }
            server.advance();
            server.state_update(1)
        })
        .collect()
}

/// Runs `iters` client ticks, each followed by a rebase on the State 8
/// ticks back; the set-up between timeline passes is not timed.
fn client_with_rebase(
    iters: u64,
    inputs: &[[InputCmd; PLAYERS]],
    states: &[StateUpdate<Snapshot>],
) -> Duration {
    let arena = Arena::new(TickRate::Hz60);
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let mut client = RollbackClient::new(arena.clone(), arena.initial(Tick(0)), 0, None);
        for i in inputs.iter().take(8) {
            client.advance(i[0]).unwrap();
        }
        let n = left.min(states.len() as u64 - 9) as usize;
        let start = Instant::now();
        for k in 0..n {
            client.advance(inputs[k + 8][0]).unwrap();
            client.receive_state(states[k].clone()).unwrap();
            client.rebase_if_due();
        }
        total += start.elapsed();
        black_box(client.predicted());
        left -= n as u64;
    }
    total
}

/// `rebase_case(players)`'s State taken and rebased on, per iteration
/// (a fresh copy of the client each time, not timed).
fn rebase_on_case(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    players: usize,
) {
    let (client, state) = rebase_case(players).expect("2..=8 players");
    g.throughput(Throughput::Elements(8));
    g.bench_function(id, |b| {
        b.iter_batched_ref(
            || (client.clone(), state.clone()),
            |(c, s)| {
                c.receive_state(s.clone()).unwrap();
                c.rebase_if_due()
            },
            criterion::BatchSize::LargeInput,
        )
    });
}

fn rebase(c: &mut Criterion) {
    let mut g = c.benchmark_group("rollback_rebase");
    rebase_on_case(&mut g, "8", 2);
    g.finish();
}

fn match_rebase(c: &mut Criterion) {
    let mut g = c.benchmark_group("match_rebase");
    rebase_on_case(&mut g, "8", 8);
    g.finish();
}

struct GgrsArena;
impl Config for GgrsArena {
    type Input = InputCmd;
    type InputPredictor = PredictRepeatLast;
    type State = Snapshot;
    type Address = std::net::SocketAddr;
}

fn versus_ggrs(c: &mut Criterion) {
    let inputs = inputs(4_000);
    let states = timeline(&inputs);
    let mut g = c.benchmark_group("sync_test_vs_ggrs");
    g.throughput(Throughput::Elements(1));
    g.bench_function("ours", |b| {
        let arena = Arena::new(TickRate::Hz60);
        let mut sync = SyncTest::new(arena.clone(), arena.initial(Tick(0)), 8);
        let mut i = 0;
        b.iter(|| {
            sync.advance(&inputs[i % inputs.len()]);
            i += 1;
        });
        assert!(sync.mismatches().is_empty());
    });
    g.bench_function("ggrs", |b| {
        let arena = Arena::new(TickRate::Hz60);
        let mut session = SessionBuilder::<GgrsArena>::new()
            .with_num_players(PLAYERS)
            .unwrap()
            .with_max_prediction_window(9)
            .with_check_distance(8)
            .start_synctest_session()
            .unwrap();
        let mut state = arena.initial(Tick(0));
        let mut i = 0;
        b.iter(|| {
            let frame = &inputs[i % inputs.len()];
            i += 1;
            for (p, cmd) in frame.iter().enumerate() {
                session.add_local_input(p, *cmd).unwrap();
            }
            for request in session.advance_frame().unwrap() {
                match request {
                    GgrsRequest::SaveGameState { cell, frame } => {
                        let hash = u128::from(state.state_hash());
                        cell.save(frame, Some(state.clone()), Some(hash));
                    }
                    GgrsRequest::LoadGameState { cell, .. } => {
                        state = cell.load().unwrap();
                    }
                    GgrsRequest::AdvanceFrame { inputs } => {
                        let cmds = [inputs[0].0, inputs[1].0];
                        arena.step_in_place(&mut state, &cmds);
                    }
                }
            }
        });
    });
    g.bench_function("ours_client", |b| {
        b.iter_custom(|iters| client_with_rebase(iters, &inputs, &states))
    });
    g.finish();
}

/// `001_…` §3's 1-D world: a state so small that a sync test measures
/// its own bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineState {
    tick: Tick,
    x: i32,
}

struct Line;
impl Game for Line {
    type State = LineState;
    fn players(&self) -> usize {
        PLAYERS
    }
    fn tick(s: &LineState) -> Tick {
        s.tick
    }
    fn step(&self, s: &LineState, inputs: &[InputCmd]) -> LineState {
        LineState {
            tick: s.tick.next(),
            x: s.x + i32::from(inputs[0].move_x.signum()) - i32::from(inputs[1].move_x.signum()),
        }
    }
    fn state_hash(s: &LineState) -> u64 {
        sim::foundation::hash::Fnv64::new()
            .u32(s.tick.0)
            .u32(s.x as u32)
            .finish()
    }
    fn divergence(&self, a: &LineState, b: &LineState, _: usize) -> sim::rollback::Divergence {
        sim::rollback::Divergence {
            position_mm: a.x.abs_diff(b.x),
            discrete: false,
        }
    }
}

struct GgrsLine;
impl Config for GgrsLine {
    type Input = InputCmd;
    type InputPredictor = PredictRepeatLast;
    type State = LineState;
    type Address = std::net::SocketAddr;
}

fn machinery(c: &mut Criterion) {
    let inputs = inputs(4_000);
    let start = LineState {
        tick: Tick(0),
        x: 0,
    };
    let mut g = c.benchmark_group("sync_test_machinery");
    g.throughput(Throughput::Elements(1));
    g.bench_function("ours", |b| {
        let mut sync = SyncTest::new(Line, start, 8);
        let mut i = 0;
        b.iter(|| {
            sync.advance(&inputs[i % inputs.len()]);
            i += 1;
        });
    });
    g.bench_function("ggrs", |b| {
        let mut session = SessionBuilder::<GgrsLine>::new()
            .with_num_players(PLAYERS)
            .unwrap()
            .with_max_prediction_window(9)
            .with_check_distance(8)
            .start_synctest_session()
            .unwrap();
        let mut state = start;
        let mut i = 0;
        b.iter(|| {
            let frame = &inputs[i % inputs.len()];
            i += 1;
            for (p, cmd) in frame.iter().enumerate() {
                session.add_local_input(p, *cmd).unwrap();
            }
            for request in session.advance_frame().unwrap() {
                match request {
                    GgrsRequest::SaveGameState { cell, frame } => {
                        cell.save(
                            frame,
                            Some(state),
                            Some(u128::from(Line::state_hash(&state))),
                        );
                    }
                    GgrsRequest::LoadGameState { cell, .. } => state = cell.load().unwrap(),
                    GgrsRequest::AdvanceFrame { inputs } => {
                        state = Line.step(&state, &[inputs[0].0, inputs[1].0]);
                    }
                }
            }
        });
    });
    g.finish();
}

fn match_tick(c: &mut Criterion) {
    use sim::rollback::wire::{InputPacket, PackedInput};
    use sim::rollback::{MatchServer, RollbackConfig};
    let mut group = c.benchmark_group("match_tick");
    for players in [2, 4, 8] {
        let mut m = MatchServer::new(RollbackConfig::default(), players, 1).unwrap();
        let ids: Vec<_> = (0..players)
            .map(|i| m.join(100 + i as u32).unwrap().ids)
            .collect();
        let mut rng = Pcg32::seed_from_u64(22);
        let mut out = Vec::new();
        group.bench_function(players.to_string(), |b| {
            b.iter(|| {
                let t = m.state().tick;
                for ids in &ids {
                    let inputs = (0..4)
                        .map(|k| PackedInput::pack(&random_input(&mut rng, t.minus(k))))
                        .collect();
                    let packet = InputPacket {
                        ids: *ids,
                        newest: t,
                        inputs,
                    };
                    let _ = black_box(m.deliver(&packet));
                }
                out.clear();
                m.run_tick(&mut out);
                black_box(out.len())
            });
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    step(&mut c);
    rebase(&mut c);
    versus_ggrs(&mut c);
    machinery(&mut c);
    match_tick(&mut c);
    match_rebase(&mut c);
    c.final_summary();
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !filters.is_empty() && !filters.iter().any(|f| "match_report".contains(f.as_str())) {
        return;
    }
    let started = Instant::now();
    let mut clock = || started.elapsed().as_secs_f64() * 1e6;
    let rows: Vec<String> = [2, 4, 8]
        .iter()
        .map(|&n| {
            MatchReport::measure(n, 10, &mut clock)
                .expect("2..=8 players")
                .json()
        })
        .collect();
    println!("{{\"match\":[{}]}}", rows.join(","));
}
