//! What the page's run is doing ([`RunState`]), the time control every run
//! obeys (pause, step, speed: [`TimeControl`]), the pacing of a recorded
//! run against the page's frames ([`Pacer`]) and a scenario playing back
//! at that pace ([`Playback`]). Pure logic, no DOM: the
//! labels, buttons and banners the page shows are all read from here, and
//! the unit tests run natively (`cargo test -p web-client`).

use sim::{Scenario, ScenarioRun};

/// What the run is doing. Pause is not a state of its own: any run that
/// advances can be paused ([`TimeControl`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Live on the relay. Pausing freezes the view only: the relay's
    /// clock cannot be stopped.
    Relay,
    /// Live on the host in the page.
    Local,
    /// Live on the host in the page, recording.
    Recording,
    /// A scenario playing back.
    Playing,
    /// A scenario played to its end.
    Finished,
    /// The run just recorded, frozen at its end after Stop.
    Recorded,
}

/// What the ▶/❚❚ button does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayButton {
    /// The run advances: the button pauses it.
    Pause,
    /// Paused: the button resumes (Step › runs one frame).
    Resume,
    /// At the end of a scenario or a recording: the button plays it from
    /// frame 0.
    Replay,
}

impl PlayButton {
    /// The button's text.
    pub fn text(self) -> &'static str {
        match self {
            PlayButton::Pause => "❚❚ Pause",
            PlayButton::Resume => "▶ Resume",
            PlayButton::Replay => "▶ Replay",
        }
    }
}

impl RunState {
    /// `true` while frames run (not at a scenario's or recording's end).
    pub fn advances(self) -> bool {
        !matches!(self, RunState::Finished | RunState::Recorded)
    }

    /// `true` while the host runs in the page (its clock can be paused,
    /// stepped and slowed).
    pub fn in_page(self) -> bool {
        self != RunState::Relay
    }

    /// `true` while frames come from a recording.
    pub fn is_playback(self) -> bool {
        matches!(
            self,
            RunState::Playing | RunState::Finished | RunState::Recorded
        )
    }

    /// The `scenario-state` read-out.
    pub fn label(self, paused: bool) -> &'static str {
        match self {
            _ if paused && self.advances() => "paused",
            RunState::Relay => "relay",
            RunState::Local => "local",
            RunState::Recording => "recording",
            RunState::Playing => "playing",
            RunState::Finished => "finished",
            RunState::Recorded => "recorded",
        }
    }

    /// The header's mode line.
    pub fn mode(self) -> &'static str {
        match self {
            RunState::Relay => "relay",
            RunState::Local => "local (host in page)",
            RunState::Recording => "recording (host in page)",
            RunState::Playing | RunState::Finished => "replay (host in page)",
            RunState::Recorded => "recorded (host in page)",
        }
    }

    /// What ▶/❚❚ does.
    pub fn button(self, paused: bool) -> PlayButton {
        match self {
            _ if !self.advances() => PlayButton::Replay,
            _ if paused => PlayButton::Resume,
            _ => PlayButton::Pause,
        }
    }

    /// The Predicted panel's banner while a scenario records or plays, or
    /// the run is paused or slowed; `None` for a plain live run. `secs` is
    /// the run's clock, `total` the scenario's length, `speed` the speed in
    /// force.
    pub fn banner(self, paused: bool, secs: f64, total: f64, speed: f64) -> Option<String> {
        let slow = if speed == 1.0 {
            String::new()
        } else {
            format!(" · {speed}×")
        };
        Some(match self {
            RunState::Recorded => format!("RECORDED {secs:.1} s · Save to share · keys go on live"),
            RunState::Finished => format!("REPLAY FINISHED {secs:.1} s · keys take over"),
            RunState::Playing if paused => format!("REPLAY PAUSED {secs:.1} / {total:.1} s"),
            RunState::Playing => format!("REPLAY {secs:.1} / {total:.1} s{slow} · keys take over"),
            RunState::Recording if paused => format!("REC PAUSED {secs:.1} s"),
            RunState::Recording => format!("REC {secs:.1} s{slow}"),
            RunState::Relay if paused => {
                "PAUSED · the relay runs on · going back through your last minute".to_owned()
            }
            RunState::Local if paused => format!("PAUSED {secs:.1} s · Step › runs one frame"),
            RunState::Local if speed != 1.0 => format!("SLOW MOTION {speed}× · {secs:.1} s"),
            RunState::Relay | RunState::Local => return None,
        })
    }
}

