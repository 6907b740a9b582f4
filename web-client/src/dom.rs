//! The page's HTML controls and read-outs, through web-sys. Inputs are
//! polled once per frame and compared with the last applied values, so a
//! slider drag applies live without event plumbing; buttons count clicks.

use sim::metrics::Metrics;
use sim::scenario::Setup;
use sim::{ClientConfig, NetSettings, ServerRules, SmoothingMode};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, HtmlInputElement, HtmlSelectElement};

/// Handles on the page's elements.
pub struct Dom {
    doc: Document,
    rtt: Option<HtmlInputElement>,
    loss: Option<HtmlInputElement>,
    jitter: Option<HtmlInputElement>,
    ack_interval: Option<HtmlInputElement>,
    smoothing: Option<HtmlSelectElement>,
    adjustment_interval: Option<HtmlInputElement>,
    error_threshold: Option<HtmlInputElement>,
    send_rate: Option<HtmlInputElement>,
    forced_adjustment: Option<HtmlInputElement>,
    forced_move_loss: Option<HtmlInputElement>,
    combining: Option<HtmlInputElement>,
    old_moves: Option<HtmlInputElement>,
    push_zones: Option<HtmlInputElement>,
    speed_buff: Option<HtmlInputElement>,
    dash_bug: Option<HtmlInputElement>,
    td_resolution: Option<HtmlInputElement>,
    clock_speed: Option<HtmlInputElement>,
    bot_clicks: Rc<Cell<u32>>,
    clear_clicks: Rc<Cell<u32>>,
    metrics: Vec<(&'static str, Option<Element>)>,
}

/// Names of the `data-metric` read-outs, as tests read them.
const METRIC_NAMES: [&str; 16] = [
    "rtt-ms",
    "moves-sent",
    "acks",
    "adjustments",
    "replayed-moves",
    "queue-len",
    "up-bps",
    "down-bps",
    "pos-error-cm",
    "state-hash",
    "smoothing",
    "combined-moves",
    "dual-moves",
    "old-moves",
    "time-discrepancy",
    "stale-updates",
];

impl Dom {
    /// The page's document.
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// Looks the elements up. Missing elements are tolerated (their
    /// values fall back to defaults) so a trimmed page still runs.
    pub fn new() -> Option<Dom> {
        let doc = web_sys::window()?.document()?;
        let input = |id: &str| input(&doc, id);
        let bot_clicks = Rc::new(Cell::new(0));
        let clear_clicks = Rc::new(Cell::new(0));
        count_events(&doc, "bot-toggle", "click", &bot_clicks);
        count_events(&doc, "clear-trails", "click", &clear_clicks);
        let metrics = METRIC_NAMES
            .iter()
            .map(|&n| {
                (
                    n,
                    doc.query_selector(&format!("[data-metric=\"{n}\"]"))
                        .ok()
                        .flatten(),
                )
            })
            .collect();
        Some(Dom {
            rtt: input("rtt"),
            loss: input("loss"),
            jitter: input("jitter"),
            ack_interval: input("ack-interval"),
            adjustment_interval: input("adjustment-interval"),
            error_threshold: input("error-threshold"),
            send_rate: input("send-rate"),
            forced_adjustment: input("forced-adjustment"),
            forced_move_loss: input("forced-move-loss"),
            combining: input("combining"),
            old_moves: input("old-moves"),
            push_zones: input("push-zones"),
            speed_buff: input("speed-buff"),
            dash_bug: input("dash-bug"),
            td_resolution: input("td-resolution"),
            clock_speed: input("clock-speed"),
            smoothing: doc
                .get_element_by_id("smoothing")
                .and_then(|e| e.dyn_into::<HtmlSelectElement>().ok()),
            bot_clicks,
            clear_clicks,
            metrics,
            doc,
        })
    }

    /// The network settings the basic sliders show now, both directions
    /// alike ([`crate::net_controls`] adds the advanced ones). Values are
    /// clamped to the slider ranges, whatever the DOM says.
    pub fn net_settings(&self) -> NetSettings {
        let mut s = NetSettings::symmetric(
            number(&self.rtt, 100.0, 0.0, 1000.0) as u16,
            number(&self.jitter, 0.0, 0.0, 100.0) as u16,
            0,
        );
        // The loss slider moves in 0.1 % steps (naia's 0.1 % and 0.2 %).
        let loss = (number(&self.loss, 0.0, 0.0, 50.0) * 10.0).round() as u16;
        s.uplink.loss_tenth_percent = loss;
        s.downlink.loss_tenth_percent = loss;
        s
    }

