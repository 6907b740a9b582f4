//! A shared room in the page (issue #13): joining and leaving (the
//! connection is `room_link`'s [`RoomRun`]), and the loop's frame while
//! the page is in a room — the controls apply to this player's
//! own link and character, F / a click fires, R reloads, and the three
//! panels show the others, the shots and the four views of one
//! (`crate::render::room`, written by `room_view`).
//!
//! A room replaces the page's private session while it lasts (Join, or
//! `?room=NAME` in the URL); Leave, a full room or a lost relay returns to
//! a private one. Scenarios stay single-player: the run bar's recording is
//! off in a room.

use super::room_link::{RoomLink, RoomRun};
use super::App;
use crate::clock::now;
use crate::dom::{query, set_flag, write_attr};
use crate::download;
use crate::render::view::View;
use crate::room_rules;
use macroquad::prelude::*;
use sim::room::{RoomClientMsg, Seq};
use sim::SimTime;

/// The controls that do nothing in a room, and why: the run bar's
/// (scenarios are single-player) and the model's (a room runs CMC).
const OFF_IN_A_ROOM: [(&str, &str); 6] = [
    ("play-pause", SINGLE_PLAYER),
    ("step-frame", SINGLE_PLAYER),
    ("rec-toggle", SINGLE_PLAYER),
    ("restart", SINGLE_PLAYER),
    ("model", CMC_ONLY),
    ("ab", CMC_ONLY),
];
const SINGLE_PLAYER: &str = "Scenarios are single-player: leave the room to record or replay";
const CMC_ONLY: &str =
    "A room runs the CMC model for everyone: leave the room to switch models or compare A/B";

/// The panel texts a room rewrites.
const ROOM_SLOTS: [&str; 2] = ["authoritative-sub", "replayed-empty"];

impl App {
    /// Joins room `name`: the private session ends, the room's begins.
    pub(super) fn enter_room(&mut self, name: &str) {
        if self.room.as_ref().is_some_and(|r| r.name == name) {
            return;
        }
        self.leave_room(None);
        let Some(mut room) = RoomRun::connect(name) else {
            self.room_controls
                .note("could not open a socket to the relay", true);
            return;
        };
        self.driver.close();
        self.driver = super::Driver::local(self.setup());
        for setting in self.setup().settings() {
            room.apply(setting);
        }
        room.saved_texts = ROOM_SLOTS
            .iter()
            .filter_map(|&slot| {
                let el = query(&self.doc(), &format!("[data-panel-text=\"{slot}\"]"))?;
                Some((slot, el.text_content().unwrap_or_default()))
            })
            .collect();
        self.room = Some(Box::new(room));
        self.room_controls.set_joined(Some(name));
        self.room_controls
            .note(&format!("joining {name}… (share: ?room={name})"), false);
        self.readouts.set_mode(&format!("room {name}"));
        self.readouts
            .set_status("connecting", &format!("joining {name}…"));
        set_room_url(Some(name));
        let doc = self.doc();
        let saved = OFF_IN_A_ROOM
            .iter()
            .filter_map(|&(id, why)| {
                let e = doc.get_element_by_id(id)?;
                let kept = (id, e.get_attribute("title"), e.has_attribute("disabled"));
                set_flag(&e, "disabled", true);
                write_attr(&e, "title", why);
                Some(kept)
            })
            .collect();
        if let Some(room) = self.room.as_mut() {
            room.saved_run_bar = saved;
        }
    }

