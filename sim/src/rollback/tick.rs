//! The fixed tick: [`Tick`] (which simulation step) and [`TickRate`] (how
//! many per second).
//!
//! A tick is "not the wall clock and not the render frame but the ordinal
//! of a simulation step" (`001_…` §2): real time only decides *how many*
//! ticks to run now, never the step length.

use serde::{Deserialize, Serialize};

/// The ordinal of one fixed simulation step (`001_…` §1 `using Tick =
/// std::uint32_t`). A [`crate::rollback::Game`] state at tick `t` has
/// consumed the inputs of every tick before `t` and consumes tick `t`'s
/// next (`001_…` §3 `Snapshot::nextTick`).
///
/// **Source:** the server's match clock, from
/// [`crate::rollback::RollbackConfig::start_tick`]. **Wrap:** at 2³²
/// (≈ 828 days at 60 Hz). **Order:** by [`Tick::diff`], the wrapping
/// signed difference, never by `>` (`001_…` §9.4). Every receiver accepts a
/// tick only within a window of its own reference far smaller than half the
/// space (the input ring's and the history's capacity,
/// [`crate::rollback::config::HISTORY_CAPACITY`] = 512 ticks), so the order
/// of two accepted ticks is never ambiguous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Tick(pub u32);

impl Tick {
    /// Signed difference `self − earlier` in ticks, correct across the wrap
    /// while the two are less than 2³¹ apart.
    pub const fn diff(self, earlier: Tick) -> i32 {
        self.0.wrapping_sub(earlier.0) as i32
    }

    /// `true` when `self` is strictly later than `other` (wrapping).
    pub const fn is_after(self, other: Tick) -> bool {
        self.diff(other) > 0
    }

    /// The tick `n` steps later (wrapping).
    pub const fn plus(self, n: u32) -> Tick {
        Tick(self.0.wrapping_add(n))
    }

    /// The tick `n` steps earlier (wrapping).
    pub const fn minus(self, n: u32) -> Tick {
        Tick(self.0.wrapping_sub(n))
    }

    /// The next tick.
    pub const fn next(self) -> Tick {
        self.plus(1)
    }

    /// Ticks from `self` (inclusive) to `end` (exclusive), oldest first;
    /// empty when `end` is not after `self`.
    pub fn until(self, end: Tick) -> impl Iterator<Item = Tick> {
        (0..end.diff(self).max(0) as u32).map(move |i| self.plus(i))
    }
}

/// The fixed simulation rate (`001_…` §2: 60 Hz, `dt = 1/60 s`). 30 and
/// 120 Hz are offered to show what the rate costs: more ticks to
/// re-simulate per rollback, more packets per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum TickRate {
    /// 30 ticks per second.
    Hz30,
    /// 60 ticks per second (`001_…` §2; the default).
    #[default]
    Hz60,
    /// 120 ticks per second.
    Hz120,
}

impl TickRate {
    /// Every rate, slowest first (the page's `#rollback-tick-rate`).
    pub const ALL: [TickRate; 3] = [TickRate::Hz30, TickRate::Hz60, TickRate::Hz120];

    /// The rate of `hz` ticks per second, if it is one of [`TickRate::ALL`].
    pub fn from_hz(hz: u32) -> Option<TickRate> {
        TickRate::ALL.into_iter().find(|r| r.hz() == hz)
    }

    /// Ticks per second.
    pub const fn hz(self) -> u32 {
        match self {
            TickRate::Hz30 => 30,
            TickRate::Hz60 => 60,
            TickRate::Hz120 => 120,
        }
    }

    /// The step length, s, as the simulation uses it (`1.0 / hz` in `f32`).
    pub fn dt(self) -> f32 {
        1.0 / self.hz() as f32
    }

    /// Microseconds from a clock's origin to the end of its `n`-th tick,
    /// rounded down (integer, so the schedule never drifts).
    pub const fn micros_at(self, n: u64) -> u64 {
        n * 1_000_000 / self.hz() as u64
    }

    /// Whole ticks in `ms` milliseconds, rounded up (a duration in ticks,
    /// never zero for a positive duration).
    pub const fn ticks_in_ms(self, ms: u32) -> u32 {
        (ms * self.hz()).div_ceil(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_order_survives_the_wrap() {
        let before = Tick(u32::MAX - 5);
        let after = before.plus(16);
        assert_eq!(after, Tick(10));
        assert!(after.is_after(before));
        assert!(!before.is_after(after));
        assert_eq!(after.diff(before), 16);
        assert_eq!(before.diff(after), -16);
        assert_eq!(after.minus(16), before);
        let ticks: Vec<Tick> = before.until(before.plus(8)).collect();
        assert_eq!(ticks.len(), 8);
        assert_eq!(ticks[5], Tick(u32::MAX));
        assert_eq!(ticks[6], Tick(0));
        assert_eq!(after.until(before).count(), 0);
    }

    #[test]
    fn rates_give_exact_schedules_and_durations() {
        assert_eq!(TickRate::default(), TickRate::Hz60);
        assert_eq!(TickRate::Hz60.micros_at(60), 1_000_000);
        assert_eq!(TickRate::Hz60.micros_at(1), 16_666);
        assert_eq!(TickRate::Hz120.micros_at(3), 25_000);
        assert_eq!(TickRate::Hz60.ticks_in_ms(250), 15);
        assert_eq!(TickRate::Hz30.ticks_in_ms(250), 8);
        assert_eq!(TickRate::Hz120.ticks_in_ms(500), 60);
    }

    #[test]
    fn every_rate_is_found_by_its_hz_and_no_other_is() {
        for r in TickRate::ALL {
            assert_eq!(TickRate::from_hz(r.hz()), Some(r));
        }
        assert_eq!(TickRate::from_hz(90), None);
    }
}
