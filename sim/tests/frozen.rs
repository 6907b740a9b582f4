//! The frozen corpus of old links (`scenarios/frozen/`): one scenario
//! saved by each released layout of the scenario format, as the compact
//! bytes a link and the relay's store hold (`.bin`) and as the API's JSON
//! (`.json`), never edited after it lands. Each decodes as the version it
//! was saved as, upgrades to this build's, and replays to the trajectory
//! and the verdict `manifest.json` declares (`e2e/golden.test.mjs` checks
//! the `.bin` files in wasm against the same declarations).
//!
//! These tests are what makes a format change safe: they fail when
//! `SCENARIO_VERSION` changes without a decoder for the old version and a
//! frozen file of the new one (the steps are in `sim::scenario::migrate`),
//! and when a frozen file is edited.

mod common;

use common::{open_scenario, scenarios_dir};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use sim::scenario::{Verdict, SCENARIO_VERSION};
use sim::ScenarioRun;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// `scenarios/frozen/manifest.json`.
#[derive(Deserialize)]
struct Manifest {
    scenarios: Vec<Frozen>,
}

/// One frozen scenario, in both forms.
#[derive(Deserialize)]
struct Frozen {
    /// `v1a` for `v1a.bin` and `v1a.json`.
    stem: String,
    /// The version it was saved as.
    version: u16,
    /// SHA-256 of each form, as `sha256sum` prints it.
    sha256: Forms,
    /// What a replay with this build gives.
    replay: Replay,
}

#[derive(Deserialize)]
struct Forms {
    bin: String,
    json: String,
}

#[derive(Deserialize)]
struct Replay {
    /// The replay's trajectory hash, 16 hex digits.
    trajectory_hash: String,
    /// [`Verdict`]'s text for the replay against the recorded outcome.
    verdict: String,
}

fn dir() -> PathBuf {
    scenarios_dir().join("frozen")
}

fn manifest() -> Manifest {
    let text = std::fs::read(dir().join("manifest.json")).expect("scenarios/frozen/manifest.json");
    serde_json::from_slice(&text).expect("the manifest's JSON")
}

#[test]
fn every_version_up_to_this_builds_has_a_frozen_scenario() {
    let m = manifest();
    let versions: BTreeSet<u16> = m.scenarios.iter().map(|f| f.version).collect();
    let expected: BTreeSet<u16> = (1..=SCENARIO_VERSION).collect();
    assert_eq!(
        versions, expected,
        "scenarios/frozen/manifest.json holds versions {versions:?}; this build writes version \
         {SCENARIO_VERSION}, so it must hold every version from 1 to it (see sim::scenario::migrate: \
         adding a version)"
    );
    // And nothing else lies in the folder.
    let mut listed: BTreeSet<String> = m
        .scenarios
        .iter()
        .flat_map(|f| [format!("{}.bin", f.stem), format!("{}.json", f.stem)])
        .collect();
    listed.insert("manifest.json".into());
    let present: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(present, listed);
}

#[test]
fn no_frozen_file_was_edited() {
    let m = manifest();
    assert!(m.scenarios.len() >= SCENARIO_VERSION as usize);
    for f in &m.scenarios {
        for (ext, pinned) in [("bin", &f.sha256.bin), ("json", &f.sha256.json)] {
            let name = format!("{}.{ext}", f.stem);
            let bytes = std::fs::read(dir().join(&name)).unwrap();
            let got = format!("{:x}", Sha256::digest(&bytes));
            assert_eq!(
                &got, pinned,
                "{name} changed: a frozen scenario is never edited (freeze a new one instead)"
            );
        }
    }
}

#[test]
fn every_frozen_scenario_opens_upgrades_and_replays_as_declared() {
    let m = manifest();
    let mut replayed = 0;
    let mut wrong = Vec::new();
    for f in &m.scenarios {
        let bin = open_scenario(&dir().join(format!("{}.bin", f.stem)));
        let json = open_scenario(&dir().join(format!("{}.json", f.stem)));
        assert_eq!(bin.saved_version, f.version, "{}.bin", f.stem);
        assert_eq!(json.saved_version, f.version, "{}.json", f.stem);
        assert_eq!(bin.scenario.version, SCENARIO_VERSION, "upgraded");
        assert_eq!(
            json.scenario, bin.scenario,
            "{}: the link's bytes and the API's JSON read as the same scenario",
            f.stem
        );
        let s = bin.scenario;
        assert!(s.frames.len() >= 1200, "{}: a 20 s run", f.stem);
        let recorded = s.outcome.clone().expect("recorded with its outcome");
        let got = ScenarioRun::run_to_end(s);
        let verdict = Verdict::of(Some(&recorded), &got).to_string();
        let hash = format!("{:016x}", got.trajectory_hash);
        println!(
            "{} (version {}): trajectory {hash} (recorded {:016x}): {verdict}",
            f.stem, f.version, recorded.trajectory_hash
        );
        if (&hash, &verdict) != (&f.replay.trajectory_hash, &f.replay.verdict) {
            wrong.push(format!(
                "{}: declared {} / {:?}, replayed {hash} / {verdict:?}",
                f.stem, f.replay.trajectory_hash, f.replay.verdict
            ));
        }
        replayed += 1;
    }
    assert_eq!(replayed, m.scenarios.len());
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn a_scenario_of_this_builds_version_keeps_its_checkpoints_through_both_forms() {
    let m = manifest();
    let current = m
        .scenarios
        .iter()
        .find(|f| f.version == SCENARIO_VERSION)
        .expect("this build's version is frozen");
    let s = open_scenario(&dir().join(format!("{}.bin", current.stem))).scenario;
    let o = s.outcome.clone().unwrap();
    assert_eq!(
        o.checkpoints.len(),
        sim::scenario::checkpoint_count(s.duration_us())
    );
    // The checkpoints are the replay's own up to where the model changed
    // since (the manifest's verdict for it says from when): all 40, 0.5 s
    // apart, for version 5, frozen by the model of this build.
    let replayed = ScenarioRun::run_to_end(s).checkpoints;
    let same = o
        .checkpoints
        .iter()
        .zip(&replayed)
        .take_while(|(a, b)| a == b)
        .count();
    assert_eq!(same, 40, "{:?}\n{:?}", o.checkpoints, replayed);
}
