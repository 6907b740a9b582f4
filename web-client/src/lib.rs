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
//! page's decisions are pure modules with native unit tests
//! (`cargo test -p web-client`): the run's state, pause / step / speed and
//! playback pacing (`playback`), reconnecting (`reconnect`), the
//! correction log (`corrections`), the timeline and its CSV (`timeline`),
//! the panels' words (`captions`), the follow camera (`render::camera`),
//! a shared room's names, aim, shot log and ammo jumps (`room_rules`).
//! The crate stays `cdylib` only (an `rlib` would turn LTO off): unit
//! tests need no `rlib`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ab;
mod ab_chrome;
mod app;
mod bench;
mod captions;
mod clock;
mod corrections;
mod display_smoothing;
mod dom;
mod download;
mod inspector;
mod link_card;
mod model_controls;
mod model_view;
mod net;
mod net_controls;
mod paired;
mod panel_chrome;
mod playback;
mod plots;
mod readouts;
mod reconnect;
mod render;
mod resim;
mod rollback_captions;
mod rollback_controls;
mod rollback_log;
mod rollback_readouts;
mod room_controls;
mod room_rules;
mod scenario_panel;
mod share;
mod sliders;
mod timeline;

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
    use bench::clock_ms;
    use sim::{Bot, Client, MoveResponse, MovementParams, ServerCharacter, ServerConfig};
    use sim::{SimTime, SmoothingMode, Vec2, World};
    const FRAME: f64 = 1.0 / 60.0;
    let n = (moves as usize).clamp(1, sim::saved_move::MAX_SAVED_MOVE_COUNT - 1);
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
