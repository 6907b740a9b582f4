//! What the browser tests and `scripts/bench.sh` call inside the wasm
//! besides the page: the rollback model's determinism pin and its
//! re-simulation benchmarks (beside `bench_replay` in the crate root, the
//! CMC model's), a rollback match's costs, the golden room runs, the
//! golden rollback matches and the golden room recordings.

use crate::clock::clock_ms;
use sim::endpoints::match_sample::MatchReport;
use sim::rollback::sync_test::{rebase_case, REBASE_TICKS};
use wasm_bindgen::prelude::wasm_bindgen;

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

/// Plays back the sample brawl (`sim::endpoints::room::sample::brawl`: 4
/// players for `seconds`) inside wasm as the page opens a room recording,
/// and returns JSON `{"players", "seconds", "ticks", "shots",
/// "identical", "build_ms", "seek_worst_ms"}`: the playback's build time
/// (`play`, after decoding the compact bytes) and the slowest of 1000
/// seeks spread over the room (the tick at the playhead and the shots up
/// to it). Issue 23's budget: build ≤ 300 ms, worst seek ≤ 100 ms at 4
/// players and 60 s; native: `room_playback` in `sim/benches/room.rs`.
#[wasm_bindgen]
pub fn bench_room_playback(seconds: u32) -> String {
    use sim::endpoints::room::playback::play;
    use sim::endpoints::room::recording::RoomRecording;
    use sim::endpoints::room::sample::{brawl, BRAWL_PLAYERS};
    let bytes = match brawl(seconds).to_bytes() {
        Ok(b) => b,
        Err(e) => return format!("error: {e}"),
    };
    let started = clock_ms();
    let played = RoomRecording::from_bytes(&bytes).and_then(|r| play(&r));
    let build_ms = clock_ms() - started;
    let p = match played {
        Ok(p) => p,
        Err(e) => return format!("error: {e}"),
    };
    let (start, end) = p.span();
    let span = end.micros_since(start);
    let mut worst = 0.0f64;
    for k in 0..1000u64 {
        let t = start.plus_micros(span * k / 999);
        let began = clock_ms();
        let found = p.tick_at(t).map(|f| f.bodies.len()).unwrap_or(0) + p.shots_until(t).len();
        std::hint::black_box(found);
        worst = worst.max(clock_ms() - began);
    }
    format!(
        "{{\"players\":{BRAWL_PLAYERS},\"seconds\":{seconds},\"ticks\":{},\"shots\":{},\"identical\":{},\"build_ms\":{build_ms:.1},\"seek_worst_ms\":{worst:.3}}}",
        p.ticks.len(),
        p.shots.len(),
        p.identical()
    )
}

/// Benchmarks a rollback inside wasm and returns the mean time of one, ns:
/// the case of `rollback_rebase/8` in `sim/benches/rollback.rs`
/// (`sim::rollback::sync_test::rebase_case(2)`: the 60 Hz arena, both
/// players' random inputs from seed 12, a client that predicted 108
/// ticks, the server's State for tick 100). `iters` copies of that client
/// are made before the clock starts; then each takes the State (hash
/// check, desync check of one tick) and rebases on it: restore and
/// re-simulate 8 ticks. `e2e/bench-wasm.mjs` calls it and
/// `scripts/bench.sh` divides by the native median of the same case.
/// Returns NaN if the set-up fails.
#[wasm_bindgen]
pub fn bench_rollback(iters: u32) -> f64 {
    time_rebase(2, iters)
}

/// [`bench_rollback`] with 8 players (issue 22's client rebase of a full
/// match): `rebase_case(8)`, 8 ticks of 8 players re-simulated, mean ns;
/// native: `match_rebase/8` in `sim/benches/rollback.rs`. Returns NaN if
/// the set-up fails.
#[wasm_bindgen]
pub fn bench_match_rebase(iters: u32) -> f64 {
    time_rebase(8, iters)
}

/// Mean ns of taking `rebase_case(players)`'s State and rebasing, over
/// `iters` clients; NaN if the set-up fails or a rebase did not
/// re-simulate every tick.
fn time_rebase(players: usize, iters: u32) -> f64 {
    let Some((client, state)) = rebase_case(players) else {
        return f64::NAN;
    };
    let mut batch: Vec<_> = (0..iters.max(1)).map(|_| client.clone()).collect();
    let started = clock_ms();
    for c in &mut batch {
        let ok = c.receive_state(state.clone()).is_ok() && c.rebase_if_due();
        std::hint::black_box(ok);
    }
    let elapsed = clock_ms() - started;
    let applied = batch
        .iter()
        .all(|c| c.counters().resimulated_ticks == u64::from(REBASE_TICKS));
    drop(std::hint::black_box(batch));
    if !applied {
        return f64::NAN;
    }
    elapsed * 1e6 / f64::from(iters.max(1))
}

/// Runs `seconds` s of a rollback match of `players` pages inside wasm
/// (`sim::endpoints::match_sample::MatchReport::measure`, the match
/// `match_report` in `sim/benches/rollback.rs` measures natively: the
/// relay's room with each page's predictor, bots, RTT 100 ms) and returns
/// its JSON: the room's tick mean / p50 / p99 (µs, on the browser's
/// `performance.now()`, 100 µs without cross-origin isolation: coarser
/// than a tick, so only the mean says much) and the bytes/s per page each
/// way (the same as natively: the same match); `"error: …"` outside 2–8
/// players.
#[wasm_bindgen]
pub fn bench_match(players: u32, seconds: u32) -> String {
    let mut clock = || clock_ms() * 1000.0;
    match MatchReport::measure(players as usize, seconds, &mut clock) {
        Some(r) => r.json(),
        None => format!("error: a match has 2 to 8 players, not {players}"),
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
        let text = include_str!("../../scenarios/rooms/bot-respawn-leave.json");
        let file = sim::endpoints::room::recording::RoomRecordingFile::from_json(text).unwrap();
        let bytes = file.recording().unwrap().to_bytes().unwrap();
        assert_eq!(room_replay(&bytes), file.replay);
        assert_eq!(
            room_replay(&[7, 0]),
            "error: room recording version 7 is unknown (this build reads version 1)"
        );
    }

    #[test]
    fn the_room_report_export_names_every_run_and_its_pin() {
        let names = room_report_names();
        assert_eq!(names.split(',').count(), 7);
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

    #[test]
    fn the_rollback_benches_re_simulate_eight_ticks_per_iteration() {
        let ns = bench_rollback(3);
        assert!(ns.is_finite() && ns > 0.0, "{ns}");
        let ns = bench_match_rebase(3);
        assert!(ns.is_finite() && ns > 0.0, "{ns}");
    }

    #[test]
    fn the_match_bench_answers_json_or_its_reason() {
        let line = bench_match(2, 1);
        assert!(line.starts_with("{\"players\":2,\"ticks\":60,"), "{line}");
        assert_eq!(
            bench_match(9, 1),
            "error: a match has 2 to 8 players, not 9"
        );
    }
}
