//! The "Advanced network" controls (per-direction impairments, preset
//! picker, lag-spike button) and the "configured vs measured" read-out.
//! Like [`crate::dom`], inputs are polled once per frame; the preset
//! picker and the spike button count their events.

use crate::dom::{count_events, input, number, set_number, set_value, write_text};
use sim::metrics::Metrics;
use sim::{LagSpike, LinkSettings, NetSettings, Preset};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement, HtmlSelectElement};

/// The inputs of one direction (`up-…` or `down-…`).
struct DirectionInputs {
    latency: Option<HtmlInputElement>,
    jitter: Option<HtmlInputElement>,
    loss: Option<HtmlInputElement>,
    duplicate: Option<HtmlInputElement>,
    reorder: Option<HtmlInputElement>,
    burst_enter: Option<HtmlInputElement>,
    burst_len: Option<HtmlInputElement>,
    burst_loss: Option<HtmlInputElement>,
    bandwidth: Option<HtmlInputElement>,
}

impl DirectionInputs {
    fn new(doc: &Document, dir: &str) -> DirectionInputs {
        let get = |name: &str| input(doc, &format!("{dir}-{name}"));
        DirectionInputs {
            latency: get("latency"),
            jitter: get("jitter"),
            loss: get("loss"),
            duplicate: get("dup"),
            reorder: get("reorder"),
            burst_enter: get("burst-enter"),
            burst_len: get("burst-len"),
            burst_loss: get("burst-loss"),
            bandwidth: get("bandwidth"),
        }
    }

    /// This direction's settings; latency, jitter and loss come from
    /// `basic` unless the directions are split.
    fn settings(&self, basic: LinkSettings, split: bool) -> LinkSettings {
        let (latency_ms, jitter_ms, loss_tenth_percent) = if split {
            (
                number(&self.latency, 0.0, 0.0, 1000.0) as u16,
                number(&self.jitter, 0.0, 0.0, 500.0) as u16,
                (number(&self.loss, 0.0, 0.0, 50.0) * 10.0).round() as u16,
            )
        } else {
            (basic.latency_ms, basic.jitter_ms, basic.loss_tenth_percent)
        };
        let burst_len = number(&self.burst_len, 4.0, 1.0, 100.0);
        LinkSettings {
            latency_ms,
            jitter_ms,
            loss_tenth_percent,
            duplicate_tenth_percent: (number(&self.duplicate, 0.0, 0.0, 50.0) * 10.0).round()
                as u16,
            reorder_percent: number(&self.reorder, 0.0, 0.0, 50.0) as u8,
            burst_enter_tenth_percent: (number(&self.burst_enter, 0.0, 0.0, 20.0) * 10.0).round()
                as u16,
            burst_leave_percent: (100.0 / burst_len).round().clamp(1.0, 100.0) as u8,
            burst_loss_percent: number(&self.burst_loss, 100.0, 0.0, 100.0) as u8,
            bandwidth_bytes_per_s: number(&self.bandwidth, 0.0, 0.0, 10_000.0) as u32 * 1000,
        }
    }

    /// Shows `s` in the inputs.
    fn show(&self, s: &LinkSettings) {
        set_value(&self.latency, f64::from(s.latency_ms));
        set_value(&self.jitter, f64::from(s.jitter_ms));
        set_value(&self.loss, f64::from(s.loss_tenth_percent) / 10.0);
        set_value(&self.duplicate, f64::from(s.duplicate_tenth_percent) / 10.0);
        set_value(&self.reorder, f64::from(s.reorder_percent));
        set_value(
            &self.burst_enter,
            f64::from(s.burst_enter_tenth_percent) / 10.0,
        );
        set_value(
            &self.burst_len,
            (100.0 / f64::from(s.burst_leave_percent.max(1))).round(),
        );
        set_value(&self.burst_loss, f64::from(s.burst_loss_percent));
        set_value(&self.bandwidth, f64::from(s.bandwidth_bytes_per_s / 1000));
    }

    /// Mirrors the basic sliders into the split-only inputs, greyed out.
    fn mirror(&self, basic: &LinkSettings, split: bool) {
        for e in [&self.latency, &self.jitter, &self.loss]
            .into_iter()
            .flatten()
        {
            e.set_disabled(!split);
        }
        if !split {
            set_value(&self.latency, f64::from(basic.latency_ms));
            set_value(&self.jitter, f64::from(basic.jitter_ms));
            set_value(&self.loss, f64::from(basic.loss_tenth_percent) / 10.0);
        }
    }
}