    /// The server rules the controls show now (clamped to their ranges).
    pub fn server_rules(&self) -> ServerRules {
        let d = ServerRules::default();
        ServerRules {
            ack_interval_ms: number(&self.ack_interval, d.ack_interval_ms.into(), 0.0, 1000.0)
                as u16,
            adjustment_interval_ms: number(
                &self.adjustment_interval,
                d.adjustment_interval_ms.into(),
                0.0,
                1000.0,
            ) as u16,
            max_position_error_tenth_cm: (number(&self.error_threshold, 16.0, 0.1, 100.0) * 10.0)
                .round() as u16,
            forced_adjustment_percent: number(&self.forced_adjustment, 0.0, 0.0, 100.0) as u8,
            server_effects: checked(&self.push_zones, d.server_effects),
            time_discrepancy_resolution: checked(
                &self.td_resolution,
                d.time_discrepancy_resolution,
            ),
        }
    }

    /// The client switches the controls show now.
    pub fn client_config(&self) -> ClientConfig {
        let d = ClientConfig::default();
        let hz = number(&self.send_rate, (1.0 / d.send_interval).into(), 5.0, 120.0);
        ClientConfig {
            combine_moves: checked(&self.combining, d.combine_moves),
            send_interval: (1.0 / hz) as f32,
            old_move_redundancy: checked(&self.old_moves, d.old_move_redundancy),
            forced_move_loss_percent: number(&self.forced_move_loss, 0.0, 0.0, 100.0) as f32,
            speed_buff: checked(&self.speed_buff, d.speed_buff),
            dash_outside_saved_move: checked(&self.dash_bug, d.dash_outside_saved_move),
            clock_speed: number(&self.clock_speed, d.clock_speed.into(), 0.5, 2.0) as f32,
        }
    }

    /// The smoothing mode selected now.
    pub fn smoothing(&self) -> SmoothingMode {
        self.smoothing
            .as_ref()
            .and_then(|s| SmoothingMode::parse(&s.value()))
            .unwrap_or_default()
    }

    /// Moves the controls to `setup` (a scenario being played back) — all
    /// but the network ones, which [`crate::net_controls::NetControls::show`]
    /// owns — each
    /// with an `input` event so the page's read-outs follow. What the
    /// controls can show is then read back by the caller: a value between
    /// slider steps shows as the nearest step.
    pub fn show_setup(&self, setup: &Setup) {
        let Setup {
            net: _,
            rules,
            client,
            smoothing,
            model: _,
        } = setup;
        set_number(&self.ack_interval, rules.ack_interval_ms.into());
        set_number(
            &self.adjustment_interval,
            rules.adjustment_interval_ms.into(),
        );
        set_number(
            &self.error_threshold,
            f64::from(rules.max_position_error_tenth_cm) / 10.0,
        );
        set_number(
            &self.forced_adjustment,
            rules.forced_adjustment_percent.into(),
        );
        set_checked(&self.push_zones, rules.server_effects);
        set_checked(&self.td_resolution, rules.time_discrepancy_resolution);
        set_number(
            &self.send_rate,
            (1.0 / f64::from(client.send_interval)).round(),
        );
        set_number(
            &self.forced_move_loss,
            client.forced_move_loss_percent.into(),
        );
        set_checked(&self.combining, client.combine_moves);
        set_checked(&self.old_moves, client.old_move_redundancy);
        set_checked(&self.speed_buff, client.speed_buff);
        set_checked(&self.dash_bug, client.dash_outside_saved_move);
        set_number(&self.clock_speed, client.clock_speed.into());
        if let Some(e) = &self.smoothing {
            if e.value() != smoothing.name() {
                e.set_value(smoothing.name());
                notify(e);
            }
        }
    }

    /// Clicks on "bot" since the last call.
    pub fn take_bot_clicks(&self) -> u32 {
        self.bot_clicks.replace(0)
    }

    /// Clicks on "clear trails" since the last call.
    pub fn take_clear_clicks(&self) -> u32 {
        self.clear_clicks.replace(0)
    }

