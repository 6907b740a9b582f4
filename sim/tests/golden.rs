//! The golden scenario suite: every scenario file in `scenarios/` (JSON as
//! `GET /api/scenarios/{id}` serves it, or the compact bytes of
//! `Accept: application/octet-stream`; version 2 files are upgraded as
//! they are read) replays to the outcome recorded in it, bit for bit —
//! trajectory hash, final state hash, adjustments, replayed moves, acks
//! and moves sent, and the checkpoints when the file has them.
//! (`scenarios/frozen/`, the old links, is `tests/frozen.rs`.) The browser end-to-end test replays
//! the same files in wasm. A scenario saved from the page joins the suite
//! by dropping its file in the folder; when a change of behaviour is meant,
//! `scenario bless scenarios/*` records the new outcomes.

mod common;

use common::{read_scenario, scenarios_dir};
use sim::scenario::Verdict;
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
    assert!(suite.len() >= 18, "the suite has {} files", suite.len());
    let mut differ = Vec::new();
    for (name, s) in suite {
        s.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let recorded = s
            .outcome
            .clone()
            .unwrap_or_else(|| panic!("{name}: no recorded outcome"));
        let got = ScenarioRun::run_to_end(s);
        let verdict = Verdict::of(Some(&recorded), &got);
        println!(
            "{name:<48} {:>6} frames  trajectory {:016x}  adjustments {:>4}  {verdict}",
            got.frames, got.trajectory_hash, got.adjustments,
        );
        if verdict != Verdict::Identical {
            differ.push(format!("{name}: recorded {recorded:?}\n  got {got:?}"));
        }
    }
    assert!(differ.is_empty(), "\n{}", differ.join("\n"));
}

/// Plays the golden file `name` to its end.
fn played(name: &str) -> ScenarioRun {
    let (_, s) = suite()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} is in the suite"));
    let mut run = ScenarioRun::play(s);
    while run.step_recorded() {}
    run
}

#[test]
fn the_rollback_golden_runs_show_what_their_descriptions_say() {
    for name in [
        "rollback-bot-150ms-5pct.json",
        "rollback-120hz-redundancy1-lag-spike.json",
        "rollback-tick-wrap.json",
    ] {
        let mut run = played(name);
        let m = run
            .metrics()
            .rollback
            .expect("the rollback model at the end");
        let p = run.endpoint().rollback().unwrap();
        println!("{name}: {m:?}, {:?}", p.counters());
        assert_eq!(m.hash_mismatches, 0, "{name}");
        assert!(m.hash_checks > 100, "{name}: {m:?}");
        match name {
            "rollback-bot-150ms-5pct.json" => {
                assert!(m.rollbacks > 0 && m.rebases > 700, "{m:?}");
            }
            "rollback-120hz-redundancy1-lag-spike.json" => {
                assert_eq!(p.counters().starts, 2, "a new match at 120 Hz");
                assert_eq!(p.client().unwrap().game().rate().hz(), 120);
                // One lost packet is one missed tick without redundancy.
                assert!(m.missed_inputs > 50, "{m:?}");
            }
            _ => {
                assert_eq!(p.counters().identity_rejected, 0);
                assert!(p.tick().unwrap().0 < 300, "past the wrap");
            }
        }
    }
    // The switch run ends in the CMC model, having been through rollback.
    let run = played("switch-cmc-rollback-cmc.json");
    assert!(run.endpoint().cmc().is_some());
}
