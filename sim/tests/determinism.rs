//! Golden run: a fixed scenario's final state hash, pinned. The browser
//! end-to-end test runs the same scenario in wasm (`headless_run` exported
//! by the page) and expects the same value, proving native and wasm32
//! simulate bit for bit alike.

use sim::{LocalSession, NetSettings};

/// Seed 3, RTT 150 ms, jitter 20 ms, 10 % loss, default rules, 20 s of bot
/// at 60 Hz.
pub const GOLDEN_SETTINGS: NetSettings = NetSettings::symmetric(150, 20, 10);

#[test]
fn golden_run_hash_is_pinned() {
    let m = LocalSession::run_bot(3, GOLDEN_SETTINGS, 1200);
    // Also pinned in e2e/playground.test.mjs (the wasm side).
    assert_eq!(format!("{:016x}", m.state_hash), "e6c7cbd8c11ff619");
    assert_eq!((m.adjustments, m.replayed_moves, m.acks), (3, 33, 152));
}
