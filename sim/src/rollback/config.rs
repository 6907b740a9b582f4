//! The rollback model's settings, one field per page control, with their
//! ranges and sources in one place.

use super::controls;
use super::tick::{Tick, TickRate};
use crate::foundation::control::Range;
use crate::foundation::control::{check, SettingsError};
use core::ops::RangeInclusive;
use serde::{Deserialize, Serialize};

/// Inputs per input packet, newest first: `001_…` §6 sends the last 4
/// ("packet N: [100, 101, 102, 103]"); 1 turns redundancy off.
pub const REDUNDANCY: RangeInclusive<u8> = as_u8(&controls::ROLLBACK_REDUNDANCY);
/// Ticks the server repeats a player's last input when the next is missing
/// before it falls back to the empty input: `001_…` §5.1 holds 6, as does
/// UE's `MaximumRemoteInputFaultLimit`; 0 uses the empty input at once.
pub const HOLD_LAST_LIMIT: RangeInclusive<u8> = as_u8(&controls::ROLLBACK_HOLD_LAST);
/// Ticks between two State messages: `001_…` §5.1 sends one every 2.
pub const STATE_INTERVAL: RangeInclusive<u8> = as_u8(&controls::ROLLBACK_STATE_INTERVAL);
/// Ticks of input the client aims to have waiting at the server when it
/// needs them (the input buffer; Unity NfE's `TargetCommandSlack` is 2).
pub const INPUT_BUFFER: RangeInclusive<u8> = as_u8(&controls::ROLLBACK_INPUT_BUFFER);
/// Ticks between sampling the local input and simulating it (ggrs
/// `input_delay`), [`controls::ROLLBACK_INPUT_DELAY`]: 0–15, default 0.
pub const INPUT_DELAY: RangeInclusive<u8> = as_u8(&controls::ROLLBACK_INPUT_DELAY);
/// Ticks the client may predict ahead of its last confirmed State (ggrs
/// `max_prediction_window`). The top covers the worst round trip the link
/// sliders allow at the fastest rate (see [`HISTORY_CAPACITY`]).
pub const MAX_PREDICTION: RangeInclusive<u16> =
    controls::ROLLBACK_MAX_PREDICTION.min as u16..=controls::ROLLBACK_MAX_PREDICTION.max as u16;
/// Ticks of inputs and states the client keeps, and of inputs the server
/// buffers ahead (`001_…` §9.3: "at least the worst State delay plus the
/// replay length plus a margin"). The worst the sliders allow is 2 × 1000 ms
/// latency + 2 × 500 ms jitter = 3 s = 360 ticks at 120 Hz, plus a 10-tick
/// State interval and a 10-tick input buffer: 380 ≤ the top of
/// [`MAX_PREDICTION`] (448) < 512.
pub const HISTORY_CAPACITY: usize = 512;
/// The default prediction window, ms: Unity NfE's
/// `ClientTickRate.MaxPredictAheadTimeMS` (500 ms, 30 ticks at 60 Hz).
///
/// Deviation from ggrs's 8 frames: that is a peer-to-peer depth (remote
/// inputs are one one-way trip old). Here a State is a whole round trip +
/// the input buffer (2) + up to one State interval (2) old when it
/// arrives, so 8 ticks cover only ≈ 4 ticks of RTT (≈ 67 ms at 60 Hz);
/// above that the window holds the client back so far that its inputs
/// reach the server late (at RTT 200 ms, 1193 of 1200 were:
/// `sim/tests/rollback_session.rs`).
pub const DEFAULT_PREDICTION_MS: u32 = 500;

/// Settings of one rollback match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollbackConfig {
    /// Simulation rate (`001_…` §2: 60 Hz). Changing it starts a new match.
    pub tick_rate: TickRate,
    /// Inputs per packet, [`REDUNDANCY`], default 4.
    pub redundancy: u8,
    /// Hold-last limit, ticks, [`HOLD_LAST_LIMIT`], default 6.
    pub hold_last_limit: u8,
    /// State interval, ticks, [`STATE_INTERVAL`], default 2.
    pub state_interval: u8,
    /// Prediction window, ticks, [`MAX_PREDICTION`]; `None` lets the client
    /// predict without limit (then a long stall of States can outrun the
    /// history, which is reported). Default: [`DEFAULT_PREDICTION_MS`].
    pub max_prediction: Option<u16>,
    /// Target input buffer, ticks, [`INPUT_BUFFER`], default 2.
    pub input_buffer: u8,
    /// Rollback ([`controls::ROLLBACK`], default on): predict, restore each
    /// State and re-simulate (`001_…` §8). Off, the client draws the
    /// newest State as it arrives and never re-simulates (no rebase);
    /// it still samples and sends its input every tick. Applies live.
    pub rollback: bool,
    /// Local input delay, ticks, [`INPUT_DELAY`], default 0 (ggrs
    /// `input_delay`): the input sampled at tick *t* is simulated, and
    /// sent, as tick *t* + delay. Applies live.
    pub input_delay: u8,
    /// The match's first tick. Tests start 2 s before the wrap
    /// (`u32::MAX − 120` at 60 Hz) to run the real wrap, which a `u32` tick
    /// otherwise meets after 828 days. Changing it starts a new match.
    pub start_tick: Tick,
}

