//! The page's HTML controls and read-outs, through web-sys. Inputs are
//! polled once per frame and compared with the last applied values, so a
//! slider drag applies live without event plumbing; buttons count clicks.

use sim::metrics::Metrics;
use sim::{NetSettings, SmoothingMode};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement, HtmlSelectElement};

/// Handles on the page's elements.
pub struct Dom {
    doc: Document,
    rtt: Option<HtmlInputElement>,
    loss: Option<HtmlInputElement>,
    jitter: Option<HtmlInputElement>,
    ack_interval: Option<HtmlInputElement>,
    smoothing: Option<HtmlSelectElement>,
    bot_clicks: Rc<Cell<u32>>,
    clear_clicks: Rc<Cell<u32>>,
    metrics: Vec<(&'static str, Option<Element>)>,
}

/// Names of the `data-metric` read-outs, as tests read them.
const METRIC_NAMES: [&str; 11] = [
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
];

impl Dom {
    /// Looks the elements up. Missing elements are tolerated (their
    /// values fall back to defaults) so a trimmed page still runs.
    pub fn new() -> Option<Dom> {
        let doc = web_sys::window()?.document()?;
        let input = |id: &str| {
            doc.get_element_by_id(id)
                .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
        };
        let bot_clicks = Rc::new(Cell::new(0));
        let clear_clicks = Rc::new(Cell::new(0));
        count_clicks(&doc, "bot-toggle", &bot_clicks);
        count_clicks(&doc, "clear-trails", &clear_clicks);
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
            smoothing: doc
                .get_element_by_id("smoothing")
                .and_then(|e| e.dyn_into::<HtmlSelectElement>().ok()),
            bot_clicks,
            clear_clicks,
            metrics,
            doc,
        })
    }

    /// The network settings the sliders show now. Values are clamped to
    /// the slider ranges, whatever the DOM says.
    pub fn net_settings(&self) -> NetSettings {
        let read = |e: &Option<HtmlInputElement>, default: f64, max: f64| {
            e.as_ref()
                .map(|e| e.value_as_number())
                .filter(|v| v.is_finite())
                .unwrap_or(default)
                .clamp(0.0, max)
        };
        let d = NetSettings::default();
        NetSettings {
            rtt_ms: read(&self.rtt, d.rtt_ms.into(), 1000.0) as u16,
            jitter_ms: read(&self.jitter, d.jitter_ms.into(), 100.0) as u16,
            loss_percent: read(&self.loss, d.loss_percent.into(), 50.0) as u8,
            ack_interval_ms: read(&self.ack_interval, d.ack_interval_ms.into(), 1000.0) as u16,
        }
    }

    /// The smoothing mode selected now.
    pub fn smoothing(&self) -> SmoothingMode {
        self.smoothing
            .as_ref()
            .and_then(|s| SmoothingMode::parse(&s.value()))
            .unwrap_or_default()
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
                _ => continue,
            };
            if el.text_content().as_deref() != Some(text.as_str()) {
                el.set_text_content(Some(&text));
            }
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
                "Bot driving — press a move key to take over"
            } else {
                "Give control to bot (B)"
            }));
        }
    }
}

fn count_clicks(doc: &Document, id: &str, counter: &Rc<Cell<u32>>) {
    if let Some(el) = doc.get_element_by_id(id) {
        let c = counter.clone();
        let cb = Closure::<dyn FnMut()>::new(move || c.set(c.get() + 1));
        let _ = el.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
        // Lives as long as the page.
        cb.forget();
    }
}
