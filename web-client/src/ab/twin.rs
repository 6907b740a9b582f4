//! The A/B view's B column ([`Twin`]): a second in-page run forked from
//! the main run (column A) with one setting different, fed the same input
//! from then on.
//!
//! Fork, don't replay: `ScenarioRun` is a value, so B starts as a copy of
//! A — the same seed, the same conditioners' state, the same client and
//! server — and then takes the [`Difference`]. From there on, every frame
//! A runs, B runs with the same quantized input, and every setting A
//! takes B takes too, with the difference laid over it. A relay
//! connection could not do this (two sockets never get the same link), so
//! the A/B view always runs on the in-page host.
//!
//! A fork can start at any frame: the page forks at frame 0 (both columns
//! from spawn), a scenario being played back is mirrored frame by frame
//! ([`Twin::mirror`]), and a recording forks B at its current frame.
//! Issue #14's what-if fork from a chosen frame is the same call: put the
//! run at that frame in the driver (the scenario played to it), set
//! [`AbView::difference`] and the view on, and [`AbView::refork`] —
//! [`Twin::fork`] on the run as it stands. [`AbView`] holds the view: its
//! HTML, whether it is on, the difference, B, and B's words.

use super::chrome::AbChrome;
use super::difference::{settings_to_send, Difference, Knob};
use super::paired::{paired_rows, Numbers};
use crate::clock::clock_ms;
use crate::panels::column::ColumnState;
use crate::timeline::samples::{Timeline, SNAP_JUMP_CM};
use sim::endpoints::metrics::Metrics;
use sim::protocol::{Setting, Setup};
use sim::rollback::RollbackConfig;
use sim::scenario::{FrameInput, Scenario};
use sim::{Model, ScenarioRun, Vec2};

/// See the module docs.
pub struct Twin {
    /// B's run.
    pub run: ScenarioRun,
    /// What B changes.
    pub difference: Difference,
    /// A's settings, which B's are derived from.
    a: Setup,
    /// The page's rollback settings (B's when the model knob gives B the
    /// rollback model and A runs CMC).
    rollback: RollbackConfig,
    /// A's recorded changes already mirrored (playback).
    next_change: usize,
    /// The frame of A's run B was forked at.
    pub forked_at: usize,
    /// B's view state.
    pub view: ColumnState,
    /// B's frames, for its Replayed panel's mesh-offset inset.
    timeline: Timeline,
}

impl Twin {
    /// B as a copy of `a` (at whatever frame it is) with `difference`.
    pub fn fork(a: &ScenarioRun, difference: Difference, rollback: RollbackConfig) -> Twin {
        let mut run = a.clone();
        if run.is_recording() {
            // B's frames are not a recording of its own.
            run.stop_recording();
        }
        let cursor = a.frame_index();
        let mut twin = Twin {
            run,
            difference,
            a: a.settings(),
            rollback,
            next_change: a
                .scenario()
                .changes
                .iter()
                .take_while(|c| (c.frame as usize) < cursor)
                .count(),
            forked_at: cursor,
            view: ColumnState::default(),
            timeline: Timeline::default(),
        };
        twin.converge();
        twin
    }

    /// A took `setting`: B takes it too, with the difference laid over.
    pub fn follow(&mut self, setting: Setting) {
        match setting {
            Setting::LagSpike(_) => self.run.change(setting),
            s => {
                self.a = self.a.with(s);
                self.converge();
            }
        }
    }

    /// The page's rollback settings changed (they are B's model when the
    /// model knob gives B the rollback model).
    pub fn set_rollback(&mut self, rollback: RollbackConfig) {
        if rollback != self.rollback {
            self.rollback = rollback;
            self.converge();
        }
    }

    /// Sends B whatever takes it to A's settings with the difference.
    fn converge(&mut self) {
        let target = self.difference.b_setup(&self.a, self.rollback);
        for s in settings_to_send(&self.run.settings(), &target) {
            self.run.change(s);
        }
    }

    /// One live frame with A's input, timed.
    pub fn step(&mut self, dt: f64, direction: Vec2, dash: bool, fire: bool) {
        let started = clock_ms();
        self.run.step_live(dt, direction, dash, fire);
        self.view.timed(self.run.endpoint(), clock_ms() - started);
    }

    /// A played its recorded frames `from..to` of `scenario`: B runs the
    /// same ones, taking the recorded changes due before each (timed as
    /// one frame, like A's).
    pub fn mirror(&mut self, scenario: &Scenario, from: usize, to: usize) {
        let started = clock_ms();
        for i in from..to {
            while let Some(c) = scenario.changes.get(self.next_change) {
                if c.frame as usize > i {
                    break;
                }
                self.next_change += 1;
                self.follow(c.setting);
            }
            if let Some(f) = scenario.frames.get(i) {
                self.step_input(*f);
            }
        }
        self.view.timed(self.run.endpoint(), clock_ms() - started);
    }

