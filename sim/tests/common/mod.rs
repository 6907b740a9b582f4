//! Helpers shared by the `sim` integration tests: the golden suite's
//! scenario files (`scenarios/`) and playing a scenario with a look at
//! every frame; a rollback match on a virtual clock (`matches`); a recorded two-player room (`rooms`). (Each test binary uses a subset.)
#![allow(dead_code)]

pub mod matches;
pub mod rooms;

use sim::scenario::codec;
use sim::{AdjustmentReason, Bot, Client, LocalSession, Scenario, ScenarioRun};
use std::path::PathBuf;

/// One client frame at 60 Hz, s.
pub const FRAME: f64 = 1.0 / 60.0;

/// The folder of the golden scenario suite.
pub fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// Reads a scenario file of any version, upgraded: JSON (as `GET
/// /api/scenarios/{id}` serves it) or the compact bytes.
pub fn read_scenario(path: &std::path::Path) -> Scenario {
    open_scenario(path).scenario
}

/// Reads a scenario file of any version: upgraded, and the version it was
/// saved as.
pub fn open_scenario(path: &std::path::Path) -> codec::Decoded {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    codec::open_file(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The golden scenario `scenarios/<name>.json`.
pub fn golden(name: &str) -> Scenario {
    read_scenario(&scenarios_dir().join(format!("{name}.json")))
}

/// Plays `s` to the end, calling `each` after every frame.
pub fn play(s: Scenario, mut each: impl FnMut(&ScenarioRun)) -> ScenarioRun {
    let mut run = ScenarioRun::play(s);
    while run.step_recorded() {
        each(&run);
    }
    run
}

/// Runs `seconds` of bot-driven 60 Hz frames.
pub fn run_bot(s: &mut LocalSession, bot: &mut Bot, seconds: f64) {
    for _ in 0..(seconds / FRAME).round() as u64 {
        s.step_bot(bot, FRAME);
    }
}

/// Why each of the client's recent corrections happened, oldest first.
pub fn correction_reasons(client: &Client) -> Vec<AdjustmentReason> {
    client.corrections().iter().map(|c| c.reason).collect()
}
