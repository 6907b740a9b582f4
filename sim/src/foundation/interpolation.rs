//! Interpolation in the past ([`SmoothingMode::Interpolation`]): a
//! simulated proxy is drawn where the server had it at a **render time**
//! a little behind the newest update, between two updates already held —
//! Source's `cl_interp` (0.1 s, at least `cl_interp_ratio` = 2 snapshot
//! intervals) and Unity's interpolation ticks.
//!
//! The trade-off, against the mesh-offset modes of `000_…` §7.2: no
//! guessing (no overshoot at a turn, no snap when a guess was wrong, a lost
//! update is bridged by the next), for a delay — everyone is shown
//! [`INTERP_RATIO`] update intervals later, and every shot at them is
//! rewound that much further, which the rewind cap may refuse. When the
//! render time passes the newest update (more than the ratio's worth of
//! updates lost), the proxy waits at the newest update: it never
//! extrapolates.
//!
//! The render time runs on its own clock ([`RenderClock`]), anchored to
//! when the updates actually arrive: the slowest of the last
//! [`ARRIVAL_WINDOW`] arrivals, less the render delay. A rising delay
//! (the downlink slowing down) is followed from the first late update —
//! and already while it is late: an update overdue beyond the slowest
//! recent one bounds the anchor too — and the clock slews toward its
//! target at most [`MAX_SLEW_PERCENT`] faster or slower than real time,
//! so what is drawn never jumps and never runs dry while updates still
//! come (Mirror issue #3423: a timeline anchored elsewhere caught up into
//! an empty buffer and stood still for ten frames at a time).
//!
//! [`SmoothingMode::Interpolation`]: crate::cmc::smoothing::SmoothingMode::Interpolation

use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use std::collections::VecDeque;

/// Render delay in net update intervals: Source's `cl_interp_ratio`
/// default 2 (one update may be lost without the proxy stopping).
pub const INTERP_RATIO: u64 = 2;

/// Updates kept per proxy: 1 s at the fastest net update rate (60 Hz),
/// more than any render delay needs.
pub const BUFFER_LEN: usize = 60;

/// The render delay for a net update rate of `net_update_hz`, µs.
pub fn render_delay_us(net_update_hz: u8) -> u64 {
    INTERP_RATIO * 1_000_000 / u64::from(net_update_hz.max(1))
}

/// Where [`InterpolationBuffer::sample`] found the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    /// Between two updates (or exactly on one).
    Between,
    /// After the newest update: held there, not extrapolated.
    Starved,
    /// Before the oldest update kept: held at it.
    BeforeOldest,
}

/// A drawn position and what it was drawn from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampled {
    /// The position, cm.
    pub position: Vec2,
    /// How the buffer answered.
    pub how: Sample,
    /// Server time of the update the position is drawn from, or of the
    /// older of the two it lies between.
    pub from: SimTime,
    /// Server time of the younger of the two (`from` when held at one).
    pub to: SimTime,
}

/// One proxy's received positions by server time, oldest first.
#[derive(Debug, Clone, Default)]
pub struct InterpolationBuffer {
    entries: VecDeque<(SimTime, Vec2)>,
}

impl InterpolationBuffer {
    /// Adds the position the server had at `time`; an update not later
    /// than the newest held is ignored (newest wins upstream already).
    pub fn push(&mut self, time: SimTime, position: Vec2) {
        if self.entries.back().is_some_and(|&(t, _)| t >= time) {
            return;
        }
        if self.entries.len() == BUFFER_LEN {
            self.entries.pop_front();
        }
        self.entries.push_back((time, position));
    }

    /// The position at server time `render_time`: linear between the two
    /// updates around it ([`lerp_at`]), never beyond the newest. `None`
    /// while empty.
    pub fn sample(&self, render_time: SimTime) -> Option<Sampled> {
        let &(newest_t, newest) = self.entries.back()?;
        let &(oldest_t, oldest) = self.entries.front()?;
        let held = |t, position, how| Sampled {
            position,
            how,
            from: t,
            to: t,
        };
        if render_time >= newest_t {
            let how = if render_time == newest_t {
                Sample::Between
            } else {
                Sample::Starved
            };
            return Some(held(newest_t, newest, how));
        }
        if render_time < oldest_t {
            return Some(held(oldest_t, oldest, Sample::BeforeOldest));
        }
        let i = self.entries.partition_point(|&(t, _)| t <= render_time);
        let ((t0, p0), (t1, p1)) = (self.entries[i - 1], self.entries[i]);
        Some(Sampled {
            position: p0 + (p1 - p0) * lerp_at(t0, t1, render_time),
            how: Sample::Between,
            from: t0,
            to: t1,
        })
    }

    /// Server time of the newest update held.
    pub fn newest_time(&self) -> Option<SimTime> {
        self.entries.back().map(|&(t, _)| t)
    }
}