    fn step_input(&mut self, f: FrameInput) {
        self.run.step_live(f.dt(), f.direction(), f.dash, f.fire);
    }

    /// The settings each column runs.
    pub fn setups(&self) -> (Setup, Setup) {
        (self.a, self.run.settings())
    }
}

/// What the A/B view's controls did this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changes {
    /// The view was turned on or off.
    pub toggled: bool,
    /// Both columns start afresh: the view was turned on, or the
    /// difference changed while on.
    pub restart: bool,
}

/// The A/B view: its HTML, whether it is on, what B changes, and B.
pub struct AbView {
    /// The view's HTML.
    pub chrome: AbChrome,
    /// The `#ab` toggle is on.
    pub on: bool,
    /// What B changes.
    pub difference: Difference,
    /// B, while the view is on and the run is in the page.
    pub twin: Option<Twin>,
    /// The model the knob list was last offered for.
    offered: Option<sim::Model>,
    /// B runs before A this frame (they take turns).
    b_first: bool,
}

impl AbView {
    /// The view, off.
    pub fn new(doc: &web_sys::Document) -> AbView {
        let mut chrome = AbChrome::new(doc);
        let difference = chrome.difference();
        chrome.set_on(false);
        AbView {
            chrome,
            on: false,
            difference,
            twin: None,
            offered: None,
            b_first: false,
        }
    }

    /// Whether B runs before A this frame; the next frame the other way.
    pub fn take_turn(&mut self) -> bool {
        self.b_first = !self.b_first;
        self.b_first
    }

    /// Forks B from the in-page run `run` (at its current frame), if the
    /// view is on and there is one.
    pub fn refork(&mut self, run: Option<&ScenarioRun>, rollback: RollbackConfig) {
        self.twin = match (self.on, run) {
            (true, Some(run)) => Some(Twin::fork(run, self.difference, rollback)),
            _ => None,
        };
    }

    /// Reads the view's controls for `model` (the knobs offered follow
    /// it): the toggle turns the view on or off (off drops B), a knob that
    /// does not apply to `model` falls back to the other model, and a new
    /// difference is taken.
    pub fn take_changes(&mut self, model: Model) -> Changes {
        if self.offered != Some(model) {
            self.offered = Some(model);
            self.chrome.offer_for(&model);
        }
        let toggled = self.chrome.toggled();
        let mut restart = false;
        if toggled {
            self.on = !self.on;
            self.chrome.set_on(self.on);
            restart = self.on;
            if !self.on {
                self.twin = None;
            }
        }
        if !self.difference.knob.applies_to(&model) {
            self.chrome.pick(Knob::Model);
        }
        let d = self.chrome.difference();
        if d != self.difference {
            self.difference = d;
            restart |= self.on;
        }
        Changes { toggled, restart }
    }

    /// The view's words: the column headers, B's panel lines and the
    /// paired numbers, against column A's metrics `a` and its mean
    /// re-simulation time `resim_a_us`.
    pub fn write_readouts(&mut self, a: &Metrics, resim_a_us: Option<f64>) {
        let Some(t) = &mut self.twin else {
            return;
        };
        let b = t.run.metrics();
        let (sa, sb) = t.setups();
        let (ha, hb) = t.difference.headers(&sa, &sb);
        let c = &self.chrome;
        c.text("ab-head-a", &format!("{ha} · as the controls say"));
        c.text("ab-head-b", &hb);
        c.text(
            "ab-note",
            &format!(
                "same input and link seed (seed {}) since frame {}; only the {} differs",
                t.run.scenario().seed,
                t.forked_at,
                t.difference.knob.name(),
            ),
        );
        let texts = t.view.texts(t.run.endpoint());
        c.text("predicted-foot-b", &texts.predicted_foot);
        c.text("authoritative-foot-b", &texts.authoritative_foot);
        c.text("replayed-sub-b", &texts.replayed_sub);
        c.text("replayed-foot-b", &texts.replayed_foot);
        c.write_table(&paired_rows(
            &Numbers::from_metrics(a, resim_a_us),
            &Numbers::from_metrics(&b, t.view.resim.mean_us()),
        ));
    }

