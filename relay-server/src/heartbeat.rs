//! The WebSocket heartbeat (issue #27): every
//! [`crate::Limits::heartbeat_interval`] the relay sends a Ping; the peer
//! — a browser without any page code, tungstenite, another relay —
//! answers with a Pong, so a frame goes each way however quiet the
//! player. A proxy or NAT with an idle timeout (HAProxy's fallback is
//! 30 s, nginx's `proxy_read_timeout` 60 s) then never sees the socket
//! idle, and a peer that has vanished without a TCP goodbye (a pulled
//! cable, a laptop lid) is found: when nothing at all has arrived within
//! [`crate::Limits::heartbeat_timeout`] of a Ping, the socket is closed,
//! and a session or seat is kept for the resume grace as for any dropped
//! socket.
//!
//! Sans-IO like the rest of the session: [`Heartbeat::poll`] takes `now`
//! and says what to do; the socket task sends.
//!
//! ```text
//! t=0 ─ interval ─► Ping ─ anything heard? ─ yes: wait for the next Ping
//!                             └ no, by Ping + timeout: Dead
//! ```

use sim::SimTime;
use std::time::Duration;

/// What the heartbeat wants done now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Beat {
    /// Send a Ping.
    Ping,
    /// Nothing arrived within the timeout of the last Ping: close.
    Dead,
}

/// One socket's heartbeat.
#[derive(Debug, Clone)]
pub(crate) struct Heartbeat {
    interval: u64,
    timeout: u64,
    /// When the next Ping goes out.
    next_ping: SimTime,
    /// When the unanswered Ping went out, if one did.
    unanswered: Option<SimTime>,
}

impl Heartbeat {
    /// A Ping every `interval`, an answer (any frame) due within `timeout`
    /// of it; the first Ping one interval after `now`.
    pub(crate) fn new(interval: Duration, timeout: Duration, now: SimTime) -> Heartbeat {
        let micros = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1);
        let interval = micros(interval);
        Heartbeat {
            interval,
            timeout: micros(timeout),
            next_ping: now.plus_micros(interval),
            unanswered: None,
        }
    }

    /// Something (a Pong, or any other frame) arrived.
    pub(crate) fn heard(&mut self) {
        self.unanswered = None;
    }

    /// When [`Heartbeat::poll`] next has something to say.
    pub(crate) fn next_due(&self) -> SimTime {
        match self.unanswered {
            Some(sent) => self.next_ping.min(sent.plus_micros(self.timeout)),
            None => self.next_ping,
        }
    }

    /// What to do at `now`, if anything.
    pub(crate) fn poll(&mut self, now: SimTime) -> Option<Beat> {
        if let Some(sent) = self.unanswered {
            if now >= sent.plus_micros(self.timeout) {
                return Some(Beat::Dead);
            }
        }
        if now < self.next_ping {
            return None;
        }
        self.next_ping = now.plus_micros(self.interval);
        // The oldest unanswered Ping sets the deadline.
        self.unanswered.get_or_insert(now);
        Some(Beat::Ping)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every beat from `from` to `to` ms in 100 ms steps, with the times
    /// (ms) at which the peer is heard.
    fn run(hb: &mut Heartbeat, to: u64, heard_at: &[u64]) -> Vec<(u64, Beat)> {
        let mut beats = Vec::new();
        for ms in (0..=to).step_by(100) {
            if heard_at.contains(&ms) {
                hb.heard();
            }
            if let Some(b) = hb.poll(SimTime::from_millis(ms)) {
                beats.push((ms, b));
                if b == Beat::Dead {
                    break;
                }
            }
        }
        beats
    }

    #[test]
    fn a_peer_that_answers_gets_a_ping_every_interval_and_is_never_dead() {
        let mut hb = Heartbeat::new(
            Duration::from_secs(20),
            Duration::from_secs(20),
            SimTime::ZERO,
        );
        assert_eq!(hb.next_due(), SimTime::from_millis(20_000));
        // It answers each Ping 50 ms… well, at the next 100 ms step.
        let heard: Vec<u64> = (1..10).map(|k| k * 20_000 + 100).collect();
        let beats = run(&mut hb, 190_000, &heard);
        let pings: Vec<u64> = beats.iter().map(|&(ms, _)| ms).collect();
        assert_eq!(pings, (1..10).map(|k| k * 20_000).collect::<Vec<_>>());
        assert!(beats.iter().all(|&(_, b)| b == Beat::Ping));
    }

    #[test]
    fn a_peer_that_stops_answering_is_dead_one_timeout_after_the_first_unanswered_ping() {
        let mut hb = Heartbeat::new(
            Duration::from_secs(20),
            Duration::from_secs(15),
            SimTime::ZERO,
        );
        // Answers the first Ping, then nothing.
        let beats = run(&mut hb, 100_000, &[20_100]);
        assert_eq!(
            beats,
            vec![
                (20_000, Beat::Ping),
                (40_000, Beat::Ping),
                (55_000, Beat::Dead)
            ]
        );
        // A timeout longer than the interval: Pings go on until it is over.
        let mut hb = Heartbeat::new(
            Duration::from_secs(1),
            Duration::from_millis(2500),
            SimTime::ZERO,
        );
        let beats = run(&mut hb, 10_000, &[]);
        assert_eq!(
            beats,
            vec![
                (1000, Beat::Ping),
                (2000, Beat::Ping),
                (3000, Beat::Ping),
                (3500, Beat::Dead)
            ]
        );
    }
}
