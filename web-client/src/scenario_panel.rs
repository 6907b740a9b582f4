//! The page's Scenario card: Record / Save / Copy link, playback controls
//! (play / pause / restart / speed), the share links and the read-outs
//! the browser test checks (`data-metric="scenario-…"`).

use crate::dom::{count_events, write_text};
use sim::scenario::Outcome;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

/// What the ▶/❚❚ button does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayButton {
    /// Playing: pauses.
    Pause,
    /// Paused mid-way: resumes (Step › is enabled).
    Resume,
    /// Finished, taken over or just recorded: plays from frame 0.
    Replay,
}

/// Clicks on the card's buttons since the last frame.
#[derive(Debug, Default, Clone, Copy)]
pub struct Clicks {
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
    /// Step one recorded frame (while paused).
    pub step: u32,
}

/// Handles on the card's elements (missing ones are skipped).
pub struct ScenarioPanel {
    doc: Document,
    counters: [Rc<Cell<u32>>; 6],
    name: Option<HtmlInputElement>,
    description: Option<HtmlTextAreaElement>,
    speed: Option<HtmlSelectElement>,
    link: Option<HtmlInputElement>,
}

const BUTTONS: [&str; 6] = [
    "rec-toggle",
    "save-scenario",
    "copy-link",
    "play-pause",
    "restart",
    "step-frame",
];

impl ScenarioPanel {
    /// Looks the card up in `doc`.
    pub fn new(doc: &Document) -> ScenarioPanel {
        let counters: [Rc<Cell<u32>>; 6] = Default::default();
        for (id, c) in BUTTONS.iter().zip(&counters) {
            count_events(doc, id, "click", c);
        }
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
    pub fn take_clicks(&self) -> Clicks {
        let [record, save, copy, play_pause, restart, step] =
            self.counters.clone().map(|c| c.replace(0));
        Clicks {
            record,
            save,
            copy,
            play_pause,
            restart,
            step,
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

    /// Shows or hides the playback controls and sets what ▶/❚❚ does.
    pub fn show_playback(&self, visible: bool, button: PlayButton) {
        if let Some(e) = self.el("playback-controls") {
            if visible {
                let _ = e.remove_attribute("hidden");
            } else {
                let _ = e.set_attribute("hidden", "");
            }
        }
        self.set_text(
            "play-pause",
            match button {
                PlayButton::Pause => "❚❚ Pause",
                PlayButton::Resume => "▶ Resume",
                PlayButton::Replay => "▶ Replay",
            },
        );
        self.set_disabled("step-frame", button != PlayButton::Resume);
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
