//! Entering and leaving a shared room (issue #13), and the loop's frame
//! while the page is in one. A room replaces the page's private session
//! while it lasts (Join, or `?room=NAME` in the URL); Leave, a full room
//! or a lost relay returns to a private one. What the room does with the
//! player's input, draws and writes is `crate::room`'s; here the loop
//! switches to it and back, and shows what its connection did.

use super::{App, Driver, Input};
use crate::clock::now;
use crate::inspector::gesture::Action;
use crate::inspector::lanes::LIVE_SPAN_US;
use crate::inspector::mode::LaneMode;
use crate::inspector::panel::Click;
use crate::inspector::view::{Live, LiveRoom};
use crate::inspector::Inspector;
use crate::room::fork::lost_net_update;
use crate::room::frame::Turn;
use crate::room::lanes::{room_lanes, story, Item, RoomLanes};
use crate::room::link::{RoomLink, RoomRun};
use crate::room::view::RoomPage;
use crate::runbar::playback::RunState;
use macroquad::prelude::*;
use sim::SimTime;

impl App {
    /// Joins room `name`: the private session ends, the room's begins.
    pub(super) fn enter_room(&mut self, name: &str) {
        if self.room.as_ref().is_some_and(|r| r.name == name) {
            return;
        }
        self.leave_room(None);
        self.leave_match(None);
        let Some(mut room) = RoomRun::connect(name) else {
            self.room_controls
                .note("could not open a socket to the relay", true);
            return;
        };
        self.driver.close();
        self.driver = Driver::local(self.setup());
        for setting in self.setup().settings() {
            room.apply(setting);
        }
        room.borrow_page(&self.doc());
        self.room = Some(Box::new(room));
        self.room_controls.set_joined(Some(name));
        self.room_controls
            .note(&format!("joining {name}… (share: ?room={name})"), false);
        self.header.set_mode(&format!("room {name}"));
        self.header
            .set_status("connecting", &format!("joining {name}…"));
    }

    /// Leaves the room, if in one, back to a private session; `why` says
    /// what ended it (a full room, a lost relay), `None` for Leave.
    pub(super) fn leave_room(&mut self, why: Option<&str>) {
        let Some(room) = self.room.take() else {
            return;
        };
        room.close();
        room.give_back_page(&self.doc(), &self.chrome);
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
        match Driver::connect(&self.setup()) {
            Some(remote) => self.start(remote, RunState::Relay),
            None => self.start_local_live(),
        }
        self.show_state();
        if let Some(why) = why {
            self.header
                .set_status("error", &format!("left the room: {why}"));
        }
    }

    /// Whether joining room `name` (`watch`: Watch pressed) enters a
    /// rollback match: a listed room's model, else the model selector,
    /// chooses (issue 22); Watch watches a match (a CMC room refuses it).
    pub(super) fn joins_match(&self, name: &str, watch: bool) -> bool {
        watch
            || self
                .room_controls
                .listed_rollback(name)
                .unwrap_or_else(|| self.rollback_controls.rollback_selected())
    }

