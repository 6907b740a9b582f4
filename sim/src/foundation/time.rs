//! Time: the client's move [`TimeStamp`] and the host's virtual clock
//! [`SimTime`].
//!
//! Nothing in `sim` reads a clock: every `now` is passed in by the driver
//! (the relay, the page, or a test). Time stamps are integers so that both
//! ends agree on them bit for bit, and they may wrap, so they are compared
//! with a wrapping signed difference, never with `>` alone
//! (`001_…` §9.4 "Tick 回绕仍用普通大小比较" lists that as a pitfall).

use serde::{Deserialize, Serialize};

/// A client move time stamp in whole **milliseconds** of client time
/// (UE `FSavedMove_Character::TimeStamp`, `000_…` §9.1: "how many seconds
/// the client has simulated"). It is the time at the *end* of the move.
///
/// Wraps at 2³² ms (≈ 49.7 days); order is defined by [`TimeStamp::diff`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct TimeStamp(pub u32);

impl TimeStamp {
    /// Signed difference `self − earlier` in ms, correct across the wrap as
    /// long as the two are less than 2³¹ ms (≈ 24.8 days) apart.
    pub fn diff(self, earlier: TimeStamp) -> i32 {
        self.0.wrapping_sub(earlier.0) as i32
    }

    /// `true` when `self` is strictly later than `other` (wrapping).
    pub fn is_after(self, other: TimeStamp) -> bool {
        self.diff(other) > 0
    }

    /// This time stamp advanced by `ms` milliseconds (wrapping).
    pub fn plus_ms(self, ms: u32) -> TimeStamp {
        TimeStamp(self.0.wrapping_add(ms))
    }
}

/// A point on the driver's clock in **microseconds** since an arbitrary
/// epoch (the relay uses its start; the page uses `performance.now()`).
/// Only differences are meaningful. 2⁶⁴ µs never wraps in practice.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct SimTime(pub u64);

impl SimTime {
    /// The epoch.
    pub const ZERO: SimTime = SimTime(0);

    /// From milliseconds.
    pub const fn from_millis(ms: u64) -> SimTime {
        SimTime(ms * 1000)
    }

    /// From seconds (`f64`), rounded down to the microsecond; negative or
    /// non-finite input gives the epoch.
    pub fn from_secs_f64(s: f64) -> SimTime {
        if s.is_finite() && s > 0.0 {
            SimTime((s * 1e6) as u64)
        } else {
            SimTime::ZERO
        }
    }

    /// This time plus `us` microseconds (saturating).
    pub const fn plus_micros(self, us: u64) -> SimTime {
        SimTime(self.0.saturating_add(us))
    }

    /// This time plus `ms` milliseconds (saturating).
    pub const fn plus_millis(self, ms: u64) -> SimTime {
        self.plus_micros(ms * 1000)
    }

    /// Microseconds from `earlier` to `self`, zero if `earlier` is later.
    pub const fn micros_since(self, earlier: SimTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// Seconds from `earlier` to `self` (zero if `earlier` is later).
    pub fn secs_since(self, earlier: SimTime) -> f64 {
        self.micros_since(earlier) as f64 / 1e6
    }

    /// Whole milliseconds since the epoch.
    pub const fn as_millis(self) -> u64 {
        self.0 / 1000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_stamp_order_survives_the_wrap() {
        let before = TimeStamp(u32::MAX - 5);
        let after = before.plus_ms(16);
        assert_eq!(after, TimeStamp(10));
        assert!(after.is_after(before));
        assert!(!before.is_after(after));
        assert_eq!(after.diff(before), 16);
        assert_eq!(before.diff(after), -16);
    }

    #[test]
    fn sim_time_arithmetic() {
        let t = SimTime::from_millis(250);
        assert_eq!(t.plus_millis(100).micros_since(t), 100_000);
        assert_eq!(t.micros_since(t.plus_millis(1)), 0);
        assert_eq!(SimTime::from_secs_f64(1.5), SimTime(1_500_000));
        assert_eq!(SimTime::from_secs_f64(f64::NAN), SimTime::ZERO);
    }
}
