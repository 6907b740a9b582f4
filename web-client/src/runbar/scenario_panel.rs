//! The run bar: the transport every run obeys (❚❚ / ▶, Step ›, speed),
//! Record / Save / Copy link, ⟲ Restart, the CSV download, the share
//! links and the read-outs the browser tests check
//! (`data-metric="scenario-…"`).

use super::playback::{RunState, TimeControl, LIVE_MAX_SPEED};
use crate::dom::{set_flag, write_attr, write_text, Clicks};
use sim::scenario::Outcome;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

/// Clicks on the bar's buttons since the last frame.
#[derive(Debug, Default, Clone, Copy)]
pub struct ButtonClicks {
    /// Record / Stop.
    pub record: u32,
    /// Save.
    pub save: u32,
    /// Copy link.
    pub copy: u32,
    /// Play / Pause.
    pub play_pause: u32,
    /// Restart.
    pub restart: u32,
    /// Step one frame (while paused).
    pub step: u32,
    /// Download the timeline as CSV.
    pub csv: u32,
}

/// Handles on the card's elements (missing ones are skipped).
pub struct ScenarioPanel {
    doc: Document,
    counters: [Clicks; 7],
    name: Option<HtmlInputElement>,
    description: Option<HtmlTextAreaElement>,
    speed: Option<HtmlSelectElement>,
    link: Option<HtmlInputElement>,
}

const BUTTONS: [&str; 7] = [
    "rec-toggle",
    "save-scenario",
    "copy-link",
    "play-pause",
    "restart",
    "step-frame",
    "download-csv",
];

impl ScenarioPanel {
    /// Looks the card up in `doc`.
    pub fn new(doc: &Document) -> ScenarioPanel {
        let counters = BUTTONS.map(|id| Clicks::on(doc, id, "click"));
        let get = |id: &str| doc.get_element_by_id(id);
        ScenarioPanel {
            counters,
            name: get("scenario-name").and_then(|e| e.dyn_into().ok()),
            description: get("scenario-desc").and_then(|e| e.dyn_into().ok()),
            speed: get("speed").and_then(|e| e.dyn_into().ok()),
            link: get("scenario-link").and_then(|e| e.dyn_into().ok()),
            doc: doc.clone(),
        }
    }

    /// Clicks since the last call.
    pub fn take_clicks(&self) -> ButtonClicks {
        let [record, save, copy, play_pause, restart, step, csv] =
            self.counters.each_ref().map(Clicks::take);
        ButtonClicks {
            record,
            save,
            copy,
            play_pause,
            restart,
            step,
            csv,
        }
    }

    /// The name typed in, trimmed; "Untitled run" if empty.
    pub fn name(&self) -> String {
        let name = self.name.as_ref().map(|e| e.value()).unwrap_or_default();
        let name = name.trim();
        if name.is_empty() {
            "Untitled run".to_owned()
        } else {
            name.to_owned()
        }
    }

    /// The description typed in.
    pub fn description(&self) -> String {
        self.description
            .as_ref()
            .map(|e| e.value())
            .unwrap_or_default()
    }

    /// Fills the name and description fields (a loaded scenario's, or
    /// empty ones); a description is unfolded so the viewer reads what to
    /// look for.
    pub fn show_text(&self, name: &str, description: &str) {
        if let Some(e) = &self.name {
            e.set_value(name);
        }
        if let Some(e) = &self.description {
            e.set_value(description);
        }
        if let Some(e) = self.el("scenario-desc-box") {
            if description.is_empty() {
                let _ = e.remove_attribute("open");
            } else {
                let _ = e.set_attribute("open", "");
            }
        }
    }

