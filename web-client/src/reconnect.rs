//! When to try the relay again after its connection dropped, and when to
//! give up (reference `003_…` §六 断线重连): pure decisions, so they are
//! unit-tested natively; the driver opens the sockets.
//!
//! The relay keeps a dropped session for its grace period (10 s, sent with
//! the session token). Within it the page retries at once, then after
//! 0.5 s, 1 s and every 2 s ([`FIRST_DELAY_MS`] doubled per attempt, at
//! most [`MAX_DELAY_MS`]); after it, or when the relay never offered a
//! grace period, the page falls back to local mode.

use sim::SimTime;
use std::time::Duration;

/// Base reconnect delay, ms: the wait after attempt `n` is this × 2ⁿ, at
/// most [`MAX_DELAY_MS`].
pub const FIRST_DELAY_MS: u64 = 250;
/// Longest delay between two attempts, ms.
pub const MAX_DELAY_MS: u64 = 2000;

/// What to do this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Wait for the next attempt.
    Wait,
    /// Open a new socket and resume the session: attempt number (from 1).
    Attempt(u32),
    /// The grace period is over: run locally.
    GiveUp,
}

/// Reconnecting after the connection dropped at `since`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    since: SimTime,
    attempt: u32,
    next_try: SimTime,
}

impl Backoff {
    /// The connection dropped at `now`: the first attempt is due at once.
    pub fn start(now: SimTime) -> Backoff {
        Backoff {
            since: now,
            attempt: 0,
            next_try: now,
        }
    }

    /// The decision at `now`, with the relay's `grace` period.
    pub fn poll(&mut self, now: SimTime, grace: Duration) -> Step {
        let grace_us = u64::try_from(grace.as_micros()).unwrap_or(u64::MAX);
        if now.micros_since(self.since) > grace_us {
            return Step::GiveUp;
        }
        if now < self.next_try {
            return Step::Wait;
        }
        self.attempt += 1;
        let delay = (FIRST_DELAY_MS << self.attempt.min(8)).min(MAX_DELAY_MS);
        self.next_try = now.plus_millis(delay);
        Step::Attempt(self.attempt)
    }
}

/// The decision at `now` for a socket found closed: attempts with a
/// backoff started on the first call while the relay's `grace` lasts
/// (`None`: it never offered one, or the socket never opened), else
/// give up.
pub fn on_closed(backoff: &mut Option<Backoff>, grace: Option<Duration>, now: SimTime) -> Step {
    match grace {
        Some(grace) => backoff.get_or_insert(Backoff::start(now)).poll(now, grace),
        None => Step::GiveUp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_back_off_from_500_ms_to_2_s_and_stop_after_the_grace_period() {
        let grace = Duration::from_secs(10);
        let mut b = Backoff::start(SimTime::ZERO);
        let mut attempts = Vec::new();
        let mut gave_up_at = None;
        for ms in (0..=12_000).step_by(50) {
            match b.poll(SimTime::from_millis(ms), grace) {
                Step::Attempt(n) => attempts.push((n, ms)),
                Step::Wait => {}
                Step::GiveUp => {
                    gave_up_at = Some(ms);
                    break;
                }
            }
        }
        let times: Vec<u64> = attempts.iter().map(|(_, ms)| *ms).collect();
        assert_eq!(
            times,
            vec![0, 500, 1500, 3500, 5500, 7500, 9500],
            "the first at once, then 500 ms, 1 s, then every 2 s"
        );
        assert_eq!(attempts.last().map(|(n, _)| *n), Some(7));
        assert_eq!(gave_up_at, Some(10_050), "just past the 10 s grace period");
    }

    #[test]
    fn no_grace_period_means_giving_up_at_once() {
        let mut b = Backoff::start(SimTime::from_millis(100));
        assert_eq!(
            b.poll(SimTime::from_millis(101), Duration::ZERO),
            Step::GiveUp
        );
    }

    #[test]
    fn a_closed_socket_without_a_grace_period_gives_up_and_with_one_starts_attempts() {
        let mut backoff = None;
        let t = SimTime::from_millis(2000);
        assert_eq!(on_closed(&mut backoff, None, t), Step::GiveUp);
        assert_eq!(backoff, None, "no backoff started");
        let grace = Some(Duration::from_secs(10));
        assert_eq!(on_closed(&mut backoff, grace, t), Step::Attempt(1));
        assert_eq!(
            on_closed(&mut backoff, grace, t.plus_millis(100)),
            Step::Wait
        );
        assert_eq!(
            on_closed(&mut backoff, grace, t.plus_millis(10_001)),
            Step::GiveUp,
            "10 s after the first call"
        );
    }
}
