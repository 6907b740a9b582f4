//! The client's measurement of its link ([`LinkMeter`]): Pings sent and
//! their Pongs turned into RTT figures and loss each way
//! ([`super::link_stats`]), restarted when the settings change so that the
//! figures describe the link in force, not a mix of the old and the new;
//! and the bytes per second each way ([`RateMeter`]).
//!
//! A restart starts counting at the next Ping: the settings travel to the
//! host out of band and take effect before that Ping enters the uplink
//! conditioner, so every Ping from then on, and its Pong, crossed the new
//! link. Pongs of earlier Pings still arriving are ignored.

use super::link_stats::{observed_loss, LossCount, RttStats, SeqWindow};
use crate::foundation::time::SimTime;
use std::collections::VecDeque;

/// Pings remembered for their send time: more than a second's worth of
/// Pings in flight are not timed.
const PINGS_IN_FLIGHT: usize = 64;

/// What the meter says now. RTT figures are over the Pongs since the last
/// restart (percentiles over the last [`super::link_stats::RTT_SAMPLES`]
/// of them); loss over the last [`super::link_stats::WINDOW`] Pings since
/// the restart (`window_*`) and over every Ping since it (`since_*`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkReport {
    /// Smoothed RTT (RFC 6298), ms.
    pub rtt_smoothed_ms: Option<f64>,
    /// The newest RTT sample, ms.
    pub rtt_last_ms: Option<f64>,
    /// Median RTT, ms.
    pub rtt_p50_ms: Option<f64>,
    /// 99th-percentile RTT, ms.
    pub rtt_p99_ms: Option<f64>,
    /// RTT jitter (RFC 3550 mean deviation), ms.
    pub jitter_ms: Option<f64>,
    /// RTT samples behind the percentiles.
    pub rtt_samples: usize,
    /// Uplink loss over the last window of Pings.
    pub window_up: Option<LossCount>,
    /// Downlink loss over the Pongs for those Pings.
    pub window_down: Option<LossCount>,
    /// Uplink loss over every Ping since the restart.
    pub since_up: LossCount,
    /// Downlink loss over every Pong sent since the restart.
    pub since_down: LossCount,
}

/// Pings, Pongs and what they say about the link. See the module docs.
#[derive(Debug, Clone, Default)]
pub struct LinkMeter {
    /// The newest Ping id handed out (0: none yet).
    last_id: u32,
    /// Send times of the Pings in flight.
    in_flight: VecDeque<(u32, SimTime)>,
    /// The first Ping id measured (ids start at 1).
    first: u32,
    rtt: RttStats,
    pongs: SeqWindow,
    server: SeqWindow,
    /// Ids up to this one are in `since_*`.
    counted_upto: u32,
    since_up: LossCount,
    since_down: LossCount,
}

impl LinkMeter {
    /// The id of a Ping sent at `now` (remembered for its RTT).
    pub fn next_ping(&mut self, now: SimTime) -> u32 {
        self.last_id = self.last_id.wrapping_add(1);
        if self.in_flight.len() >= PINGS_IN_FLIGHT {
            self.in_flight.pop_front();
        }
        self.in_flight.push_back((self.last_id, now));
        if self.first == 0 {
            self.first = self.last_id;
        }
        self.last_id
    }

    /// The Pong for Ping `id` arrived at `now`, carrying the server's
    /// window of received Pings.
    pub fn on_pong(&mut self, now: SimTime, id: u32, received: SeqWindow) {
        self.pongs.record(id);
        if received.latest.wrapping_sub(self.server.latest) as i32 >= 0 {
            self.server = received;
        }
        if let Some(i) = self.in_flight.iter().position(|(p, _)| *p == id) {
            let sent = self.in_flight[i].1;
            self.in_flight.drain(..=i);
            if self.measures(id) {
                self.rtt.record(now.secs_since(sent) * 1000.0);
            }
        }
        // Count each Ping's verdict once, when the window first covers it.
        let end = self.server.latest;
        if end.wrapping_sub(self.counted_upto) as i32 > 0 {
            let from = if self.measures(self.counted_upto.wrapping_add(1)) {
                self.counted_upto.wrapping_add(1)
            } else {
                self.first
            };
            let (up, down) = observed_loss(self.server, self.pongs, from);
            self.since_up = self.since_up.plus(up.unwrap_or_default());
            self.since_down = self.since_down.plus(down.unwrap_or_default());
            self.counted_upto = end;
        }
    }

    /// Starts measuring afresh from the next Ping.
    pub fn restart(&mut self) {
        *self = LinkMeter {
            last_id: self.last_id,
            in_flight: std::mem::take(&mut self.in_flight),
            first: self.last_id.wrapping_add(1),
            counted_upto: self.last_id,
            pongs: self.pongs,
            server: self.server,
            ..LinkMeter::default()
        };
    }

    /// `true` for Pings sent since the last restart.
    fn measures(&self, id: u32) -> bool {
        self.first != 0 && id.wrapping_sub(self.first) as i32 >= 0
    }