    /// Join / Leave (in any mode), then the room's frame if the page is in
    /// one; `true` if it was.
    pub(super) fn room_tick(&mut self) -> bool {
        if let Some((name, watch)) = self.room_controls.take_join() {
            if self.joins_match(&name, watch) {
                self.enter_match(&name, watch);
            } else {
                self.enter_room(&name);
            }
        }
        if self.room_controls.take_leave() {
            self.leave_room(None);
            self.leave_match(None);
        }
        let t = now();
        let current = self.room.as_ref().map(|r| r.name.clone());
        let current = current.or_else(|| self.match_run.as_ref().map(|r| r.name.clone()));
        self.room_controls.poll_list(t, current.as_deref());
        if self.match_run.is_some() {
            self.match_frame(t);
            return true;
        }
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
            self.room_fork.frame(&room.name);
            self.room_save.frame(&room.name, false);
        }
        self.read_controls();
        let Input { dir, dash, .. } = self.input(page_dt);
        let layout = self.chrome.layout((screen_width(), screen_height()));
        let turn = Turn {
            t,
            dt: page_dt,
            dir,
            dash,
            layout: &layout,
            zoom: self.chrome.zoom(),
            steps: self.chrome.take_steps(),
            csv: clicks.csv > 0,
        };
        let Some(room) = self.room.as_mut() else {
            return;
        };
        room.receive(&mut events);
        let sight = room.play(&turn, &mut self.room_controls);
        self.room_events(events);
        if let Some(room) = self.room.as_mut() {
            let mut page = RoomPage {
                chrome: &self.chrome,
                plots: &mut self.plots,
                readouts: &self.readouts,
                link_card: &mut self.link_card,
                controls: &mut self.room_controls,
                rules: self.rules,
                settings: self.settings,
                transport: self.transport,
                buffer_target: f32::from(self.rollback.input_buffer),
                bot_driving: self.bot_driving,
            };
            room.draw(t, dir, sight, &layout, &mut page);
            self.net_controls.write(&self.settings);
            self.model_controls
                .write(&self.rules, &self.client_config, Default::default());
        }
        // The page shows what a CMC run has (legend, metrics).
        self.model_view.show("cmc");
        self.room_lanes(t);
    }

    /// The packet lanes in a room: this player's link and the room's
    /// events (issue 23); a click on a shot opens its views, on a jump the
    /// net updates around it, on a lost net update offers "deliver it" in
    /// What if; a press in the lanes holds them to click in (Fit lets them
    /// follow again).
    fn room_lanes(&mut self, t: SimTime) {
        let setup = self.setup();
        let transit_us = u64::from(self.settings.uplink.latency_ms) * 1000;
        let Some(room) = self.room.as_mut() else {
            return;
        };
        let inspector = &mut self.inspector;
        let e = &room.endpoint;
        let name = |id| crate::room::panels::name(e, id);
        let lanes = room_lanes(e, name);
        let live_extent = (t.0.saturating_sub(LIVE_SPAN_US), t.0);
        for a in inspector
            .lanes
            .take_actions(room.hold.unwrap_or(live_extent))
        {
            match a {
                Action::Open { index, .. } => open_item(inspector, room, &lanes, index),
                Action::Select { branch, record } => {
                    inspector.selected = Some((branch, record));
                    let trace = room.endpoint.trace();
                    let packet = trace.and_then(|t| t.log().records().get(record));
                    if let Some(tick) = packet.and_then(lost_net_update) {
                        self.room_fork.offer_lost(tick);
                    }
                }
                Action::Seek(_) => {
                    room.hold = match room.hold {
                        Some(_) => None,
                        None => Some(live_extent),
                    };
                }
                _ => {}
            }
        }
        for c in inspector.panel.take_clicks() {
            match c {
                Click::Open(i) => open_item(inspector, room, &lanes, i),
                Click::Close => {
                    inspector.room_story = None;
                    room.open = None;
                }
                Click::Fit => room.hold = None,
                Click::Packet(i) => focus_chip(inspector, room, i),
                _ => {}
            }
        }
        room.listed = lanes.items.iter().map(|i| i.key()).collect();
        inspector.room_open = room.open.and_then(|k| lanes.place(k));
        let e = &room.endpoint;
        let fork = self.room_fork.lane(&lanes);
        let live = Live {
            run: None,
            trace: e.trace(),
            marks: lanes.marks,
            now_us: t.0,
            room: Some(LiveRoom::Cmc),
            held: room.hold,
            fork,
        };
        inspector.draw_lanes(LaneMode::Relay, &live, transit_us, t);
        inspector
            .panel
            .write_list(&lanes.rows, inspector.room_open, &[]);
        inspector.write(LaneMode::Relay, &live, &setup, t);
    }

    /// Shows what the room's connection did; a lost or full room is left.
    fn room_events(&mut self, events: Vec<RoomLink>) {
        let Some(name) = self.room.as_ref().map(|r| r.name.clone()) else {
            return;
        };
        for e in events {
            match e {
                RoomLink::Joined => {
                    self.header.set_status("connected", &format!("room {name}"));
                    self.room_controls
                        .note(&format!("in {name} · share: ?room={name}"), false);
                }
                RoomLink::Reconnected => {
                    self.header
                        .set_status("connected", &format!("room {name} · reconnected"));
                }
                RoomLink::NewSeat => self
                    .header
                    .set_status("connected", &format!("room {name} · new seat")),
                RoomLink::Reconnecting(n, why) => self.header.set_status(
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
    pub(super) fn doc(&self) -> web_sys::Document {
        web_sys::window()
            .and_then(|w| w.document())
            .expect("a page has a document")
    }
}

/// Opens the item drawn at place `index` of the list (or the lanes) last
/// frame, found again in this frame's `lanes` by its key: a shot of this
/// player's shows in the Replayed panel too (its four views), any item's
/// story in the card.
fn open_item(inspector: &mut Inspector, room: &mut RoomRun, lanes: &RoomLanes, index: usize) {
    let Some(key) = room.listed.get(index).copied() else {
        return;
    };
    let Some(item) = lanes.place(key).map(|i| &lanes.items[i]) else {
        return;
    };
    if let Item::Shot {
        seq,
        number: Some(_),
        ..
    } = item
    {
        room.cursor.pick(*seq);
    }
    if let Item::Jump { at, .. } = item {
        let around = crate::room::lanes::AROUND_JUMP_US;
        room.hold = Some((at.0.saturating_sub(around * 2), at.0 + around * 2));
    }
    let e = &room.endpoint;
    inspector.room_story = Some(story(e, item, |id| crate::room::panels::name(e, id)));
    room.open = Some(key);
    inspector.selected = None;
    inspector.reveal = true;
}

/// Selects the packet of the open room story's chip `i` and holds the
/// lanes around it.
fn focus_chip(inspector: &mut Inspector, room: &mut RoomRun, i: usize) {
    let Some(p) = inspector
        .room_story
        .as_ref()
        .and_then(|v| v.packets().nth(i))
    else {
        return;
    };
    let Some(log) = room.endpoint.trace().map(|t| t.log()) else {
        return;
    };
    let Some(record) = log
        .records()
        .iter()
        .position(|r| r.direction == p.direction && r.index == p.index)
    else {
        return;
    };
    let sent = log.records()[record].sent.0;
    inspector.selected = Some((0, record));
    room.hold = Some((sent.saturating_sub(250_000), sent + 250_000));
}
