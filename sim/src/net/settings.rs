//! What the page's controls set on the server: link conditioner settings
//! per direction ([`NetSettings`]), lag spikes and server rules, each
//! validated against its control's range before anything changes.

use super::controls;
use crate::foundation::control::{check, check_range, SettingsError};
use crate::net::conditioner::LinkConditions;
use crate::net::gilbert_elliott::GilbertElliott;
use crate::net::transport::{rto_ms, LinkTransport, Transport};
use serde::{Deserialize, Serialize};

/// Impairments of one direction as the page's controls set them. Integers,
/// so the wire is exact and settings compare with `==`; see
/// [`LinkConditions`] for what each does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkSettings {
    /// One-way latency, ms, [`controls::LATENCY`] (UE `PktLag`).
    pub latency_ms: u16,
    /// ± jitter on each packet's latency, ms,
    /// [`controls::DIRECTION_JITTER`] (UE `PktLagVariance`).
    pub jitter_ms: u16,
    /// Independent loss (the good state's with bursts on), tenths of a
    /// percent, [`controls::DIRECTION_LOSS`] × 10 (UE `PktLoss`).
    pub loss_tenth_percent: u16,
    /// Duplicated packets, tenths of a percent, [`controls::DUPLICATE`]
    /// × 10 (UE `PktDup`).
    pub duplicate_tenth_percent: u16,
    /// Packets that overtake the queue, percent, [`controls::REORDER`]
    /// (netem `reorder`; UE `PktOrder`); 0 keeps the order.
    pub reorder_percent: u8,
    /// Gilbert–Elliott good → bad per packet, tenths of a percent,
    /// [`controls::BURST_ENTER`] × 10; 0 turns bursts off.
    pub burst_enter_tenth_percent: u16,
    /// Gilbert–Elliott bad → good per packet, percent: mean burst length
    /// = 100 / this, packets ([`controls::BURST_LENGTH`]).
    pub burst_leave_percent: u8,
    /// Loss while in a burst, percent, [`controls::BURST_LOSS`].
    pub burst_loss_percent: u8,
    /// Bandwidth cap, bytes/s, 0 (none) or [`controls::BANDWIDTH`] × 1000.
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
        check_range(names[0], self.latency_ms.into(), &controls::LATENCY, 1.0)?;
        check_range(
            names[1],
            self.jitter_ms.into(),
            &controls::DIRECTION_JITTER,
            1.0,
        )?;
        check_range(
            names[2],
            self.loss_tenth_percent.into(),
            &controls::DIRECTION_LOSS,
            10.0,
        )?;
        check_range(
            names[3],
            self.duplicate_tenth_percent.into(),
            &controls::DUPLICATE,
            10.0,
        )?;
        check_range(
            names[4],
            self.reorder_percent.into(),
            &controls::REORDER,
            1.0,
        )?;
        check_range(
            names[5],
            self.burst_enter_tenth_percent.into(),
            &controls::BURST_ENTER,
            10.0,
        )?;
        // The page shows the mean burst length; the wire holds its inverse.
        let len = controls::BURST_LENGTH;
        let leave = (100.0 / len.max).round() as u32..=(100.0 / len.min).round() as u32;
        check(names[6], self.burst_leave_percent.into(), leave)?;
        check_range(
            names[7],
            self.burst_loss_percent.into(),
            &controls::BURST_LOSS,
            1.0,
        )?;
        if self.bandwidth_bytes_per_s != 0 {
            // 0 is "no cap"; any cap is at least one step of the control.
            let cap = controls::BANDWIDTH;
            let bytes = |kb: f64| (kb * 1000.0).round() as u32;
            check(
                names[8],
                self.bandwidth_bytes_per_s,
                bytes(cap.step)..=bytes(cap.max),
            )?;
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

    /// How both conditioners carry packets when the run's transport is
    /// `transport`: for reliable-ordered, with the retransmission timeout
    /// of this link, RFC 6298 §2.3 with Linux's 200 ms floor
    /// ([`rto_ms`]). SRTT is the configured RTT ([`NetSettings::rtt_ms`]:
    /// a steady link's smoothed RTT converges to it) and RTTVAR the two
    /// directions' jitter summed, the most an RTT sample strays from it.
    /// The estimator's RTTVAR (a mean deviation) settles below that bound,
    /// so this RTO is at the high end of what a TCP sender on this link
    /// would use; at RTT 100 ms the 200 ms floor decides up to 12 ms of
    /// jitter each way anyway.
    pub fn transport(&self, transport: LinkTransport) -> Transport {
        match transport {
            LinkTransport::Datagram => Transport::Datagram,
            LinkTransport::ReliableOrdered => Transport::ReliableOrdered {
                rto_ms: rto_ms(
                    self.rtt_ms(),
                    u32::from(self.uplink.jitter_ms) + u32::from(self.downlink.jitter_ms),
                ),
            },
        }
    }
}

impl Default for NetSettings {
    /// The basic sliders' defaults: RTT 100 ms, no jitter, no loss (issue
    /// #2).
    fn default() -> Self {
        NetSettings::symmetric(
            controls::RTT.default as u16,
            controls::JITTER.default as u16,
            controls::LOSS.default as u8,
        )
    }
}

/// A lag spike the page's button asks for: both directions get `extra_ms`
/// more latency for packets sent during the next `duration_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LagSpike {
    /// Added one-way latency, ms, [`controls::SPIKE_EXTRA`].
    pub extra_ms: u16,
    /// How long packets are sent into the spike, ms,
    /// [`controls::SPIKE_DURATION`] × 1000.
    pub duration_ms: u16,
}

impl LagSpike {
    /// Checks both fields.
    ///
    /// # Errors
    /// [`SettingsError`] naming the field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check_range(
            "extra_ms",
            self.extra_ms.into(),
            &controls::SPIKE_EXTRA,
            1.0,
        )?;
        check_range(
            "duration_ms",
            self.duration_ms.into(),
            &controls::SPIKE_DURATION,
            1000.0,
        )
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
