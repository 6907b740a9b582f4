//! The inspector's costs inside wasm ([`bench_scrub`]): what pausing a
//! run costs (building its inspection) and what a scrub costs (a seek),
//! on the run `sim/benches/inspect.rs` measures natively, so
//! `e2e/bench-wasm.mjs` can report wasm beside native.

use crate::clock::clock_ms;
use sim::inspect::{bot_run, Inspection};
use sim::rollback::RollbackConfig;
use sim::Model;
use wasm_bindgen::prelude::wasm_bindgen;

/// Builds the inspection of `seconds` s of the bot (CMC) or the rollback
/// bot player (`rollback`) at RTT 150 ms ± 10 ms and 10 % loss — the run
/// of `sim/benches/inspect.rs` — and times, in wasm: building it, every
/// worst-case seek (to the frame before each checkpoint: the most frames
/// re-simulated), seeks scattered back and forth over the run, and one
/// frame back from the end. Returns
/// `"frames=<n> build_ms=<ms> worst_seek_mean_ms=<ms> worst_seek_max_ms=<ms>
/// scattered_mean_ms=<ms> scattered_max_ms=<ms> step_back_ms=<ms>"`.
#[wasm_bindgen]
pub fn bench_scrub(seconds: u32, rollback: bool) -> String {
    let model = if rollback {
        Model::Rollback(RollbackConfig::default())
    } else {
        Model::Cmc
    };
    let scenario = bot_run(seconds, model);
    let frames = scenario.frames.len();
    let start = clock_ms();
    let ins = Inspection::of(scenario);
    let build_ms = clock_ms() - start;
    let every = ins.checkpoint_every();
    let worst: Vec<f64> = (1..=frames / every)
        .map(|k| timed(|| ins.seek(k * every - 1)))
        .collect();
    // Scattered: a stride coprime with the count visits every position
    // once, jumping back and forth.
    let n = 97;
    let scattered: Vec<f64> = (0..n)
        .map(|k| timed(|| ins.seek((k * 61 % n) * frames / n)))
        .collect();
    let step_back = timed(|| ins.seek(frames - 1));
    let (wm, wx) = mean_max(&worst);
    let (sm, sx) = mean_max(&scattered);
    format!(
        "frames={frames} build_ms={build_ms:.1} worst_seek_mean_ms={wm:.2} \
         worst_seek_max_ms={wx:.2} scattered_mean_ms={sm:.2} scattered_max_ms={sx:.2} \
         step_back_ms={step_back:.2}"
    )
}

/// Milliseconds `f` took (its result kept from the optimiser).
fn timed<T>(f: impl FnOnce() -> T) -> f64 {
    let start = clock_ms();
    std::hint::black_box(f());
    clock_ms() - start
}

fn mean_max(v: &[f64]) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    (mean, v.iter().copied().fold(0.0, f64::max))
}
