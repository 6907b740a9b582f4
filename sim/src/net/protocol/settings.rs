//! What the page's controls set on the server: link conditioner settings
//! per direction ([`NetSettings`]), lag spikes and server rules, each
//! validated against its control's range before anything changes.

use crate::net::conditioner::LinkConditions;
use crate::net::gilbert_elliott::GilbertElliott;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Impairments of one direction as the page's controls set them. Integers,
/// so the wire is exact and settings compare with `==`; see
/// [`LinkConditions`] for what each does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkSettings {
    /// One-way latency, ms, `0..=1000` (UE `PktLag`).
    pub latency_ms: u16,
    /// ± jitter on each packet's latency, ms, `0..=500` (UE
    /// `PktLagVariance`).
    pub jitter_ms: u16,
    /// Independent loss (the good state's with bursts on), tenths of a
    /// percent, `0..=500` (UE `PktLoss`).
    pub loss_tenth_percent: u16,
    /// Duplicated packets, tenths of a percent, `0..=500` (UE `PktDup`).
    pub duplicate_tenth_percent: u16,
    /// Packets that overtake the queue, percent, `0..=50` (netem
    /// `reorder`; UE `PktOrder`); 0 keeps the order.
    pub reorder_percent: u8,
    /// Gilbert–Elliott good → bad per packet, tenths of a percent,
    /// `0..=200`; 0 turns bursts off.
    pub burst_enter_tenth_percent: u16,
    /// Gilbert–Elliott bad → good per packet, percent, `1..=100`: mean
    /// burst length = 100 / this, packets.
    pub burst_leave_percent: u8,
    /// Loss while in a burst, percent, `0..=100`.
    pub burst_loss_percent: u8,
    /// Bandwidth cap, bytes/s, 0 (none) or `1000..=10_000_000`.
    pub bandwidth_bytes_per_s: u32,
}

impl LinkSettings {
    /// A direction with this latency, jitter and loss (whole percent) and
    /// nothing else.
    pub const fn simple(latency_ms: u16, jitter_ms: u16, loss_percent: u8) -> LinkSettings {
        LinkSettings {
            latency_ms,
            jitter_ms,
            loss_tenth_percent: loss_percent as u16 * 10,
            duplicate_tenth_percent: 0,
            reorder_percent: 0,
            burst_enter_tenth_percent: 0,
            burst_leave_percent: 25,
            burst_loss_percent: 0,
            bandwidth_bytes_per_s: 0,
        }
    }

    /// What the link conditioner does with these settings.
    pub fn conditions(&self) -> LinkConditions {
        LinkConditions {
            latency_ms: self.latency_ms.into(),
            jitter_ms: self.jitter_ms.into(),
            loss: f64::from(self.loss_tenth_percent) / 1000.0,
            burst: GilbertElliott {
                enter_bad: f64::from(self.burst_enter_tenth_percent) / 1000.0,
                leave_bad: f64::from(self.burst_leave_percent.max(1)) / 100.0,
                loss_in_bad: f64::from(self.burst_loss_percent) / 100.0,
            },
            duplicate: f64::from(self.duplicate_tenth_percent) / 1000.0,
            reorder: f64::from(self.reorder_percent) / 100.0,
            bandwidth_bytes_per_s: self.bandwidth_bytes_per_s,
        }
    }

    /// Long-run loss including bursts, `0.0..=1.0`: what a measurement
    /// over many packets should find.
    pub fn mean_loss(&self) -> f64 {
        let c = self.conditions();
        c.burst.mean_loss(c.loss)
    }

    fn validate(&self, names: &[&'static str; 9]) -> Result<(), SettingsError> {
        check(names[0], self.latency_ms.into(), 0, 1000)?;
        check(names[1], self.jitter_ms.into(), 0, 500)?;
        check(names[2], self.loss_tenth_percent.into(), 0, 500)?;
        check(names[3], self.duplicate_tenth_percent.into(), 0, 500)?;
        check(names[4], self.reorder_percent.into(), 0, 50)?;
        check(names[5], self.burst_enter_tenth_percent.into(), 0, 200)?;
        check(names[6], self.burst_leave_percent.into(), 1, 100)?;
        check(names[7], self.burst_loss_percent.into(), 0, 100)?;
        if self.bandwidth_bytes_per_s != 0 {
            check(names[8], self.bandwidth_bytes_per_s, 1000, 10_000_000)?;
        }
        Ok(())
    }
}

/// Link settings the page's controls set, one [`LinkSettings`] per
/// direction, applied by the host to its two link conditioners. The RTT
/// slider sets both latencies to RTT / 2 unless the advanced controls split
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetSettings {
    /// Client → server.
    pub uplink: LinkSettings,
    /// Server → client.
    pub downlink: LinkSettings,
}

impl NetSettings {
    /// The basic sliders: `rtt_ms` split evenly between the directions,
    /// the same jitter (ms) and loss (whole percent) both ways.
    pub const fn symmetric(rtt_ms: u16, jitter_ms: u16, loss_percent: u8) -> NetSettings {
        let one_way = LinkSettings::simple(rtt_ms / 2, jitter_ms, loss_percent);
        NetSettings {
            uplink: one_way,
            downlink: one_way,
        }
    }

