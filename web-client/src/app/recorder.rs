//! The recorder: Record / Stop on the in-page host, Save to the relay, the
//! share links, the scenario API's replies, and the run bar's clicks.

use super::{App, Driver};
use crate::clock::local_seed;
use crate::runbar::playback::{Playback, RunState};
use crate::runbar::recorder::{Recorder, Save};
use crate::runbar::share::{self, Reply};
use sim::scenario::codec;
use sim::ScenarioRun;

impl App {
    pub(super) fn is_recording(&self) -> bool {
        self.state == RunState::Recording
    }

    pub(super) fn show_recorder(&self) {
        self.panel
            .show_recorder(self.is_recording(), self.recorder.is_saveable());
    }

    /// The run bar's and the scenario card's clicks since the last frame.
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
            if let Some(s) = self.recorder.recorded.clone() {
                self.start_playback(s);
            }
        }
        if c.step > 0 {
            self.step(c.step);
        }
        if c.play_pause % 2 == 1 {
            self.play_pause();
        }
        if c.csv > 0 {
            self.download_csv();
        }
        let speed = self.panel.speed();
        if speed != self.time.speed {
            self.time.speed = speed;
            self.show_state();
        }
    }

    /// Record starts a fresh in-page run from spawn; Stop keeps it.
    pub(super) fn toggle_recording(&mut self) {
        if let (Driver::Local(run), RunState::Recording) = (&mut self.driver, self.state) {
            run.stop_recording();
            self.keep_recording();
            return;
        }
        self.playback = None;
        self.panel.metric("scenario-verdict", "–");
        self.panel.show_recorded(None, 0.0);
        self.panel.hide_links();
        if !self.recorder.is_saveable() && self.recorder.recorded.is_some() {
            // The name and description are a shared scenario's, not this one's.
            self.panel.show_text("", "");
        }
        self.recorder = Recorder::default();
        let run = ScenarioRun::record(&self.panel.name(), local_seed(), self.setup());
        self.start(Driver::Local(Box::new(run)), RunState::Recording);
        self.time.paused = false;
        self.panel.message(
            "info",
            "Recording from spawn on the in-page host (a real socket's timing could not be replayed). Drive, change settings, then Stop.",
        );
        self.show_state();
    }

    /// Keeps what the run recorded (after Stop, or when the recording hit
    /// [`sim::scenario::MAX_RECORDED_FRAMES`] and stopped by itself). The
    /// run stays frozen at the recording's end until a key or a control
    /// takes over, so what is shown is what was recorded.
    pub(super) fn keep_recording(&mut self) {
        let Some(run) = self.driver.run() else {
            return;
        };
        let s = run.scenario().clone();
        let o = s.outcome.clone().unwrap_or_default();
        self.panel.message(
            "ok",
            &format!(
                "Recorded {:.1} s ({} frames): {} adjustments received, state hash {:016x}. Name it and Save.",
                s.duration_secs(),
                o.frames,
                o.adjustments,
                o.state_hash
            ),
        );
        self.panel
            .show_recorded(s.outcome.as_ref(), s.duration_secs());
        self.playback = Some(Playback::new(s.clone()));
        self.state = RunState::Recorded;
        self.recorder.keep(s);
        self.show_state();
    }

    pub(super) fn save(&mut self) {
        match self
            .recorder
            .save(self.panel.name(), self.panel.description())
        {
            Save::Nothing => {}
            Save::Invalid(e) => self.panel.message("error", &format!("Cannot save: {e}")),
            Save::Already(id) => {
                let short = format!("{}/s/{id}", share::origin());
                self.panel
                    .show_links(Some(&short), &self.recorder.fragment_link());
                self.panel
                    .message("ok", &format!("Already saved as {id}: same link."));
            }
            Save::Send(bytes) => {
                self.panel.message("info", "Saving…");
                share::save(bytes, self.mailbox.clone());
            }
        }
    }

    /// Replies of the scenario API.
    pub(super) fn take_replies(&mut self) {
        let Some(reply) = self.mailbox.borrow_mut().take() else {
            return;
        };
        match reply {
            Reply::Loaded(bytes) => match codec::open(&bytes) {
                Ok(link) => {
                    let short = web_sys::window().and_then(|w| w.location().href().ok());
                    self.open_link(link, short);
                }
                Err(e) => self.panel.message(
                    "error",
                    &format!("The saved scenario cannot be played: {e}"),
                ),
            },
            Reply::Saved(id) => {
                let short = format!("{}/s/{id}", share::origin());
                self.recorder.saved(&id);
                self.panel
                    .show_links(Some(&short), &self.recorder.fragment_link());
                self.panel.message(
                    "ok",
                    &format!("Saved as {id}. Send the link: it replays this run exactly."),
                );
            }
            Reply::Failed(reason) => {
                if self.recorder.failed() {
                    self.panel.show_links(None, &self.recorder.fragment_link());
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
}
