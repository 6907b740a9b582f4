//! What the packet timeline shows — and with it the panels — for the
//! run's state ([`LaneMode`]):
//!
//! | the run is | the timeline shows | the panels show |
//! |---|---|---|
//! | on the relay, or in a room | the last 10 s of the relay's trace | the live run |
//! | in the page, live | the last 10 s of its packets | the live run |
//! | a scenario playing | the whole scenario, the playhead moving | the playing run |
//! | paused, or at its end | the whole run so far (on the relay: its last minute), zoomable, with a playhead | the run at the playhead (on the relay: the page's end played again from its tape) |
//!
//! Pure: tested natively.

use crate::runbar::playback::RunState;

/// What the timeline shows (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneMode {
    /// On the relay, live: the last 10 s of its trace.
    Relay,
    /// An in-page run going on live: its last 10 s.
    Live,
    /// A scenario playing: the whole of it, the playhead moving.
    Playback,
    /// Paused or at an end: the whole run so far, with a playhead.
    Inspect,
}

impl LaneMode {
    /// The mode for a run in `state`, `paused` or not.
    pub fn of(state: RunState, paused: bool) -> LaneMode {
        match state {
            RunState::Relay if !paused => LaneMode::Relay,
            RunState::Local | RunState::Recording if !paused => LaneMode::Live,
            RunState::Playing if !paused => LaneMode::Playback,
            _ => LaneMode::Inspect,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_inspected_when_paused_or_over_on_the_relay_too() {
        use RunState::*;
        let modes: Vec<_> = [Relay, Local, Recording, Playing, Finished, Recorded]
            .into_iter()
            .map(|s| (LaneMode::of(s, false), LaneMode::of(s, true)))
            .collect();
        assert_eq!(
            modes,
            vec![
                (LaneMode::Relay, LaneMode::Inspect),
                (LaneMode::Live, LaneMode::Inspect),
                (LaneMode::Live, LaneMode::Inspect),
                (LaneMode::Playback, LaneMode::Inspect),
                (LaneMode::Inspect, LaneMode::Inspect),
                (LaneMode::Inspect, LaneMode::Inspect),
            ]
        );
    }
}
