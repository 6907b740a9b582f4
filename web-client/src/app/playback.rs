//! The run's transport — pause, step, speed for every run — and scenarios
//! playing back: opening links, controls following the recording, the end
//! and its verdict, taking over.

use super::{App, Driver};
use crate::runbar::playback::{Playback, RunState};
use sim::protocol::Setup;
use sim::scenario::codec::{self, Decoded};
use sim::scenario::{Verdict, SCENARIO_VERSION};
use sim::{Scenario, ScenarioRun};

impl App {
    /// Plays `scenario` from its first frame, controls following it.
    pub(super) fn start_playback(&mut self, scenario: Scenario) {
        let run = ScenarioRun::play(scenario.clone());
        self.start(Driver::Local(Box::new(run)), RunState::Playing);
        self.time.paused = false;
        self.bot_driving = false;
        self.show_settings(scenario.setup);
        self.panel.show_text(&scenario.name, &scenario.description);
        self.panel
            .message("info", &playing(&scenario, SCENARIO_VERSION));
        self.panel.metric("scenario-verdict", "–");
        self.panel
            .show_recorded(scenario.outcome.as_ref(), scenario.duration_secs());
        self.recorder.recorded = Some(scenario.clone());
        self.playback = Some(Playback::new(scenario));
        self.show_state();
    }

    /// Plays a scenario someone shared (of any version, upgraded):
    /// `short` is its `/s/` link if it came from the relay. Both links are
    /// shown so it can be passed on.
    pub(super) fn open_link(&mut self, link: Decoded, short: Option<String>) {
        self.recorder.opened_link();
        let text = playing(&link.scenario, link.saved_version);
        self.start_playback(link.scenario);
        self.panel.message("info", &text);
        self.panel
            .show_links(short.as_deref(), &self.recorder.fragment_link());
    }

    /// Opens a `#s=` fragment (at load, or typed / clicked into the open
    /// page).
    pub(super) fn open_fragment(&mut self, text: &str) {
        match codec::open_fragment(text) {
            Ok(link) => self.open_link(link, None),
            Err(e) => self.panel.message(
                "error",
                &format!("This link's scenario cannot be played: {e}. Running live instead."),
            ),
        }
    }

    /// Moves the controls to `setup` and adopts what they show.
    pub(super) fn show_settings(&mut self, setup: Setup) {
        self.shown = setup;
        self.model_controls.show(&setup);
        self.net_controls.show(&setup.net);
        self.net_controls.show_transport(setup.transport);
        self.rollback_controls.show(&setup.model);
        self.settings = self.net_controls.settings();
        self.transport = self.net_controls.transport();
        self.rules = self.model_controls.server_rules();
        self.client_config = self.model_controls.client_config();
        self.smoothing = self.model_controls.smoothing();
        let base = match setup.model {
            sim::Model::Rollback(r) => r,
            sim::Model::Cmc => self.rollback,
        };
        self.rollback = self.rollback_controls.config(base);
        self.model = self.rollback_controls.model(self.rollback);
    }

    /// ❚❚ / ▶: pauses or resumes any running run; at the end of a
    /// scenario or recording, plays it again.
    pub(super) fn play_pause(&mut self) {
        if !self.state.advances() {
            if let Some(s) = self.recorder.recorded.clone() {
                self.start_playback(s);
            }
            return;
        }
        self.time.paused = !self.time.paused;
        self.time.steps = 0;
        self.view.freeze(
            self.state == RunState::Relay && self.time.paused,
            self.driver.endpoint(),
        );
        self.show_state();
    }

    /// Step ›: one frame of a paused in-page run, or of the playhead
    /// while one is being inspected.
    pub(super) fn step(&mut self, presses: u32) {
        if self.steps_the_playhead() {
            self.scrub_step(i64::from(presses));
        } else if self.time.paused && self.state.in_page() {
            self.time.steps += presses;
        }
    }

    /// The Predicted panel's banner while a scenario records or plays, or
    /// the run is paused or slowed.
    pub(super) fn banner(&self) -> Option<String> {
        let secs = self.driver.run().map_or(0.0, |r| r.elapsed_secs());
        let total = self
            .playback
            .as_ref()
            .map_or(0.0, |p| p.original.duration_secs());
        let speed = self.time.speed_for(self.state);
        self.state.banner(self.time.paused, secs, total, speed)
    }

    /// Controls follow the recording's changes; the end is announced.
    pub(super) fn follow_playback(&mut self) {
        let Driver::Local(run) = &mut self.driver else {
            return;
        };
        let Some(p) = &self.playback else {
            return;
        };
        let settings = run.settings();
        if self.state == RunState::Playing && run.is_finished() {
            self.state = RunState::Finished;
            let o = run.outcome();
            let verdict = Verdict::of(p.original.outcome.as_ref(), &o);
            let kind = match verdict {
                Verdict::Identical => "ok",
                Verdict::Unrecorded => "info",
                Verdict::Differs(_) => "error",
            };
            self.panel.metric("scenario-verdict", &verdict.label());
            self.panel.message(
                kind,
                &format!(
                    "Replay finished: {verdict}. State hash {:016x}, {} adjustments received. Restart, or press a key to take over.",
                    o.state_hash, o.adjustments
                ),
            );
            self.show_state();
        }
        if settings != self.shown {
            self.show_settings(settings);
        }
    }

    /// The user pressed a key or moved a control during playback: the run
    /// goes on live from here.
    pub(super) fn take_over(&mut self) {
        // The live timeline from here.
        self.driver.keep_timeline();
        let Some(p) = self.playback.take() else {
            return;
        };
        if let Some(run) = self.driver.run() {
            let text = if self.state == RunState::Recorded {
                "Live again from the end of the recording (⟲ Restart plays the recording)."
                    .to_owned()
            } else {
                format!(
                    "You took over “{}” at {:.1} s: the run goes on live (⟲ Restart plays the scenario again).",
                    p.original.name,
                    run.elapsed_secs()
                )
            };
            self.panel.message("info", &text);
        }
        self.state = RunState::Local;
        self.time.paused = false;
        self.panel.metric("scenario-verdict", "–");
        self.recorder.recorded = Some(p.original);
        self.show_state();
    }
}

/// What the bar says while `scenario` plays: its name, length and seed,
/// and the version it was saved as when older than this build's.
fn playing(scenario: &Scenario, saved_version: u16) -> String {
    let upgraded = if saved_version < SCENARIO_VERSION {
        format!(
            "; saved as scenario version {saved_version}, read as version {SCENARIO_VERSION}: \
             its end says whether today's model gives the original run"
        )
    } else {
        String::new()
    };
    format!(
        "Playing “{}” ({:.1} s, seed {}{upgraded}). Press a key or move a control to take over.",
        scenario.name,
        scenario.duration_secs(),
        scenario.seed
    )
}
