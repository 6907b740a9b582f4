//! The Metrics card's rollback group: every number of the rollback model
//! (each a `data-metric`), written while it runs, `–` otherwise.

use crate::dom::MetricSlots;
use sim::rollback::RollbackMetrics;
use web_sys::Document;

/// Names of the `data-metric` read-outs written here.
const NAMES: [&str; 13] = [
    "rollbacks",
    "rebases",
    "resimulated-ticks",
    "resim-us",
    "missed-inputs",
    "late-inputs",
    "hash-mismatches",
    "states-rejected",
    "input-buffer",
    "time-dilation",
    "ticks-ahead",
    "stalls",
    "frozen-ticks",
];

/// Handles on the read-outs.
pub struct RollbackReadouts {
    metrics: MetricSlots,
}

impl RollbackReadouts {
    /// Looks the read-outs up; missing ones are skipped.
    pub fn new(doc: &Document) -> RollbackReadouts {
        RollbackReadouts {
            metrics: MetricSlots::find(doc, &NAMES),
        }
    }

    /// Writes every read-out: `m` while the rollback model runs, with
    /// `resim_us` the wall time of the last frame that re-simulated.
    pub fn write(&self, m: Option<&RollbackMetrics>, resim_us: Option<f64>) {
        self.metrics
            .write(|name| Some(m.map_or_else(|| "–".to_owned(), |m| value(name, m, resim_us))));
    }
}

/// The time dilation, `1.000`, and the warning when the clock drifts
/// beyond what dilation takes back (issue 22: never a silent
/// degradation).
pub fn dilation_text(m: &RollbackMetrics) -> String {
    if m.clock_drifting {
        format!(
            "{:.3} · clock drifts past ±{:.0} %",
            m.time_dilation,
            sim::rollback::time_sync::MAX_DILATION * 100.0
        )
    } else {
        format!("{:.3}", m.time_dilation)
    }
}

/// One read-out's text.
fn value(name: &str, m: &RollbackMetrics, resim_us: Option<f64>) -> String {
    match name {
        "rollbacks" => m.rollbacks.to_string(),
        "rebases" => m.rebases.to_string(),
        "resimulated-ticks" => m.resimulated_ticks.to_string(),
        "resim-us" => resim_us.map_or("–".to_owned(), |us| format!("{us:.0}")),
        "missed-inputs" => m.missed_inputs.to_string(),
        "late-inputs" => m.late_inputs.to_string(),
        "hash-mismatches" => m.hash_mismatches.to_string(),
        "states-rejected" => m.states_rejected.to_string(),
        "input-buffer" => m.input_buffer.map_or("–".to_owned(), |b| format!("{b:.1}")),
        "time-dilation" => dilation_text(m),
        "ticks-ahead" => m.ticks_ahead.to_string(),
        "stalls" => m.stalls.to_string(),
        "frozen-ticks" => m.frozen_ticks.to_string(),
        _ => "–".to_owned(),
    }
}