/// Handles on the advanced network controls and the link read-out.
pub struct NetControls {
    preset: Option<HtmlSelectElement>,
    split: Option<HtmlInputElement>,
    up: DirectionInputs,
    down: DirectionInputs,
    rtt: Option<HtmlInputElement>,
    jitter: Option<HtmlInputElement>,
    loss: Option<HtmlInputElement>,
    spike_extra: Option<HtmlInputElement>,
    spike_duration: Option<HtmlInputElement>,
    spike_clicks: Rc<Cell<u32>>,
    preset_changes: Rc<Cell<u32>>,
    configured: Vec<(&'static str, Option<Element>)>,
    measured: Vec<(&'static str, Option<Element>)>,
}

/// `data-configured` read-outs.
const CONFIGURED: [&str; 7] = [
    "rtt",
    "jitter",
    "loss-up",
    "loss-down",
    "cap-up",
    "cap-down",
    "extras",
];
/// `data-metric` read-outs written here (the rest are [`crate::dom`]'s).
const MEASURED: [&str; 8] = [
    "rtt-p50",
    "rtt-p99",
    "jitter-ms",
    "loss-up",
    "loss-down",
    "in-flight-up",
    "in-flight-down",
    "link-state",
];

impl NetControls {
    /// Looks the elements up; missing ones fall back to defaults.
    pub fn new(doc: &Document) -> NetControls {
        let spike_clicks = Rc::new(Cell::new(0));
        let preset_changes = Rc::new(Cell::new(0));
        count_events(doc, "lag-spike", "click", &spike_clicks);
        count_events(doc, "net-preset", "change", &preset_changes);
        let find = |attr: &str, names: &[&'static str]| {
            names
                .iter()
                .map(|&n| {
                    (
                        n,
                        doc.query_selector(&format!("[{attr}=\"{n}\"]"))
                            .ok()
                            .flatten(),
                    )
                })
                .collect()
        };
        NetControls {
            preset: doc
                .get_element_by_id("net-preset")
                .and_then(|e| e.dyn_into().ok()),
            split: input(doc, "net-split"),
            up: DirectionInputs::new(doc, "up"),
            down: DirectionInputs::new(doc, "down"),
            rtt: input(doc, "rtt"),
            jitter: input(doc, "jitter"),
            loss: input(doc, "loss"),
            spike_extra: input(doc, "spike-extra"),
            spike_duration: input(doc, "spike-duration"),
            spike_clicks,
            preset_changes,
            configured: find("data-configured", &CONFIGURED),
            measured: find("data-metric", &MEASURED),
        }
    }

    /// The full settings: `basic` (the RTT / jitter / loss sliders) for
    /// both directions unless split, plus the per-direction extras. Also
    /// mirrors the sliders into the greyed-out per-direction inputs and
    /// puts the preset picker back to "custom" once the settings leave the
    /// chosen preset.
    pub fn settings(&self, basic: NetSettings) -> NetSettings {
        let split = self.split.as_ref().is_some_and(|e| e.checked());
        self.up.mirror(&basic.uplink, split);
        self.down.mirror(&basic.downlink, split);
        let s = NetSettings {
            uplink: self.up.settings(basic.uplink, split),
            downlink: self.down.settings(basic.downlink, split),
        };
        if let Some(sel) = &self.preset {
            if Preset::parse(&sel.value()).is_some_and(|p| p.settings() != s) {
                sel.set_value("custom");
            }
        }
        s
    }

    /// If a preset was picked since the last call, writes its values into
    /// the controls (the basic sliders when both directions agree on
    /// latency, jitter and loss, else the split per-direction inputs).
    pub fn apply_picked_preset(&self) {
        if self.preset_changes.replace(0) == 0 {
            return;
        }
        let Some(p) = self.preset.as_ref().and_then(|s| Preset::parse(&s.value())) else {
            return;
        };
        self.show(&p.settings());
    }

    /// Shows `s` in the controls (a preset just picked, or a scenario being
    /// played back): the basic sliders when both directions agree on
    /// latency, jitter and loss, else the split per-direction inputs.
    pub fn show(&self, s: &NetSettings) {
        let (u, d) = (s.uplink, s.downlink);
        let symmetric = (u.latency_ms, u.jitter_ms, u.loss_tenth_percent)
            == (d.latency_ms, d.jitter_ms, d.loss_tenth_percent);
        if let Some(e) = &self.split {
            e.set_checked(!symmetric);
        }
        if symmetric {
            set_number(&self.rtt, f64::from(s.rtt_ms()));
            set_number(&self.jitter, f64::from(u.jitter_ms));
            set_number(&self.loss, f64::from(u.loss_tenth_percent) / 10.0);
        }
        self.up.show(&u);
        self.down.show(&d);
    }

    /// The lag spike asked for by button clicks since the last call.
    pub fn take_lag_spike(&self) -> Option<LagSpike> {
        if self.spike_clicks.replace(0) == 0 {
            return None;
        }
        Some(LagSpike {
            extra_ms: number(&self.spike_extra, 500.0, 1.0, 5000.0) as u16,
            duration_ms: (number(&self.spike_duration, 2.0, 0.001, 30.0) * 1000.0) as u16,
        })
    }

    /// Writes the configured column for `s` and the measured column from
    /// `m`.
    pub fn write(&self, s: &NetSettings, m: &Metrics) {
        let (u, d) = (s.uplink, s.downlink);
        for (name, el) in &self.configured {
            let text = match *name {
                "rtt" => s.rtt_ms().to_string(),
                "jitter" if u.jitter_ms == d.jitter_ms => format!("±{}", u.jitter_ms),
                "jitter" => format!("±{} / ±{}", u.jitter_ms, d.jitter_ms),
                "loss-up" => format!("{:.1}", u.mean_loss() * 100.0),
                "loss-down" => format!("{:.1}", d.mean_loss() * 100.0),
                "cap-up" => cap(u.bandwidth_bytes_per_s),
                "cap-down" => cap(d.bandwidth_bytes_per_s),
                "extras" => extras(&u, &d),
                _ => continue,
            };
            write(el, &text);
        }
        let ms = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.0}"));
        let pct = |v: Option<f64>| v.map_or("–".into(), |v| format!("{:.1}", v * 100.0));
        let (burst, spike) = (
            m.link.up.in_burst || m.link.down.in_burst,
            m.link.up.in_spike || m.link.down.in_spike,
        );
        for (name, el) in &self.measured {
            let text = match *name {
                "rtt-p50" => ms(m.rtt_p50_ms),
                "rtt-p99" => ms(m.rtt_p99_ms),
                "jitter-ms" => m.jitter_ms.map_or("–".into(), |v| format!("{v:.1}")),
                "loss-up" => pct(m.loss_up),
                "loss-down" => pct(m.loss_down),
                "in-flight-up" => m.link.up.in_flight.to_string(),
                "in-flight-down" => m.link.down.in_flight.to_string(),
                "link-state" => {
                    let state = match (spike, burst) {
                        (true, _) => "spike",
                        (false, true) => "burst",
                        _ => "clear",
                    };
                    if let Some(el) = el {
                        let _ = el.set_attribute("data-state", state);
                    }
                    match (spike, burst) {
                        (true, true) => "lag spike + loss burst".into(),
                        (true, false) => "lag spike".into(),
                        (false, true) => "loss burst".into(),
                        _ => "clear".into(),
                    }
                }
                _ => continue,
            };
            write(el, &text);
        }
    }
}

fn cap(bytes_per_s: u32) -> String {
    if bytes_per_s == 0 {
        "no cap".into()
    } else {
        format!("{} kB/s", bytes_per_s / 1000)
    }
}

/// Duplication, reordering and bursts in force, per direction.
fn extras(u: &LinkSettings, d: &LinkSettings) -> String {
    let one = |l: &LinkSettings| {
        let mut parts = Vec::new();
        if l.duplicate_tenth_percent > 0 {
            parts.push(format!(
                "dup {:.1}%",
                f64::from(l.duplicate_tenth_percent) / 10.0
            ));
        }
        if l.reorder_percent > 0 {
            parts.push(format!("reorder {}%", l.reorder_percent));
        }
        if l.burst_enter_tenth_percent > 0 {
            parts.push(format!(
                "bursts ~{:.0} pkts",
                100.0 / f64::from(l.burst_leave_percent.max(1))
            ));
        }
        parts.join(", ")
    };
    let dash = |s: String| if s.is_empty() { "—".to_string() } else { s };
    let (a, b) = (one(u), one(d));
    if a == b {
        dash(a)
    } else {
        format!("↑ {} · ↓ {}", dash(a), dash(b))
    }
}

fn write(el: &Option<Element>, text: &str) {
    if let Some(el) = el {
        write_text(el, text);
    }
}
