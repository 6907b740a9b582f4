//! The Scenario bar's side of the main loop: Record / Stop, Save and the
//! share links, opening links, playback (pause, step, speed, restart),
//! controls following the recording, and taking over.

use super::{local_seed, App, Driver, Playback};
use crate::render;
use crate::scenario_panel::PlayButton;
use crate::share::{self, Reply};
use macroquad::prelude::Color;
use sim::scenario::{codec, Setup};
use sim::{Bot, Scenario, ScenarioRun};

impl App {
    /// Plays `scenario` from its first frame, controls following it.
    pub(super) fn start_playback(&mut self, scenario: Scenario) {
        self.close_remote();
        self.driver = Driver::Local(Box::new(ScenarioRun::play(scenario.clone())));
        self.plots.clear();
        self.bot_driving = false;
        self.dom.set_bot_driving(false);
        self.show_settings(scenario.setup);
        self.panel.show_text(&scenario.name, &scenario.description);
        self.panel.message(
            "info",
            &format!(
                "Playing “{}” ({:.1} s, seed {}). Press a key or move a control to take over.",
                scenario.name,
                scenario.duration_secs(),
                scenario.seed
            ),
        );
        self.panel.show_playback(true, PlayButton::Pause);
        self.panel.metric("scenario-verdict", "–");
        self.panel
            .show_recorded(scenario.outcome.as_ref(), scenario.duration_secs());
        self.recorded = Some(scenario.clone());
        self.playback = Some(Playback {
            original: scenario,
            paused: false,
            budget_us: 0.0,
            finished: false,
            just_recorded: false,
        });
        self.show_mode();
        self.show_recorder();
    }

    /// Plays a scenario someone shared: `short` is its `/s/` link if it
    /// came from the relay. Both links are shown so it can be passed on.
    pub(super) fn open_link(&mut self, scenario: Scenario, short: Option<String>) {
        self.saveable = false;
        self.saved = None;
        self.start_playback(scenario);
        self.panel
            .show_links(short.as_deref(), &self.fragment_link());
    }

    /// Opens a `#s=` fragment (at load, or typed / clicked into the open
    /// page).
    pub(super) fn open_fragment(&mut self, text: &str) {
        match codec::from_fragment(text) {
            Ok(s) => self.open_link(s, None),
            Err(e) => self.panel.message(
                "error",
                &format!("This link's scenario cannot be played: {e}. Running live instead."),
            ),
        }
    }

    /// Moves the controls to `setup` and adopts what they show.
    pub(super) fn show_settings(&mut self, setup: Setup) {
        self.shown = setup;
        self.dom.show_setup(&setup);
        self.net_controls.show(&setup.net);
        self.settings = self.net_controls.settings(self.dom.net_settings());
        self.rules = self.dom.server_rules();
        self.client_config = self.dom.client_config();
        self.smoothing = self.dom.smoothing();
    }

    pub(super) fn is_recording(&self) -> bool {
        matches!(&self.driver, Driver::Local(run) if run.is_recording())
    }

    pub(super) fn show_recorder(&self) {
        self.panel.show_recorder(self.is_recording(), self.saveable);
    }

    /// The Predicted panel's line while a scenario records or plays (plain
    /// ASCII: the canvas font has no media symbols).
    pub(super) fn banner(&self) -> Option<(String, Color)> {
        let Driver::Local(run) = &self.driver else {
            return None;
        };
        let secs = run.elapsed_secs();
        match &self.playback {
            Some(p) => {
                let total = p.original.duration_secs();
                let text = if p.just_recorded {
                    format!("RECORDED {secs:.1} s · Save to share · keys go on live")
                } else if p.finished {
                    format!("REPLAY FINISHED {secs:.1} s · keys take over")
                } else if p.paused {
                    format!("REPLAY PAUSED {secs:.1} / {total:.1} s")
                } else {
                    format!(
                        "REPLAY {secs:.1} / {total:.1} s · {}x · keys take over",
                        self.panel.speed()
                    )
                };
                Some((text, render::GREEN))
            }
            None if run.is_recording() => Some((
                format!("REC {secs:.1} s · {} frames", run.frame_index()),
                render::RED,
            )),
            None => None,
        }
    }

