//! Opening a saved recording (issue 23): a CMC room's
//! (`?room-recording=ID`, `GET /api/room-recordings/{id}`,
//! [`RecordedRoom`]) or a rollback match's (`?match-recording=ID`,
//! `GET /api/match-recordings/{id}`, [`RecordedMatch`]). The page asks the
//! relay for its bytes, plays it back and shows it instead of its own run
//! until Close, which reloads the page without the link, or Join, which
//! opens the room's link (`/?room=NAME`) instead.

use super::App;
use crate::room::recorded::RecordedRoom;
use crate::room::recorded_match::RecordedMatch;
use crate::room::{recorded_match_panels, recorded_panels};
use crate::runbar::share::{self, Reply};
use macroquad::prelude::*;

/// What a recording link opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RecordingKind {
    /// A CMC room's recording.
    Room,
    /// A rollback match's recording.
    Match,
}

impl RecordingKind {
    /// Both, with the page's query parameter of each
    /// ([`crate::link_params::RECORDING_PARAMS`]).
    pub(super) const ALL: [(RecordingKind, &'static str); 2] = [
        (RecordingKind::Room, crate::link_params::RECORDING_PARAMS[0]),
        (
            RecordingKind::Match,
            crate::link_params::RECORDING_PARAMS[1],
        ),
    ];

    /// `room` or `match`: in the relay's route and the page's words.
    fn word(self) -> &'static str {
        match self {
            RecordingKind::Room => "room",
            RecordingKind::Match => "match",
        }
    }
}

/// A recording open in the page.
pub(super) enum Opened {
    /// A CMC room's.
    Room(Box<RecordedRoom>),
    /// A rollback match's.
    Match(Box<RecordedMatch>),
}

impl App {
    /// Asks the relay for recording `id` of `kind` (one that cannot be an
    /// id is named at once).
    pub(super) fn load_recording(&mut self, kind: RecordingKind, id: String) {
        let word = kind.word();
        if !crate::room::recorded::is_id(&id) {
            let shown: String = id.chars().take(16).collect();
            let why = format!(
                "?{word}-recording={shown}{}: not a recording's id (12 letters, digits, - or _) · running live instead",
                if id.chars().count() > 16 { "…" } else { "" }
            );
            self.panel.message("error", &why);
            self.room_controls.note(&why, true);
            return;
        }
        self.room_controls
            .note(&format!("loading {word} recording {id}…"), false);
        share::get_bytes(
            format!("/api/{word}-recordings/{id}"),
            format!("no {word} recording with id {id} on this relay"),
            self.recorded_mail.clone(),
        );
        self.recorded_id = Some((kind, id));
    }

    /// The recording's answer, then its frame while it is open; `true`
    /// if it is.
    pub(super) fn recorded_tick(&mut self) -> bool {
        if let Some(reply) = self.recorded_mail.borrow_mut().take() {
            let (kind, id) = self
                .recorded_id
                .clone()
                .unwrap_or((RecordingKind::Room, String::new()));
            let word = kind.word();
            let opened = match reply {
                Reply::Loaded(bytes) => match kind {
                    RecordingKind::Room => RecordedRoom::open(&self.doc(), id.clone(), &bytes)
                        .map(|r| Opened::Room(Box::new(r))),
                    RecordingKind::Match => RecordedMatch::open(&self.doc(), id.clone(), &bytes)
                        .map(|m| Opened::Match(Box::new(m))),
                },
                Reply::Failed(why) | Reply::Saved(why) => Err(why),
            };
            match opened {
                Ok(r) => {
                    self.driver.close();
                    self.header.set_mode(&format!("{word} recording {id}"));
                    self.header
                        .set_status("connected", "played back in this page");
                    self.room_controls.note(
                        &format!("{word} recording {id}: played back in this page"),
                        false,
                    );
                    self.recorded = Some(r);
                }
                Err(why) => {
                    let why = format!("{word} recording {id}: {why} · running live instead");
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
        let dt = f64::from(get_frame_time());
        let open = match r {
            Opened::Room(r) => r.frame(dt),
            Opened::Match(m) => m.frame(dt),
        };
        if !open {
            if let Some(w) = web_sys::window() {
                let _ = w.location().set_href("/");
            }
            return true;
        }
        let layout = self.chrome.layout((screen_width(), screen_height()));
        crate::canvas::clear();
        match &self.recorded {
            Some(Opened::Room(r)) => {
                self.model_view.show("cmc");
                recorded_panels::draw(r, &layout, &self.chrome);
            }
            Some(Opened::Match(m)) => {
                self.model_view.show("rollback");
                recorded_match_panels::draw(m, &layout, &self.chrome);
            }
            None => {}
        }
        true
    }
}
