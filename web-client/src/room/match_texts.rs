//! The panel texts and controls a rollback room borrows while it lasts
//! (issue 22): each panel's line says what it draws in the match, the
//! Replayed panel's empty note gives way to the last rebase, the model
//! selector shows Rollback and, with A/B, is turned off with the reason
//! (the room chose the model), and the address bar holds `?room=NAME&model=rollback`.
//! [`MatchRun::borrow_page`] takes them, [`MatchRun::give_back_page`]
//! restores them.

use super::match_rules::replayed_line;
use super::match_run::MatchRun;
use crate::dom::{query, set_flag, write_attr};
use crate::panels::chrome::PanelChrome;
use web_sys::Document;

/// The panel texts a match rewrites.
const SLOTS: [&str; 6] = [
    "predicted-sub",
    "authoritative-sub",
    "replayed-sub",
    "replayed-empty",
    "predicted-foot",
    "authoritative-foot",
];

/// The controls that do nothing in a match, and why.
const OFF: [(&str, &str); 7] = [
    ("reload", NO_RELOAD),
    ("play-pause", SINGLE_PLAYER),
    ("step-frame", SINGLE_PLAYER),
    ("rec-toggle", SINGLE_PLAYER),
    ("restart", SINGLE_PLAYER),
    ("model", ROOMS_MODEL),
    ("ab", ROOMS_MODEL),
];
const NO_RELOAD: &str = "The rollback arena has no ammo: F fires every 250 ms";
const SINGLE_PLAYER: &str = "Scenarios are single-player: leave the room to record or replay";
const ROOMS_MODEL: &str = "This room runs the rollback model for everyone: leave the room to switch models or compare A/B";

impl MatchRun {
    /// Keeps the panel texts the match rewrites, turns off the controls
    /// that do nothing in it (saying why) and puts the room in the
    /// address bar.
    pub fn borrow_page(&mut self, doc: &Document) {
        self.saved_texts = SLOTS
            .iter()
            .filter_map(|&slot| {
                let el = query(doc, &format!("[data-panel-text=\"{slot}\"]"))?;
                Some((slot, el.text_content().unwrap_or_default()))
            })
            .collect();
        self.saved_controls = OFF
            .iter()
            .filter_map(|&(id, why)| {
                let e = doc.get_element_by_id(id)?;
                let kept = (id, e.get_attribute("title"), e.has_attribute("disabled"));
                set_flag(&e, "disabled", true);
                write_attr(&e, "title", why);
                Some(kept)
            })
            .collect();
        if let Some(select) = crate::dom::select(doc, "model") {
            self.saved_model = Some(select.value());
            select.set_value("rollback");
        }
        // The CMC room's legend (proxies, shots' four views) says nothing
        // here: the rollback legend is shown.
        if let Some(e) = doc.get_element_by_id("room-legend") {
            set_flag(&e, "hidden", true);
        }
        set_url(Some(&self.name));
    }

    /// Restores what [`MatchRun::borrow_page`] took.
    pub fn give_back_page(&self, doc: &Document, chrome: &PanelChrome) {
        for (slot, text) in &self.saved_texts {
            chrome.text(slot, text);
        }
        chrome.show("replayed-empty", true);
        if let (Some(select), Some(model)) = (crate::dom::select(doc, "model"), &self.saved_model) {
            select.set_value(model);
        }
        for (id, title, disabled) in &self.saved_controls {
            if let Some(e) = doc.get_element_by_id(id) {
                set_flag(&e, "disabled", *disabled);
                match title {
                    Some(t) => write_attr(&e, "title", t),
                    None => {
                        let _ = e.remove_attribute("title");
                    }
                }
            }
        }
        set_url(None);
    }

    /// Writes the panels' lines for this frame.
    pub fn write_texts(&self, chrome: &PanelChrome) {
        let p = &self.predictor;
        let m = p.metrics();
        chrome.text(
            "predicted-sub",
            "your prediction of everyone: remote players by hold-last · faint ring: the last confirmed State",
        );
        chrome.text(
            "authoritative-sub",
            "the server's world: the newest State it sent (confirmed)",
        );
        chrome.text(
            "predicted-foot",
            &format!(
                "rebases {} · rollbacks {} · ticks ahead {} · re-simulated {}",
                m.rebases, m.rollbacks, m.ticks_ahead, m.resimulated_ticks
            ),
        );
        chrome.text(
            "authoritative-foot",
            &format!(
                "tick {} · hash checks {} · mismatches {}",
                p.confirmed().map_or(0, |s| s.tick.0),
                m.hash_checks,
                m.hash_mismatches
            ),
        );
        let local = self.seat.unwrap_or(0);
        let sub = match &self.replay {
            Some(r) => replayed_line(
                r.record.from.0,
                r.record.resimulated.len(),
                &r.caused_by,
                local,
            ),
            None => "no rebase yet".to_owned(),
        };
        chrome.text("replayed-sub", &sub);
        chrome.text(
            "replayed-empty",
            "No rebase yet: each State the server sends is restored and the predicted ticks re-simulated; the last one shows here, with the remote player whose input was mispredicted.",
        );
        chrome.show("replayed-empty", self.replay.is_none());
    }
}

/// Puts `?room=NAME&model=rollback` in the page's URL (or takes both
/// out), so the address bar is a link to the match.
fn set_url(room: Option<&str>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(href) = window.location().href() else {
        return;
    };
    let Ok(url) = web_sys::Url::new(&href) else {
        return;
    };
    match room {
        Some(r) => {
            url.search_params().set("room", r);
            url.search_params().set("model", "rollback");
        }
        None => {
            url.search_params().delete("room");
            url.search_params().delete("model");
        }
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url.href()));
    }
}