    /// Controls follow the recording's changes; the end is announced.
    pub(super) fn follow_playback(&mut self) {
        let Driver::Local(run) = &mut self.driver else {
            return;
        };
        let Some(p) = &mut self.playback else {
            return;
        };
        let settings = run.settings();
        let end = !p.finished && run.is_finished();
        if end {
            p.finished = true;
            let o = run.outcome();
            let (kind, text) = match p.original.outcome {
                Some(r) if r == o => ("ok", "identical to the recording"),
                Some(_) => ("error", "differs from the recording"),
                None => ("info", "no recorded outcome to compare"),
            };
            self.panel.metric("scenario-verdict", text);
            self.panel.message(
                kind,
                &format!(
                    "Replay finished: {text} (state hash {:016x}, {} adjustments). Restart, or press a key to take over.",
                    o.state_hash, o.adjustments
                ),
            );
            self.panel.show_playback(true, PlayButton::Replay);
        }
        if settings != self.shown {
            self.show_settings(settings);
        }
    }

    /// The user pressed a key or moved a control during playback: the run
    /// goes on live from here.
    pub(super) fn take_over(&mut self) {
        let Some(p) = self.playback.take() else {
            return;
        };
        if let Driver::Local(run) = &self.driver {
            let text = if p.just_recorded {
                "Live again from the end of the recording (▶ Replay plays the recording)."
                    .to_owned()
            } else {
                format!(
                    "You took over “{}” at {:.1} s: the run goes on live (▶ Replay plays the scenario again).",
                    p.original.name,
                    run.elapsed_secs()
                )
            };
            self.panel.message("info", &text);
        }
        self.panel.metric("scenario-verdict", "–");
        self.panel.show_playback(true, PlayButton::Replay);
        self.recorded = Some(p.original);
        self.show_mode();
    }

    /// Replies of the scenario API.
    pub(super) fn take_replies(&mut self) {
        let Some(reply) = self.mailbox.borrow_mut().take() else {
            return;
        };
        match reply {
            Reply::Loaded(bytes) => match codec::decode(&bytes) {
                Ok(s) => {
                    let short = web_sys::window().and_then(|w| w.location().href().ok());
                    self.open_link(s, short);
                }
                Err(e) => self.panel.message(
                    "error",
                    &format!("The saved scenario cannot be played: {e}"),
                ),
            },
            Reply::Saved(id) => {
                let short = format!("{}/s/{id}", share::origin());
                self.saved = self.saving.take().map(|(n, d)| (n, d, id.clone()));
                self.panel.show_links(Some(&short), &self.fragment_link());
                self.panel.message(
                    "ok",
                    &format!("Saved as {id}. Send the link: it replays this run exactly."),
                );
            }
            Reply::Failed(reason) => {
                if self.saving.take().is_some() {
                    self.panel.show_links(None, &self.fragment_link());
                    self.panel.message(
                        "error",
                        &format!("Not stored: {reason}. The self-contained link below plays anywhere, even without a relay."),
                    );
                } else {
                    self.panel
                        .message("error", &format!("{reason}. Running live instead."));
                }
            }
        }
    }

    pub(super) fn fragment_link(&self) -> String {
        self.recorded.as_ref().map_or_else(String::new, |s| {
            format!("{}/#s={}", share::origin(), codec::to_fragment(s))
        })
    }

