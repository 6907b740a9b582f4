//! Opening a saved room recording (`?room-recording=ID`, issue 23): the
//! page asks the relay for its bytes (`GET /api/room-recordings/{id}`),
//! plays it back ([`RecordedRoom`]) and shows it instead of its own run
//! until Close, which reloads the page without the link, or Join, which
//! opens the room's link (`/?room=NAME`) instead.

use super::App;
use crate::room::recorded::RecordedRoom;
use crate::room::recorded_panels;
use crate::runbar::share::{self, Reply};
use macroquad::prelude::*;

impl App {
    /// Asks the relay for room recording `id` (one that cannot be an id
    /// is named at once).
    pub(super) fn load_room_recording(&mut self, id: String) {
        if !crate::room::recorded::is_id(&id) {
            let shown: String = id.chars().take(16).collect();
            let why = format!(
                "?room-recording={shown}{}: not a recording's id (12 letters, digits, - or _) · running live instead",
                if id.chars().count() > 16 { "…" } else { "" }
            );
            self.panel.message("error", &why);
            self.room_controls.note(&why, true);
            return;
        }
        self.room_controls
            .note(&format!("loading room recording {id}…"), false);
        share::get_bytes(
            format!("/api/room-recordings/{id}"),
            format!("no room recording with id {id} on this relay"),
            self.recorded_mail.clone(),
        );
        self.recorded_id = Some(id);
    }

    /// The recording's answer, then its frame while it is open; `true`
    /// if it is.
    pub(super) fn recorded_tick(&mut self) -> bool {
        if let Some(reply) = self.recorded_mail.borrow_mut().take() {
            let id = self.recorded_id.clone().unwrap_or_default();
            let opened = match reply {
                Reply::Loaded(bytes) => RecordedRoom::open(&self.doc(), id.clone(), &bytes),
                Reply::Failed(why) | Reply::Saved(why) => Err(why),
            };
            match opened {
                Ok(r) => {
                    self.driver.close();
                    self.header.set_mode(&format!("room recording {id}"));
                    self.header
                        .set_status("connected", "played back in this page");
                    self.room_controls.note(
                        &format!("room recording {id}: played back in this page"),
                        false,
                    );
                    self.recorded = Some(Box::new(r));
                }
                Err(why) => {
                    let why = format!("room recording {id}: {why} · running live instead");
                    self.panel.message("error", &why);
                    self.room_controls.note(&why, true);
                }
            }
        }
        if self.recorded.is_none() {
            return false;
        }
        // Join (or a listed room, or Watch) closes the recording and joins:
        // the page opens the room's link, as Close reloads the page.
        if let Some((name, watch)) = self.room_controls.take_join() {
            let link =
                crate::room::recorded::join_link(&name, self.joins_match(&name, watch), watch);
            self.room_controls
                .note(&format!("closing the recording, joining {name}…"), false);
            if let Some(w) = web_sys::window() {
                let _ = w.location().set_href(&link);
            }
            return true;
        }
        let Some(r) = self.recorded.as_mut() else {
            return false;
        };
        if !r.frame(f64::from(get_frame_time())) {
            if let Some(w) = web_sys::window() {
                let _ = w.location().set_href("/");
            }
            return true;
        }
        self.model_view.show("cmc");
        let layout = self.chrome.layout((screen_width(), screen_height()));
        crate::canvas::clear();
        recorded_panels::draw(r, &layout, &self.chrome);
        true
    }
}
