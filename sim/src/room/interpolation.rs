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
//! [`SmoothingMode::Interpolation`]: crate::SmoothingMode::Interpolation

use crate::math::Vec2;
use crate::time::SimTime;
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
    /// updates around it, never beyond the newest. `None` while empty.
    pub fn sample(&self, render_time: SimTime) -> Option<(Vec2, Sample)> {
        let &(newest_t, newest) = self.entries.back()?;
        let &(oldest_t, oldest) = self.entries.front()?;
        if render_time >= newest_t {
            let how = if render_time == newest_t {
                Sample::Between
            } else {
                Sample::Starved
            };
            return Some((newest, how));
        }
        if render_time < oldest_t {
            return Some((oldest, Sample::BeforeOldest));
        }
        let i = self.entries.partition_point(|&(t, _)| t <= render_time);
        let ((t0, p0), (t1, p1)) = (self.entries[i - 1], self.entries[i]);
        let alpha = render_time.micros_since(t0) as f32 / t1.micros_since(t0) as f32;
        Some((p0 + (p1 - p0) * alpha, Sample::Between))
    }

    /// Server time of the newest update held.
    pub fn newest_time(&self) -> Option<SimTime> {
        self.entries.back().map(|&(t, _)| t)
    }
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
        assert_eq!(
            b.sample(SimTime::from_millis(1020)),
            Some((Vec2::new(112.0, 16.0), Sample::Between))
        );
    }

    #[test]
    fn it_never_extrapolates_past_the_newest_update() {
        let mut b = InterpolationBuffer::default();
        b.push(SimTime::from_millis(1000), Vec2::new(100.0, 0.0));
        b.push(SimTime::from_millis(1050), Vec2::new(130.0, 0.0));
        for late in [1050, 1051, 1100, 5000] {
            let (p, _) = b.sample(SimTime::from_millis(late)).unwrap();
            assert_eq!(p, Vec2::new(130.0, 0.0), "at {late} ms");
        }
        assert_eq!(
            b.sample(SimTime::from_millis(1100)).unwrap().1,
            Sample::Starved
        );
        assert_eq!(
            b.sample(SimTime::from_millis(900)).unwrap().1,
            Sample::BeforeOldest
        );
        // An older update arriving late is not added.
        b.push(SimTime::from_millis(1025), Vec2::new(0.0, 0.0));
        assert_eq!(
            b.sample(SimTime::from_millis(1025)).unwrap().0,
            Vec2::new(115.0, 0.0)
        );
    }

    #[test]
    fn the_render_delay_is_two_update_intervals() {
        assert_eq!(render_delay_us(20), 100_000);
        assert_eq!(render_delay_us(60), 33_333);
        assert_eq!(render_delay_us(5), 400_000);
    }
}
