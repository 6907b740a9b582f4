//! Wasm gives what native gives: the golden suite's exports. Each replays
//! or fingerprints inside wasm what a native test pins, and
//! `e2e/golden.test.mjs` compares the two — scenarios (`scenario_outcome`,
//! `scenario_verdict`), the link conditioner's fates, the rollback arena,
//! the golden room runs, rollback matches and room recordings.

use wasm_bindgen::prelude::wasm_bindgen;

/// Replays a scenario (its compact encoding, as
/// `GET /api/scenarios/{id}` with `Accept: application/octet-stream` serves
/// it) headless inside wasm and returns its outcome as
/// `"frames=<n> state=<16 hex> trajectory=<16 hex> adjustments=<n>
/// replayed=<n> acks=<n> moves=<n>"`, or `"error: <reason>"` for bytes that
/// do not decode. The browser test replays every file of the golden suite
/// (`scenarios/`) this way and compares with the outcome recorded
/// natively, bit for bit.
#[wasm_bindgen]
pub fn scenario_outcome(bytes: &[u8]) -> String {
    match sim::scenario::codec::decode(bytes) {
        Ok(s) => {
            let o = sim::ScenarioRun::run_to_end(s);
            format!(
                "frames={} state={:016x} trajectory={:016x} adjustments={} replayed={} acks={} moves={}",
                o.frames,
                o.state_hash,
                o.trajectory_hash,
                o.adjustments,
                o.replayed_moves,
                o.acks,
                o.moves_sent
            )
        }
        Err(e) => format!("error: {e}"),
    }
}

/// Opens a scenario of any version (its compact bytes, as a link or the
/// relay's store holds them), upgrades and replays it headless inside
/// wasm, and returns `"version=<saved as> frames=<n> trajectory=<16 hex>
/// verdict=<the verdict's sentence>"`, or `"error: <reason>"`. The browser
/// test replays the frozen corpus of old links (`scenarios/frozen/`) this
/// way and compares with the native replay's declaration.
#[wasm_bindgen]
pub fn scenario_verdict(bytes: &[u8]) -> String {
    use sim::scenario::{codec, Verdict};
    match codec::open(bytes) {
        Ok(d) => {
            let recorded = d.scenario.outcome.clone();
            let o = sim::ScenarioRun::run_to_end(d.scenario);
            format!(
                "version={} frames={} trajectory={:016x} verdict={}",
                d.saved_version,
                o.frames,
                o.trajectory_hash,
                Verdict::of(recorded.as_ref(), &o)
            )
        }
        Err(e) => format!("error: {e}"),
    }
}

/// The fate of a fixed packet sequence through a link conditioner inside
/// wasm, as 16 hex digits: `sim::net::conditioner::fate_fingerprint` with
/// `FINGERPRINT_CONDITIONS` (every impairment on). The browser test
/// compares it with the native value pinned in `sim/tests/conditioner.rs`.
#[wasm_bindgen]
pub fn fate_fingerprint(seed: u32, packets: u32) -> String {
    use sim::net::conditioner as c;
    let h = c::fate_fingerprint(u64::from(seed), c::FINGERPRINT_CONDITIONS, packets);
    format!("{h:016x}")
}

/// The 60 Hz arena's state hash after `ticks` ticks of random inputs for
/// both players drawn from `seed`, as 16 hex digits:
/// `sim::rollback::sync_test::arena_fingerprint` inside wasm. The browser
/// test compares `arena_fingerprint(7, 3600)` with the native value
/// pinned in `sim/tests/rollback_sync.rs` (`7d67cea529874cdf`): the same
/// step, quantization and hash give the same bits on both targets.
#[wasm_bindgen]
pub fn arena_fingerprint(seed: u32, ticks: u32) -> String {
    let h = sim::rollback::sync_test::arena_fingerprint(u64::from(seed), ticks);
    format!("{h:016x}")
}

/// The names of the golden room runs, comma-separated
/// (`sim::endpoints::room::reports::REPORT_RUNS`, one per public bug
/// report of issue #26), for the browser test to run each.
#[wasm_bindgen]
pub fn room_report_names() -> String {
    let names: Vec<&str> = sim::endpoints::room::reports::REPORT_RUNS
        .iter()
        .map(|r| r.name)
        .collect();
    names.join(",")
}

