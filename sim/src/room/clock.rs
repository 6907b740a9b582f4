//! Clock sync: the client's estimate of the room's server time (reference
//! `003_…` "对表": `ServerRequestServerTime` / `ClientReportServerTime`).
//!
//! The client sends its own time; the server answers with it and the time
//! the request arrived. The server's clock at the answer's arrival is then
//! `server_time + RTT / 2` — exact when both directions take as long, off
//! by `(uplink − downlink) / 2` otherwise, and never by more than `RTT / 2`
//! (the answer left between 0 and RTT after the request did). The
//! reference syncs once and then every `TimeSyncFrequency`; here every
//! request is a sample, and the estimate uses the sample with the
//! **lowest RTT** among the last [`CLOCK_WINDOW`]: the one least stretched
//! by jitter or queueing, so the tightest bound (NTP's clock filter keeps
//! the minimum-delay sample for the same reason).
//!
//! What a shot needs is `estimate − RTT / 2` (`003_…`: `GetServerTime() −
//! SingleTripTime`): the server time at which the world the client now
//! shows left the server. There the asymmetry cancels — `estimate` is
//! `(up − down) / 2` ahead and `RTT / 2` is `(up − down) / 2` more than the
//! downlink — so [`ClockSync::shown_time`] is exact whatever the split.
//!
//! A better sample moves the estimate, but not at once: it **slews** at
//! [`SLEW_PERCENT`] of elapsed time, as NTP slews rather than steps small
//! corrections. A stepped clock would bunch two shots fired 100 ms apart
//! into 80 ms of claimed time under 20 ms of jitter, and fire-rate
//! validation would refuse an honest player; it would also make
//! interpolated proxies jump. A correction over [`STEP_THRESHOLD_US`] (a
//! changed link) is stepped.

use crate::foundation::time::SimTime;
use std::collections::VecDeque;

/// Samples kept; the best of them makes the estimate. At one request per
/// [`TIME_SYNC_INTERVAL_MS`] they span 3.2 s, so a sample from before a
/// change of the link ages out within that.
pub const CLOCK_WINDOW: usize = 32;

/// Interval between two time requests, ms: the same 10 Hz as the RTT
/// probes of a single-player page ([`crate::endpoints::link::PING_INTERVAL_MS`]);
/// the reference's `TimeSyncFrequency` is a few seconds, but a page whose
/// link sliders move wants the estimate to follow within one window.
pub const TIME_SYNC_INTERVAL_MS: u64 = 100;

/// How fast the estimate follows a better sample: this many µs per 100 µs
/// of elapsed time (5 %: a 20 ms correction takes 0.4 s, and two claims
/// 100 ms apart never come closer than 95 ms).
pub const SLEW_PERCENT: u64 = 5;

/// A correction larger than this is stepped, not slewed, µs: NTP's 128 ms
/// step threshold.
pub const STEP_THRESHOLD_US: u64 = 128_000;

/// One request/answer pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSample {
    /// Round-trip time of the pair, µs.
    pub rtt_us: u64,
    /// Server time minus client time at the answer's arrival, assuming the
    /// answer took `rtt_us / 2`, µs.
    pub offset_us: i64,
}

/// A clock offset (µs) moving from `from` toward `to` at [`SLEW_PERCENT`]
/// from client time `since`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slewed {
    since: SimTime,
    from: i64,
    to: i64,
}

impl Slewed {
    fn at(value: i64, now: SimTime) -> Slewed {
        Slewed {
            since: now,
            from: value,
            to: value,
        }
    }

    fn value(&self, now: SimTime) -> i64 {
        let reach = (now.micros_since(self.since) * SLEW_PERCENT / 100) as i64;
        let gap = self.to - self.from;
        if gap.abs() <= reach {
            self.to
        } else {
            self.from + gap.signum() * reach
        }
    }

    fn retarget(self, to: i64, now: SimTime) -> Slewed {
        let from = self.value(now);
        if from.abs_diff(to) > STEP_THRESHOLD_US {
            Slewed::at(to, now)
        } else {
            Slewed {
                since: now,
                from,
                to,
            }
        }
    }
}

