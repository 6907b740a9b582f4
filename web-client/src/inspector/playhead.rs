//! The inspection kept in step with the run, and the playhead moved over
//! it: built when there is something to inspect (kept, with its playhead
//! and open story, when the run only grew), seeks and steps timed, a
//! story opened at its correction, a packet focused, the fork dropped or
//! shown.
//!
//! Pausing inspects the run so far ([`sim::inspect::Inspection::of`]: two
//! playbacks of it); every seek then re-simulates from the nearest
//! checkpoint. Pausing a relay run inspects its tape
//! ([`sim::inspect::RelayInspection::of`]): the page's own end, played
//! again.

use super::mode::LaneMode;
use super::relay_scrub::RelayScrub;
use super::scrub::Scrub;
use super::story_view::StoryView;
use super::{timed, BuiltFrom, Inspector, Open};
use sim::scenario::tape::ClientTape;
use sim::Scenario;

/// Shown after a correction when its story opens, µs.
const AFTER_CORRECTION_US: u64 = 400_000;

impl Inspector {
    /// Builds the inspection of `inspected` (a scenario and the frames
    /// played of it) when there is something to inspect in `mode` and the
    /// run changed; drops it when the run goes on live. A scenario playing
    /// back (`playback`) is its playhead: a paused one's playhead follows
    /// its frames (Step › plays a frame).
    pub fn sync(&mut self, mode: LaneMode, inspected: Option<(&Scenario, usize)>, playback: bool) {
        if matches!(mode, LaneMode::Relay | LaneMode::Live) {
            if self.scrub.is_some() {
                self.forget();
            }
            return;
        }
        let Some((scenario, frames)) = inspected else {
            return;
        };
        let from = BuiltFrom {
            seed: scenario.seed,
            frames: scenario.frames.len(),
            changes: scenario.changes.len(),
        };
        if self.built == Some(from) {
            if let Some(s) = &mut self.scrub {
                if playback && mode == LaneMode::Inspect && s.frames() != frames {
                    s.seek(frames);
                }
            }
            return;
        }
        // The same run, grown (a live step, a control changed while
        // paused): the playhead stays unless it was at the end, and the
        // open story stays open.
        let grown = self
            .built
            .is_some_and(|b| b.seed == from.seed && b.frames <= from.frames);
        let kept = self
            .scrub
            .as_ref()
            .filter(|s| grown && s.frames() < s.len())
            .map(Scrub::frames);
        let reopen = self
            .open
            .as_ref()
            .filter(|o| grown && o.branch == 0)
            .map(|o| o.index);
        let scenario = scenario.clone();
        let frames = kept.unwrap_or(frames);
        let (scrub, ms) = timed(|| Scrub::new(scenario, frames));
        self.forget();
        self.scrub = Some(scrub);
        self.built = Some(from);
        self.costs.inspect_ms = Some(ms);
        self.open = reopen.and_then(|index| story(&self.scrub, &None, 0, index));
    }

    /// Inspects a paused relay run's `tape` (once per pause); drops the
    /// inspection when the run goes on.
    pub fn sync_relay(&mut self, mode: LaneMode, tape: Option<&ClientTape>) {
        match (mode, tape) {
            (LaneMode::Inspect, Some(tape)) if self.relay.is_none() => {
                let tape = tape.clone();
                let (relay, ms) = timed(|| RelayScrub::new(tape));
                self.forget();
                self.relay = Some(relay);
                self.costs.inspect_ms = Some(ms);
            }
            (LaneMode::Inspect, Some(_)) => {}
            _ if self.relay.is_some() => self.forget(),
            _ => {}
        }
    }

    /// Moves the playhead to run time `t_us`, timed.
    pub fn seek_time(&mut self, t_us: u64) {
        if let Some(s) = &mut self.scrub {
            let ((), ms) = timed(|| s.seek_time(t_us));
            self.costs.seek_ms = Some(ms);
        } else if let Some(r) = &mut self.relay {
            let ((), ms) = timed(|| r.seek_time(t_us));
            self.costs.seek_ms = Some(ms);
        }
    }

