//! The server's rules the page's controls change ([`ServerRules`]): the
//! CMC authority's intervals, error threshold and switches, validated
//! against their controls' ranges and applied over a [`ServerConfig`].

use super::controls;
use crate::cmc::server::ServerConfig;
use crate::foundation::control::{check_range, SettingsError};
use serde::{Deserialize, Serialize};

/// The server's rules the page's controls change (see
/// [`ServerConfig`] for each rule's source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRules {
    /// Minimum time between two Acks, ms, [`controls::ACK_INTERVAL`] (UE
    /// `NetworkMinTimeBetweenClientAckGoodMoves`, 100).
    pub ack_interval_ms: u16,
    /// Minimum time between two Adjustments, ms,
    /// [`controls::ADJUSTMENT_INTERVAL`] (UE
    /// `NetworkMinTimeBetweenClientAdjustments`, 100).
    pub adjustment_interval_ms: u16,
    /// Position error threshold, tenths of a cm,
    /// [`controls::ERROR_THRESHOLD`] × 10 (160 = 16 cm).
    pub max_position_error_tenth_cm: u16,
    /// Percent of checked moves corrected anyway,
    /// [`controls::FORCED_ADJUSTMENT`].
    pub forced_adjustment_percent: u8,
    /// Server-only push zones on.
    pub server_effects: bool,
    /// Cut the excess when the client runs ahead of real time.
    pub time_discrepancy_resolution: bool,
}

impl Default for ServerRules {
    /// The controls' defaults (UE's, see [`ServerConfig`]).
    fn default() -> Self {
        ServerRules {
            ack_interval_ms: controls::ACK_INTERVAL.default as u16,
            adjustment_interval_ms: controls::ADJUSTMENT_INTERVAL.default as u16,
            max_position_error_tenth_cm: (controls::ERROR_THRESHOLD.default * 10.0).round() as u16,
            forced_adjustment_percent: controls::FORCED_ADJUSTMENT.default as u8,
            server_effects: controls::PUSH_ZONES.default,
            time_discrepancy_resolution: controls::TD_RESOLUTION.default,
        }
    }
}

impl ServerRules {
    /// Checks every field against its control's range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check_range(
            "ack_interval_ms",
            self.ack_interval_ms.into(),
            &controls::ACK_INTERVAL,
            1.0,
        )?;
        check_range(
            "adjustment_interval_ms",
            self.adjustment_interval_ms.into(),
            &controls::ADJUSTMENT_INTERVAL,
            1.0,
        )?;
        check_range(
            "max_position_error_tenth_cm",
            self.max_position_error_tenth_cm.into(),
            &controls::ERROR_THRESHOLD,
            10.0,
        )?;
        check_range(
            "forced_adjustment_percent",
            self.forced_adjustment_percent.into(),
            &controls::FORCED_ADJUSTMENT,
            1.0,
        )
    }

    /// These rules applied over `base`.
    pub fn apply_to(&self, base: ServerConfig) -> ServerConfig {
        ServerConfig {
            ack_interval: f32::from(self.ack_interval_ms) / 1000.0,
            adjustment_interval: f32::from(self.adjustment_interval_ms) / 1000.0,
            max_position_error: f32::from(self.max_position_error_tenth_cm) / 10.0,
            forced_adjustment_percent: f32::from(self.forced_adjustment_percent),
            server_effects: self.server_effects,
            time_discrepancy_resolution: self.time_discrepancy_resolution,
            ..base
        }
    }
}
