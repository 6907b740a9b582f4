//! The panel texts and controls a rollback room borrows while it lasts
//! (issue 22): each panel's line says what it draws in the match, the
//! Replayed panel's empty note gives way to the last rebase, the model
//! selector shows Rollback and, with A/B, is turned off with the reason
//! (the room chose the model), and the address bar holds `?room=NAME&model=rollback`.
//! [`MatchRun::borrow_page`] takes them, [`MatchRun::give_back_page`]
//! restores them.

use super::match_rules::replayed_line;
use super::match_run::MatchRun;
use super::page::{BorrowedPage, SINGLE_PLAYER};
use crate::dom::set_flag;
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
const OFF: [(&str, &str); 8] = [
    ("reload", NO_RELOAD),
    ("room-fork-run", CMC_FORKED),
    ("play-pause", SINGLE_PLAYER),
    ("step-frame", SINGLE_PLAYER),
    ("rec-toggle", SINGLE_PLAYER),
    ("restart", SINGLE_PLAYER),
    ("model", ROOMS_MODEL),
    ("ab", ROOMS_MODEL),
];
const CMC_FORKED: &str = "What if forks a CMC room's lag compensation: a rollback match has no rewind to change (its Save link records it)";
const NO_RELOAD: &str = "The rollback arena has no ammo: F fires every 250 ms";
const ROOMS_MODEL: &str = "This room runs the rollback model for everyone: leave the room to switch models or compare A/B";

impl MatchRun {
    /// Keeps the panel texts the match rewrites, turns off the controls
    /// that do nothing in it (saying why), shows Rollback in the model
    /// selector and puts the room in the address bar.
    pub fn borrow_page(&mut self, doc: &Document) {
        self.borrowed = BorrowedPage::take(doc, &SLOTS, &OFF, &self.name, Some("rollback"));
        if let Some(select) = crate::dom::select(doc, "model") {
            self.saved_model = Some(select.value());
            select.set_value("rollback");
        }
        // The CMC room's legend (proxies, shots' four views) says nothing
        // here: the rollback legend is shown.
        if let Some(e) = doc.get_element_by_id("room-legend") {
            set_flag(&e, "hidden", true);
        }
    }

    /// Restores what [`MatchRun::borrow_page`] took.
    pub fn give_back_page(&self, doc: &Document, chrome: &PanelChrome) {
        self.borrowed.give_back(doc, chrome);
        chrome.show("replayed-empty", true);
        if let (Some(select), Some(model)) = (crate::dom::select(doc, "model"), &self.saved_model) {
            select.set_value(model);
        }
    }

    /// Writes the panels' lines for this frame.
    pub fn write_texts(&self, chrome: &PanelChrome) {
        if self.watch {
            self.write_watching(chrome);
            return;
        }
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

    /// A spectator's lines (issue 22): both panels draw the newest View.
    fn write_watching(&self, chrome: &PanelChrome) {
        let tick = self.watched.as_ref().map(|w| w.view.snapshot.tick.0);
        let views = self.watched.as_ref().map_or(0, |w| w.views);
        chrome.text(
            "predicted-sub",
            "watching: no prediction · the server's world as the newest View showed it",
        );
        chrome.text(
            "authoritative-sub",
            "the server's world: the newest View it sent a spectator (a State's world and hash)",
        );
        let foot = match tick {
            Some(t) => format!("watching · tick {t} · views {views}"),
            None => "watching · waiting for the match".to_owned(),
        };
        chrome.text("predicted-foot", &foot);
        chrome.text("authoritative-foot", &foot);
        chrome.text("replayed-sub", "watching: no prediction, so no rebase");
        chrome.text(
            "replayed-empty",
            "A spectator predicts nothing: it draws each View the server sends and never rebases.",
        );
        chrome.show("replayed-empty", true);
    }
}