    /// Moves the playhead `delta` frames, timed.
    pub fn step(&mut self, delta: i64) {
        if let Some(s) = &mut self.scrub {
            let ((), ms) = timed(|| s.step(delta));
            self.costs.seek_ms = Some(ms);
        } else if let Some(r) = &mut self.relay {
            let ((), ms) = timed(|| r.step(delta));
            self.costs.seek_ms = Some(ms);
        }
    }

    /// The inspected run's packets in `branch` (the fork's is 1).
    pub fn packets(&self, branch: usize) -> Option<&sim::net::trace::PacketLog> {
        match (&self.scrub, &self.relay) {
            (Some(s), _) => s.branch(branch)?.ins.run().host().packets(),
            (None, Some(r)) => r.ins.packets(),
            (None, None) => None,
        }
    }

    /// The inspected run's span, µs.
    pub fn inspected_extent(&self) -> Option<(u64, u64)> {
        match (&self.scrub, &self.relay) {
            (Some(s), _) => Some((0, s.end_us())),
            (None, Some(r)) => Some(r.extent()),
            (None, None) => None,
        }
    }

    /// Opens correction `index` of `branch`: the playhead goes to the
    /// state right after it was applied, the timeline to its episode.
    /// `false` if there is no such correction.
    pub fn open_story(&mut self, branch: usize, index: usize) -> bool {
        let Some(open) = story(&self.scrub, &self.relay, branch, index) else {
            return false;
        };
        let frame = open.story.frame + 1;
        let ((), ms) = match (&mut self.scrub, &mut self.relay) {
            (Some(s), _) => timed(|| s.seek(frame)),
            (None, Some(r)) => timed(|| r.seek(frame)),
            (None, None) => return false,
        };
        self.costs.seek_ms = Some(ms);
        let extent = self.inspected_extent().unwrap_or_default();
        self.lanes.focus(
            open.story.from.0,
            open.story.at.0 + AFTER_CORRECTION_US,
            extent,
        );
        self.selected = None;
        self.open = Some(open);
        self.reveal = true;
        true
    }

    /// Selects the open story's packet `i` and shows it.
    pub fn focus_packet(&mut self, i: usize) {
        let Some(open) = &self.open else {
            return;
        };
        let Some(p) = open.view.packets().nth(i) else {
            return;
        };
        let branch = open.branch;
        let Some(log) = self.packets(branch) else {
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
        let extent = self.inspected_extent().unwrap_or_default();
        self.selected = Some((branch, record));
        self.lanes
            .focus(sent.saturating_sub(250_000), sent + 250_000, extent);
    }

    /// Drops the fork (and its story, if open).
    pub fn unfork(&mut self) {
        if let Some(s) = &mut self.scrub {
            s.unfork();
        }
        self.comparison = None;
        self.fork_view = None;
        if self.open.as_ref().is_some_and(|o| o.branch == 1) {
            self.open = None;
        }
    }

    /// Shows branch `b` (0: the run, 1: the fork) in the panels.
    pub fn show_branch(&mut self, b: usize) {
        if let (Some(s), Some(f)) = (&mut self.scrub, &mut self.fork_view) {
            s.show(b);
            f.shown = s.shown();
        }
    }
}

/// Correction `index` of `branch`, explained (a relay run has one).
fn story(
    scrub: &Option<Scrub>,
    relay: &Option<RelayScrub>,
    branch: usize,
    index: usize,
) -> Option<Open> {
    let story = match (scrub, relay) {
        (Some(s), _) => s.branch(branch)?.ins.explain(index)?,
        (None, Some(r)) if branch == 0 => r.ins.explain(index)?,
        _ => return None,
    };
    let view = StoryView::of(&story);
    Some(Open {
        branch,
        index,
        story,
        view,
    })
}
