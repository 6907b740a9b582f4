//! The inspector in the loop (issue 14): which run the timeline shows,
//! when the panels show the playhead's run instead of the live one, the
//! playhead's moves, the stories opened, the timeline's and the card's
//! clicks and the console line's commands. Forks are `fork`; what is drawn
//! and written, `inspect_view`.
//!
//! | the run is | the timeline shows | the panels show |
//! |---|---|---|
//! | on the relay | why there is no timeline | the live run |
//! | in the page, live | the last 10 s of its packets | the live run |
//! | a scenario playing | the whole scenario, the playhead moving | the playing run |
//! | paused, or at its end | the whole run so far, zoomable, with a playhead | the run at the playhead |
//!
//! Pausing inspects the run so far ([`sim::inspect::Inspection::of`]: two
//! playbacks of it); every seek then re-simulates from the nearest
//! checkpoint. A live run's playhead is a view: resuming goes on from the
//! run's end. A scenario's run is its playhead: a seek moves the run, and
//! resuming or taking over goes on from there.

use super::{App, Driver};
use crate::inspector::console_text::{answer, Tone};
use crate::inspector::gesture::Action;
use crate::inspector::lanes;
use crate::inspector::panel::Click;
use crate::inspector::scrub::Scrub;
use crate::inspector::story_view::StoryView;
use crate::inspector::{timed, BuiltFrom, Open};
use crate::playback::RunState;
use sim::console::ConsoleAction;
use sim::{Scenario, SimTime};

/// Shown after a correction when its story opens, µs.
const AFTER_CORRECTION_US: u64 = 400_000;

/// What the timeline shows (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LaneMode {
    Relay,
    Live,
    Playback,
    Inspect,
}

impl App {
    pub(super) fn lane_mode(&self) -> LaneMode {
        match self.state {
            RunState::Relay => LaneMode::Relay,
            RunState::Local | RunState::Recording if !self.time.paused => LaneMode::Live,
            RunState::Playing if !self.time.paused => LaneMode::Playback,
            _ => LaneMode::Inspect,
        }
    }

    /// The scenario to inspect and the frames played of it: the run so
    /// far, or the scenario being played back.
    fn inspected(&self) -> Option<(&Scenario, usize)> {
        let run = self.driver.run()?;
        if self.state.is_playback() {
            let p = self.playback.as_ref()?;
            return Some((&p.original, run.frame_index()));
        }
        Some((run.scenario(), run.frame_index()))
    }

    /// The inspector's part of a frame: console, scrub, clicks, drawing.
    pub(super) fn inspect_frame(&mut self, t: SimTime) {
        self.run_console(t);
        let mode = self.lane_mode();
        self.sync_scrub(mode);
        let extent = self.lane_extent(mode);
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
        self.take_fork_reply();
        let mode = self.lane_mode();
        self.inspector.inspecting = mode == LaneMode::Inspect && self.inspector.scrub.is_some();
        self.draw_lanes(mode, t);
        self.write_inspector(mode, t);
    }

    /// Builds the inspection when there is something to inspect and the
    /// run changed; drops it when the run goes on live.
    fn sync_scrub(&mut self, mode: LaneMode) {
        if matches!(mode, LaneMode::Relay | LaneMode::Live) {
            if self.inspector.scrub.is_some() {
                self.inspector.forget();
            }
            return;
        }
        let Some((scenario, frames)) = self.inspected() else {
            return;
        };
        let from = BuiltFrom {
            seed: scenario.seed,
            frames: scenario.frames.len(),
            changes: scenario.changes.len(),
        };
        if self.inspector.built == Some(from) {
            // A scenario's run is the playhead (Step › plays a frame).
            if let Some(s) = &mut self.inspector.scrub {
                if self.state.is_playback() && mode == LaneMode::Inspect && s.frames() != frames {
                    s.seek(frames);
                }
            }
            return;
        }
        // The same run, grown (a live step, a control changed while
        // paused): the playhead stays unless it was at the end, and the
        // open story stays open.
        let grown = self
            .inspector
            .built
            .is_some_and(|b| b.seed == from.seed && b.frames <= from.frames);
        let kept = self
            .inspector
            .scrub
            .as_ref()
            .filter(|s| grown && s.frames() < s.len())
            .map(Scrub::frames);
        let reopen = self
            .inspector
            .open
            .as_ref()
            .filter(|o| grown && o.branch == 0)
            .map(|o| o.index);
        let scenario = scenario.clone();
        let frames = kept.unwrap_or(frames);
        let (scrub, ms) = timed(|| Scrub::new(scenario, frames));
        let i = &mut self.inspector;
        i.forget();
        i.scrub = Some(scrub);
        i.built = Some(from);
        i.costs.inspect_ms = Some(ms);
        i.open = reopen.and_then(|index| story(&i.scrub, 0, index));
    }