/// A control's range as the `u8` field it sets.
const fn as_u8(control: &Range) -> RangeInclusive<u8> {
    control.min as u8..=control.max as u8
}

impl RollbackConfig {
    /// The defaults at `rate` (the prediction window converted to ticks).
    pub const fn at_rate(rate: TickRate) -> RollbackConfig {
        RollbackConfig {
            tick_rate: rate,
            redundancy: controls::ROLLBACK_REDUNDANCY.default as u8,
            hold_last_limit: controls::ROLLBACK_HOLD_LAST.default as u8,
            state_interval: controls::ROLLBACK_STATE_INTERVAL.default as u8,
            max_prediction: Some(rate.ticks_in_ms(DEFAULT_PREDICTION_MS) as u16),
            input_buffer: controls::ROLLBACK_INPUT_BUFFER.default as u8,
            rollback: controls::ROLLBACK.default,
            input_delay: controls::ROLLBACK_INPUT_DELAY.default as u8,
            start_tick: Tick(0),
        }
    }

    /// Checks every field against its range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check("redundancy", self.redundancy.into(), widen(&REDUNDANCY))?;
        check(
            "hold_last_limit",
            self.hold_last_limit.into(),
            widen(&HOLD_LAST_LIMIT),
        )?;
        check(
            "state_interval",
            self.state_interval.into(),
            widen(&STATE_INTERVAL),
        )?;
        check(
            "input_buffer",
            self.input_buffer.into(),
            widen(&INPUT_BUFFER),
        )?;
        check("input_delay", self.input_delay.into(), widen(&INPUT_DELAY))?;
        if let Some(w) = self.max_prediction {
            let r = MAX_PREDICTION;
            check(
                "max_prediction",
                w.into(),
                u32::from(*r.start())..=u32::from(*r.end()),
            )?;
        }
        Ok(())
    }

    /// `true` when `other` needs a new match to take effect (tick rate or
    /// start tick differ); every other field applies live.
    pub fn restarts_match(&self, other: &RollbackConfig) -> bool {
        self.tick_rate != other.tick_rate || self.start_tick != other.start_tick
    }
}

impl Default for RollbackConfig {
    fn default() -> Self {
        RollbackConfig::at_rate(TickRate::Hz60)
    }
}

fn widen(r: &RangeInclusive<u8>) -> RangeInclusive<u32> {
    u32::from(*r.start())..=u32::from(*r.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_001s_numbers() {
        let c = RollbackConfig::default();
        assert_eq!(
            (
                c.tick_rate.hz(),
                c.redundancy,
                c.hold_last_limit,
                c.state_interval
            ),
            (60, 4, 6, 2)
        );
        assert_eq!(c.max_prediction, Some(30));
        assert_eq!(
            RollbackConfig::at_rate(TickRate::Hz120).max_prediction,
            Some(60)
        );
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn out_of_range_fields_are_named() {
        let bad = RollbackConfig {
            redundancy: 9,
            ..RollbackConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().name, "redundancy");
        let bad = RollbackConfig {
            max_prediction: Some(0),
            ..RollbackConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().name, "max_prediction");
    }

    #[test]
    fn the_history_covers_the_worst_window_the_sliders_allow() {
        let rate = TickRate::Hz120;
        let worst = rate.ticks_in_ms(2 * 1000 + 2 * 500)
            + u32::from(*STATE_INTERVAL.end())
            + u32::from(*INPUT_BUFFER.end());
        assert_eq!(worst, 380);
        assert!(worst <= u32::from(*MAX_PREDICTION.end()));
        assert!((*MAX_PREDICTION.end() as usize) < HISTORY_CAPACITY);
    }
}
