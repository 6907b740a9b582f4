//! Criterion benchmarks of the inspector (issue: see every packet).
//!
//! | group | what one iteration is |
//! |---|---|
//! | `inspect_build/{cmc,rollback}` | `Inspection::of` a 60 s bot run at RTT 150 ms, 10 % loss: the recorded playback plus the checkpointed one |
//! | `inspect_seek/{cmc,rollback}` | the worst seek of that run: to the frame before a checkpoint, 59 frames re-simulated from the one before |
//!
//! The budget is a scrub of a 60 s run under 100 ms: a scrub is
//! one seek once the inspection is built (pausing builds it once).
//! Run: `cargo bench -p sim --bench inspect` (or `scripts/bench.sh`).

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{criterion_group, criterion_main, Criterion};
use sim::inspect::Inspection;
use sim::rollback::{BotPlayer, RollbackConfig};
use sim::scenario::Setup;
use sim::{Bot, Model, NetSettings, Scenario, ScenarioRun};
use std::hint::black_box;

const FRAME: f64 = 1.0 / 60.0;

/// 60 s of the bot (CMC) or the rollback bot player at RTT 150 ms, 10 %
/// loss, recorded.
fn sixty_seconds(model: Model) -> Scenario {
    let setup = Setup {
        net: NetSettings::symmetric(150, 10, 10),
        model,
        ..Setup::default()
    };
    let mut run = ScenarioRun::record("bench", 7, setup);
    let (mut bot, mut player) = (Bot::new(), BotPlayer::new(7));
    for _ in 0..3600 {
        let at = run.endpoint().position();
        let (dir, dash, fire) = match model {
            Model::Cmc => {
                let (dir, dash) = bot.input(at, FRAME as f32);
                (dir, dash, false)
            }
            Model::Rollback(_) => {
                let (dir, buttons) = player.input(at, FRAME as f32);
                (
                    dir,
                    buttons & sim::rollback::InputCmd::DASH != 0,
                    buttons & sim::rollback::InputCmd::FIRE != 0,
                )
            }
        };
        run.step_live(FRAME, dir, dash, fire);
    }
    run.stop_recording();
    run.scenario().clone()
}

fn inspect(c: &mut Criterion) {
    let cases = [
        ("cmc", sixty_seconds(Model::Cmc)),
        (
            "rollback",
            sixty_seconds(Model::Rollback(RollbackConfig::default())),
        ),
    ];
    let mut build = c.benchmark_group("inspect_build");
    build.sample_size(10);
    for (name, scenario) in &cases {
        build.bench_function(*name, |b| {
            b.iter(|| Inspection::of(black_box(scenario.clone())))
        });
    }
    build.finish();
    let mut seek = c.benchmark_group("inspect_seek");
    for (name, scenario) in &cases {
        let ins = Inspection::of(scenario.clone());
        let worst = 30 * ins.checkpoint_every() - 1;
        seek.bench_function(*name, |b| b.iter(|| ins.seek(black_box(worst))));
    }
    seek.finish();
}

criterion_group!(benches, inspect);
criterion_main!(benches);
