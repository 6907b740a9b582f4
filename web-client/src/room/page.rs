//! What a room borrows of the page while it lasts: the panel texts it
//! rewrites, the controls that do nothing in a room (the run bar's, since
//! scenarios are single-player, and the model's, since a room runs CMC),
//! turned off with the reason, and the address bar (`?room=NAME`, so it
//! is a link to the room). [`BorrowedPage`] takes and restores them, for
//! a CMC room (`RoomRun::borrow_page`) and a rollback match alike.

use crate::dom::{query, set_flag, write_attr};
use crate::panels::chrome::PanelChrome;
use web_sys::Document;

/// The controls that do nothing in a room, and why: the run bar's
/// (scenarios are single-player) and the model's (a room runs CMC).
pub(super) const OFF_IN_A_ROOM: [(&str, &str); 6] = [
    ("play-pause", SINGLE_PLAYER),
    ("step-frame", SINGLE_PLAYER),
    ("rec-toggle", SINGLE_PLAYER),
    ("restart", SINGLE_PLAYER),
    ("model", CMC_ONLY),
    ("ab", CMC_ONLY),
];
/// Why the run bar is off in any room.
pub const SINGLE_PLAYER: &str = "Scenarios are single-player: leave the room to record or replay";
const CMC_ONLY: &str =
    "A room runs the CMC model for everyone: leave the room to switch models or compare A/B";

/// The panel texts a room rewrites.
pub(super) const ROOM_SLOTS: [&str; 2] = ["authoritative-sub", "replayed-empty"];

/// What a room — CMC or a rollback match — borrows of the page while it
/// lasts: the panel texts it rewrites, the controls it turns off (with
/// their title and disabled state before) and the address bar.
#[derive(Debug, Default)]
pub struct BorrowedPage {
    texts: Vec<(&'static str, String)>,
    controls: Vec<(&'static str, Option<String>, bool)>,
}

impl BorrowedPage {
    /// Keeps the texts of `slots`, turns off each control of `off` with its
    /// reason as its title, and puts `?room=room` (and `&model=model`) in
    /// the address bar.
    pub fn take(
        doc: &Document,
        slots: &[&'static str],
        off: &[(&'static str, &'static str)],
        room: &str,
        model: Option<&str>,
    ) -> BorrowedPage {
        let texts = slots
            .iter()
            .filter_map(|&slot| {
                let el = query(doc, &format!("[data-panel-text=\"{slot}\"]"))?;
                Some((slot, el.text_content().unwrap_or_default()))
            })
            .collect();
        let controls = off
            .iter()
            .filter_map(|&(id, why)| {
                let e = doc.get_element_by_id(id)?;
                let kept = (id, e.get_attribute("title"), e.has_attribute("disabled"));
                set_flag(&e, "disabled", true);
                write_attr(&e, "title", why);
                Some(kept)
            })
            .collect();
        set_room_url(Some((room, model)));
        BorrowedPage { texts, controls }
    }

    /// Restores what [`BorrowedPage::take`] took and clears the address
    /// bar's room.
    pub fn give_back(&self, doc: &Document, chrome: &PanelChrome) {
        for (slot, text) in &self.texts {
            chrome.text(slot, text);
        }
        for (id, title, disabled) in &self.controls {
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
        set_room_url(None);
    }
}

/// Puts `?room=NAME` (and `&model=MODEL`) in the page's URL, or takes both
/// out, so the address bar is a link to the room.
fn set_room_url(room: Option<(&str, Option<&str>)>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(href) = window.location().href() else {
        return;
    };
    let Ok(url) = web_sys::Url::new(&href) else {
        return;
    };
    let params = url.search_params();
    match room {
        Some((r, model)) => {
            params.set("room", r);
            match model {
                Some(m) => params.set("model", m),
                None => params.delete("model"),
            }
        }
        None => {
            params.delete("room");
            params.delete("model");
            params.delete("watch");
        }
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url.href()));
    }
}