/// Runs the golden room run `name` inside wasm and returns
/// `"pinned=<16 hex> fingerprint=<16 hex> <measure>=<n> …"` (the pinned
/// value is the one `sim/tests/room_reports.rs` checks natively), or
/// `"error: no run <name>"`. `e2e/golden.test.mjs` asserts that the
/// fingerprint is the pinned one: the room, its links and its codec run
/// bit for bit alike on both targets.
#[wasm_bindgen]
pub fn room_report(name: &str) -> String {
    match sim::endpoints::room::reports::find(name) {
        Some(run) => format!("pinned={:016x} {}", run.pinned, (run.run)().line()),
        None => format!("error: no run {name}"),
    }
}

/// Replays a recorded rollback match (the compact bytes of
/// `scenarios/matches/<name>.bin`, `sim::rollback::MatchRecording`)
/// inside wasm and returns `"ticks=<n> digest=<16 hex> final=<16 hex>
/// mismatch=<first tick whose hash differs from the recorded one, or
/// none>"`, or `"error: <reason>"`. `e2e/golden.test.mjs` compares the
/// digest and final hash with the ones `sim/tests/golden_matches.rs`
/// checks natively.
#[wasm_bindgen]
pub fn match_replay(bytes: &[u8]) -> String {
    let replayed = sim::rollback::MatchRecording::from_bytes(bytes)
        .and_then(|rec| Ok((sim::rollback::recording::replay(&rec)?, rec)));
    match replayed {
        Ok((r, rec)) => format!(
            "ticks={} digest={:016x} final={:016x} mismatch={}",
            r.hashes.len(),
            r.digest(),
            r.final_hash().unwrap_or_default(),
            rec.first_mismatch(&r)
                .map_or("none".to_owned(), |t| t.0.to_string()),
        ),
        Err(e) => format!("error: {e}"),
    }
}

/// Replays a room recording's compact bytes
/// (`sim::endpoints::room::recording::RoomRecording::to_bytes`; a golden
/// file's `compact`, base64-decoded) inside wasm and returns its replay's
/// line, `"ticks=<n> last=<16 hex> shots=<n> hits=<n> digest=<16 hex>"`,
/// with ` diverges=<tick>` appended if a tick's hash differs from the one
/// recorded, or `"error: <reason>"`. `e2e/golden.test.mjs` compares it with
/// the file's `replay`, which `sim/tests/room_golden.rs` checks natively.
#[wasm_bindgen]
pub fn room_replay(bytes: &[u8]) -> String {
    use sim::endpoints::room::recording::RoomRecording;
    match RoomRecording::from_bytes(bytes).and_then(|r| sim::endpoints::room::replay::replay(&r)) {
        Ok(out) => match out.first_divergence {
            None => out.line(),
            Some(tick) => format!("{} diverges={tick}", out.line()),
        },
        Err(e) => format!("error: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_export_is_the_native_pin() {
        assert_eq!(arena_fingerprint(7, 3600), "7d67cea529874cdf");
    }

    #[test]
    fn the_room_replay_export_answers_a_golden_file_and_refuses_bad_bytes() {
        let text = include_str!("../../../scenarios/rooms/bot-respawn-leave.json");
        let file = sim::endpoints::room::recording::RoomRecordingFile::from_json(text).unwrap();
        let bytes = file.recording().unwrap().to_bytes().unwrap();
        assert_eq!(room_replay(&bytes), file.replay);
        assert_eq!(
            room_replay(&[7, 0]),
            "error: room recording version 7 is unknown (this build reads versions 1 to 2)"
        );
    }

    #[test]
    fn the_room_report_export_names_every_run_and_its_pin() {
        let names = room_report_names();
        let all: Vec<&str> = (sim::endpoints::room::reports::REPORT_RUNS.iter())
            .map(|r| r.name)
            .collect();
        assert_eq!(names, all.join(","));
        let line = room_report("lightyear-1450");
        assert!(
            line.starts_with("pinned=49a8b07ad8c51637 fingerprint=49a8b07ad8c51637 "),
            "{line}"
        );
        assert_eq!(room_report("nope"), "error: no run nope");
    }

    #[test]
    fn the_match_replay_export_gives_the_golden_files_digest() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/matches/");
        let bytes = std::fs::read(format!("{dir}2p-rtt100-200-5pct.bin")).unwrap();
        let json = std::fs::read_to_string(format!("{dir}2p-rtt100-200-5pct.json")).unwrap();
        let golden: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            match_replay(&bytes),
            format!(
                "ticks=3780 digest={} final={} mismatch=none",
                golden["digest"].as_str().unwrap(),
                golden["final_hash"].as_str().unwrap()
            )
        );
        assert!(match_replay(&bytes[..100]).starts_with("error: malformed match recording"));
    }
}
