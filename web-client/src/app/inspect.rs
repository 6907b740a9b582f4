//! The inspector in the loop (issue 14): which run it inspects, when the
//! panels show the playhead's run instead of the live one (see
//! `crate::inspector::mode`), pausing to inspect, the playhead's moves
//! turning a scenario's run, the timeline's and the card's clicks, and the
//! console line's commands. What the inspector keeps, draws and writes is
//! `crate::inspector`'s.
//!
//! A live run's playhead is a view: resuming goes on from the run's end.
//! A scenario's run is its playhead: a seek moves the run, and resuming
//! or taking over goes on from there.

use super::{App, Driver};
use crate::inspector::console_text::{answer, Tone};
use crate::inspector::gesture::Action;
use crate::inspector::mode::LaneMode;
use crate::inspector::panel::Click;
use crate::inspector::view::Live;
use crate::runbar::playback::RunState;
use sim::console::ConsoleAction;
use sim::SimTime;

impl App {
    /// What the timeline shows now.
    pub(super) fn lane_mode(&self) -> LaneMode {
        LaneMode::of(self.state, self.time.paused)
    }

    /// The inspector's part of a frame: console, scrub, clicks, drawing.
    pub(super) fn inspect_frame(&mut self, t: SimTime) {
        self.run_console(t);
        let mode = self.lane_mode();
        self.sync_scrub(mode);
        let extent = self.inspector.extent(mode, self.driver.now(t).0);
        for a in self.inspector.lanes.take_actions(extent) {
            self.lane_action(a);
        }
        for c in self.inspector.panel.take_clicks() {
            self.inspector_click(c);
        }
        let steps = self.inspector.take_key_steps();
        if steps != 0 {
            self.scrub_step(steps);
        }
        self.inspector.take_fork_reply();
        let mode = self.lane_mode();
        let inspected = self.inspector.scrub.is_some() || self.inspector.relay.is_some();
        self.inspector.inspecting = mode == LaneMode::Inspect && inspected;
        let transit_us = u64::from(self.settings.uplink.latency_ms) * 1000;
        let live = Live {
            run: self.driver.run(),
            trace: self.driver.endpoint().trace(),
            marks: Vec::new(),
            now_us: self.driver.now(t).0,
            room: None,
            held: None,
            fork: None,
        };
        self.inspector.draw_lanes(mode, &live, transit_us, t);
        self.inspector.write(mode, &live, &self.setup(), t);
    }

    /// Keeps the inspection in step with the run: it inspects the run so
    /// far, or the scenario being played back, and the frames played.
    fn sync_scrub(&mut self, mode: LaneMode) {
        let playback = self.state.is_playback();
        let inspected = match (self.driver.run(), playback) {
            (Some(run), true) => (self.playback.as_ref()).map(|p| (&p.original, run.frame_index())),
            (Some(run), false) => Some((run.scenario(), run.frame_index())),
            (None, _) => None,
        };
        self.inspector.sync(mode, inspected, playback);
        let tape = match &self.driver {
            Driver::Remote(r) => Some(r.tape()),
            Driver::Local(_) => None,
        };
        self.inspector.sync_relay(mode, tape);
    }

    /// Pauses a live or playing run (or the view of a relay run) so the
    /// playhead can move.
    fn pause_to_inspect(&mut self) {
        if matches!(
            self.lane_mode(),
            LaneMode::Live | LaneMode::Playback | LaneMode::Relay
        ) {
            self.play_pause();
            self.sync_scrub(self.lane_mode());
        }
    }

    fn lane_action(&mut self, a: Action) {
        match a {
            Action::Seek(t_us) => {
                // A playing scenario jumps and plays on; anything else
                // pauses to inspect.
                if self.lane_mode() != LaneMode::Playback {
                    self.pause_to_inspect();
                }
                self.inspector.seek_time(t_us);
                self.follow_playhead();
            }
            Action::Step(d) => self.scrub_step(d),
            Action::Open { branch, index } => {
                self.pause_to_inspect();
                self.open_story(branch, index);
            }
            Action::Select { branch, record } => {
                self.inspector.selected = Some((branch, record));
            }
            Action::Pan(_) | Action::Zoom { .. } | Action::Fit => {}
        }
    }