    /// Draws B's panels (after the main column's) into B's bodies.
    pub fn draw_twin(
        &mut self,
        size: (f32, f32),
        input: Vec2,
        push_zones: bool,
        zoom: Option<f32>,
        dt: f32,
        threshold_cm: f32,
    ) {
        let Some(t) = &mut self.twin else {
            return;
        };
        let layout = self.chrome.layout(size);
        let m = t.run.metrics();
        let ep = t.run.endpoint();
        t.view.update(ep, threshold_cm, dt);
        t.timeline.record(t.run.now(), &m, t.view.offsets(ep));
        let follow = t.view.follow(ep, zoom, dt);
        let mesh_offsets = t.timeline.around_last_snap(SNAP_JUMP_CM);
        t.view
            .frame(ep, input, push_zones, follow, mesh_offsets.as_deref())
            .draw(&layout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::rollback::InputCmd;
    use sim::{Model, NetSettings};

    fn lossy_rollback() -> Setup {
        Setup {
            net: NetSettings::symmetric(100, 0, 20),
            model: Model::Rollback(RollbackConfig::default()),
            ..Setup::default()
        }
    }

    /// Runs A and its twin B on the same bot input for `frames` frames.
    fn run_pair(difference: Difference, frames: usize) -> (ScenarioRun, Twin) {
        let mut a = ScenarioRun::play(Scenario::new("A", 7, lossy_rollback()));
        let mut b = Twin::fork(&a, difference, RollbackConfig::default());
        let mut bot = sim::rollback::BotPlayer::new(0);
        for _ in 0..frames {
            let (dir, buttons) = bot.input(a.endpoint().position(), 1.0 / 60.0);
            let pressed = |b: u16| buttons & b != 0;
            let (dash, fire) = (pressed(InputCmd::DASH), pressed(InputCmd::FIRE));
            a.step_live(1.0 / 60.0, dir, dash, fire);
            b.step(1.0 / 60.0, dir, dash, fire);
        }
        (a, b)
    }

    #[test]
    fn a_twin_with_no_difference_runs_bit_for_bit_like_a() {
        let none = Difference {
            knob: Knob::Redundancy,
            b: 4.0,
        };
        let (mut a, mut b) = run_pair(none, 600);
        assert_eq!(a.outcome(), b.run.outcome());
    }

    #[test]
    fn redundancy_one_against_four_under_20_percent_loss_misses_more_inputs() {
        let (mut a, mut b) = run_pair(Difference::of(Knob::Redundancy), 1200);
        let missed = |r: &mut ScenarioRun| r.metrics().rollback.map(|m| m.missed_inputs);
        let (ma, mb) = (missed(&mut a).unwrap(), missed(&mut b.run).unwrap());
        assert!(mb > 3 * ma.max(5), "redundancy 4: {ma}, redundancy 1: {mb}");
    }

    #[test]
    fn a_twin_of_a_scenario_playing_back_mirrors_its_frames_and_changes() {
        // Record 10 s of the firing bot with a loss change half-way.
        let mut rec = ScenarioRun::record("rec", 11, lossy_rollback());
        let mut bot = sim::rollback::BotPlayer::new(0);
        for i in 0..600 {
            if i == 300 {
                rec.change(Setting::Net(NetSettings::symmetric(100, 0, 2)));
            }
            let (dir, buttons) = bot.input(rec.endpoint().position(), 1.0 / 60.0);
            let pressed = |b: u16| buttons & b != 0;
            rec.step_live(
                1.0 / 60.0,
                dir,
                pressed(InputCmd::DASH),
                pressed(InputCmd::FIRE),
            );
        }
        rec.stop_recording();
        let scenario = rec.scenario().clone();
        // Play it back in uneven batches of frames, B mirroring each batch.
        let same = Difference {
            knob: Knob::Redundancy,
            b: 4.0,
        };
        let mut a = ScenarioRun::play(scenario.clone());
        let mut b = Twin::fork(&a, same, RollbackConfig::default());
        let mut other = Twin::fork(
            &a,
            Difference::of(Knob::Redundancy),
            RollbackConfig::default(),
        );
        while !a.is_finished() {
            let from = a.frame_index();
            for _ in 0..(1 + from % 3) {
                a.step_recorded();
            }
            b.mirror(&scenario, from, a.frame_index());
            other.mirror(&scenario, from, a.frame_index());
        }
        assert_eq!(Some(a.outcome()), scenario.outcome);
        assert_eq!(b.run.outcome(), a.outcome(), "no difference: the same run");
        assert_eq!(b.run.settings(), a.settings(), "the loss change reached B");
        assert_ne!(
            other.run.outcome().trajectory_hash,
            a.outcome().trajectory_hash
        );
    }

    #[test]
    fn a_setting_a_takes_reaches_b_with_the_difference_kept() {
        let a = ScenarioRun::play(Scenario::new("A", 7, lossy_rollback()));
        let mut b = Twin::fork(
            &a,
            Difference::of(Knob::Redundancy),
            RollbackConfig::default(),
        );
        let quiet = NetSettings::symmetric(40, 0, 0);
        b.follow(Setting::Net(quiet));
        let (sa, sb) = b.setups();
        assert_eq!(sa.net, quiet);
        assert_eq!(sb.net, quiet);
        let Model::Rollback(r) = sb.model else {
            panic!("B runs rollback")
        };
        assert_eq!(r.redundancy, 1);
    }
}
