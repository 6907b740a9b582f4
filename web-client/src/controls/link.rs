//! The link's controls: the RTT / loss / jitter sliders, the preset
//! picker, the split switch, the transport switch (datagrams or
//! reliable-ordered), the per-direction table ("Advanced network")
//! and the lag-spike button. They always show the link in force: when the
//! directions are split (by hand or by a preset such as Mobile) the basic
//! sliders show both directions' values and are disabled with the reason,
//! and when they are not, the per-direction latency, jitter and loss
//! mirror the sliders, disabled.

use super::sliders::{format_number, Slider, Toggle};
use crate::dom::{query, select, set_flag, Clicks};
use sim::controls::{self as c, DIRECTION_PREFIXES};
use sim::net::transport::LinkTransport;
use sim::{LagSpike, LinkSettings, NetSettings, Preset};
use web_sys::{Document, HtmlSelectElement};

/// Why the basic sliders are off while the directions are split.
const SPLIT_REASON: &str = "Split is on: each direction is set under Advanced network";

/// The inputs of one direction (`up-…` or `down-…`).
struct Direction {
    latency: Slider,
    jitter: Slider,
    loss: Slider,
    duplicate: Slider,
    reorder: Slider,
    burst_enter: Slider,
    burst_len: Slider,
    burst_loss: Slider,
    bandwidth: Slider,
}

impl Direction {
    fn new(doc: &Document, prefix: &str) -> Direction {
        let s = |spec| Slider::new(doc, spec, prefix);
        Direction {
            latency: s(c::LATENCY),
            jitter: s(c::DIRECTION_JITTER),
            loss: s(c::DIRECTION_LOSS),
            duplicate: s(c::DUPLICATE),
            reorder: s(c::REORDER),
            burst_enter: s(c::BURST_ENTER),
            burst_len: s(c::BURST_LENGTH),
            burst_loss: s(c::BURST_LOSS),
            bandwidth: s(c::BANDWIDTH),
        }
    }

    /// This direction's settings; latency, jitter and loss come from
    /// `basic` unless the directions are split.
    fn settings(&self, basic: LinkSettings, split: bool) -> LinkSettings {
        let tenths = |s: &Slider| (s.value() * 10.0).round() as u16;
        let (latency_ms, jitter_ms, loss_tenth_percent) = if split {
            (
                self.latency.value() as u16,
                self.jitter.value() as u16,
                tenths(&self.loss),
            )
        } else {
            (basic.latency_ms, basic.jitter_ms, basic.loss_tenth_percent)
        };
        LinkSettings {
            latency_ms,
            jitter_ms,
            loss_tenth_percent,
            duplicate_tenth_percent: tenths(&self.duplicate),
            reorder_percent: self.reorder.value() as u8,
            burst_enter_tenth_percent: tenths(&self.burst_enter),
            burst_leave_percent: (100.0 / self.burst_len.value()).round().clamp(1.0, 100.0) as u8,
            burst_loss_percent: self.burst_loss.value() as u8,
            bandwidth_bytes_per_s: self.bandwidth.value() as u32 * 1000,
        }
    }

    /// Shows `s` in every input.
    fn show(&self, s: &LinkSettings) {
        self.latency.show(f64::from(s.latency_ms));
        self.jitter.show(f64::from(s.jitter_ms));
        self.loss.show(f64::from(s.loss_tenth_percent) / 10.0);
        self.duplicate
            .show(f64::from(s.duplicate_tenth_percent) / 10.0);
        self.reorder.show(f64::from(s.reorder_percent));
        self.burst_enter
            .show(f64::from(s.burst_enter_tenth_percent) / 10.0);
        self.burst_len
            .show((100.0 / f64::from(s.burst_leave_percent.max(1))).round());
        self.burst_loss.show(f64::from(s.burst_loss_percent));
        self.bandwidth
            .show(f64::from(s.bandwidth_bytes_per_s / 1000));
    }