/// Pause, step and speed, as the run bar sets them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeControl {
    /// The run (or, on the relay, the view) is frozen.
    pub paused: bool,
    /// Speed asked for, `0.25..=4.0` ([`TimeControl::speed_for`] caps it).
    pub speed: f64,
    /// Step › presses not yet run.
    pub steps: u32,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            paused: false,
            speed: 1.0,
            steps: 0,
        }
    }
}

/// Length of one stepped frame of a live run, s (a 60 Hz frame).
pub const STEP_DT: f64 = 1.0 / 60.0;
/// Fastest a live run goes: faster than real time would make each page
/// frame longer than the client simulates in one go.
pub const LIVE_MAX_SPEED: f64 = 1.0;

impl TimeControl {
    /// The speed in force for a run in `state`: a live in-page run at most
    /// [`LIVE_MAX_SPEED`], the relay always 1.
    pub fn speed_for(&self, state: RunState) -> f64 {
        match state {
            RunState::Relay => 1.0,
            RunState::Local | RunState::Recording => self.speed.min(LIVE_MAX_SPEED),
            _ => self.speed,
        }
    }

    /// The time a live in-page run advances by this page frame of `dt`
    /// seconds: scaled by the speed, nothing while paused, [`STEP_DT`] for
    /// a pending Step.
    pub fn live_dt(&mut self, dt: f64, state: RunState) -> Option<f64> {
        if !self.paused {
            return Some(dt * self.speed_for(state));
        }
        self.take_step().then_some(STEP_DT)
    }

    /// Takes one pending Step (only while paused).
    pub fn take_step(&mut self) -> bool {
        if self.paused && self.steps > 0 {
            self.steps -= 1;
            true
        } else {
            self.steps = 0;
            false
        }
    }
}

/// Most recorded frames played in one page frame (4× speed of a 240 Hz
/// recording on a 60 Hz screen needs 16).
pub const MAX_FRAMES_PER_PAGE_FRAME: usize = 64;

/// Page time owed to a recording, so that it plays at its own pace (×
/// speed) whatever the page's frame rate.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pacer {
    budget_us: f64,
}

impl Pacer {
    /// How many of the `upcoming` recorded frames (their lengths, µs) a
    /// page frame of `dt` seconds at `speed` covers, at most
    /// [`MAX_FRAMES_PER_PAGE_FRAME`]. What is left is owed to the next
    /// page frame, except when the cap was hit: a page too slow for the
    /// recording drops the excess rather than owing it for ever.
    pub fn frames_due(
        &mut self,
        dt: f64,
        speed: f64,
        upcoming: impl IntoIterator<Item = u32>,
    ) -> usize {
        if dt.is_finite() && dt > 0.0 {
            self.budget_us += dt * 1e6 * speed;
        }
        let mut due = 0;
        for frame_us in upcoming {
            if due == MAX_FRAMES_PER_PAGE_FRAME {
                self.budget_us = 0.0;
                break;
            }
            if f64::from(frame_us) > self.budget_us {
                break;
            }
            self.budget_us -= f64::from(frame_us);
            due += 1;
        }
        due
    }
}

/// A scenario being played back at its own pace.
pub struct Playback {
    /// The scenario as opened or recorded.
    pub original: Scenario,
    pacer: Pacer,
}

impl Playback {
    /// Playback of `original` from its first frame.
    pub fn new(original: Scenario) -> Playback {
        Playback {
            original,
            pacer: Pacer::default(),
        }
    }

