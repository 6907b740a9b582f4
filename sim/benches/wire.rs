//! Wire figures (issue #6), not timings: the size of each frame on the
//! wire and the uplink a client needs, printed as one JSON object.
//!
//! * ServerMove sizes from 100 s of the bot's tour (a client whose server
//!   answers at once, so acks flow): the typical frame (most common size),
//!   the typical frame with only the new move (no pending or old move),
//!   the mean and the largest.
//! * Ack / Adjustment / Ping frame sizes.
//! * Uplink bytes/s as the page shows it (`Metrics::up_bps`, last second)
//!   after a [`LocalSession`] ran straight (+x, full input) for 10 s with
//!   the default network settings: at 60 Hz with move combining on (the
//!   default `ClientConfig`) and off, and with old-move redundancy off too;
//!   and at 120 Hz, where combining has frames to merge.
//!
//! Run: `cargo bench -p sim --bench wire` (or `scripts/bench.sh`).

mod common;

use common::{bot_server_moves, replay_setup};
use sim::cmc::client::ClientConfig;
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::{LocalSession, NetSettings, Vec2};
use std::collections::BTreeMap;

fn main() {
    // `cargo bench` passes `--bench`; a filter that does not match "wire"
    // (e.g. `cargo bench -p sim -- replay`) skips this report.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !filters.is_empty() && !filters.iter().any(|f| "wire".contains(f.as_str())) {
        return;
    }
    let mut sizes = BTreeMap::<usize, u64>::new();
    let mut new_only = BTreeMap::<usize, u64>::new();
    for (_, m) in bot_server_moves(6000) {
        let only_new = m.old_move.is_none() && m.pending_move.is_none();
        let len = codec::encode(&ClientMsg::ServerMove(m)).len();
        *sizes.entry(len).or_default() += 1;
        if only_new {
            *new_only.entry(len).or_default() += 1;
        }
    }
    let count: u64 = sizes.values().sum();
    let mode = |h: &BTreeMap<usize, u64>| {
        h.iter()
            .max_by_key(|&(_, n)| *n)
            .map_or("null".to_string(), |(l, _)| l.to_string())
    };
    let mean = sizes.iter().map(|(&l, &n)| l as u64 * n).sum::<u64>() as f64 / count.max(1) as f64;

    let (_, adjustment, ack, _) = replay_setup(1);
    let ack = codec::encode(&ServerMsg::MoveResponse(ack)).len();
    let adjustment = codec::encode(&ServerMsg::MoveResponse(adjustment)).len();
    let ping = codec::encode(&ClientMsg::Ping { id: 1234 }).len();

    // Uplink: straight on for 10 s, default link settings (RTT 100 ms),
    // combining on (the default ClientConfig) and off, at 60 Hz — and at
    // 120 Hz, where frames are shorter than UE's 1/90 s send interval and
    // combining has something to merge.
    let on = ClientConfig::default();
    let off = ClientConfig {
        combine_moves: false,
        ..on
    };
    let bare = ClientConfig {
        old_move_redundancy: false,
        ..off
    };
    let (on60, on60_moves) = uplink(on, 60);
    let (off60, off60_moves) = uplink(off, 60);
    let (bare60, _) = uplink(bare, 60);
    let (on120, on120_moves) = uplink(on, 120);
    let (off120, off120_moves) = uplink(off, 120);

    println!(
        "{{\"server_move_bytes_typical\":{},\"server_move_bytes_new_only\":{},\"server_move_bytes_mean\":{:.2},\"server_move_bytes_max\":{},\"ack_bytes\":{},\"adjustment_bytes\":{},\"ping_bytes\":{},\"uplink_bps_60hz_combining_on\":{on60},\"uplink_bps_60hz_combining_off\":{off60},\"uplink_bps_60hz_combining_and_redundancy_off\":{bare60},\"uplink_bps_120hz_combining_on\":{on120},\"uplink_bps_120hz_combining_off\":{off120},\"server_moves_per_s_60hz_on\":{on60_moves:.1},\"server_moves_per_s_60hz_off\":{off60_moves:.1},\"server_moves_per_s_120hz_on\":{on120_moves:.1},\"server_moves_per_s_120hz_off\":{off120_moves:.1}}}",
        mode(&sizes),
        mode(&new_only),
        mean,
        sizes.keys().last().copied().unwrap_or(0),
        ack,
        adjustment,
        ping,
    );
}

/// Uplink bytes/s as the page shows it (`Metrics::up_bps`, the last
/// second) and ServerMoves/s over the run, after running straight (+x,
/// full input) for 10 s at `hz` frames per second.
fn uplink(config: ClientConfig, hz: u32) -> (u64, f64) {
    let mut s = LocalSession::new(1, NetSettings::default());
    s.endpoint.set_client_config(config);
    let t0 = s.now();
    let m0 = s.endpoint.metrics(t0);
    for _ in 0..10 * hz {
        s.step(1.0 / f64::from(hz), Vec2::new(1.0, 0.0), false, false);
    }
    let m = s.endpoint.metrics(s.now());
    let secs = s.now().secs_since(t0);
    (m.up_bps, (m.moves_sent - m0.moves_sent) as f64 / secs)
}
