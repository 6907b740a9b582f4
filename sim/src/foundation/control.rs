//! A control of the page — a slider or number input ([`Range`]) or a
//! checkbox ([`Switch`]) — and the one check of a setting against its
//! range ([`check`], [`SettingsError`]). Each owner of a setting defines
//! its controls beside it (`net::controls`, `cmc::controls`,
//! `rollback::controls`, `room::controls`); `crate::controls` gathers them
//! for the page.
//!
//! A control's wire field may count in finer units than the page shows
//! (loss in tenths of a percent, the error threshold in tenths of a cm):
//! [`Range::scaled`] gives the range in those units.

use core::ops::RangeInclusive;
use thiserror::Error;

/// A slider or number input, in the units the page shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The element's id in the page; for a per-direction control, the id
    /// after `up-` / `down-`.
    pub id: &'static str,
    /// Lowest value.
    pub min: f64,
    /// Highest value.
    pub max: f64,
    /// Step between two values the control can take.
    pub step: f64,
    /// Value at start.
    pub default: f64,
    /// Unit the page shows beside the value (`""` for a count).
    pub unit: &'static str,
}

impl Range {
    /// `v` clamped to the range (`default` for NaN).
    pub fn clamp(&self, v: f64) -> f64 {
        if v.is_nan() {
            self.default
        } else {
            v.clamp(self.min, self.max)
        }
    }

    /// The range in wire units, `scale` of them per shown unit (10 for a
    /// field in tenths), rounded.
    pub fn scaled(&self, scale: f64) -> RangeInclusive<u32> {
        (self.min * scale).round() as u32..=(self.max * scale).round() as u32
    }

    /// `true` when `v` is in the range (NaN is not).
    pub fn contains(&self, v: f64) -> bool {
        (self.min..=self.max).contains(&v)
    }
}

/// A checkbox: its element id and whether it starts checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    /// The element's id in the page.
    pub id: &'static str,
    /// Checked at start.
    pub default: bool,
}

/// A [`Range`] (for the owners' `const` tables).
pub(crate) const fn range(
    id: &'static str,
    min: f64,
    max: f64,
    step: f64,
    default: f64,
    unit: &'static str,
) -> Range {
    Range {
        id,
        min,
        max,
        step,
        default,
        unit,
    }
}

/// A setting outside its slider range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{name} = {value} is outside {min}–{max}")]
pub struct SettingsError {
    /// Which setting.
    pub name: &'static str,
    /// The value received.
    pub value: u32,
    /// Lowest allowed.
    pub min: u32,
    /// Highest allowed.
    pub max: u32,
}

/// `Ok` if `value` lies in `range`, else the [`SettingsError`] naming it.
///
/// # Errors
/// [`SettingsError`] for `name` when `value` is outside `range`.
pub fn check(
    name: &'static str,
    value: u32,
    range: RangeInclusive<u32>,
) -> Result<(), SettingsError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(SettingsError {
            name,
            value,
            min: *range.start(),
            max: *range.end(),
        })
    }
}

/// Checks a wire value counted in `scale` units per shown unit of
/// `control` (10 for tenths) against the control's range.
///
/// # Errors
/// [`SettingsError`] for `name` when `value` is outside the range.
pub fn check_range(
    name: &'static str,
    value: u32,
    control: &Range,
    scale: f64,
) -> Result<(), SettingsError> {
    check(name, value, control.scaled(scale))
}
