//! What the page's hot paths cost inside wasm, on the cases the native
//! benches measure (`scripts/bench.sh` divides one by the other):
//! the CMC client's replay, a rollback rebase of 2 and 8 players, a
//! rollback match's server tick and bytes, a room recording's and a
//! match recording's playback.
//! The inspector's scrub is in `scrub`.

use crate::clock::clock_ms;
use sim::endpoints::match_sample::MatchReport;
use sim::rollback::sync_test::{rebase_case, REBASE_TICKS};
use wasm_bindgen::prelude::wasm_bindgen;

/// Plays back the sample brawl (`sim::endpoints::room::sample::brawl`: 4
/// players for `seconds`) inside wasm as the page opens a room recording,
/// and returns JSON `{"players", "seconds", "ticks", "shots",
/// "identical", "build_ms", "seek_worst_ms"}`: the playback's build time
/// (`play`, after decoding the compact bytes) and the slowest of 1000
/// seeks spread over the room (the tick at the playhead, the shots up to
/// it and the first player's screen there, `RoomPlayback::screen`). Issue 23's budget: build ≤ 300 ms, worst seek ≤ 100 ms at 4
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
    let seat = p.seats.iter().find(|s| !s.bot).map(|s| s.id);
    let Some(seat) = seat else {
        return "error: the brawl has no player".to_owned();
    };
    let mut worst = 0.0f64;
    for k in 0..1000u64 {
        let t = start.plus_micros(span * k / 999);
        let began = clock_ms();
        let found = p.tick_at(t).map(|f| f.bodies.len()).unwrap_or(0) + p.shots_until(t).len();
        let drawn = p.screen(seat, t).map_or(0, |s| s.others.len());
        std::hint::black_box(found + drawn);
        worst = worst.max(clock_ms() - began);
    }
    format!(
        "{{\"players\":{BRAWL_PLAYERS},\"seconds\":{seconds},\"ticks\":{},\"shots\":{},\"identical\":{},\"build_ms\":{build_ms:.1},\"seek_worst_ms\":{worst:.3}}}",
        p.ticks.len(),
        p.shots.len(),
        p.identical()
    )
}

/// Plays back the golden 4-player rollback match
/// (`scenarios/matches/4p-rtt100-200-5pct.bin`: 63 s at 60 Hz) inside wasm
/// as the page opens a match recording, and returns JSON `{"players",
/// "ticks", "identical", "build_ms", "seek_worst_ms"}`: the playback's
/// build time (decoding, the replay with its hash check, the checkpoints)
/// and the slowest of 1000 seeks spread over the match, each what the
/// page does at a new tick (the world there and the second before it,
/// `crate::room::recorded_match`). Issue 23's budget for a room
/// applies: build ≤ 300 ms, worst seek ≤ 100 ms.
#[wasm_bindgen]
pub fn bench_match_playback() -> String {
    use sim::rollback::playback::MatchPlayback;
    use sim::rollback::MatchRecording;
    let bytes = include_bytes!("../../../scenarios/matches/4p-rtt100-200-5pct.bin");
    let started = clock_ms();
    let played = MatchRecording::from_bytes(bytes).and_then(MatchPlayback::play);
    let build_ms = clock_ms() - started;
    let p = match played {
        Ok(p) => p,
        Err(e) => return format!("error: {e}"),
    };
    let second = p.recording.config.tick_rate.hz() as usize;
    let mut worst = 0.0f64;
    for k in 0..1000 {
        let n = p.ticks() * k / 999;
        let began = clock_ms();
        let trail = p.worlds_between(n.saturating_sub(second), n);
        std::hint::black_box(trail);
        worst = worst.max(clock_ms() - began);
    }
    format!(
        "{{\"players\":{},\"ticks\":{},\"identical\":{},\"build_ms\":{build_ms:.1},\"seek_worst_ms\":{worst:.3}}}",
        p.recording.seats(),
        p.ticks(),
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

/// Benchmarks the client's replay inside wasm (issue #6) and returns the
/// mean time of one replaying tick, ns.
///
/// Same set-up as `replay_client/N` in `sim/benches/sim.rs`: a client
/// that predicted `moves + 1` frames of the bot's tour from spawn, and a
/// real Adjustment of the oldest move (a server told a location 50 cm
/// off). `iters` copies of that client get the Adjustment *before* the
/// clock starts (as criterion's `iter_batched` prepares inputs); then each
/// runs one `Client::tick`, which replays the `moves` moves left and
/// predicts the frame's own new move. `e2e/bench-wasm.mjs` calls it and
/// `scripts/bench.sh` divides by the native median of the same run.
/// `moves` is clamped to what the SavedMove queue holds (95); returns NaN
/// if the set-up fails.
#[wasm_bindgen]
pub fn bench_replay(moves: u32, iters: u32) -> f64 {
    use sim::{Bot, Client, MoveResponse, MovementParams, ServerCharacter, ServerConfig};
    use sim::{SimTime, SmoothingMode, Vec2, World};
    const FRAME: f64 = 1.0 / 60.0;
    let n = (moves as usize).clamp(1, sim::cmc::saved_move::MAX_SAVED_MOVE_COUNT - 1);
    let iters = iters.max(1);
    let world = World::arena();
    let params = MovementParams::default();
    let mut client = Client::new(params, world.spawn);
    let mut bot = Bot::new();
    let mut first = None;
    for _ in 0..10 * (n + 1) {
        if client.saved_moves().len() > n {
            break;
        }
        let (dir, dash) = bot.input(client.state().position, FRAME as f32);
        let m = client.tick(FRAME, dir, dash, SmoothingMode::Exponential, &world);
        if first.is_none() {
            first = m;
        }
    }
    let Some(mut wrong) = first.filter(|_| client.saved_moves().len() == n + 1) else {
        return f64::NAN;
    };
    wrong.client_location.y += 5_000;
    let mut server = ServerCharacter::new(params, ServerConfig::default(), world.spawn);
    let _ = server.receive_server_move(&wrong, SimTime::ZERO, &world);
    let Some(adjustment @ MoveResponse::Adjustment { .. }) = server.flush(SimTime::ZERO) else {
        return f64::NAN;
    };
    let mut batch: Vec<Client> = (0..iters)
        .map(|_| {
            let mut c = client.clone();
            c.handle_move_response(&adjustment, &world);
            c
        })
        .collect();
    let started = clock_ms();
    for c in &mut batch {
        let out = c.tick(
            FRAME,
            Vec2::new(1.0, 0.0),
            false,
            SmoothingMode::Exponential,
            &world,
        );
        std::hint::black_box(out);
    }
    let elapsed = clock_ms() - started;
    drop(std::hint::black_box(batch));
    elapsed * 1e6 / f64::from(iters)
}

#[cfg(test)]
mod tests {
    use super::*;

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
