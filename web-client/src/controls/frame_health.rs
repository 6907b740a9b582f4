//! The page's own frame rate as the server feels it (issue #28 item 2):
//! the frame interval, its worst over the last [`WINDOW_US`], and a
//! warning when a frame crosses one of UE's limits — a frame over
//! `MaxMoveDeltaTime` (0.125 s, `000_…` §9.3; [`HITCH_US`]) is a client
//! hitch, one over the server's 0.25 s without a move
//! (`MAXCLIENTUPDATEINTERVAL`, §9.5) a forced position update. The
//! corrections that follow are this machine's, not the network's, and
//! their stories say so. Pure: tested natively.

use sim::inspect::HITCH_US;
use sim::{ServerConfig, SimTime};
use std::collections::VecDeque;

/// How far back the worst frame is looked for, µs: 10 s.
pub const WINDOW_US: u64 = 10_000_000;
/// The window of the frame interval shown, µs: the mean over 1 s.
const MEAN_US: u64 = 1_000_000;

/// Frame ends over the last [`WINDOW_US`] and their intervals.
#[derive(Debug, Clone, Default)]
pub struct FrameHealth {
    last: Option<SimTime>,
    /// (frame end, its interval µs), oldest first.
    recent: VecDeque<(SimTime, u64)>,
}

impl FrameHealth {
    /// A frame ended at page time `t`.
    pub fn record(&mut self, t: SimTime) {
        if let Some(last) = self.last.replace(t) {
            self.recent.push_back((t, t.micros_since(last)));
        }
        while self
            .recent
            .front()
            .is_some_and(|&(end, _)| t.micros_since(end) > WINDOW_US)
        {
            self.recent.pop_front();
        }
    }

    /// The mean frame interval over the last second, ms.
    pub fn interval_ms(&self) -> Option<f64> {
        let now = self.recent.back()?.0;
        let (n, sum) = self
            .recent
            .iter()
            .rev()
            .take_while(|&&(end, _)| now.micros_since(end) < MEAN_US)
            .fold((0u64, 0u64), |(n, s), &(_, us)| (n + 1, s + us));
        (n > 0).then(|| sum as f64 / n as f64 / 1000.0)
    }

    /// The longest frame of the last [`WINDOW_US`], ms.
    pub fn worst_ms(&self) -> Option<f64> {
        self.recent
            .iter()
            .map(|&(_, us)| us)
            .max()
            .map(|us| us as f64 / 1000.0)
    }

    /// The warning for the worst frame of the window, if it crossed a
    /// limit.
    pub fn warning(&self) -> Option<String> {
        let worst = self.worst_ms()?;
        let silent_ms = f64::from(ServerConfig::default().max_client_update_interval) * 1000.0;
        if worst > silent_ms {
            Some(format!(
                "A {worst:.0} ms frame in the last 10 s: the page sent nothing for over \
                 {silent_ms:.0} ms, so the server moved your character on by itself (a forced \
                 position update). Its corrections are this machine's, not the network's."
            ))
        } else if worst * 1000.0 > HITCH_US as f64 {
            Some(format!(
                "A {worst:.0} ms frame in the last 10 s, over UE's {:.0} ms MaxMoveDeltaTime: \
                 corrections around it are this machine's (their stories say client hitch).",
                HITCH_US as f64 / 1000.0
            ))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(h: &mut FrameHealth, from_ms: u64, every_ms: u64, n: u64) -> u64 {
        let mut t = from_ms;
        for _ in 0..n {
            t += every_ms;
            h.record(SimTime(t * 1000));
        }
        t
    }

    #[test]
    fn the_worst_frame_of_ten_seconds_and_the_limits_it_crossed() {
        let mut h = FrameHealth::default();
        assert_eq!(h.interval_ms(), None);
        let t = frames(&mut h, 0, 16, 120);
        assert_eq!(h.interval_ms(), Some(16.0));
        assert_eq!(h.worst_ms(), Some(16.0));
        assert_eq!(h.warning(), None);
        // One frame of 130 ms: over MaxMoveDeltaTime.
        let t = frames(&mut h, t, 130, 1);
        assert_eq!(h.worst_ms(), Some(130.0));
        assert!(h
            .warning()
            .unwrap()
            .contains("over UE's 125 ms MaxMoveDeltaTime"));
        // One of 300 ms: a forced position update.
        let t = frames(&mut h, t, 300, 1);
        assert!(h
            .warning()
            .unwrap()
            .starts_with("A 300 ms frame in the last 10 s"));
        assert!(h.warning().unwrap().contains("over 250 ms"));
        // Ten seconds of 16 ms frames later it has left the window.
        frames(&mut h, t, 16, 626);
        assert_eq!(h.worst_ms(), Some(16.0));
        assert_eq!(h.warning(), None);
    }
}
