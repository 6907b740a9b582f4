//! The rollback model's page controls (its section of the page; the tick
//! rate is a select of [`super::tick::TickRate::ALL`]). [`super::config`]
//! takes its ranges and defaults from them; `crate::controls` gathers them
//! for the page.

use crate::foundation::control::{range, Range, Switch};

// ---- the rollback model (`001_…`) -----------------------------------------

/// Inputs per input packet, newest first: `001_…` §6 sends 4; 1 turns
/// redundancy off.
pub const ROLLBACK_REDUNDANCY: Range = range("rollback-redundancy", 1.0, 8.0, 1.0, 4.0, "inputs");
/// Ticks the server repeats a missing input: `001_…` §5.1 holds 6, as
/// does UE's `MaximumRemoteInputFaultLimit`.
pub const ROLLBACK_HOLD_LAST: Range = range("rollback-hold-last", 0.0, 12.0, 1.0, 6.0, "ticks");
/// Ticks between two State messages: `001_…` §5.1 sends one every 2.
pub const ROLLBACK_STATE_INTERVAL: Range =
    range("rollback-state-interval", 1.0, 10.0, 1.0, 2.0, "ticks");
/// Ticks of input the client aims to have waiting at the server (Unity
/// NfE's `TargetCommandSlack` is 2).
pub const ROLLBACK_INPUT_BUFFER: Range =
    range("rollback-input-buffer", 0.0, 10.0, 1.0, 2.0, "ticks");
/// Rollback itself: predict, then restore each State and re-simulate
/// (`001_…` §5.2, §8). Off, the client draws only the States the server
/// sends, never predicting, and waits for them: no rebase, and a key
/// shows a round trip plus the input buffer later (`001_…` §1: "画面至少晚
/// 100 ms 才响应" at RTT 100 ms). In a client–server game even a fixed
/// input delay cannot hide that round trip: only peer-to-peer lockstep,
/// where the other input travels one way, can.
pub const ROLLBACK: Switch = Switch {
    id: "rollback-on",
    default: true,
};
/// Ticks between sampling the local input and simulating it (ggrs
/// `SessionBuilder::with_input_delay`, default 0). A delay of *d* ticks
/// sends each input *d* ticks early, so the client needs to run *d* ticks
/// less ahead of the server and re-simulates that much less after each
/// State; the player feels the delay instead (`001_…` §1: waiting for the
/// server costs at least a round trip, a fixed delay only *d* ticks).
pub const ROLLBACK_INPUT_DELAY: Range = range("rollback-input-delay", 0.0, 15.0, 1.0, 0.0, "ticks");
/// Ticks the client may predict ahead of its last confirmed State (ggrs
/// `max_prediction_window`); the default is 500 ms at the tick rate
/// ([`super::config::DEFAULT_PREDICTION_MS`]), 30 at 60 Hz.
pub const ROLLBACK_MAX_PREDICTION: Range =
    range("rollback-max-prediction", 1.0, 448.0, 1.0, 30.0, "ticks");