/// How far `at` lies from `from` to `to`, `0.0..=1.0` (1 when they are one
/// time): the one formula both ends interpolate with, so a server
/// rebuilding a drawn position gets the client's bits.
pub fn lerp_at(from: SimTime, to: SimTime, at: SimTime) -> f32 {
    let span = to.micros_since(from);
    if span == 0 {
        return 1.0;
    }
    (at.micros_since(from) as f32 / span as f32).clamp(0.0, 1.0)
}

/// Net update arrivals the render clock anchors to: 8 (at 20 Hz, the last
/// 0.4 s). The slowest of them wins, so a rise in delay is followed from
/// the first late update and a fall once the slow ones have aged out.
pub const ARRIVAL_WINDOW: usize = 8;

/// Most the render clock runs faster or slower than real time while it
/// follows its target, percent: 20 (Source's
/// `cl_clock_correction_adjustment_max_amount`, 200 ms per second). A
/// proxy slows to 80 % for a while rather than stopping or jumping.
pub const MAX_SLEW_PERCENT: u64 = 20;

/// A render clock further than this from its target steps to it, µs:
/// 250 ms, which would take 1.25 s of slewing (a changed link, a tab
/// brought back, the first update).
pub const RENDER_STEP_US: u64 = 250_000;

/// The clock interpolation draws at: server time, following the arrivals
/// of net updates (see the module doc). Client times in, server times
/// out, µs.
#[derive(Debug, Clone, Default)]
pub struct RenderClock {
    /// Server time minus client arrival time of the newest updates, µs.
    arrivals: VecDeque<i64>,
    /// Server time of the newest update.
    newest: Option<SimTime>,
    /// The last reading: client time, render time (µs, may be negative
    /// near the epoch).
    last: Option<(SimTime, i64)>,
}

impl RenderClock {
    /// A net update of server time `server_time` arrived at client time
    /// `arrived` (only updates applied: newer than any before).
    pub fn on_update(&mut self, server_time: SimTime, arrived: SimTime) {
        if self.arrivals.len() == ARRIVAL_WINDOW {
            self.arrivals.pop_front();
        }
        self.arrivals
            .push_back(signed(server_time) - signed(arrived));
        self.newest = Some(server_time);
    }

    /// The render time it steers to at client time `now` for a render
    /// delay of `delay_us` and updates every `interval_us`: the slowest
    /// recent arrival (or the next update's, if that is overdue beyond
    /// it), less the delay; and that target without the overdue bound.
    fn targets(&self, now: SimTime, delay_us: u64, interval_us: u64) -> Option<(i64, i64)> {
        let slowest = self.arrivals.iter().copied().min()?;
        let overdue = signed(self.newest?) + interval_us as i64 - signed(now);
        let anchored = signed(now) + slowest - delay_us as i64;
        let bounded = signed(now) + slowest.min(overdue) - delay_us as i64;
        Some((bounded, anchored))
    }

    /// Advances to client time `now` and returns the server time to draw
    /// at, or `None` before the first update. Moves toward the target
    /// at most [`MAX_SLEW_PERCENT`] faster or slower than real time; the
    /// first reading, and a target more than [`RENDER_STEP_US`] away, is
    /// stepped to (the slowest arrival less the delay: an overdue update
    /// only steers the slew).
    pub fn advance(&mut self, now: SimTime, delay_us: u64, interval_us: u64) -> Option<SimTime> {
        let (target, anchored) = self.targets(now, delay_us, interval_us)?;
        let render = match self.last {
            Some((then, render)) if now >= then => {
                let free = render + now.micros_since(then) as i64;
                if anchored.abs_diff(free) > RENDER_STEP_US {
                    anchored
                } else {
                    let reach = (now.micros_since(then) * MAX_SLEW_PERCENT / 100) as i64;
                    free + (target - free).clamp(-reach, reach)
                }
            }
            _ => anchored,
        };
        self.last = Some((now, render));
        Some(SimTime(render.max(0) as u64))
    }
}

