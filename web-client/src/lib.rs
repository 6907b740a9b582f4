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
//! the browser tests and `scripts/bench.sh` call besides the page: only
//! in the bench page's build, feature `bench`, and in the unit tests).
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
#[cfg(any(feature = "bench", test))]
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
