//! The playhead over an inspected run ([`Scrub`]): the run as it stood
//! after any frame, backwards too, for one branch or two (the run and a
//! what-if fork of it, [`sim::scenario::fork`]). Pure over `sim`: tested
//! natively against the recorded state hashes.
//!
//! A seek re-simulates from the inspection's nearest checkpoint (at most
//! [`sim::inspect::Inspection::checkpoint_every`] frames, 60 for runs up to
//! 4 minutes); a step forward plays one frame on from where the playhead
//! is. Both branches share the playhead: a fork has the original's frames
//! (same input, same frame times), so frame `n` is the same moment in
//! both.

use sim::inspect::{Corrected, Correction, Inspection};
use sim::scenario::{fork, ForkOption};
use sim::{Scenario, ScenarioRun};

/// One inspected run and the run at the playhead.
#[derive(Debug, Clone)]
pub struct Branch {
    /// The inspection (records, corrections, checkpoints).
    pub ins: Inspection,
    /// The run after the playhead's frames.
    at: ScenarioRun,
}

impl Branch {
    fn new(scenario: Scenario, frames: usize) -> Branch {
        let ins = Inspection::of(scenario);
        let at = ins.seek(frames);
        Branch { ins, at }
    }

    /// The run at the playhead.
    pub fn at(&self) -> &ScenarioRun {
        &self.at
    }

    /// Moves to `frames` (already clamped): a few frames on by stepping,
    /// anything else by seeking from a checkpoint.
    fn move_to(&mut self, frames: usize) {
        let current = self.at.frame_index();
        if frames >= current && frames - current <= self.ins.checkpoint_every() {
            while self.at.frame_index() < frames && self.at.step_recorded() {}
        } else {
            self.at = self.ins.seek(frames);
        }
    }
}

/// The playhead over one branch or two.
#[derive(Debug, Clone)]
pub struct Scrub {
    branches: Vec<Branch>,
    frames: usize,
    shown: usize,
}

impl Scrub {
    /// Inspects `scenario` (two playbacks) with the playhead after
    /// `frames` frames.
    pub fn new(scenario: Scenario, frames: usize) -> Scrub {
        let frames = frames.min(scenario.frames.len());
        Scrub {
            branches: vec![Branch::new(scenario, frames)],
            frames,
            shown: 0,
        }
    }

    /// Frames played at the playhead, `0..=len()`.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Frames in the run.
    pub fn len(&self) -> usize {
        self.original().marks().len()
    }

    /// The run's clock at the playhead, µs.
    pub fn time_us(&self) -> u64 {
        self.time_after(self.frames)
    }

    /// The run's clock after `frames` frames, µs.
    pub fn time_after(&self, frames: usize) -> u64 {
        frames
            .checked_sub(1)
            .and_then(|i| self.original().marks().get(i))
            .map_or(0, |m| m.end.0)
    }

    /// The run's length, µs.
    pub fn end_us(&self) -> u64 {
        self.time_after(self.len())
    }

    /// Moves the playhead after `frames` frames (clamped to the run).
    pub fn seek(&mut self, frames: usize) {
        self.frames = frames.min(self.len());
        for b in &mut self.branches {
            b.move_to(self.frames);
        }
    }

    /// Moves the playhead to the frame playing at run time `t_us`.
    pub fn seek_time(&mut self, t_us: u64) {
        let frames = self.original().frames_at(t_us as f64 / 1e6);
        self.seek(frames);
    }

    /// Moves the playhead `delta` frames (negative: back).
    pub fn step(&mut self, delta: i64) {
        let frames = if delta < 0 {
            self.frames.saturating_sub(delta.unsigned_abs() as usize)
        } else {
            self.frames.saturating_add(delta as usize)
        };
        self.seek(frames);
    }

    /// The original run's inspection.
    pub fn original(&self) -> &Inspection {
        &self.branches[0].ins
    }

    /// Branch `i` (0: the run, 1: the fork).
    pub fn branch(&self, i: usize) -> Option<&Branch> {
        self.branches.get(i)
    }

    /// The branches, the run first.
    pub fn branches(&self) -> &[Branch] {
        &self.branches
    }

    /// The branch the panels show.
    pub fn shown(&self) -> usize {
        self.shown
    }

    /// Shows branch `i` in the panels (ignored if there is none).
    pub fn show(&mut self, i: usize) {
        if i < self.branches.len() {
            self.shown = i;
        }
    }

    /// The shown branch's run at the playhead.
    pub fn run(&self) -> &ScenarioRun {
        &self.branches[self.shown].at
    }

    /// The shown branch's run at the playhead, for its metrics.
    pub fn run_mut(&mut self) -> &mut ScenarioRun {
        &mut self.branches[self.shown].at
    }

    /// Forks the run with `option` (replacing any fork) and inspects the
    /// fork: one more playback pair. The fork is shown.
    pub fn fork(&mut self, option: ForkOption) {
        let scenario = fork(self.original().scenario(), &option);
        self.branches.truncate(1);
        self.branches.push(Branch::new(scenario, self.frames));
        self.shown = 1;
    }

    /// Drops the fork.
    pub fn unfork(&mut self) {
        self.branches.truncate(1);
        self.shown = 0;
    }

    /// How the fork went against the run (`None` without a fork).
    pub fn compare(&self) -> Option<Comparison> {
        let b = self.branches.get(1)?;
        Some(Comparison::of(&self.branches[0].ins, &b.ins))
    }
}

/// How a fork went against the run it was forked from.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The index of the first frame whose end state differs (`None`:
    /// identical all the way, bit for bit).
    pub first_difference: Option<usize>,
    /// Corrections in the run, in the fork.
    pub counts: (usize, usize),
    /// Indices (in the run) of corrections the fork does not have.
    pub gone: Vec<usize>,
    /// Indices (in the fork) of corrections the run does not have.
    pub added: Vec<usize>,
}

impl Comparison {
    /// Compares inspections `a` (the run) and `b` (its fork).
    pub fn of(a: &Inspection, b: &Inspection) -> Comparison {
        let first_difference = a
            .marks()
            .iter()
            .zip(b.marks())
            .position(|(x, y)| x.state_hash != y.state_hash);
        let missing_from = |x: &Inspection, y: &Inspection| -> Vec<usize> {
            let keys: Vec<Key> = y.corrections().iter().map(key).collect();
            x.corrections()
                .iter()
                .enumerate()
                .filter(|(_, c)| !keys.contains(&key(c)))
                .map(|(i, _)| i)
                .collect()
        };
        Comparison {
            first_difference,
            counts: (a.corrections().len(), b.corrections().len()),
            gone: missing_from(a, b),
            added: missing_from(b, a),
        }
    }
}

/// What identifies a correction across branches: the move's time stamp or
/// the rollback's first tick (the frame may move a little in a fork).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Move(u32),
    Rollback(u32),
}

fn key(c: &Correction) -> Key {
    match &c.what {
        Corrected::Move(r) => Key::Move(r.time_stamp.0),
        Corrected::Rollback(e) => Key::Rollback(e.from.0),
    }
}

#[cfg(test)]
#[path = "scrub_tests.rs"]
mod tests;