    /// The timeline's extent, µs.
    pub(super) fn lane_extent(&self, mode: LaneMode) -> (u64, u64) {
        match (&self.inspector.scrub, mode) {
            (Some(s), LaneMode::Playback | LaneMode::Inspect) => (0, s.end_us()),
            _ => {
                let now = self.driver.run().map_or(0, |r| r.now().0);
                (now.saturating_sub(lanes::LIVE_SPAN_US), now)
            }
        }
    }

    /// Pauses a live or playing run so the playhead can move.
    fn pause_to_inspect(&mut self) {
        if matches!(self.lane_mode(), LaneMode::Live | LaneMode::Playback) {
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
                if let Some(s) = &mut self.inspector.scrub {
                    let ((), ms) = timed(|| s.seek_time(t_us));
                    self.inspector.costs.seek_ms = Some(ms);
                }
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
        if self.state == RunState::Relay {
            return;
        }
        self.pause_to_inspect();
        if let Some(s) = &mut self.inspector.scrub {
            let ((), ms) = timed(|| s.step(delta));
            self.inspector.costs.seek_ms = Some(ms);
        }
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
                .is_some_and(|s| s.frames() < s.len())
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

    /// Opens correction `index` of `branch`: the playhead goes to the
    /// state right after it was applied, the timeline to its episode.
    fn open_story(&mut self, branch: usize, index: usize) {
        let Some(open) = story(&self.inspector.scrub, branch, index) else {
            return;
        };
        let Some(s) = &mut self.inspector.scrub else {
            return;
        };
        let ((), ms) = timed(|| s.seek(open.story.frame + 1));
        self.inspector.costs.seek_ms = Some(ms);
        let extent = (0, s.end_us());
        self.inspector.lanes.focus(
            open.story.from.0,
            open.story.at.0 + AFTER_CORRECTION_US,
            extent,
        );
        self.inspector.selected = None;
        self.inspector.open = Some(open);
        self.inspector.reveal = true;
        self.follow_playhead();
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
            Click::Fork(i) => self.fork(i),
            Click::Unfork => {
                if let Some(s) = &mut self.inspector.scrub {
                    s.unfork();
                }
                self.inspector.comparison = None;
                self.inspector.fork_view = None;
                if self.inspector.open.as_ref().is_some_and(|o| o.branch == 1) {
                    self.inspector.open = None;
                }
            }
            Click::Show(b) => {
                if let (Some(s), Some(f)) =
                    (&mut self.inspector.scrub, &mut self.inspector.fork_view)
                {
                    s.show(b);
                    f.shown = s.shown();
                }
            }
            Click::PlayFork => {
                if let Some(f) = self.fork_scenario() {
                    self.start_playback(f);
                }
            }
            Click::SaveFork => self.save_fork(),
            Click::Packet(i) => self.focus_packet(i),
        }
    }

    /// Selects the open story's packet `i` and shows it.
    fn focus_packet(&mut self, i: usize) {
        let (Some(open), Some(s)) = (&self.inspector.open, &self.inspector.scrub) else {
            return;
        };
        let Some(p) = open.view.packets().nth(i) else {
            return;
        };
        let Some(log) = s
            .branch(open.branch)
            .and_then(|b| b.ins.run().host().packets())
        else {
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
        let extent = (0, s.end_us());
        self.inspector.selected = Some((open.branch, record));
        self.inspector
            .lanes
            .focus(sent.saturating_sub(250_000), sent + 250_000, extent);
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

/// Correction `index` of `branch`, explained.
fn story(scrub: &Option<Scrub>, branch: usize, index: usize) -> Option<Open> {
    let story = scrub.as_ref()?.branch(branch)?.ins.explain(index)?;
    let view = StoryView::of(&story);
    Some(Open {
        branch,
        index,
        story,
        view,
    })
}