    /// Writes every metric read-out.
    pub fn write_metrics(&self, m: &Metrics, smoothing: SmoothingMode) {
        for (name, el) in &self.metrics {
            let Some(el) = el else { continue };
            let text = match *name {
                "rtt-ms" => m.rtt_ms.map_or("–".into(), |r| format!("{r:.0}")),
                "moves-sent" => m.moves_sent.to_string(),
                "acks" => m.acks.to_string(),
                "adjustments" => m.adjustments.to_string(),
                "replayed-moves" => m.replayed_moves.to_string(),
                "queue-len" => m.queue_len.to_string(),
                "up-bps" => m.up_bps.to_string(),
                "down-bps" => m.down_bps.to_string(),
                "pos-error-cm" => m.pos_error_cm.map_or("–".into(), |e| format!("{e:.1}")),
                "state-hash" => format!("{:016x}", m.state_hash),
                "smoothing" => smoothing.name().to_string(),
                "combined-moves" => m.combined_moves.to_string(),
                "dual-moves" => m.dual_moves.to_string(),
                "old-moves" => m.old_moves_resent.to_string(),
                "time-discrepancy" => m.time_discrepancy_events.to_string(),
                "stale-updates" => m.stale_updates.to_string(),
                _ => continue,
            };
            write_text(el, &text);
        }
    }

    /// Sets the connection pill's text and `data-state` (`connecting`,
    /// `connected`, `local`, `error`).
    pub fn set_status(&self, state: &str, text: &str) {
        if let Some(el) = self.doc.get_element_by_id("conn-status") {
            let _ = el.set_attribute("data-state", state);
            el.set_text_content(Some(text));
        }
    }

    /// Sets the mode label in the header.
    pub fn set_mode(&self, text: &str) {
        if let Some(el) = self.doc.get_element_by_id("mode-label") {
            el.set_text_content(Some(text));
        }
    }

    /// Reflects who drives in the bot button (`aria-pressed`, label).
    pub fn set_bot_driving(&self, driving: bool) {
        if let Some(el) = self.doc.get_element_by_id("bot-toggle") {
            let _ = el.set_attribute("aria-pressed", if driving { "true" } else { "false" });
            el.set_text_content(Some(if driving {
                "Take control (bot is driving)"
            } else {
                "Give control to bot (B)"
            }));
        }
    }
}

/// The `<input>` with this id, if there is one.
pub fn input(doc: &Document, id: &str) -> Option<HtmlInputElement> {
    doc.get_element_by_id(id).and_then(|e| e.dyn_into().ok())
}

/// Sets an element's text if it differs (no needless DOM writes).
pub fn write_text(el: &Element, text: &str) {
    if el.text_content().as_deref() != Some(text) {
        el.set_text_content(Some(text));
    }
}

/// A number input's value clamped to `min..=max` (`default` if absent or
/// not a number).
pub fn number(e: &Option<HtmlInputElement>, default: f64, min: f64, max: f64) -> f64 {
    e.as_ref()
        .map(|e| e.value_as_number())
        .filter(|v| v.is_finite())
        .unwrap_or(default)
        .clamp(min, max)
}

/// Tells the page's scripts a control changed (read-outs, fill).
fn notify(e: &web_sys::EventTarget) {
    if let Ok(ev) = Event::new("input") {
        let _ = e.dispatch_event(&ev);
    }
}

/// Sets a number input if it differs (so typing is not disturbed);
/// `true` if it changed.
pub fn set_value(e: &Option<HtmlInputElement>, v: f64) -> bool {
    match e {
        Some(e) if e.value_as_number() != v => {
            e.set_value_as_number(v);
            true
        }
        _ => false,
    }
}

/// Sets a number input (if it differs) and fires `input` so the page's
/// read-outs follow.
pub fn set_number(e: &Option<HtmlInputElement>, v: f64) {
    if set_value(e, v) {
        if let Some(e) = e {
            notify(e);
        }
    }
}

/// Sets a checkbox (if it differs).
fn set_checked(e: &Option<HtmlInputElement>, v: bool) {
    if let Some(e) = e {
        if e.checked() != v {
            e.set_checked(v);
        }
    }
}

/// A checkbox's state (`default` if absent).
fn checked(e: &Option<HtmlInputElement>, default: bool) -> bool {
    e.as_ref().map_or(default, |e| e.checked())
}

/// Counts `event`s (e.g. `click`) on element `id` into `counter`.
pub fn count_events(doc: &Document, id: &str, event: &str, counter: &Rc<Cell<u32>>) {
    if let Some(el) = doc.get_element_by_id(id) {
        let c = counter.clone();
        let cb = Closure::<dyn FnMut()>::new(move || c.set(c.get() + 1));
        let _ = el.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref());
        // Lives as long as the page.
        cb.forget();
    }
}