/// The client's running estimate of the server's clock.
#[derive(Debug, Clone, Default)]
pub struct ClockSync {
    samples: VecDeque<ClockSample>,
    /// Server time minus client time.
    offset: Option<Slewed>,
    /// Shown server time minus client time: `offset − one way`.
    shown: Option<Slewed>,
}

impl ClockSync {
    /// Records an answer: the request left at client time `sent`, arrived
    /// at server time `server_time`, and the answer arrived at client time
    /// `received`. An answer that arrives before its request left (a
    /// forged or corrupt one) is ignored.
    pub fn record(&mut self, sent: SimTime, server_time: SimTime, received: SimTime) {
        if received < sent {
            return;
        }
        let rtt_us = received.micros_since(sent);
        let offset_us = signed(server_time) + (rtt_us / 2) as i64 - signed(received);
        if self.samples.len() == CLOCK_WINDOW {
            self.samples.pop_front();
        }
        self.samples.push_back(ClockSample { rtt_us, offset_us });
        let Some(best) = self.best() else { return };
        let shown = best.offset_us - (best.rtt_us / 2) as i64;
        let slew = |s: Option<Slewed>, to| {
            s.map_or(Slewed::at(to, received), |s| s.retarget(to, received))
        };
        self.offset = Some(slew(self.offset, best.offset_us));
        self.shown = Some(slew(self.shown, shown));
    }

    /// The sample the estimate uses: the lowest RTT in the window, the
    /// newest of equals (it follows clock drift best).
    pub fn best(&self) -> Option<ClockSample> {
        self.samples
            .iter()
            .copied()
            .reduce(|best, s| if s.rtt_us <= best.rtt_us { s } else { best })
    }

    /// The estimated server time at client time `now` (slewing toward
    /// the best sample), or `None` before the first answer.
    pub fn server_time(&self, now: SimTime) -> Option<SimTime> {
        self.offset.map(|o| shift(now, o.value(now)))
    }

    /// How far [`ClockSync::server_time`] can be off either way at `now`,
    /// µs: half the best sample's RTT, plus what is still to slew.
    pub fn error_bound_us(&self, now: SimTime) -> Option<u64> {
        let (best, o) = (self.best()?, self.offset?);
        Some(best.rtt_us / 2 + o.value(now).abs_diff(o.to))
    }

    /// The one-way trip the estimate assumes (`003_…` `SingleTripTime`),
    /// µs: half the best sample's RTT.
    pub fn one_way_us(&self) -> Option<u64> {
        self.best().map(|s| s.rtt_us / 2)
    }

    /// The server time at which the world the client shows at `now` left
    /// the server: [`ClockSync::server_time`] minus
    /// [`ClockSync::one_way_us`] (`003_…`: `GetServerTime() −
    /// SingleTripTime`), slewed the same way. See the module doc for why
    /// it is exact on an asymmetric link.
    pub fn shown_time(&self, now: SimTime) -> Option<SimTime> {
        self.shown.map(|o| shift(now, o.value(now)))
    }

    /// The longest RTT in the window, µs: past it, an answer that has not
    /// come is taken for lost.
    pub fn longest_rtt_us(&self) -> Option<u64> {
        self.samples.iter().map(|s| s.rtt_us).max()
    }

    /// The newest sample's RTT, µs.
    pub fn last_rtt_us(&self) -> Option<u64> {
        self.samples.back().map(|s| s.rtt_us)
    }
}

fn signed(t: SimTime) -> i64 {
    i64::try_from(t.0).unwrap_or(i64::MAX)
}

