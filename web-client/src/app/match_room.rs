//! Entering and leaving a rollback room (issue 22), and the loop's frame
//! while the page plays in one: `?room=NAME&model=rollback`, or Join with
//! the model selector on Rollback (or a listed rollback room clicked);
//! `&watch=1` or Join with Watch ticked watches the match instead (a
//! spectator: no seat, no input, the keys do nothing). The
//! match replaces the page's private session while it lasts, like a CMC
//! room; Leave, a refusal or a lost relay returns to a private one. What
//! the match does with the input, draws and writes is
//! `crate::room::match_*`'s; its lanes are drawn by the inspector.

use super::{App, Driver, Input};
use crate::inspector::gesture::Action;
use crate::inspector::lanes::LIVE_SPAN_US;
use crate::inspector::mode::LaneMode;
use crate::inspector::panel::Click;
use crate::inspector::view::{Live, LiveRoom};
use crate::room::match_run::{MatchLink, MatchRun};
use crate::room::{match_lanes, match_panels};
use crate::runbar::playback::RunState;
use macroquad::prelude::*;
use sim::rollback::InputCmd;
use sim::SimTime;

impl App {
    /// Joins the rollback match of room `name` (with `watch`, as a
    /// spectator): the private session (or a CMC room) ends, the match
    /// begins.
    pub(super) fn enter_match(&mut self, name: &str, watch: bool) {
        if self
            .match_run
            .as_ref()
            .is_some_and(|r| r.name == name && r.watch == watch)
        {
            return;
        }
        self.leave_room(None);
        self.leave_match(None);
        let Some(mut run) = MatchRun::connect(name, self.rollback, watch) else {
            self.room_controls
                .note("could not open a socket to the relay", true);
            return;
        };
        self.driver.close();
        self.driver = Driver::local(self.setup());
        self.room_controls.set_joined(Some(name));
        if watch {
            // A spectator plays nothing (Leave turns them on again).
            for id in ["add-bot", "fire-shot"] {
                if let Some(e) = self.doc().get_element_by_id(id) {
                    crate::dom::set_flag(&e, "disabled", true);
                }
            }
        }
        run.borrow_page(&self.doc());
        self.match_run = Some(Box::new(run));
        self.match_card.show(true);
        let share = format!("?room={name}&model=rollback");
        let doing = if watch { "watching" } else { "joining" };
        self.room_controls.note(
            &format!("{doing} the rollback match {name}… (share: {share})"),
            false,
        );
        self.header.set_mode(&format!("rollback room {name}"));
        self.header
            .set_status("connecting", &format!("joining {name}…"));
    }

