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
//! `cargo test --workspace` cover it; nothing calls [`start`] there.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod app;
mod dom;
mod net;
mod render;

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

/// Runs a bot-driven session headless inside wasm and returns
/// `"hash=<16 hex> adjustments=<n> replayed=<n> acks=<n>"`: the browser
/// test compares it with the native value pinned in
/// `sim/tests/determinism.rs`, proving both simulate bit for bit alike.
/// Out-of-range settings are clamped to the slider ranges.
#[wasm_bindgen]
pub fn headless_run(
    seed: u32,
    rtt_ms: u16,
    jitter_ms: u16,
    loss_percent: u8,
    frames: u32,
) -> String {
    let settings = sim::NetSettings {
        rtt_ms: rtt_ms.min(1000),
        jitter_ms: jitter_ms.min(100),
        loss_percent: loss_percent.min(50),
    };
    let m = sim::LocalSession::run_bot(u64::from(seed), settings, frames);
    format!(
        "hash={:016x} adjustments={} replayed={} acks={}",
        m.state_hash, m.adjustments, m.replayed_moves, m.acks
    )
}