    /// Moves the playhead `delta` frames (pausing first).
    pub(super) fn scrub_step(&mut self, delta: i64) {
        self.pause_to_inspect();
        self.inspector.step(delta);
        self.follow_playhead();
    }

    /// `true` if Step › should move the playhead rather than run a live
    /// frame: a live run paused and scrubbed back from its end. (A
    /// scenario's run is its playhead: Step › plays its next frame.)
    pub(super) fn steps_the_playhead(&self) -> bool {
        !self.state.is_playback()
            && self.inspector.inspecting
            && self
                .inspector
                .scrub
                .as_ref()
                .map(|s| (s.frames(), s.len()))
                .or(self.inspector.relay.as_ref().map(|r| (r.frames(), r.len())))
                .is_some_and(|(at, len)| at < len)
    }

    /// A scenario's run follows the playhead: it becomes the run at the
    /// playhead's frame (branch A), paused there unless it was playing. A
    /// live run's playhead is a view: its run stays at its end.
    fn follow_playhead(&mut self) {
        let (Some(s), true) = (&self.inspector.scrub, self.state.is_playback()) else {
            return;
        };
        let Some(a) = s.branch(0) else {
            return;
        };
        let was = self.driver.run().map_or(0, |r| r.frame_index());
        if was == a.at().frame_index() {
            return;
        }
        let at = a.at().clone();
        if at.frame_index() < was {
            // The view's history (plots, Replayed panel) starts again.
            self.view.reset();
        }
        if !self.state.advances() && !at.is_finished() {
            self.state = RunState::Playing;
            self.time.paused = true;
        }
        self.driver = Driver::Local(Box::new(at));
        self.show_state();
    }

    /// Opens correction `index` of `branch`, the run following the
    /// playhead to it.
    fn open_story(&mut self, branch: usize, index: usize) {
        if self.inspector.open_story(branch, index) {
            self.follow_playhead();
        }
    }

    fn inspector_click(&mut self, c: Click) {
        match c {
            Click::Open(i) => {
                self.pause_to_inspect();
                self.open_story(0, i);
            }
            Click::Close => self.inspector.open = None,
            Click::Back => self.scrub_step(-1),
            Click::Forward => self.scrub_step(1),
            Click::Fit => self.inspector.lanes.fit(),
            Click::Local => {
                self.start_local_live();
                self.show_state();
            }
            Click::Fork(i) => self.inspector.fork(i),
            Click::Unfork => self.inspector.unfork(),
            Click::Show(b) => self.inspector.show_branch(b),
            Click::PlayFork => {
                if let Some(f) = self.inspector.fork_scenario() {
                    self.start_playback(f);
                }
            }
            Click::SaveFork => self.inspector.save_fork(),
            Click::Packet(i) => self.inspector.focus_packet(i),
        }
    }

    /// Runs the console lines entered: a setting moves its control (and
    /// is applied and recorded from there like any control change).
    fn run_console(&mut self, t: SimTime) {
        for line in self.inspector.console.take_lines() {
            let setup = self.setup();
            let m = self.driver.metrics(t);
            let a = answer(&line, &setup, &m);
            match a.action {
                Some(ConsoleAction::Set(s)) => {
                    let new = setup.with(s);
                    self.net_controls.show(&new.net);
                    self.net_controls.show_transport(new.transport);
                    self.model_controls.show(&new);
                }
                Some(ConsoleAction::ShowCorrections(on)) => self.inspector.show_corrections = on,
                Some(ConsoleAction::CorrectionLifetime(s)) => {
                    self.inspector.correction_lifetime_s = Some(s);
                }
                _ => {}
            }
            self.inspector.console.echo(&a.lines);
            if a.lines.iter().any(|(tone, _)| *tone == Tone::Error) {
                web_sys::console::info_1(&format!("console: {line}").into());
            }
        }
    }
}