    /// Plays the recorded frames this page frame of `dt` s covers at the
    /// speed in force, or one per pending Step while paused.
    pub fn advance(&mut self, run: &mut ScenarioRun, dt: f64, time: &mut TimeControl) {
        if time.paused {
            while time.take_step() {
                run.step_recorded();
            }
            return;
        }
        let speed = time.speed_for(RunState::Playing);
        let upcoming = run.scenario().frames[run.frame_index()..]
            .iter()
            .map(|f| f.dt_us);
        let due = self.pacer.frames_due(dt, speed, upcoming);
        for _ in 0..due {
            run.step_recorded();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_buttons_come_from_the_state_and_the_pause() {
        assert_eq!(RunState::Playing.label(false), "playing");
        assert_eq!(RunState::Playing.label(true), "paused");
        assert_eq!(RunState::Local.label(true), "paused");
        assert_eq!(
            RunState::Finished.label(true),
            "finished",
            "an ended run is not paused"
        );
        assert_eq!(RunState::Recorded.button(false), PlayButton::Replay);
        assert_eq!(RunState::Playing.button(true), PlayButton::Resume);
        assert_eq!(RunState::Relay.button(false), PlayButton::Pause);
        assert_eq!(RunState::Relay.banner(false, 3.0, 0.0, 1.0), None);
        assert_eq!(
            RunState::Playing.banner(false, 2.3, 5.5, 4.0).as_deref(),
            Some("REPLAY 2.3 / 5.5 s · 4× · keys take over")
        );
    }

    #[test]
    fn a_60_hz_recording_plays_two_frames_per_30_hz_page_frame_at_1x() {
        let mut p = Pacer::default();
        let frames = [16_667u32; 10];
        assert_eq!(
            p.frames_due(1.0 / 30.0, 1.0, frames),
            1,
            "33 333 µs owed, 2 × 16 667 = 33 334"
        );
        assert_eq!(p.frames_due(1.0 / 30.0, 1.0, frames), 2);
        assert_eq!(p.frames_due(1.0 / 30.0, 1.0, frames), 2);
    }

    #[test]
    fn at_a_quarter_speed_one_recorded_frame_takes_two_page_frames() {
        let mut p = Pacer::default();
        let frames = [16_000u32; 10];
        let played: Vec<usize> = (0..4)
            .map(|_| p.frames_due(1.0 / 30.0, 0.25, frames))
            .collect();
        assert_eq!(played, vec![0, 1, 0, 1]);
    }

    #[test]
    fn a_slow_page_drops_what_it_cannot_play_instead_of_owing_it() {
        let mut p = Pacer::default();
        let frames = vec![1000u32; 200];
        assert_eq!(
            p.frames_due(0.25, 4.0, frames.iter().copied()),
            MAX_FRAMES_PER_PAGE_FRAME
        );
        assert_eq!(
            p.frames_due(0.001, 1.0, frames.iter().copied()),
            1,
            "no debt carried over"
        );
        assert_eq!(p.frames_due(f64::NAN, 1.0, frames.iter().copied()), 0);
    }

    #[test]
    fn pause_stops_a_live_run_and_step_runs_exactly_one_frame() {
        let mut t = TimeControl::default();
        assert_eq!(t.live_dt(0.02, RunState::Local), Some(0.02));
        t.speed = 0.25;
        assert_eq!(t.live_dt(0.02, RunState::Local), Some(0.005));
        t.speed = 4.0;
        assert_eq!(
            t.live_dt(0.02, RunState::Local),
            Some(0.02),
            "live runs at most at 1×"
        );
        assert_eq!(t.speed_for(RunState::Playing), 4.0);
        assert_eq!(t.speed_for(RunState::Relay), 1.0);
        t.paused = true;
        assert_eq!(t.live_dt(0.02, RunState::Local), None);
        t.steps = 2;
        assert_eq!(t.live_dt(0.02, RunState::Local), Some(STEP_DT));
        assert_eq!(t.live_dt(0.02, RunState::Local), Some(STEP_DT));
        assert_eq!(t.live_dt(0.02, RunState::Local), None);
        t.paused = false;
        t.steps = 3;
        assert!(!t.take_step(), "Step does nothing while running");
        assert_eq!(t.steps, 0);
    }
}