    /// Leaves the room, if in one, back to a private session; `why` says
    /// what ended it (a full room, a lost relay), `None` for Leave.
    pub(super) fn leave_room(&mut self, why: Option<&str>) {
        let Some(room) = self.room.take() else {
            return;
        };
        room.transport.close();
        for (slot, text) in &room.saved_texts {
            self.chrome.text(slot, text);
        }
        let doc = self.doc();
        for (id, title, disabled) in &room.saved_run_bar {
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
        self.room_controls.set_joined(None);
        self.room_controls.write_clock(None);
        match why {
            Some(why) => self
                .room_controls
                .note(&format!("left {}: {why}", room.name), true),
            None => self
                .room_controls
                .note(&format!("left {}", room.name), false),
        }
        set_room_url(None);
        match super::Driver::connect(&self.setup()) {
            Some(remote) => self.start(remote, crate::playback::RunState::Relay),
            None => self.start_local_live(),
        }
        self.show_state();
        if let Some(why) = why {
            self.readouts
                .set_status("error", &format!("left the room: {why}"));
        }
    }

    /// Join / Leave (in any mode), then the room's frame if the page is in
    /// one; `true` if it was.
    pub(super) fn room_tick(&mut self) -> bool {
        if let Some(name) = self.room_controls.take_join() {
            self.enter_room(&name);
        }
        if self.room_controls.take_leave() {
            self.leave_room(None);
        }
        let t = now();
        let current = self.room.as_ref().map(|r| r.name.clone());
        self.room_controls.poll_list(t, current.as_deref());
        if self.room.is_none() {
            return false;
        }
        self.room_frame(t);
        true
    }

    fn room_frame(&mut self, t: SimTime) {
        let page_dt = f64::from(get_frame_time());
        let clicks = self.panel.take_clicks();
        let mut events = Vec::new();
        if let Some(room) = self.room.as_mut() {
            room.watch(t, &mut events);
        }
        self.read_controls();
        let super::Input { dir, dash, .. } = self.input(page_dt);
        let layout = self.chrome.layout((screen_width(), screen_height()));
        let zoom = self.chrome.zoom();
        let (older, newer) = self.chrome.take_steps();
        let Some(room) = self.room.as_mut() else {
            return;
        };
        room.receive(&mut events);
        // This player's room switches and the room's MaxRecordTime.
        let wanted = self.room_controls.player_settings();
        if room.sent != Some(wanted) && room.endpoint.me().is_some() {
            room.endpoint.set_player_settings(wanted);
            room.sent = Some(wanted);
        }
        let (heard, mine) = room.record_time;
        let in_force = room.endpoint.max_record_time_ms();
        let shown = self.room_controls.max_record_time_ms();
        if in_force != heard {
            room.record_time = (in_force, in_force);
            self.room_controls.show_max_record_time(in_force);
        } else if shown != mine {
            room.record_time = (heard, shown);
            room.endpoint
                .send(&RoomClientMsg::SetMaxRecordTime { ms: shown });
        }
        room.endpoint.set_ammo_mode(self.room_controls.ammo_mode());
        for _ in 0..self.room_controls.take_add_bot() {
            room.endpoint.send(&RoomClientMsg::AddBot);
        }
        // Where a click fires: the mouse over the Predicted panel.
        let follow = zoom.map(|z| {
            let drawn = room.endpoint.client().drawn_position();
            (room.camera.follow(drawn, page_dt as f32), z)
        });
        let view = View::arena(layout.predicted, room.endpoint.world().size, follow);
        let mouse = mouse_position();
        let aim = layout
            .predicted
            .contains(mouse)
            .then(|| view.to_world(mouse));
        let clicked = is_mouse_button_pressed(MouseButton::Left)
            .then_some(aim)
            .flatten();
        let pressed = u32::from(is_key_pressed(KeyCode::F)) + self.room_controls.take_fire();
        let me = room.endpoint.client().state().position;
        let nearest = || {
            room_rules::nearest(
                me,
                room.endpoint
                    .proxies()
                    .iter()
                    .map(|p| (p.id(), p.drawn_position())),
            )
        };
        let target = clicked.or_else(|| (pressed > 0).then(|| aim.or_else(nearest)).flatten());
        if let Some(at) = target {
            if let Err(e) = room.endpoint.fire(t, at) {
                self.room_controls.note(&format!("not fired: {e}"), false);
            }
        }
        if is_key_pressed(KeyCode::R) || self.room_controls.take_reload() > 0 {
            if let Err(e) = room.endpoint.reload(t) {
                self.room_controls.note(&format!("no reload: {e}"), false);
            }
        }
        let frames = room.endpoint.frame(t, page_dt, dir, dash);
        // While reconnecting, moves are lost like packets; the Resume waits
        // in the new socket's queue.
        room.transport.send(if room.reconnect.is_none() {
            frames
        } else {
            Vec::new()
        });
        if clicks.csv > 0 {
            let name = format!(
                "netcode-room-{}-{:.0}s.csv",
                room.name,
                t.secs_since(SimTime::ZERO)
            );
            download::text_file(&name, "text/csv", &room.timeline.csv());
        }
        // The Replayed panel's shot.
        if let Some(seq) = self.room_controls.take_picked_shot() {
            room.cursor.pick(seq);
        }
        let seqs: Vec<Seq> = room.endpoint.shots().iter().map(|s| s.seq).collect();
        for _ in 0..older {
            room.cursor.older(&seqs);
        }
        for _ in 0..newer {
            room.cursor.newer(&seqs);
        }
        self.room_events(events);
        self.draw_room(t, dir, follow, aim, &layout);
        // The page shows what a CMC run has (legend, metrics), and the
        // packet card says why it is empty.
        self.model_view.show("cmc");
        self.draw_lanes(super::inspect::LaneMode::Relay, t);
    }

    /// Shows what the room's connection did; a lost or full room is left.
    fn room_events(&mut self, events: Vec<RoomLink>) {
        let Some(name) = self.room.as_ref().map(|r| r.name.clone()) else {
            return;
        };
        for e in events {
            match e {
                RoomLink::Joined => {
                    self.readouts
                        .set_status("connected", &format!("room {name}"));
                    self.room_controls
                        .note(&format!("in {name} · share: ?room={name}"), false);
                }
                RoomLink::Reconnected => {
                    self.readouts
                        .set_status("connected", &format!("room {name} · reconnected"));
                }
                RoomLink::NewSeat => self
                    .readouts
                    .set_status("connected", &format!("room {name} · new seat")),
                RoomLink::Reconnecting(n, why) => self.readouts.set_status(
                    "connecting",
                    &format!("relay lost{why} · reconnecting (attempt {n})"),
                ),
                // A refused action (a bot in a full room, a shot too old):
                // the connection is fine, so the room's note says it.
                RoomLink::ServerError(reason) => {
                    self.room_controls
                        .note(&format!("the room refused: {reason}"), true);
                }
                RoomLink::Lost(why) => {
                    self.leave_room(Some(&why));
                    return;
                }
            }
        }
    }

    /// The page's document.
    fn doc(&self) -> web_sys::Document {
        web_sys::window()
            .and_then(|w| w.document())
            .expect("a page has a document")
    }
}

/// Puts `?room=NAME` in the page's URL (or takes it out), so the address
/// bar is a link to the room.
fn set_room_url(room: Option<&str>) {
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
        Some(r) => url.search_params().set("room", r),
        None => url.search_params().delete("room"),
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url.href()));
    }
}