    /// Playback speed chosen, `0.25..=4.0` (1.0 if unreadable).
    pub fn speed(&self) -> f64 {
        self.speed
            .as_ref()
            .and_then(|s| s.value().parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .unwrap_or(1.0)
            .clamp(0.25, 4.0)
    }

    fn el(&self, id: &str) -> Option<Element> {
        self.doc.get_element_by_id(id)
    }

    fn set_text(&self, id: &str, text: &str) {
        if let Some(e) = self.el(id) {
            write_text(&e, text);
        }
    }

    fn set_disabled(&self, id: &str, disabled: bool) {
        if let Some(e) = self.el(id) {
            if disabled {
                let _ = e.set_attribute("disabled", "");
            } else {
                let _ = e.remove_attribute("disabled");
            }
        }
    }

    /// Shows the recorder's state: the Record button's label and whether
    /// Save has something to save.
    pub fn show_recorder(&self, recording: bool, can_save: bool) {
        self.set_text(
            "rec-toggle",
            if recording {
                "■ Stop recording"
            } else {
                "● Record"
            },
        );
        if let Some(e) = self.el("rec-toggle") {
            let _ = e.set_attribute("aria-pressed", if recording { "true" } else { "false" });
        }
        self.set_disabled("save-scenario", !can_save || recording);
    }

    /// Shows the transport for a run in `state`: what ▶/❚❚ does, Step ›
    /// (only while an in-page run is paused), the speeds a live run cannot
    /// take (faster than real time), ⟲ Restart when there is something to
    /// replay.
    pub fn show_transport(&self, state: RunState, time: &TimeControl, can_replay: bool) {
        let button = state.button(time.paused);
        self.set_text("play-pause", button.text());
        if let Some(e) = self.el("play-pause") {
            write_attr(
                &e,
                "aria-pressed",
                if time.paused { "true" } else { "false" },
            );
        }
        self.set_disabled(
            "step-frame",
            !(time.paused && state.in_page() && state.advances()),
        );
        self.set_disabled("restart", !can_replay);
        if let Some(sel) = &self.speed {
            let live = !state.is_playback();
            for i in 0..sel.length() {
                if let Some(o) = sel.item(i) {
                    let v: f64 = o
                        .get_attribute("value")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(1.0);
                    set_flag(
                        &o,
                        "disabled",
                        (live && v > LIVE_MAX_SPEED) || state == RunState::Relay && v != 1.0,
                    );
                }
            }
            if live && self.speed() > LIVE_MAX_SPEED {
                sel.set_value("1");
            }
            let why = match state {
                RunState::Relay => {
                    "The relay's clock cannot be slowed: local mode (?mode=local) can"
                }
                _ if live => "A live run goes at most at real time; 2× and 4× are for replays",
                _ => "Replay speed",
            };
            write_attr(sel, "title", why);
        }
    }

    /// Hides the share links (a new recording has none yet).
    pub fn hide_links(&self) {
        if let Some(e) = self.el("scenario-links") {
            let _ = e.set_attribute("hidden", "");
        }
        self.set_disabled("copy-link", true);
    }

    /// A message for the user: `kind` is `info`, `ok` or `error`.
    pub fn message(&self, kind: &str, text: &str) {
        if let Some(e) = self.el("scenario-message") {
            let _ = e.set_attribute("data-kind", kind);
        }
        self.set_text("scenario-message", text);
    }

    /// Shows the share links: the short one (if the relay stored it) in
    /// the copyable field, and the self-contained one as an anchor.
    pub fn show_links(&self, short: Option<&str>, self_contained: &str) {
        if let Some(e) = &self.link {
            e.set_value(short.unwrap_or(self_contained));
        }
        if let Some(e) = self.el("scenario-fragment-link") {
            let _ = e.set_attribute("href", self_contained);
            e.set_text_content(Some(&format!(
                "self-contained link ({} characters, plays with no server)",
                self_contained.len()
            )));
        }
        if let Some(e) = self.el("scenario-links") {
            let _ = e.remove_attribute("hidden");
        }
        self.set_disabled("copy-link", false);
    }

    /// The link in the copyable field.
    pub fn link(&self) -> String {
        self.link.as_ref().map(|e| e.value()).unwrap_or_default()
    }

    /// Shows what a recording ended with (`#recorded-outcome`: text, and
    /// `data-state-hash` / `data-trajectory-hash` / `data-adjustments`
    /// for tests); `None` hides it.
    pub fn show_recorded(&self, outcome: Option<&Outcome>, secs: f64) {
        let Some(e) = self.el("recorded-outcome") else {
            return;
        };
        match outcome {
            Some(o) => {
                let _ = e.set_attribute("data-state-hash", &format!("{:016x}", o.state_hash));
                let _ = e.set_attribute(
                    "data-trajectory-hash",
                    &format!("{:016x}", o.trajectory_hash),
                );
                let _ = e.set_attribute("data-adjustments", &o.adjustments.to_string());
                e.set_text_content(Some(&format!(
                    "recorded {secs:.1} s · {} adj · {:016x}",
                    o.adjustments, o.trajectory_hash
                )));
                let _ = e.remove_attribute("hidden");
            }
            None => {
                let _ = e.set_attribute("hidden", "");
            }
        }
    }

    /// Writes a `data-metric="<name>"` read-out of the card.
    pub fn metric(&self, name: &str, text: &str) {
        if let Ok(Some(e)) = self
            .doc
            .query_selector(&format!("[data-metric=\"{name}\"]"))
        {
            write_text(&e, text);
        }
    }
}
