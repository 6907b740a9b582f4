//! The A/B view in the loop: its controls read each frame, and starting
//! the pair — both columns afresh, or B forked from a recording in
//! progress. The view itself (B's run, its panels and words) is
//! `crate::ab`'s.

use super::App;
use crate::runbar::playback::RunState;

impl App {
    /// The A/B view's controls: the toggle and the difference. Turning it
    /// on, or changing the difference, starts both columns afresh (see
    /// [`App::engage_ab`]).
    pub(super) fn handle_ab(&mut self) {
        let changes = self.ab.take_changes(self.model);
        if changes.toggled {
            self.chrome.remeasure();
            if !self.ab.on {
                self.panel.message(
                    "info",
                    "A/B off: column A's run goes on in the page (reload to reconnect to the relay).",
                );
            }
        }
        if changes.restart {
            self.engage_ab();
        }
    }

    /// Starts the A/B pair: a live run (on the relay or in the page)
    /// restarts in the page from spawn with B forked at frame 0; a
    /// scenario plays again from frame 0 with B mirroring it; a recording
    /// goes on and B is forked from its current frame.
    fn engage_ab(&mut self) {
        match self.state {
            RunState::Relay | RunState::Local => self.start_local_live(),
            RunState::Playing | RunState::Finished | RunState::Recorded => {
                match self.recorder.recorded.clone() {
                    Some(s) => self.start_playback(s),
                    None => self.start_local_live(),
                }
            }
            RunState::Recording => self.ab.refork(self.driver.run(), self.rollback),
        }
        let seed = self.driver.run().map_or(0, |r| r.scenario().seed);
        self.panel.message(
            "info",
            &format!(
                "A/B: two runs in the page on seed {seed}, fed the same input; B differs only in its {}. A relay connection could not give both the same link.",
                self.ab.difference.knob.name()
            ),
        );
        self.show_state();
    }
}
