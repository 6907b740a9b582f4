//! The Metrics card (each a `data-metric` element the tests read), the
//! header's connection pill and mode, and the bot button's label.

use crate::dom::{query, write_attr, write_text};
use sim::client::ClientCounters;
use sim::metrics::Metrics;
use sim::net::protocol::ServerTotals;
use sim::SmoothingMode;
use web_sys::{Document, Element};

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
}

/// Names of the `data-metric` read-outs written here.
const NAMES: [&str; 23] = [
    "moves-sent",
    "dual-moves",
    "old-moves",
    "combined-moves",
    "forced-drops",
    "acks",
    "adjustments",
    "unmatched",
    "replayed-moves",
    "queue-len",
    "pos-error-cm",
    "mesh-offset-cm",
    "proxy-offset-cm",
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
    doc: Document,
    metrics: Vec<(&'static str, Option<Element>)>,
}

impl Readouts {
    /// Looks the read-outs up; missing ones are skipped.
    pub fn new(doc: &Document) -> Readouts {
        Readouts {
            metrics: NAMES
                .iter()
                .map(|&n| (n, query(doc, &format!("[data-metric=\"{n}\"]"))))
                .collect(),
            doc: doc.clone(),
        }
    }

    /// Writes every read-out.
    pub fn write_metrics(&self, m: &Metrics, x: &Extra) {
        let (c, s) = (&x.counters, &x.server);
        for (name, el) in &self.metrics {
            let Some(el) = el else { continue };
            let text = match *name {
                "moves-sent" => m.moves_sent.to_string(),
                "dual-moves" => m.dual_moves.to_string(),
                "old-moves" => m.old_moves_resent.to_string(),
                "combined-moves" => m.combined_moves.to_string(),
                "forced-drops" => c.forced_move_drops.to_string(),
                "acks" => m.acks.to_string(),
                "adjustments" => m.adjustments.to_string(),
                "unmatched" => c.unmatched_responses.to_string(),
                "replayed-moves" => m.replayed_moves.to_string(),
                "queue-len" => m.queue_len.to_string(),
                "pos-error-cm" => m.pos_error_cm.map_or("–".into(), |e| format!("{e:.1}")),
                "mesh-offset-cm" => format!("{:.1}", x.mesh_offset_cm),
                "proxy-offset-cm" => format!("{:.1}", x.proxy_offset_peak_cm),
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
                _ => continue,
            };
            write_text(el, &text);
        }
    }

    /// Sets the connection pill's text and `data-state` (`connecting`,
    /// `connected`, `local`, `error`).
    pub fn set_status(&self, state: &str, text: &str) {
        if let Some(el) = self.doc.get_element_by_id("conn-status") {
            write_attr(&el, "data-state", state);
            write_text(&el, text);
        }
    }

    /// Sets the mode label in the header.
    pub fn set_mode(&self, text: &str) {
        if let Some(el) = self.doc.get_element_by_id("mode-label") {
            write_text(&el, text);
        }
    }

    /// Reflects who drives in the bot button (`aria-pressed`, label).
    pub fn set_bot_driving(&self, driving: bool) {
        if let Some(el) = self.doc.get_element_by_id("bot-toggle") {
            write_attr(&el, "aria-pressed", if driving { "true" } else { "false" });
            write_text(
                &el,
                if driving {
                    "Take control (bot is driving)"
                } else {
                    "Give control to bot (B)"
                },
            );
        }
    }
}