fn signed(t: SimTime) -> i64 {
    i64::try_from(t.0).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drawn_position_is_the_line_between_the_two_updates() {
        let mut b = InterpolationBuffer::default();
        b.push(SimTime::from_millis(1000), Vec2::new(100.0, 0.0));
        b.push(SimTime::from_millis(1050), Vec2::new(130.0, 40.0));
        // 1020 ms: 2/5 of the way.
        let s = b.sample(SimTime::from_millis(1020)).unwrap();
        assert_eq!(
            (s.position, s.how),
            (Vec2::new(112.0, 16.0), Sample::Between)
        );
        assert_eq!(
            (s.from, s.to),
            (SimTime::from_millis(1000), SimTime::from_millis(1050))
        );
    }

    #[test]
    fn it_never_extrapolates_past_the_newest_update() {
        let mut b = InterpolationBuffer::default();
        b.push(SimTime::from_millis(1000), Vec2::new(100.0, 0.0));
        b.push(SimTime::from_millis(1050), Vec2::new(130.0, 0.0));
        for late in [1050, 1051, 1100, 5000] {
            let s = b.sample(SimTime::from_millis(late)).unwrap();
            assert_eq!(s.position, Vec2::new(130.0, 0.0), "at {late} ms");
            assert_eq!((s.from, s.to), (SimTime::from_millis(1050), s.from));
        }
        assert_eq!(
            b.sample(SimTime::from_millis(1100)).unwrap().how,
            Sample::Starved
        );
        assert_eq!(
            b.sample(SimTime::from_millis(900)).unwrap().how,
            Sample::BeforeOldest
        );
        // An older update arriving late is not added.
        b.push(SimTime::from_millis(1025), Vec2::new(0.0, 0.0));
        assert_eq!(
            b.sample(SimTime::from_millis(1025)).unwrap().position,
            Vec2::new(115.0, 0.0)
        );
    }

    #[test]
    fn the_render_delay_is_two_update_intervals() {
        assert_eq!(render_delay_us(20), 100_000);
        assert_eq!(render_delay_us(60), 33_333);
        assert_eq!(render_delay_us(5), 400_000);
    }

    /// Updates every 50 ms whose downlink takes `down(t)` ms, a render
    /// delay of 100 ms, frames of 1/60 s from 0 to `ms`: the render time
    /// of every frame, and the newest update held then.
    fn run(ms: u64, down: impl Fn(u64) -> u64) -> Vec<(u64, i64, i64)> {
        let (mut clock, mut out) = (RenderClock::default(), Vec::new());
        let mut sent = 0u64;
        let mut arriving: Vec<(u64, u64)> = Vec::new();
        let mut newest = 0i64;
        for frame in 0..=(ms * 60 / 1000) {
            let now = frame * 1_000_000 / 60;
            while sent <= now {
                arriving.push((sent, sent + down(sent / 1000) * 1000));
                sent += 50_000;
            }
            arriving.sort_by_key(|&(_, at)| at);
            while arriving.first().is_some_and(|&(_, at)| at <= now) {
                let (t, at) = arriving.remove(0);
                if t as i64 > newest || newest == 0 {
                    newest = t as i64;
                    clock.on_update(SimTime(t), SimTime(at));
                }
            }
            if let Some(r) = clock.advance(SimTime(now), 100_000, 50_000) {
                out.push((now, r.0 as i64, newest));
            }
        }
        out
    }

    #[test]
    fn on_a_steady_link_the_render_time_is_the_downlink_and_the_delay_behind() {
        for (now, render, _) in run(2000, |_| 50).into_iter().skip(10) {
            assert_eq!(render, now as i64 - 150_000, "at {now} µs");
        }
    }

    #[test]
    fn a_rising_downlink_is_followed_and_runs_dry_only_at_first() {
        // The downlink takes 100 ms more from 1 s to 4 s.
        let frames = run(6000, |ms| if (1000..4000).contains(&ms) { 150 } else { 50 });
        // The first update sent after the rise comes 150 ms after the one
        // before: the 50 ms of spare buffer, slowed 20 %, cannot bridge
        // it all. From 0.3 s after the rise on, it never runs dry.
        let starved: Vec<u64> = frames
            .iter()
            .filter(|&&(_, r, newest)| r > newest)
            .map(|&(now, ..)| now / 1000)
            .collect();
        assert_eq!(starved, vec![1116, 1133, 1183]);
        // Never backwards, never faster or slower than 20 % (once past the
        // epoch, where render times are floored at 0).
        for w in frames[60..].windows(2) {
            let (dt, dr) = (w[1].0 as i64 - w[0].0 as i64, w[1].1 - w[0].1);
            assert!((dt * 8 / 10 - 1..=dt * 12 / 10 + 1).contains(&dr), "{w:?}");
        }
        // 100 ms further behind within 0.6 s of the rise, and back 0.4 s
        // after it ends (once the slow arrivals have aged out) plus 0.5 s.
        let behind = |at: u64| {
            let &(now, r, _) = frames.iter().find(|f| f.0 >= at * 1000).unwrap();
            now as i64 - r
        };
        assert_eq!(behind(1600), 250_000);
        assert_eq!(behind(3900), 250_000);
        assert_eq!(behind(4900), 150_000);
    }

    #[test]
    fn a_large_change_is_stepped() {
        let frames = run(3000, |ms| if ms >= 1000 { 450 } else { 50 });
        let behind: Vec<i64> = frames.iter().map(|&(now, r, _)| now as i64 - r).collect();
        assert_eq!(behind[50], 150_000);
        assert_eq!(*behind.last().unwrap(), 550_000);
        assert!(behind
            .windows(2)
            .any(|w| w[1] - w[0] > RENDER_STEP_US as i64));
    }
}