    /// Configured round-trip latency, ms (both one-way latencies).
    pub fn rtt_ms(&self) -> u32 {
        u32::from(self.uplink.latency_ms) + u32::from(self.downlink.latency_ms)
    }
}

impl Default for NetSettings {
    /// RTT 100 ms, no jitter, no loss (issue #2).
    fn default() -> Self {
        NetSettings::symmetric(100, 0, 0)
    }
}

/// A lag spike the page's button asks for: both directions get `extra_ms`
/// more latency for packets sent during the next `duration_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LagSpike {
    /// Added one-way latency, ms, `1..=5000`.
    pub extra_ms: u16,
    /// How long packets are sent into the spike, ms, `1..=30000`.
    pub duration_ms: u16,
}

impl LagSpike {
    /// Checks both fields.
    ///
    /// # Errors
    /// [`SettingsError`] naming the field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check("extra_ms", self.extra_ms.into(), 1, 5000)?;
        check("duration_ms", self.duration_ms.into(), 1, 30000)
    }
}

/// The server's rules the page's controls change (see
/// [`crate::ServerConfig`] for each rule's source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRules {
    /// Minimum time between two Acks, ms, `0..=1000` (UE
    /// `NetworkMinTimeBetweenClientAckGoodMoves`, 100).
    pub ack_interval_ms: u16,
    /// Minimum time between two Adjustments, ms, `0..=1000` (UE
    /// `NetworkMinTimeBetweenClientAdjustments`, 100).
    pub adjustment_interval_ms: u16,
    /// Position error threshold, tenths of a cm, `1..=1000` (160 = 16 cm).
    pub max_position_error_tenth_cm: u16,
    /// Percent of checked moves corrected anyway, `0..=100`.
    pub forced_adjustment_percent: u8,
    /// Server-only push zones on.
    pub server_effects: bool,
    /// Cut the excess when the client runs ahead of real time.
    pub time_discrepancy_resolution: bool,
}

impl Default for ServerRules {
    fn default() -> Self {
        ServerRules {
            ack_interval_ms: 100,
            adjustment_interval_ms: 100,
            max_position_error_tenth_cm: 160,
            forced_adjustment_percent: 0,
            server_effects: false,
            time_discrepancy_resolution: false,
        }
    }
}

/// A setting outside its slider range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{name} = {value} is outside {min}..={max}")]
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

fn check(name: &'static str, value: u32, min: u32, max: u32) -> Result<(), SettingsError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(SettingsError {
            name,
            value,
            min,
            max,
        })
    }
}

impl NetSettings {
    /// Checks every field of both directions against its range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range, e.g.
    /// `uplink.loss_tenth_percent`.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.uplink.validate(&[
            "uplink.latency_ms",
            "uplink.jitter_ms",
            "uplink.loss_tenth_percent",
            "uplink.duplicate_tenth_percent",
            "uplink.reorder_percent",
            "uplink.burst_enter_tenth_percent",
            "uplink.burst_leave_percent",
            "uplink.burst_loss_percent",
            "uplink.bandwidth_bytes_per_s",
        ])?;
        self.downlink.validate(&[
            "downlink.latency_ms",
            "downlink.jitter_ms",
            "downlink.loss_tenth_percent",
            "downlink.duplicate_tenth_percent",
            "downlink.reorder_percent",
            "downlink.burst_enter_tenth_percent",
            "downlink.burst_leave_percent",
            "downlink.burst_loss_percent",
            "downlink.bandwidth_bytes_per_s",
        ])
    }
}

impl ServerRules {
    /// Checks every field against its control's range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check("ack_interval_ms", self.ack_interval_ms.into(), 0, 1000)?;
        check(
            "adjustment_interval_ms",
            self.adjustment_interval_ms.into(),
            0,
            1000,
        )?;
        check(
            "max_position_error_tenth_cm",
            self.max_position_error_tenth_cm.into(),
            1,
            1000,
        )?;
        check(
            "forced_adjustment_percent",
            self.forced_adjustment_percent.into(),
            0,
            100,
        )
    }

    /// These rules applied over `base`.
    pub fn apply_to(&self, base: crate::ServerConfig) -> crate::ServerConfig {
        crate::ServerConfig {
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