    /// Latency, jitter and loss follow the basic sliders (disabled) unless
    /// split.
    fn mirror(&self, s: &LinkSettings, split: bool) {
        let reason = (!split).then_some("Set by the RTT, loss and jitter sliders (split is off)");
        for e in [&self.latency, &self.jitter, &self.loss] {
            e.set_disabled(reason);
        }
        if !split {
            self.latency.show(f64::from(s.latency_ms));
            self.jitter.show(f64::from(s.jitter_ms));
            self.loss.show(f64::from(s.loss_tenth_percent) / 10.0);
        }
    }
}

/// Handles on the link's controls.
pub struct NetControls {
    preset: Option<HtmlSelectElement>,
    preset_changes: Clicks,
    split: Toggle,
    reliable: Toggle,
    rtt: Slider,
    loss: Slider,
    jitter: Slider,
    up: Direction,
    down: Direction,
    spike_extra: Slider,
    spike_duration: Slider,
    spike_clicks: Clicks,
    doc: Document,
}

impl NetControls {
    /// Looks the controls up; missing ones fall back to the defaults.
    pub fn new(doc: &Document) -> NetControls {
        NetControls {
            preset: select(doc, "net-preset"),
            preset_changes: Clicks::on(doc, "net-preset", "change"),
            split: Toggle::new(doc, c::SPLIT_DIRECTIONS),
            reliable: Toggle::new(doc, c::RELIABLE_ORDERED),
            rtt: Slider::new(doc, c::RTT, ""),
            loss: Slider::new(doc, c::LOSS, ""),
            jitter: Slider::new(doc, c::JITTER, ""),
            up: Direction::new(doc, DIRECTION_PREFIXES[0]),
            down: Direction::new(doc, DIRECTION_PREFIXES[1]),
            spike_extra: Slider::new(doc, c::SPIKE_EXTRA, ""),
            spike_duration: Slider::new(doc, c::SPIKE_DURATION, ""),
            spike_clicks: Clicks::on(doc, "lag-spike", "click"),
            doc: doc.clone(),
        }
    }

    /// The settings the controls hold: the basic sliders for both
    /// directions unless split, plus each direction's extras.
    pub fn settings(&self) -> NetSettings {
        let split = self.split.on();
        let mut basic =
            NetSettings::symmetric(self.rtt.value() as u16, self.jitter.value() as u16, 0);
        let loss = (self.loss.value() * 10.0).round() as u16;
        basic.uplink.loss_tenth_percent = loss;
        basic.downlink.loss_tenth_percent = loss;
        NetSettings {
            uplink: self.up.settings(basic.uplink, split),
            downlink: self.down.settings(basic.downlink, split),
        }
    }

    /// The transport the switch holds.
    pub fn transport(&self) -> LinkTransport {
        if self.reliable.on() {
            LinkTransport::ReliableOrdered
        } else {
            LinkTransport::Datagram
        }
    }

    /// Shows `t` on the transport switch (a scenario being played back).
    pub fn show_transport(&self, t: LinkTransport) {
        self.reliable.show(t == LinkTransport::ReliableOrdered);
    }

    /// If a preset was picked since the last call, shows its settings.
    pub fn apply_picked_preset(&self) {
        if self.preset_changes.take() == 0 {
            return;
        }
        if let Some(p) = self.preset.as_ref().and_then(|s| Preset::parse(&s.value())) {
            self.show(&p.settings());
        }
    }

    /// Shows `s` (a preset just picked, a scenario being played back):
    /// split off with the basic sliders when both directions agree on
    /// latency, jitter and loss; else split on (and the per-direction
    /// table opened) with each direction's own values.
    pub fn show(&self, s: &NetSettings) {
        let (u, d) = (s.uplink, s.downlink);
        let symmetric = (u.latency_ms, u.jitter_ms, u.loss_tenth_percent)
            == (d.latency_ms, d.jitter_ms, d.loss_tenth_percent);
        self.split.show(!symmetric);
        if !symmetric {
            if let Some(e) = self.doc.get_element_by_id("net-advanced") {
                set_flag(&e, "open", true);
            }
        }
        self.show_basic(s);
        self.up.show(&u);
        self.down.show(&d);
    }

    /// The basic sliders as close to `s` as one value for both directions
    /// gets: RTT = both latencies, the larger jitter and loss.
    fn show_basic(&self, s: &NetSettings) {
        let (u, d) = (s.uplink, s.downlink);
        self.rtt.show(f64::from(s.rtt_ms()));
        self.jitter.show(f64::from(u.jitter_ms.max(d.jitter_ms)));
        self.loss
            .show(f64::from(u.loss_tenth_percent.max(d.loss_tenth_percent)) / 10.0);
    }

