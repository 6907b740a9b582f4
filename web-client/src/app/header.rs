//! The page's header: the mode the run is in, the connection pill, and the
//! bot button's label — the state machine's state, shown.

use crate::dom::{write_attr, write_text};
use web_sys::Document;

/// The header's read-outs.
pub struct Header {
    doc: Document,
}

impl Header {
    /// The header of `doc`.
    pub fn new(doc: &Document) -> Header {
        Header { doc: doc.clone() }
    }

    /// Sets the connection pill's text and `data-state` (`connecting`,
    /// `connected`, `local`, `error`).
    pub fn set_status(&self, state: &str, text: &str) {
        if let Some(el) = self.doc.get_element_by_id("conn-status") {
            write_attr(&el, "data-state", state);
            write_text(&el, text);
        }
    }

    /// Sets the mode label in the header.
    pub fn set_mode(&self, text: &str) {
        if let Some(el) = self.doc.get_element_by_id("mode-label") {
            write_text(&el, text);
        }
    }

    /// Reflects who drives in the bot button (`aria-pressed`, label).
    pub fn set_bot_driving(&self, driving: bool) {
        if let Some(el) = self.doc.get_element_by_id("bot-toggle") {
            write_attr(&el, "aria-pressed", if driving { "true" } else { "false" });
            write_text(
                &el,
                if driving {
                    "Take control (bot is driving)"
                } else {
                    "Give control to bot (B)"
                },
            );
        }
    }
}
