//! The Room section's Save link (issue 23): `POST /api/rooms/{name}/
//! recording` keeps the relay's recording of the room so far in its
//! store, and the answer's id becomes a link that replays it in any page:
//! `/?room-recording=ID` for a CMC room ([`super::recorded`]),
//! `/?match-recording=ID` for a rollback match
//! ([`super::recorded_match`]).

use crate::dom::{query, set_flag, write_attr, write_text, Clicks};
use crate::runbar::share::{self, Mailbox, Reply};
use web_sys::Document;

/// The link a saved recording opens at, from the page's origin: a
/// rollback match's (`rollback`) or a CMC room's.
pub fn link(origin: &str, rollback: bool, id: &str) -> String {
    let param = if rollback {
        "match-recording"
    } else {
        "room-recording"
    };
    format!("{origin}/?{param}={id}")
}

/// The Save link button, its note and the link it gives.
pub struct RoomSave {
    doc: Document,
    clicks: Clicks,
    mailbox: Mailbox<Reply>,
    asked: bool,
}

impl RoomSave {
    /// The controls.
    pub fn new(doc: &Document) -> RoomSave {
        RoomSave {
            doc: doc.clone(),
            clicks: Clicks::on(doc, "room-save", "click"),
            mailbox: Mailbox::default(),
            asked: false,
        }
    }

    /// One frame in room `name` (a `rollback` match or a CMC room): a
    /// click asks the relay to save; its answer is written as a link
    /// (copied to the clipboard too).
    pub fn frame(&mut self, name: &str, rollback: bool) {
        if self.clicks.take() > 0 && !self.asked {
            self.asked = true;
            self.note("saving the relay's recording of the room…");
            share::post(
                format!("/api/rooms/{name}/recording?room={name}"),
                None,
                self.mailbox.clone(),
            );
        }
        let Some(reply) = self.mailbox.borrow_mut().take() else {
            return;
        };
        self.asked = false;
        match reply {
            Reply::Saved(id) => {
                let url = link(&share::origin(), rollback, &id);
                share::copy(&url);
                let what = if rollback { "match" } else { "room" };
                self.note(&format!(
                    "saved: the link replays the {what} so far in any page (copied)"
                ));
                if let Some(a) = self.doc.get_element_by_id("room-save-link") {
                    write_attr(&a, "href", &url);
                    write_text(&a, &url);
                    set_flag(&a, "hidden", false);
                }
            }
            Reply::Failed(why) => self.note(&format!("not saved: {why}")),
            Reply::Loaded(_) => self.note("not saved: the relay answered without an id"),
        }
    }

    fn note(&self, text: &str) {
        if let Some(e) = query(&self.doc, "[data-metric=\"room-save\"]") {
            write_text(&e, text);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_saved_recording_opens_at_its_link() {
        assert_eq!(
            super::link("http://127.0.0.1:8080", false, "AbCdEfGhIjKl"),
            "http://127.0.0.1:8080/?room-recording=AbCdEfGhIjKl"
        );
        assert_eq!(
            super::link("http://127.0.0.1:8080", true, "AbCdEfGhIjKl"),
            "http://127.0.0.1:8080/?match-recording=AbCdEfGhIjKl"
        );
    }
}
