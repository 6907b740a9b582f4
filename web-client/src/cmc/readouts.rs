//! The Metrics card (each a `data-metric` element the tests read): the
//! CMC model's counters and the numbers both models share (the rollback
//! group is `crate::rollback::readouts`).

use crate::dom::MetricSlots;
use sim::cmc::client::ClientCounters;
use sim::cmc::wire::ServerTotals;
use sim::endpoints::metrics::Metrics;
use sim::SmoothingMode;
use web_sys::Document;

/// What the card shows besides the [`Metrics`].
pub struct Extra {
    /// The smoothing mode in force.
    pub smoothing: SmoothingMode,
    /// The client's own counters.
    pub counters: ClientCounters,
    /// The server's counters, as last observed.
    pub server: ServerTotals,
    /// The local character's mesh offset now, cm.
    pub mesh_offset_cm: f32,
    /// The largest mesh offset of the simulated proxy over the last
    /// second, cm.
    pub proxy_offset_peak_cm: f32,
    /// The largest extrapolation error of the simulated proxies' net
    /// updates drawn over the last second, cm: the overshoot a stop or a
    /// turn made before the next update corrected it
    /// (`sim::SimulatedProxy::extrapolation_error`).
    pub proxy_extrapolation_peak_cm: f32,
    /// The newest key-to-movement delay as drawn, ms
    /// (`sim::Client::key_delay_ms`).
    pub key_delay_ms: Option<f64>,
}

/// Names of the `data-metric` read-outs written here.
const NAMES: [&str; 26] = [
    "moves-sent",
    "dual-moves",
    "old-moves",
    "combined-moves",
    "forced-drops",
    "acks",
    "adjustments",
    "unmatched",
    "replayed-moves",
    "dropped-moves",
    "key-delay-ms",
    "queue-len",
    "pos-error-cm",
    "mesh-offset-cm",
    "proxy-offset-cm",
    "proxy-extrapolation-cm",
    "smoothing",
    "state-hash",
    "server-moves",
    "server-acks",
    "server-adjustments",
    "forced-updates",
    "time-discrepancy",
    "stale-updates",
    "up-bps",
    "down-bps",
];

/// Handles on the read-outs.
pub struct Readouts {
    metrics: MetricSlots,
}

impl Readouts {
    /// Looks the read-outs up; missing ones are skipped.
    pub fn new(doc: &Document) -> Readouts {
        Readouts {
            metrics: MetricSlots::find(doc, &NAMES),
        }
    }

    /// Writes every read-out.
    pub fn write_metrics(&self, m: &Metrics, x: &Extra) {
        let (c, s) = (&x.counters, &x.server);
        self.metrics.write(|name| {
            Some(match name {
                "moves-sent" => m.moves_sent.to_string(),
                "dual-moves" => m.dual_moves.to_string(),
                "old-moves" => m.old_moves_resent.to_string(),
                "combined-moves" => m.combined_moves.to_string(),
                "forced-drops" => c.forced_move_drops.to_string(),
                "acks" => m.acks.to_string(),
                "adjustments" => m.adjustments.to_string(),
                "unmatched" => c.unmatched_responses.to_string(),
                "replayed-moves" => m.replayed_moves.to_string(),
                "dropped-moves" => c.dropped_moves.to_string(),
                "key-delay-ms" => x.key_delay_ms.map_or("–".into(), |d| format!("{d:.0}")),
                "queue-len" => m.queue_len.to_string(),
                "pos-error-cm" => m.pos_error_cm.map_or("–".into(), |e| format!("{e:.1}")),
                "mesh-offset-cm" => format!("{:.1}", x.mesh_offset_cm),
                "proxy-offset-cm" => format!("{:.1}", x.proxy_offset_peak_cm),
                "proxy-extrapolation-cm" => format!("{:.1}", x.proxy_extrapolation_peak_cm),
                "smoothing" => x.smoothing.name().to_owned(),
                "state-hash" => format!("{:016x}", m.state_hash),
                "server-moves" => s.moves.to_string(),
                "server-acks" => s.acks.to_string(),
                "server-adjustments" => s.adjustments.to_string(),
                "forced-updates" => s.forced_updates.to_string(),
                "time-discrepancy" => m.time_discrepancy_events.to_string(),
                "stale-updates" => m.stale_updates.to_string(),
                "up-bps" => m.up_bps.to_string(),
                "down-bps" => m.down_bps.to_string(),
                _ => return None,
            })
        });
    }
}
