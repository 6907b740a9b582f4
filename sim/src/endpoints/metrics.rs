//! The [`Metrics`] read-out shown in the page's metrics panel.

use crate::net::link_stats::LossCount;
use crate::net::totals::LinkTotals;

/// One read-out of the client-side metrics (each is a `data-metric`
/// element in the page). The link figures (RTT, jitter, loss) count from
/// the last change of the network settings
/// ([`crate::net::link_meter::LinkMeter`]) and mean the same in both
/// models; the model's are named after the CMC model, and in the rollback
/// model hold the analogous ones (each field says which), so the plots and
/// a scenario's [`crate::scenario::Outcome`] compare the two on one axis;
/// [`Metrics::rollback`] has all of the rollback model's own.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Metrics {
    /// Smoothed measured round-trip time (RFC 6298), ms (`rtt-ms`); `None` before the
    /// first Pong.
    pub rtt_ms: Option<f64>,
    /// The newest RTT sample, ms (the RTT plot).
    pub rtt_last_ms: Option<f64>,
    /// Median of the last 100 RTT samples (10 s) since the settings
    /// changed, ms (`rtt-p50`).
    pub rtt_p50_ms: Option<f64>,
    /// 99th percentile of the last 100 RTT samples, ms (`rtt-p99`).
    pub rtt_p99_ms: Option<f64>,
    /// RTT jitter: running mean of |RTTᵢ − RTTᵢ₋₁| (RFC 3550 §6.4.1 gain
    /// 1/16), ms (`jitter-ms`).
    pub jitter_ms: Option<f64>,
    /// RTT samples behind `rtt_p50_ms` / `rtt_p99_ms` (`rtt-samples`).
    pub rtt_samples: usize,
    /// Observed uplink loss over the last 64 Pings since the settings
    /// changed, `0.0..=1.0` (`loss-up`).
    pub loss_up: Option<f64>,
    /// Observed downlink loss over the Pongs for those Pings,
    /// `0.0..=1.0` (`loss-down`).
    pub loss_down: Option<f64>,
    /// Pings behind `loss_up` (`loss-up-n`).
    pub loss_up_probes: u32,
    /// Pongs behind `loss_down` (`loss-down-n`).
    pub loss_down_probes: u32,
    /// Uplink loss over every Ping since the settings changed.
    pub loss_since_up: LossCount,
    /// Downlink loss over every Pong since the settings changed.
    pub loss_since_down: LossCount,
    /// The host's conditioner counters, as last observed (packets in
    /// flight, drops, bursts, spikes).
    pub link: LinkTotals,
    /// ServerMoves sent (`moves-sent`); rollback: input packets sent.
    pub moves_sent: u64,
    /// Acks received and matched (`acks`); rollback: Acks received (one
    /// per server tick).
    pub acks: u64,
    /// Adjustments received and matched (`adjustments`); rollback:
    /// visible rollbacks (a rebase that moved the local player more than
    /// [`crate::rollback::game::VISIBLE_ERROR_MM`], or changed its HP or
    /// action state).
    pub adjustments: u64,
    /// Moves re-simulated by replays (`replayed-moves`); rollback: ticks
    /// re-simulated by rebases.
    pub replayed_moves: u64,
    /// Unacknowledged SavedMoves (`queue-len`); rollback: ticks predicted
    /// past the last confirmed State.
    pub queue_len: usize,
    /// Uplink game traffic, bytes/s (`up-bps`).
    pub up_bps: u64,
    /// Downlink game traffic, bytes/s (`down-bps`); observer frames are not
    /// counted.
    pub down_bps: u64,
    /// Distance between the client's prediction and the server's state for
    /// the newest move the server has simulated, cm (`pos-error-cm`);
    /// rollback: how far the last rebase moved the local player.
    pub pos_error_cm: Option<f32>,
    /// Hash of the predicted state (`state-hash`): the character's (CMC),
    /// the whole snapshot's (rollback).
    pub state_hash: u64,
    /// Dashes felt (side effects, never repeated by replays).
    pub dash_events: u64,
    /// Moves merged into a pending move (`combined-moves`).
    pub combined_moves: u64,
    /// ServerMoves carrying a pending move too (`dual-moves`).
    pub dual_moves: u64,
    /// ServerMoves carrying an old important move again (`old-moves`).
    pub old_moves_resent: u64,
    /// Server time-discrepancy events (`time-discrepancy`).
    pub time_discrepancy_events: u64,
    /// Replicated-state updates (proxy, observer) ignored because a newer
    /// one had already been applied: late or duplicated on the way
    /// (`stale-updates`).
    pub stale_updates: u64,
    /// The rollback model's own numbers, while it runs (`None`: CMC).
    pub rollback: Option<crate::rollback::RollbackMetrics>,
}
