//! [`ScenarioRun`]: one [`LocalSession`] that either records what is fed
//! to it or plays a [`Scenario`] back. Recording and playback go through
//! the same `step`, so a played-back run is the recorded run — in either
//! model ([`Setup::model`], switched live by a [`Setting::Model`] change).

use super::{checkpoint, Change, FrameInput, Outcome, Scenario, CHECKPOINT_US};
use crate::endpoints::client::ClientEndpoint;
use crate::endpoints::metrics::Metrics;
use crate::endpoints::session::LocalSession;
use crate::foundation::hash::Fnv64;
use crate::foundation::math::Vec2;
use crate::protocol::{Setting, Setup};

/// Most frames one scenario holds: 10 minutes at 240 frames/s. Recording
/// stops by itself there (the run goes on, unrecorded).
pub const MAX_RECORDED_FRAMES: usize = 144_000;

/// A run of a [`LocalSession`] from a [`Scenario`]'s seed and setup.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    session: LocalSession,
    scenario: Scenario,
    /// Next frame to play (playback) or frames recorded so far.
    cursor: usize,
    next_change: usize,
    recording: bool,
    trajectory_hash: u64,
    /// Run time so far, µs: the sum of the frames' `dt_us`.
    elapsed_us: u64,
    /// [`Outcome::checkpoints`] so far.
    checkpoints: Vec<u16>,
    settings: Setup,
}

impl ScenarioRun {
    /// Starts recording a new scenario named `name` from `seed` and
    /// `setup`: frame 0 begins now.
    pub fn record(name: &str, seed: u64, setup: Setup) -> ScenarioRun {
        let mut run = ScenarioRun::play(Scenario::new(name, seed, setup));
        run.recording = true;
        run
    }

    /// Starts playing `scenario` back from frame 0. Call
    /// [`Scenario::validate`] first for scenarios from outside; an invalid
    /// one still runs (settings are clamped by the host) but proves
    /// nothing.
    pub fn play(scenario: Scenario) -> ScenarioRun {
        let setup = scenario.setup;
        let session = LocalSession::with_setup(scenario.seed, &setup);
        ScenarioRun {
            session,
            scenario,
            cursor: 0,
            next_change: 0,
            recording: false,
            trajectory_hash: Fnv64::new().finish(),
            elapsed_us: 0,
            checkpoints: Vec::new(),
            settings: setup,
        }
    }

    /// Runs a scenario from start to end and returns its outcome.
    pub fn run_to_end(scenario: Scenario) -> Outcome {
        let mut run = ScenarioRun::play(scenario);
        while run.step_recorded() {}
        run.outcome()
    }

    /// Keeps the inspector's records of this run from now on: every
    /// packet's fate and both ends' account of each move and rollback
    /// ([`LocalSession::inspect`]), the newest `capacity` of each.
    pub fn inspect(&mut self, capacity: usize) {
        self.session.inspect(capacity);
    }

    /// A copy of this run without the recorded frames (they are the
    /// scenario's, and a scrubber keeps one copy of them): restore it
    /// with [`ScenarioRun::resume`].
    pub(crate) fn checkpoint(&mut self) -> ScenarioRun {
        let frames = std::mem::take(&mut self.scenario.frames);
        let copy = self.clone();
        self.scenario.frames = frames;
        copy
    }

    /// A checkpoint made by [`ScenarioRun::checkpoint`] from a playback of
    /// `scenario`, ready to play on from where it was made.
    pub(crate) fn resume(checkpoint: &ScenarioRun, scenario: &super::Scenario) -> ScenarioRun {
        let mut run = checkpoint.clone();
        run.scenario.frames.clone_from(&scenario.frames);
        run
    }

    /// `true` while frames fed with [`ScenarioRun::step_live`] are recorded.
    pub fn is_recording(&self) -> bool {
        self.recording
    }

    /// `true` once playback has run every recorded frame (always `false`
    /// while recording).
    pub fn is_finished(&self) -> bool {
        !self.recording && self.cursor >= self.scenario.frames.len()
    }

    /// Frames run so far.
    pub fn frame_index(&self) -> usize {
        self.cursor
    }

    /// The scenario being recorded or played.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The settings in force now (the setup plus the changes applied so
    /// far): what the page's controls should show during playback.
    pub fn settings(&self) -> Setup {
        self.settings
    }

    /// The client end (for drawing and read-outs).
    pub fn endpoint(&self) -> &ClientEndpoint {
        &self.session.endpoint
    }

    /// The server end (the authority's state and counters).
    pub fn host(&self) -> &crate::endpoints::host::ServerHost {
        &self.session.host
    }

    /// Forgets the drawn trails (display only: the run is unchanged).
    pub fn clear_trails(&mut self) {
        self.session.endpoint.clear_trails();
    }

