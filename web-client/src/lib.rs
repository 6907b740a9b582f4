//! Browser front end of Netcode Playground.
//!
//! The crate is built as a `cdylib` for `wasm32-unknown-unknown` by Trunk
//! (see `Trunk.toml`). Loading works like this:
//!
//! 1. `www/index.html` loads miniquad's `gl.js` (copied from the miniquad
//!    crate actually compiled by `scripts/patch-glue.sh`), which defines the
//!    global `importObject.env` that miniquad's ~100 wasm imports need.
//! 2. Trunk's module script runs the wasm-bindgen glue, which was patched
//!    to take its `"env"` imports from `importObject.env`, and instantiates
//!    the module.
//! 3. On `TrunkApplicationStarted` the page hands the instance to gl.js
//!    (`wasm_memory`, `wasm_exports`, `init_plugins`) and only then calls
//!    [`start`], which starts macroquad's loop.
//!
//! A `#[macroquad::main]` binary cannot be used: wasm-bindgen would run
//! `main` during instantiation, before gl.js knows the wasm memory.
//!
//! The crate also compiles natively so that `cargo clippy --workspace` and
//! `cargo test --workspace` cover it; nothing calls [`start`] there. The
//! crate stays `cdylib` only (an `rlib` would turn LTO off): unit tests
//! need no `rlib`.
//!
//! # Layout
//!
//! One folder per thing the user sees, each holding its read-outs,
//! words, controls and drawing; `app/` is the one state machine that
//! switches between them; the files at the top are the page's plumbing.
//! Modules import downward only, in this order (a folder never imports
//! one above it, and no two import each other):
//!
//! | folder | what the user sees there |
//! |---|---|
//! | `app/` | the loop and its state machine: who runs the authority (`driver`: relay or in-page host), the run's transitions (play, pause, record, take over, inspect, A/B, enter and leave a room), input, the header, the single-player frame's drawing and read-outs (`view`) |
//! | `room/` | a shared room: its connection, this player's frame, its three panels, words and cards, the Room section, Save link; a saved room recording played back (`recorded`) |
//! | `ab/` | the A/B view: column B's run and panels, the difference, the paired numbers |
//! | `panels/` | the three panels of a single-player run: their HTML, one column's state, words and frame in the model it runs |
//! | `cmc/` | the CMC model's panels, captions, correction log, Metrics card and controls |
//! | `rollback/` | the rollback model's panels, captions, rebase log, display smoothing, Metrics group and controls |
//! | `inspector/` | the packet timeline, scrubbing, the correction inspector, what-if forks, the latency budget, the console |
//! | `timeline/` | the Timeline card: per-frame samples, the plots, the CSV |
//! | `controls/` | the control column's sliders, the Link section, the Link card, the per-model view |
//! | `runbar/` | the run bar and sharing: pause / step / speed, Record / Save / links, playback pacing, the scenario API |
//! | `tour/` | the guided tour's card: each stop's words around its measured number, its buttons and keys |
//! | `canvas/` | the panels' canvas: world-to-canvas mapping, colours, the arena, characters, the follow camera |
//!
//! At the top: `dom` (web-sys helpers), `net` (the WebSocket and the
//! connection that resumes after a drop), `reconnect` (when to retry),
//! `clock` (page clock, URL query, seed), `download`, and `bench` (what
//! the browser tests and `scripts/bench.sh` call besides the page).
//!
//! The page's decisions are pure modules with native unit tests
//! (`cargo test -p web-client`): the run's state, pause / step / speed
//! and playback pacing (`runbar::playback`), the recorder's Save
//! (`runbar::recorder`), reconnecting (`reconnect`), the panels' words
//! (`cmc::captions`, `rollback::captions`), the Replayed panels' logs
//! (`cmc::corrections`, `rollback::log`), display smoothing
//! (`rollback::smoothing`), the follow camera (`canvas::camera`), the
//! timeline and its CSV (`timeline::samples`), the A/B difference and
//! paired numbers (`ab::difference`, `ab::paired`; B's run in `ab::twin`),
//! a shared room's names, aim, shot log and ammo jumps (`room::rules`),
//! and the inspector's timeline geometry, gestures, playhead, stories,
//! console answers and modes (`inspector::lanes`, `gesture`, `scrub`,
//! `story_view`, `console_text`, `lifetime`, `mode`). The DOM and canvas
//! around them are checked by the browser tests (`e2e/`).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ab;
mod app;
mod bench;
mod canvas;
mod clock;
mod cmc;
mod controls;
mod dom;
mod download;
mod inspector;
mod link_params;
mod net;
mod panels;
mod reconnect;
mod rollback;
mod room;
mod runbar;
mod timeline;
mod tour;

use wasm_bindgen::prelude::wasm_bindgen;

/// Window title; on the web only used for logging, the page has its own.
const TITLE: &str = "Netcode Playground";

/// Entry point called by `www/index.html` once gl.js has been wired to the
/// instantiated module. Starts macroquad's main loop with [`app::run`].
///
/// `paced` = `true` hands frame pacing to the page (miniquad's
/// `blocking_event_loop`): a frame is drawn only when the page calls gl.js's
/// `sapp_schedule_update`. The page does that at 30 Hz on software WebGL
/// renderers, where drawing at 60 Hz eats the CPU the network needs; on a
/// GPU it passes `false` and frames follow `requestAnimationFrame`.
///
/// The canvas is sized by CSS (`#glcanvas`); miniquad reads its CSS size
/// (times `devicePixelRatio`, since `high_dpi` is on) at start-up and on
/// every window resize.
#[wasm_bindgen]
pub fn start(paced: bool) {
    let mut conf = macroquad::window::Conf {
        window_title: TITLE.to_owned(),
        high_dpi: true,
        sample_count: 1,
        ..Default::default()
    };
    conf.platform.blocking_event_loop = paced;
    macroquad::Window::from_config(conf, app::run());
}

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
    use clock::clock_ms;
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
