//! [`Inspection`]: a scenario played once with every record kept, the
//! corrections found in it, and the checkpoints that make going back cheap.
//!
//! Going back re-simulates from the nearest checkpoint at or before the
//! frame asked for. Checkpoints are copies of the run without its records
//! (a second, plain playback makes them: tracing changes no fate, so both
//! playbacks are the same run, bit for bit), one every
//! [`Inspection::checkpoint_every`] frames — 60 (1 s at 60 Hz), widened so
//! a run keeps at most [`MAX_CHECKPOINTS`]. A seek therefore re-simulates
//! at most that many frames.

use crate::cmc::client::CorrectionRecord;
use crate::endpoints::client::ClientEndpoint;
use crate::foundation::hash::Fnv64;
use crate::foundation::time::SimTime;
use crate::rollback::log::RollbackEvent;
use crate::scenario::{Scenario, ScenarioRun};

/// Records kept per log while inspecting: 10 minutes of a 60 Hz run's
/// packets both ways with room to spare (~60 bytes each).
pub const RECORDS_KEPT: usize = 200_000;
/// Frames between checkpoints at least (1 s at 60 Hz).
const MIN_CHECKPOINT_EVERY: usize = 60;
/// Checkpoints kept at most (a 10-minute run at 240 Hz: one every 600
/// frames).
pub const MAX_CHECKPOINTS: usize = 240;

/// Where the run stood after one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameMark {
    /// The run's clock after the frame.
    pub end: SimTime,
    /// The endpoint's state hash after the frame ([`crate::endpoints::metrics::Metrics::state_hash`]).
    pub state_hash: u64,
}

/// What a correction corrected.
#[derive(Debug, Clone, PartialEq)]
pub enum Corrected {
    /// A CMC Adjustment as the client lived it.
    Move(CorrectionRecord),
    /// A visible rollback.
    Rollback(RollbackEvent),
}

/// One correction of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Correction {
    /// The frame (index from 0) during which it was applied.
    pub frame: usize,
    /// The run's clock at the end of that frame.
    pub at: SimTime,
    /// What it was.
    pub what: Corrected,
}

/// A scenario played with the inspector's records kept.
#[derive(Debug, Clone)]
pub struct Inspection {
    scenario: Scenario,
    /// The run played to its end with the records kept.
    run: ScenarioRun,
    marks: Vec<FrameMark>,
    checkpoints: Vec<ScenarioRun>,
    every: usize,
    corrections: Vec<Correction>,
}

impl Inspection {
    /// Plays `scenario` to its end twice: once with every record kept, once
    /// plain for the checkpoints. Costs two playbacks (a 60 s run: a few
    /// ms natively).
    pub fn of(scenario: Scenario) -> Inspection {
        let every = checkpoint_every(scenario.frames.len());
        let mut run = ScenarioRun::play(scenario.clone());
        run.inspect(RECORDS_KEPT);
        let mut marks = Vec::with_capacity(scenario.frames.len());
        let mut corrections = Vec::new();
        let mut seen = Seen::default();
        while run.step_recorded() {
            let frame = run.frame_index() - 1;
            let at = run.now();
            marks.push(FrameMark {
                end: at,
                state_hash: run.endpoint().state_hash(),
            });
            for what in seen.new_corrections(run.endpoint()) {
                corrections.push(Correction { frame, at, what });
            }
        }
        let mut plain = ScenarioRun::play(scenario.clone());
        let mut checkpoints = vec![plain.checkpoint()];
        while plain.step_recorded() {
            if plain.frame_index() % every == 0 {
                checkpoints.push(plain.checkpoint());
            }
        }
        Inspection {
            scenario,
            run,
            marks,
            checkpoints,
            every,
            corrections,
        }
    }

    /// The scenario inspected.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The run at its end, with every record: the packets
    /// ([`crate::endpoints::host::ServerHost::packets`]), both ends' accounts of the moves
    /// and the rollbacks.
    pub fn run(&self) -> &ScenarioRun {
        &self.run
    }

    /// Where the run stood after each frame, one per frame.
    pub fn marks(&self) -> &[FrameMark] {
        &self.marks
    }

    /// The corrections in the order they were applied.
    pub fn corrections(&self) -> &[Correction] {
        &self.corrections
    }

    /// Frames between two checkpoints: the most a seek re-simulates.
    pub fn checkpoint_every(&self) -> usize {
        self.every
    }

    /// The run as it stood after `frames` frames (`0..=` the scenario's
    /// length; beyond it, the end), re-simulated from the nearest
    /// checkpoint at or before it. Its state hash equals
    /// `marks()[frames - 1].state_hash`.
    pub fn seek(&self, frames: usize) -> ScenarioRun {
        let frames = frames.min(self.marks.len());
        let checkpoint = &self.checkpoints[(frames / self.every).min(self.checkpoints.len() - 1)];
        let mut run = ScenarioRun::resume(checkpoint, &self.scenario);
        while run.frame_index() < frames && run.step_recorded() {}
        run
    }

    /// The frames played by the end of `t` s of run time: the playhead's
    /// frame for a time on the timeline.
    pub fn frames_at(&self, t: f64) -> usize {
        let us = (t.max(0.0) * 1e6).round() as u64;
        self.marks
            .partition_point(|m| m.end.micros_since(SimTime::ZERO) <= us)
    }

    /// The first frame whose end is at or after `at`: the frame during
    /// which something stamped `at` happened (a packet sent, a correction).
    pub fn frame_of(&self, at: SimTime) -> usize {
        self.marks.partition_point(|m| m.end < at)
    }

    /// A hash of every frame mark: equal for two inspections of runs that
    /// went the same way, frame for frame.
    pub fn marks_hash(&self) -> u64 {
        let mut h = Fnv64::new();
        for m in &self.marks {
            h.u64(m.state_hash);
        }
        h.finish()
    }
}

/// How many corrections the inspection pass has seen, to find new ones
/// after each frame (the client's records are bounded; its counters are
/// not, and restart with a new model's half).
#[derive(Debug, Default)]
pub(super) struct Seen {
    adjustments: u64,
    rollbacks: u64,
}

impl Seen {
    /// The corrections `endpoint` applied since the last call.
    pub(super) fn new_corrections(&mut self, endpoint: &ClientEndpoint) -> Vec<Corrected> {
        if let Some(client) = endpoint.cmc() {
            self.rollbacks = 0;
            let total = client.counters().adjustments;
            let new = total.saturating_sub(self.adjustments.min(total)) as usize;
            self.adjustments = total;
            let records = client.corrections();
            return records
                .iter()
                .skip(records.len().saturating_sub(new))
                .cloned()
                .map(Corrected::Move)
                .collect();
        }
        self.adjustments = 0;
        let Some(r) = endpoint.rollback() else {
            return Vec::new();
        };
        let total = r.metrics().rollbacks;
        let new = total.saturating_sub(self.rollbacks.min(total)) as usize;
        self.rollbacks = total;
        let log: Vec<_> = r.rollback_log().collect();
        log[log.len().saturating_sub(new)..]
            .iter()
            .map(|e| Corrected::Rollback(**e))
            .collect()
    }
}

/// Frames between checkpoints for a run of `frames` frames.
pub(super) fn checkpoint_every(frames: usize) -> usize {
    MIN_CHECKPOINT_EVERY.max(frames.div_ceil(MAX_CHECKPOINTS - 1))
}