    /// Leaves the match, if in one, back to a private session; `why` says
    /// what ended it, `None` for Leave.
    pub(super) fn leave_match(&mut self, why: Option<&str>) {
        let Some(run) = self.match_run.take() else {
            return;
        };
        run.close();
        run.give_back_page(&self.doc(), &self.chrome);
        self.match_card.show(false);
        self.room_controls.set_joined(None);
        let note = match why {
            Some(why) => format!("left {}: {why}", run.name),
            None => format!("left {}", run.name),
        };
        self.room_controls.note(&note, why.is_some());
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

    /// The match's frame: the connection's frames in, this player's
    /// input (keys, the bot, F or the Fire button) through the rollback
    /// client, then the panels, the match card and the Metrics card.
    pub(super) fn match_frame(&mut self, t: SimTime) {
        let page_dt = f64::from(get_frame_time());
        self.read_controls();
        let Input {
            dir, dash, fire, ..
        } = self.input(page_dt);
        let clicked = self.room_controls.take_fire() > 0;
        let buttons = if fire || clicked { InputCmd::FIRE } else { 0 }
            | if dash { InputCmd::DASH } else { 0 };
        let mut events = Vec::new();
        let layout = self.chrome.layout((screen_width(), screen_height()));
        let Some(run) = self.match_run.as_mut() else {
            return;
        };
        // A spectator's keys do nothing: no stick, no buttons, no bots.
        let (dir, buttons) = if run.watch {
            (sim::Vec2::ZERO, 0)
        } else {
            (dir, buttons)
        };
        run.set_net_settings(self.settings);
        self.room_save.frame(&run.name, true);
        for _ in 0..self.room_controls.take_add_bot() {
            if !run.watch {
                run.add_bot();
            }
        }
        run.keep_link(t, &mut events);
        run.receive(&mut events);
        run.frame(t, page_dt, dir, buttons);
        crate::canvas::clear();
        match_panels::draw(run, dir, &layout);
        run.write_texts(&self.chrome);
        self.match_card.write(t, run);
        let m = run.predictor.metrics();
        self.rollback_readouts.write(Some(&m), None);
        self.model_view.show("rollback");
        self.net_controls.write(&self.settings);
        self.match_lanes(t);
        self.match_events(events);
    }

    /// The packet lanes in a rollback match: this page's link as the
    /// relay traced it and the rebases remote input caused (◆, listed);
    /// a click on one holds it in the Replayed panel, Fit (or Close)
    /// follows the newest again; a press in the lanes holds them to click
    /// in.
    fn match_lanes(&mut self, t: SimTime) {
        let setup = self.setup();
        let transit_us = u64::from(self.settings.uplink.latency_ms) * 1000;
        let Some(run) = self.match_run.as_mut() else {
            return;
        };
        let inspector = &mut self.inspector;
        let live_extent = (t.0.saturating_sub(LIVE_SPAN_US), t.0);
        for a in inspector
            .lanes
            .take_actions(run.hold.unwrap_or(live_extent))
        {
            match a {
                Action::Open { index, .. } => run.pin(index),
                Action::Select { branch, record } => inspector.selected = Some((branch, record)),
                Action::Seek(_) => {
                    run.hold = match run.hold {
                        Some(_) => None,
                        None => Some(live_extent),
                    };
                }
                _ => {}
            }
        }
        for c in inspector.panel.take_clicks() {
            match c {
                Click::Open(i) => run.pin(i),
                Click::Close => run.unpin(),
                Click::Fit => {
                    run.hold = None;
                    run.unpin();
                }
                _ => {}
            }
        }
        let live = Live {
            run: None,
            trace: Some(&run.trace),
            marks: match_lanes::marks(&run.rebases),
            now_us: t.0,
            room: Some(LiveRoom::Match),
            held: run.hold,
            fork: None,
        };
        inspector.draw_lanes(LaneMode::Relay, &live, transit_us, t);
        let local = run.seat.unwrap_or(usize::MAX);
        let open = match_lanes::place(&run.rebases, run.pinned);
        inspector
            .panel
            .write_list(&match_lanes::rows(&run.rebases, local), open, &[]);
        inspector.write(LaneMode::Relay, &live, &setup, t);
    }

    /// Shows what the match's connection did; a lost or refused match is
    /// left.
    fn match_events(&mut self, events: Vec<MatchLink>) {
        let Some(name) = self.match_run.as_ref().map(|r| r.name.clone()) else {
            return;
        };
        for e in events {
            match e {
                MatchLink::Seated => {
                    self.header
                        .set_status("connected", &format!("rollback room {name}"));
                    let share = format!("?room={name}&model=rollback");
                    let watching = self.match_run.as_ref().is_some_and(|r| r.watch);
                    let note = if watching {
                        format!("watching {name} · play: {share} · watch: {share}&watch=1")
                    } else {
                        format!("in {name} · share: {share}")
                    };
                    self.room_controls.note(&note, false);
                }
                MatchLink::Reconnected => self
                    .header
                    .set_status("connected", &format!("rollback room {name} · reconnected")),
                MatchLink::Reconnecting(n, why) => self.header.set_status(
                    "connecting",
                    &format!("relay lost{why} · reconnecting (attempt {n})"),
                ),
                MatchLink::ServerError(reason) => self
                    .room_controls
                    .note(&format!("the room refused: {reason}"), true),
                MatchLink::Lost(why) => {
                    self.leave_match(Some(&why));
                    return;
                }
            }
        }
    }
}
