//! The golden scenario suite: every scenario file in `scenarios/` (JSON as
//! `GET /api/scenarios/{id}` serves it, or the compact bytes of
//! `Accept: application/octet-stream`) replays to the outcome recorded in
//! it, bit for bit — trajectory hash, final state hash, adjustments,
//! replayed moves, acks and moves sent. The browser end-to-end test replays
//! the same files in wasm. A scenario saved from the page joins the suite
//! by dropping its file in the folder; when a change of behaviour is meant,
//! `scenario bless scenarios/*` records the new outcomes.

mod common;

use common::{read_scenario, scenarios_dir};
use sim::{Scenario, ScenarioRun};
use std::path::PathBuf;

fn suite() -> Vec<(String, Scenario)> {
    let dir = scenarios_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, read_scenario(&path))
        })
        .collect()
}

#[test]
fn every_golden_scenario_replays_to_its_recorded_outcome() {
    let suite = suite();
    assert!(suite.len() >= 13, "the suite has {} files", suite.len());
    let mut differ = Vec::new();
    for (name, s) in suite {
        s.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let recorded = s
            .outcome
            .unwrap_or_else(|| panic!("{name}: no recorded outcome"));
        let got = ScenarioRun::run_to_end(s);
        println!(
            "{name:<48} {:>6} frames  trajectory {:016x}  adjustments {:>4}  {}",
            got.frames,
            got.trajectory_hash,
            got.adjustments,
            if got == recorded { "ok" } else { "DIFFERS" }
        );
        if got != recorded {
            differ.push(format!("{name}: recorded {recorded:?}\n  got {got:?}"));
        }
    }
    assert!(differ.is_empty(), "\n{}", differ.join("\n"));
}