    pub(super) fn handle_clicks(&mut self) {
        let c = self.panel.take_clicks();
        if c.record % 2 == 1 {
            self.toggle_recording();
        }
        if c.save > 0 {
            self.save();
        }
        if c.copy > 0 {
            share::copy(&self.panel.link());
            self.panel.message("ok", "Link copied to the clipboard.");
        }
        if c.restart > 0 {
            if let Some(s) = self.recorded.clone() {
                self.start_playback(s);
            }
        }
        if c.step > 0 {
            if let (Some(p), Driver::Local(run)) = (&self.playback, &mut self.driver) {
                if p.paused && !p.finished {
                    for _ in 0..c.step {
                        run.step_recorded();
                    }
                }
            }
        }
        if c.play_pause % 2 == 1 {
            match &mut self.playback {
                Some(p) if p.finished => {
                    if let Some(s) = self.recorded.clone() {
                        self.start_playback(s);
                    }
                }
                Some(p) => {
                    p.paused = !p.paused;
                    let button = if p.paused {
                        PlayButton::Resume
                    } else {
                        PlayButton::Pause
                    };
                    self.panel.show_playback(true, button);
                }
                None => {
                    if let Some(s) = self.recorded.clone() {
                        self.start_playback(s);
                    }
                }
            }
        }
    }

    /// Record starts a fresh in-page run from spawn; Stop keeps it.
    pub(super) fn toggle_recording(&mut self) {
        if let Driver::Local(run) = &mut self.driver {
            if run.is_recording() {
                run.stop_recording();
                self.keep_recording();
                return;
            }
        }
        self.close_remote();
        self.playback = None;
        self.panel.show_playback(false, PlayButton::Pause);
        self.panel.metric("scenario-verdict", "–");
        self.panel.show_recorded(None, 0.0);
        self.panel.hide_links();
        if !self.saveable && self.recorded.is_some() {
            // The name and description are a shared scenario's, not this one's.
            self.panel.show_text("", "");
        }
        self.recorded = None;
        self.saveable = false;
        self.saved = None;
        let seed = local_seed();
        self.driver = Driver::Local(Box::new(ScenarioRun::record(
            &self.panel.name(),
            seed,
            self.setup(),
        )));
        self.bot = Bot::new();
        self.plots.clear();
        self.panel.message(
            "info",
            "Recording from spawn on the in-page host (a real socket's timing could not be replayed). Drive, change settings, then Stop.",
        );
        self.show_mode();
        self.show_recorder();
    }

    /// Keeps what the run recorded (after Stop, or when the recording hit
    /// [`sim::scenario::MAX_RECORDED_FRAMES`] and stopped by itself).
    pub(super) fn keep_recording(&mut self) {
        if let Driver::Local(run) = &self.driver {
            let s = run.scenario().clone();
            let o = s.outcome.unwrap_or_default();
            self.panel.message(
                    "ok",
                    &format!(
                        "Recorded {:.1} s ({} frames): {} adjustments, state hash {:016x}. Name it and Save.",
                        s.duration_secs(),
                        o.frames,
                        o.adjustments,
                        o.state_hash
                    ),
                );
            self.panel
                .show_recorded(s.outcome.as_ref(), s.duration_secs());
            self.panel.show_playback(true, PlayButton::Replay);
            // The run stays frozen at the recording's end until a key or a
            // control takes over, so what is shown is what was recorded.
            self.playback = Some(Playback {
                original: s.clone(),
                paused: false,
                budget_us: 0.0,
                finished: true,
                just_recorded: true,
            });
            self.recorded = Some(s);
            self.saveable = true;
            self.saved = None;
            self.show_mode();
            self.show_recorder();
        }
    }

    pub(super) fn save(&mut self) {
        if !self.saveable {
            return;
        }
        let Some(s) = &mut self.recorded else {
            return;
        };
        s.name = self.panel.name();
        s.description = self.panel.description();
        if let Err(e) = s.validate() {
            self.panel.message("error", &format!("Cannot save: {e}"));
            return;
        }
        if let Some((name, description, id)) = &self.saved {
            if *name == s.name && *description == s.description {
                let message = format!("Already saved as {id}: same link.");
                let short = format!("{}/s/{id}", share::origin());
                self.panel.show_links(Some(&short), &self.fragment_link());
                self.panel.message("ok", &message);
                return;
            }
        }
        self.saving = Some((s.name.clone(), s.description.clone()));
        self.panel.message("info", "Saving…");
        share::save(codec::encode(s), self.mailbox.clone());
    }
}