/// `t + delta`, floored at the epoch.
fn shift(t: SimTime, delta: i64) -> SimTime {
    SimTime(signed(t).saturating_add(delta).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIENT_EPOCH: u64 = 7_000_000;

    /// A request sent at server time `at` over a link of `up` / `down` ms,
    /// seen by a client whose clock reads 7 s more than the server's.
    fn exchange(c: &mut ClockSync, at: u64, up: u64, down: u64) {
        let sent = SimTime::from_millis(at + CLIENT_EPOCH / 1000);
        let server = SimTime::from_millis(at + up);
        let received = SimTime::from_millis(at + up + down + CLIENT_EPOCH / 1000);
        c.record(sent, server, received);
    }

    #[test]
    fn a_symmetric_link_gives_the_exact_server_time() {
        let mut c = ClockSync::default();
        exchange(&mut c, 1000, 100, 100);
        let client_now = SimTime::from_millis(5000 + CLIENT_EPOCH / 1000);
        assert_eq!(c.server_time(client_now), Some(SimTime::from_millis(5000)));
        assert_eq!(c.error_bound_us(client_now), Some(100_000));
    }

    #[test]
    fn an_asymmetric_link_is_off_by_half_the_difference_within_the_bound() {
        // Uplink 150 ms, downlink 50 ms: RTT 200, estimate 50 ms ahead.
        let mut c = ClockSync::default();
        exchange(&mut c, 1000, 150, 50);
        let client_now = SimTime::from_millis(5000 + CLIENT_EPOCH / 1000);
        let estimate = c.server_time(client_now).unwrap();
        assert_eq!(estimate.micros_since(SimTime::from_millis(5000)), 50_000);
        assert_eq!(c.error_bound_us(client_now), Some(100_000));
        // The shown world left the server one downlink (50 ms) ago: exact.
        assert_eq!(c.shown_time(client_now), Some(SimTime::from_millis(4950)));
    }

    #[test]
    fn the_lowest_rtt_sample_in_the_window_wins() {
        let mut c = ClockSync::default();
        let client = |ms: u64| SimTime::from_millis(ms + CLIENT_EPOCH / 1000);
        exchange(&mut c, 1000, 100, 100);
        // A sample stretched by 80 ms of queueing on the way back.
        exchange(&mut c, 1100, 100, 180);
        assert_eq!(
            c.server_time(client(2000)),
            Some(SimTime::from_millis(2000))
        );
        assert_eq!(c.last_rtt_us(), Some(280_000));
        assert_eq!(c.longest_rtt_us(), Some(280_000));
        // The good sample ages out after CLOCK_WINDOW more (the last at
        // 4300 + 280 ms): the answers spend 180 of 280 ms on the way back,
        // the estimate assumes 140 and drifts to 40 ms behind.
        for i in 0..CLOCK_WINDOW as u64 {
            exchange(&mut c, 1200 + 100 * i, 100, 180);
        }
        assert_eq!(c.one_way_us(), Some(140_000));
        let done = client(4580 + 800);
        assert_eq!(
            c.server_time(done),
            Some(SimTime::from_millis(4580 + 800 - 40))
        );
        assert_eq!(c.error_bound_us(done), Some(140_000));
    }

    #[test]
    fn a_better_sample_is_slewed_in_at_5_percent_and_a_big_one_stepped() {
        let mut c = ClockSync::default();
        let client = |ms: u64| SimTime::from_millis(ms + CLIENT_EPOCH / 1000);
        // Uplink 120, downlink 80: the estimate is 20 ms ahead.
        exchange(&mut c, 1000, 120, 80);
        // A faster, symmetric sample (answer at 1150 + 140) says so.
        exchange(&mut c, 1150, 70, 70);
        let ahead = |c: &ClockSync, ms| {
            c.server_time(client(ms))
                .unwrap()
                .micros_since(SimTime::from_millis(ms))
        };
        assert_eq!(ahead(&c, 1290), 20_000);
        // 100 ms later 5 ms of it is gone; after 400 ms all of it.
        assert_eq!(ahead(&c, 1390), 15_000);
        assert_eq!(c.error_bound_us(client(1390)), Some(70_000 + 15_000));
        assert_eq!(ahead(&c, 1690), 0);
        // A link 300 ms slower one way: stepped at once.
        let mut c = ClockSync::default();
        exchange(&mut c, 1000, 400, 100);
        for i in 0..CLOCK_WINDOW as u64 {
            exchange(&mut c, 1100 + 100 * i, 400, 400);
        }
        let last = 1100 + 100 * (CLOCK_WINDOW as u64 - 1) + 800;
        assert_eq!(
            c.server_time(client(last)),
            Some(SimTime::from_millis(last))
        );
    }

    #[test]
    fn nothing_is_estimated_before_an_answer_and_forged_answers_are_ignored() {
        let mut c = ClockSync::default();
        assert_eq!(c.server_time(SimTime::ZERO), None);
        c.record(
            SimTime::from_millis(10),
            SimTime::ZERO,
            SimTime::from_millis(5),
        );
        assert_eq!(c.best(), None);
    }
}
