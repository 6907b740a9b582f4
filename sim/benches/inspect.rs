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
use sim::inspect::{bot_run, Inspection};
use sim::rollback::RollbackConfig;
use sim::Model;
use std::hint::black_box;

fn inspect(c: &mut Criterion) {
    let cases = [
        ("cmc", bot_run(60, Model::Cmc)),
        (
            "rollback",
            bot_run(60, Model::Rollback(RollbackConfig::default())),
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