    /// The figures now.
    pub fn report(&self) -> LinkReport {
        let (window_up, window_down) = if self.first == 0 {
            (None, None)
        } else {
            observed_loss(self.server, self.pongs, self.first)
        };
        LinkReport {
            rtt_smoothed_ms: self.rtt.smoothed(),
            rtt_last_ms: self.rtt.last(),
            rtt_p50_ms: self.rtt.quantile(0.5),
            rtt_p99_ms: self.rtt.quantile(0.99),
            jitter_ms: self.rtt.jitter(),
            rtt_samples: self.rtt.samples(),
            window_up,
            window_down,
            since_up: self.since_up,
            since_down: self.since_down,
        }
    }
}

/// Bytes per second over the last second, from timestamped samples.
#[derive(Debug, Clone, Default)]
pub struct RateMeter {
    samples: VecDeque<(SimTime, u64)>,
    in_window: u64,
    total: u64,
}

/// Window of a [`RateMeter`], µs.
const WINDOW_US: u64 = 1_000_000;

impl RateMeter {
    /// Records `bytes` at `now`.
    pub fn record(&mut self, now: SimTime, bytes: usize) {
        self.expire(now);
        self.samples.push_back((now, bytes as u64));
        self.in_window += bytes as u64;
        self.total += bytes as u64;
    }

    /// Bytes per second over the second ending at `now`.
    pub fn per_second(&mut self, now: SimTime) -> u64 {
        self.expire(now);
        self.in_window
    }

    /// Bytes recorded since creation.
    pub fn total(&self) -> u64 {
        self.total
    }

    fn expire(&mut self, now: SimTime) {
        while let Some(&(t, b)) = self.samples.front() {
            if now.micros_since(t) < WINDOW_US {
                break;
            }
            self.in_window -= b;
            self.samples.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends Pings 10 Hz for `secs` with `rtt_ms` and loses every
    /// `up_every`-th on the way up and every `down_every`-th Pong.
    fn run(m: &mut LinkMeter, server: &mut SeqWindow, t0: u64, secs: u64, rtt_ms: u64) {
        for k in 0..secs * 10 {
            let sent = SimTime::from_millis(t0 + k * 100);
            let id = m.next_ping(sent);
            if id % 10 == 0 {
                continue; // lost on the way up
            }
            server.record(id);
            if id % 5 == 3 {
                continue; // Pong lost
            }
            m.on_pong(sent.plus_millis(rtt_ms), id, *server);
        }
    }

    #[test]
    fn a_restart_drops_the_old_links_figures_and_counts_from_the_next_ping() {
        let (mut m, mut server) = (LinkMeter::default(), SeqWindow::default());
        run(&mut m, &mut server, 0, 10, 300);
        let before = m.report();
        assert_eq!(before.rtt_p50_ms, Some(300.0));
        // Ids 1..=99 reported (100 was lost and nothing came after it): 9
        // lost up; of the 90 answered, 20 (3, 8, 13, …) lost their Pong.
        assert_eq!(before.since_up, LossCount { lost: 9, sent: 99 });
        assert_eq!(before.since_down, LossCount { lost: 20, sent: 90 });
        assert_eq!(before.rtt_samples, 70);
        m.restart();
        let fresh = m.report();
        assert_eq!((fresh.rtt_p50_ms, fresh.rtt_samples), (None, 0));
        assert_eq!(fresh.since_up, LossCount::default());
        assert_eq!(fresh.window_up, None, "nothing sent since the restart");
        run(&mut m, &mut server, 10_000, 2, 40);
        let after = m.report();
        assert_eq!(after.rtt_p50_ms, Some(40.0), "only the new link's RTT");
        // Ids 101..=119 reported: 110 lost up; 103, 108, 113, 118 down.
        assert_eq!(after.since_up, LossCount { lost: 1, sent: 19 });
        assert_eq!(after.window_up, Some(LossCount { lost: 1, sent: 19 }));
        assert_eq!(after.since_down, LossCount { lost: 4, sent: 18 });
        assert_eq!(after.rtt_samples, 14);
    }

    #[test]
    fn loss_since_the_restart_outgrows_the_window() {
        let (mut m, mut server) = (LinkMeter::default(), SeqWindow::default());
        run(&mut m, &mut server, 0, 30, 100);
        let r = m.report();
        assert_eq!(
            r.since_up,
            LossCount {
                lost: 29,
                sent: 299
            }
        );
        assert_eq!(r.window_up.map(|c| c.sent), Some(64));
    }

    #[test]
    fn a_late_pong_of_a_ping_before_the_restart_is_not_an_rtt_sample() {
        let mut m = LinkMeter::default();
        let mut server = SeqWindow::default();
        let old = m.next_ping(SimTime::ZERO);
        m.restart();
        server.record(old);
        m.on_pong(SimTime::from_millis(900), old, server);
        assert_eq!(m.report().rtt_samples, 0);
        assert_eq!(m.report().since_up, LossCount::default());
    }

    #[test]
    fn rate_meter_counts_the_last_second_only() {
        let mut m = RateMeter::default();
        for i in 0..120u64 {
            m.record(SimTime::from_millis(i * 1000 / 60), 20);
        }
        // 60 packets of 20 bytes in the last second.
        assert_eq!(m.per_second(SimTime::from_millis(1990)), 1200);
        assert_eq!(m.per_second(SimTime::from_millis(4000)), 0);
        assert_eq!(m.total(), 2400);
    }
}