    /// Makes the controls tell the truth about `s`, the settings in force:
    /// read-outs, UE notes, disabled states, the preset picker (back to
    /// "custom" once `s` leaves the preset).
    pub fn write(&self, s: &NetSettings) {
        let split = self.split.on();
        let (u, d) = (s.uplink, s.downlink);
        self.up.mirror(&u, split);
        self.down.mirror(&d, split);
        let reason = split.then_some(SPLIT_REASON);
        for e in [&self.rtt, &self.loss, &self.jitter] {
            e.set_disabled(reason);
        }
        let pct = |t: u16| format_number(f64::from(t) / 10.0);
        if split {
            self.show_basic(s);
            self.rtt
                .write_readout(Some(&format!("{} + {}", u.latency_ms, d.latency_ms)));
            self.loss.write_readout(Some(&format!(
                "↑{} ↓{}",
                pct(u.loss_tenth_percent),
                pct(d.loss_tenth_percent)
            )));
            self.jitter
                .write_readout(Some(&format!("{} / {}", u.jitter_ms, d.jitter_ms)));
        } else {
            self.rtt.write_readout(None);
            self.loss.write_readout(None);
            self.jitter.write_readout(None);
            self.rtt
                .write_note(&format!("Net PktLag={} (one way)", u.latency_ms));
            self.loss.write_note(&loss_note(s));
            self.jitter
                .write_note(&format!("Net PktLagVariance={}", u.jitter_ms));
        }
        if let Some(note) = query(&self.doc, "[data-note=\"net-split\"]") {
            let text = if split {
                format!(
                    "In force: ↑ {} ms ±{} · {} % loss, ↓ {} ms ±{} · {} % loss{}",
                    u.latency_ms,
                    u.jitter_ms,
                    pct(u.loss_tenth_percent),
                    d.latency_ms,
                    d.jitter_ms,
                    pct(d.loss_tenth_percent),
                    bursts(s)
                )
            } else {
                String::new()
            };
            crate::dom::write_text(&note, &text);
        }
        for e in [&self.spike_extra, &self.spike_duration] {
            e.write_readout(None);
        }
        if let Some(sel) = &self.preset {
            if Preset::parse(&sel.value()).is_some_and(|p| p.settings() != *s) {
                sel.set_value("custom");
            }
        }
    }

    /// Puts `spike` in the Lag spike fields (the opening's).
    pub fn show_spike(&self, spike: &LagSpike) {
        self.spike_extra.show(f64::from(spike.extra_ms));
        self.spike_duration
            .show(f64::from(spike.duration_ms) / 1000.0);
    }

    /// Presses the Lag spike button for the user (the opening's spike).
    pub fn press_lag_spike(&self) {
        self.spike_clicks.bump();
    }

    /// The lag spike asked for by button clicks since the last call.
    pub fn take_lag_spike(&self) -> Option<LagSpike> {
        if self.spike_clicks.take() == 0 {
            return None;
        }
        Some(LagSpike {
            extra_ms: self.spike_extra.value() as u16,
            duration_ms: (self.spike_duration.value() * 1000.0).round() as u16,
        })
    }
}

/// The loss slider's note: UE's cvar, and the mean with bursts on.
fn loss_note(s: &NetSettings) -> String {
    let u = s.uplink;
    let base = format!(
        "Net PktLoss={}",
        format_number(f64::from(u.loss_tenth_percent) / 10.0)
    );
    format!("{base}{}", bursts(s))
}

/// " · with bursts ≈ x % mean" when either direction has bursts on.
fn bursts(s: &NetSettings) -> String {
    let (u, d) = (s.uplink, s.downlink);
    if u.burst_enter_tenth_percent == 0 && d.burst_enter_tenth_percent == 0 {
        return String::new();
    }
    format!(
        " · with bursts ≈ {:.1} % ↑ / {:.1} % ↓ mean",
        u.mean_loss() * 100.0,
        d.mean_loss() * 100.0
    )
}