    /// The read-out at the run's clock.
    pub fn metrics(&mut self) -> Metrics {
        let now = self.session.now();
        self.session.endpoint.metrics(now)
    }

    /// The run's clock: the sum of the frame times so far.
    pub fn now(&self) -> crate::foundation::time::SimTime {
        self.session.now()
    }

    /// The run's clock (sum of frame times), s.
    pub fn elapsed_secs(&self) -> f64 {
        self.session
            .now()
            .secs_since(crate::foundation::time::SimTime::ZERO)
    }

    /// Duration of the next recorded frame, µs (`None` at the end or
    /// while recording).
    pub fn next_frame_us(&self) -> Option<u32> {
        if self.recording {
            return None;
        }
        self.scenario.frames.get(self.cursor).map(|f| f.dt_us)
    }

    /// Plays the next recorded frame (and the changes due before it);
    /// `false` if there was none.
    pub fn step_recorded(&mut self) -> bool {
        if self.recording {
            return false;
        }
        let Some(&input) = self.scenario.frames.get(self.cursor) else {
            return false;
        };
        self.apply_due_changes();
        self.run_frame(input);
        true
    }

    /// Runs one live frame of `dt` s with this input (`fire`: the
    /// rollback arena's action button), quantized first
    /// ([`FrameInput::quantize`]) and recorded. During playback this is
    /// the user *taking over*: the rest of the recording is dropped and the
    /// run goes on live, recorded from here, so [`ScenarioRun::scenario`]
    /// is always the run so far (what the inspector re-simulates). Past
    /// [`MAX_RECORDED_FRAMES`] recording stops and the run goes on
    /// unrecorded.
    pub fn step_live(&mut self, dt: f64, direction: Vec2, dash: bool, fire: bool) {
        let input = FrameInput::quantize(dt, direction, dash, fire);
        if !self.recording {
            self.take_over();
        }
        if self.recording {
            self.scenario.frames.push(input);
            if self.scenario.frames.len() >= MAX_RECORDED_FRAMES {
                self.stop_recording();
            }
        }
        self.run_frame(input);
    }

    /// Changes a setting before the next frame, recorded; during playback
    /// it takes over like [`ScenarioRun::step_live`].
    pub fn change(&mut self, setting: Setting) {
        if !self.recording {
            self.take_over();
        }
        if self.recording {
            self.scenario.changes.push(Change {
                frame: self.cursor as u32,
                setting,
            });
        }
        self.apply(setting);
    }

    /// Ends recording; the scenario keeps what was recorded and gets its
    /// [`Outcome`].
    pub fn stop_recording(&mut self) {
        if self.recording {
            self.recording = false;
            self.scenario.outcome = Some(self.outcome());
        }
    }

    /// The hash of the trajectory so far ([`Outcome::trajectory_hash`]).
    pub fn trajectory_hash(&self) -> u64 {
        self.trajectory_hash
    }

    /// The outcome so far (what each field means in the rollback model:
    /// [`Outcome`]).
    pub fn outcome(&mut self) -> Outcome {
        let m = self.metrics();
        Outcome {
            frames: self.cursor as u32,
            state_hash: m.state_hash,
            trajectory_hash: self.trajectory_hash,
            adjustments: m.adjustments,
            replayed_moves: m.replayed_moves,
            acks: m.acks,
            moves_sent: m.moves_sent,
            checkpoints: self.checkpoints.clone(),
        }
    }

    /// Drops what was recorded after the cursor and records on from here
    /// (while there is room).
    fn take_over(&mut self) {
        self.scenario.frames.truncate(self.cursor);
        let cursor = self.cursor as u32;
        self.scenario.changes.retain(|c| c.frame < cursor);
        self.scenario.outcome = None;
        self.recording = self.scenario.frames.len() < MAX_RECORDED_FRAMES;
    }

    fn apply_due_changes(&mut self) {
        while let Some(c) = self.scenario.changes.get(self.next_change) {
            if c.frame as usize > self.cursor {
                break;
            }
            let setting = c.setting;
            self.next_change += 1;
            self.apply(setting);
        }
    }

    fn apply(&mut self, setting: Setting) {
        self.settings = self.settings.with(setting);
        self.session.apply(setting);
    }

    fn run_frame(&mut self, input: FrameInput) {
        self.session
            .step(input.dt(), input.direction(), input.dash, input.fire);
        self.cursor += 1;
        let h = self.session.endpoint.state_hash();
        self.trajectory_hash = Fnv64::resume(self.trajectory_hash).u64(h).finish();
        self.elapsed_us += u64::from(input.dt_us);
        while self.elapsed_us >= (self.checkpoints.len() as u64 + 1) * CHECKPOINT_US {
            self.checkpoints.push(checkpoint(self.trajectory_hash));
        }
    }
}
