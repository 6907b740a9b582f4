//! Every control of the page, said once: its element id, range, step,
//! unit and default, in the units the page shows. The page writes these
//! onto its inputs at start and clamps to them; settings validation
//! ([`crate::net::protocol::NetSettings::validate`],
//! [`crate::ServerRules`], the scenario checks,
//! [`crate::rollback::RollbackConfig`]) derives its ranges from them; and
//! `sim/tests/controls_html.rs` fails when `www/index.html` says otherwise.
//!
//! A control's wire field may count in finer units than the page shows
//! (loss in tenths of a percent, the error threshold in tenths of a cm):
//! [`Range::scaled`] gives the range in those units.

use core::ops::RangeInclusive;

/// A slider or number input, in the units the page shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The element's id in the page; for a per-direction control, the id
    /// after `up-` / `down-` ([`DIRECTION_PREFIXES`]).
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

const fn range(
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

// ---- the link, both directions alike -------------------------------------

/// Round-trip latency, ms; each direction gets half (UE `Net PktLag` is
/// one way). Default 100 ms (issue #2).
pub const RTT: Range = range("rtt", 0.0, 1000.0, 2.0, 100.0, "ms");
/// Packet loss each way, % (UE `Net PktLoss`); 0.1 % steps reach naia's
/// 0.1 % and 0.2 % presets.
pub const LOSS: Range = range("loss", 0.0, 50.0, 0.1, 0.0, "%");
/// ± jitter each way, ms (UE `Net PktLagVariance`).
pub const JITTER: Range = range("jitter", 0.0, 100.0, 1.0, 0.0, "ms");

// ---- the link, per direction (ids after `up-` / `down-`) -----------------

/// Off: the RTT, loss and jitter sliders set both directions alike. On:
/// each direction's own inputs do (a preset with asymmetric directions
/// turns it on).
pub const SPLIT_DIRECTIONS: Switch = Switch {
    id: "net-split",
    default: false,
};

/// The id prefixes of the two directions' inputs.
pub const DIRECTION_PREFIXES: [&str; 2] = ["up-", "down-"];
/// One-way latency, ms.
pub const LATENCY: Range = range("latency", 0.0, 1000.0, 1.0, 50.0, "ms");
/// ± jitter, ms.
pub const DIRECTION_JITTER: Range = range("jitter", 0.0, 500.0, 1.0, 0.0, "ms");
/// Independent loss (the good state's with bursts on), %.
pub const DIRECTION_LOSS: Range = range("loss", 0.0, 50.0, 0.1, 0.0, "%");
/// Duplicated packets, %.
pub const DUPLICATE: Range = range("dup", 0.0, 50.0, 0.1, 0.0, "%");
/// Packets that overtake the queue, %.
pub const REORDER: Range = range("reorder", 0.0, 50.0, 1.0, 0.0, "%");
/// Gilbert–Elliott chance per packet that a loss burst starts, %.
pub const BURST_ENTER: Range = range("burst-enter", 0.0, 20.0, 0.1, 0.0, "%");
/// Mean packets a loss burst lasts (its leave chance is 100 / this %).
pub const BURST_LENGTH: Range = range("burst-len", 1.0, 100.0, 1.0, 4.0, "pkts");
/// Loss while in a burst, %: a burst loses everything unless told
/// otherwise.
pub const BURST_LOSS: Range = range("burst-loss", 0.0, 100.0, 1.0, 100.0, "%");
/// Bandwidth cap, kB/s; 0 = none.
pub const BANDWIDTH: Range = range("bandwidth", 0.0, 10_000.0, 1.0, 0.0, "kB/s");
/// Every per-direction control, in the order of the page's table.
pub const PER_DIRECTION: &[Range] = &[
    LATENCY,
    DIRECTION_JITTER,
    DIRECTION_LOSS,
    DUPLICATE,
    REORDER,
    BURST_ENTER,
    BURST_LENGTH,
    BURST_LOSS,
    BANDWIDTH,
];

// ---- lag spike ------------------------------------------------------------

/// Latency a lag spike adds each way, ms.
pub const SPIKE_EXTRA: Range = range("spike-extra", 10.0, 5000.0, 10.0, 500.0, "ms");
/// How long packets are sent into a lag spike, s. The 0.1 s floor keeps
/// the 0.2 s spikes of the golden scenarios (`scenarios/fault3-…`).
pub const SPIKE_DURATION: Range = range("spike-duration", 0.1, 30.0, 0.1, 2.0, "s");

// ---- the server's rules ---------------------------------------------------

/// Minimum time between two Acks, ms (UE
/// `NetworkMinTimeBetweenClientAckGoodMoves`, 0.10 s).
pub const ACK_INTERVAL: Range = range("ack-interval", 0.0, 1000.0, 10.0, 100.0, "ms");
/// Minimum time between two Adjustments, ms (UE
/// `NetworkMinTimeBetweenClientAdjustments`, 0.10 s).
pub const ADJUSTMENT_INTERVAL: Range = range("adjustment-interval", 0.0, 1000.0, 10.0, 100.0, "ms");
/// Position error that triggers an Adjustment, cm; 16 cm after `002_…`
/// (`MAXPOSITIONERRORSQUARED` 256).
///
/// The floor and step are 0.1 cm, the wire's resolution (tenths of a cm):
/// the engine's own default of 1.73 cm (`MAXPOSITIONERRORSQUARED` = 3) must
/// be reachable — `scenarios/fault6-…` runs at 1.7 cm — and a 0.5 cm
/// step could not show it. Reported positions are quantized to 0.01 cm, so
/// even 0.1 cm is above the quantization error.
pub const ERROR_THRESHOLD: Range = range("error-threshold", 0.1, 100.0, 0.1, 16.0, "cm");
/// Percent of checked moves corrected anyway (UE
/// `p.NetForceClientAdjustmentPercent`).
pub const FORCED_ADJUSTMENT: Range = range("forced-adjustment", 0.0, 100.0, 1.0, 0.0, "%");
/// Server-only push zones.
pub const PUSH_ZONES: Switch = Switch {
    id: "push-zones",
    default: false,
};
/// UE `bMovementTimeDiscrepancyResolution`.
pub const TD_RESOLUTION: Switch = Switch {
    id: "td-resolution",
    default: false,
};

// ---- the client -----------------------------------------------------------

/// ServerMoves per second at most while moving, Hz: 1 /
/// `ClientNetSendMoveDeltaTime` (0.0111 s ≈ 90 Hz), within UE's
/// 1/120..=1/5 s clamp.
pub const SEND_RATE: Range = range("send-rate", 5.0, 120.0, 1.0, 90.0, "Hz");
/// Percent of ServerMoves the client drops before sending (UE
/// `p.NetForceClientServerMoveLossPercent`).
pub const FORCED_MOVE_LOSS: Range = range("forced-move-loss", 0.0, 100.0, 1.0, 0.0, "%");
/// How fast the client's clock runs against real time, × (a speed hack;
/// 1 = honest).
pub const CLOCK_SPEED: Range = range("clock-speed", 0.5, 2.0, 0.05, 1.0, "×");
/// UE `p.NetEnableMoveCombining`.
pub const COMBINING: Switch = Switch {
    id: "combining",
    default: true,
};
/// Old important move resent with every ServerMove.
pub const OLD_MOVES: Switch = Switch {
    id: "old-moves",
    default: true,
};
/// Client-only 1.5× speed buff.
pub const SPEED_BUFF: Switch = Switch {
    id: "speed-buff",
    default: false,
};
/// The dash applied outside the SavedMove (`004_…`'s bug).
pub const DASH_BUG: Switch = Switch {
    id: "dash-bug",
    default: false,
};

// ---- the rollback model (`001_…`) -----------------------------------------

/// Inputs per input packet, newest first: `001_…` §6 sends 4; 1 turns
/// redundancy off.
pub const ROLLBACK_REDUNDANCY: Range = range("rollback-redundancy", 1.0, 8.0, 1.0, 4.0, "inputs");
/// Ticks the server repeats a missing input: `001_…` §5.1 holds 6, as
/// does UE's `MaximumRemoteInputFaultLimit`.
pub const ROLLBACK_HOLD_LAST: Range = range("rollback-hold-last", 0.0, 12.0, 1.0, 6.0, "ticks");
/// Ticks between two State messages: `001_…` §5.1 sends one every 2.
pub const ROLLBACK_STATE_INTERVAL: Range =
    range("rollback-state-interval", 1.0, 10.0, 1.0, 2.0, "ticks");
/// Ticks of input the client aims to have waiting at the server (Unity
/// NfE's `TargetCommandSlack` is 2).
pub const ROLLBACK_INPUT_BUFFER: Range =
    range("rollback-input-buffer", 0.0, 10.0, 1.0, 2.0, "ticks");
/// Ticks the client may predict ahead of its last confirmed State (ggrs
/// `max_prediction_window`); the default is 500 ms at the tick rate
/// ([`crate::rollback::config::DEFAULT_PREDICTION_MS`]), 30 at 60 Hz.
pub const ROLLBACK_MAX_PREDICTION: Range =
    range("rollback-max-prediction", 1.0, 448.0, 1.0, 30.0, "ticks");

// ---- a shared room (`003_…`, issue #13) ---------------------------------

/// How often the other characters are sent to this player, Hz (UE
/// `NetUpdateFrequency`; [`crate::room::config::NET_UPDATE_HZ_RANGE`]).
pub const NET_UPDATE_RATE: Range = range(
    "net-update-rate",
    crate::room::config::NET_UPDATE_HZ_RANGE.0 as f64,
    crate::room::config::NET_UPDATE_HZ_RANGE.1 as f64,
    1.0,
    crate::room::config::DEFAULT_NET_UPDATE_HZ as f64,
    "Hz",
);
/// The furthest back this player's shots are rewound, ms: 250 ms
/// (Overwatch) by default, up to Source's `sv_maxunlag` 1 s
/// ([`crate::room::config::MAX_REWIND_CAP_MS`]).
pub const REWIND_CAP: Range = range(
    "rewind-cap",
    0.0,
    crate::room::config::MAX_REWIND_CAP_MS as f64,
    10.0,
    crate::room::config::DEFAULT_REWIND_CAP_MS as f64,
    "ms",
);
/// How far back the room's frame history reaches, s (`MaxRecordTime`,
/// [`crate::room::history::MAX_RECORD_TIME_RANGE_MS`]): 0.4 s, up to the
/// reference's 4 s debug setting. Room-wide.
pub const MAX_RECORD_TIME: Range = range(
    "max-record-time",
    crate::room::history::MAX_RECORD_TIME_RANGE_MS.0 as f64 / 1000.0,
    crate::room::history::MAX_RECORD_TIME_RANGE_MS.1 as f64 / 1000.0,
    0.1,
    crate::room::history::DEFAULT_MAX_RECORD_TIME_MS as f64 / 1000.0,
    "s",
);
/// Server-side rewind for this player's shots (off: judged against where
/// the targets are now).
pub const REWIND: Switch = Switch {
    id: "rewind",
    default: true,
};
/// The ammo counter's merge: on, the reference's sequence-number fix
/// ([`crate::room::AmmoMode::Sequence`]); off, the naive overwrite.
pub const AMMO_SEQUENCE: Switch = Switch {
    id: "ammo-sequence",
    default: true,
};

/// Every slider and number input the page shows today, per-direction ones
/// once (see [`PER_DIRECTION`]).
pub const PAGE_RANGES: &[Range] = &[
    RTT,
    LOSS,
    JITTER,
    SPIKE_EXTRA,
    SPIKE_DURATION,
    ACK_INTERVAL,
    ADJUSTMENT_INTERVAL,
    ERROR_THRESHOLD,
    FORCED_ADJUSTMENT,
    SEND_RATE,
    FORCED_MOVE_LOSS,
    CLOCK_SPEED,
    NET_UPDATE_RATE,
    REWIND_CAP,
    MAX_RECORD_TIME,
];

/// Every checkbox the page shows.
pub const PAGE_SWITCHES: &[Switch] = &[
    SPLIT_DIRECTIONS,
    PUSH_ZONES,
    TD_RESOLUTION,
    COMBINING,
    OLD_MOVES,
    SPEED_BUFF,
    DASH_BUG,
    REWIND,
    AMMO_SEQUENCE,
];

/// The rollback model's sliders (its section of the page; the tick rate is
/// a select of [`crate::rollback::TickRate::ALL`]).
pub const ROLLBACK_RANGES: &[Range] = &[
    ROLLBACK_REDUNDANCY,
    ROLLBACK_HOLD_LAST,
    ROLLBACK_STATE_INTERVAL,
    ROLLBACK_INPUT_BUFFER,
    ROLLBACK_MAX_PREDICTION,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client_config::CLIENT_NET_SEND_MOVE_DELTA_TIME;
    use crate::rollback::{RollbackConfig, TickRate};
    use crate::{ClientConfig, NetSettings, ServerConfig, ServerRules};

    #[test]
    fn the_server_defaults_are_ues_numbers() {
        let ue = ServerConfig::default();
        let rules = ServerRules::default().apply_to(ue);
        assert_eq!(rules, ue, "the controls' defaults are ServerConfig's");
        assert_eq!(ACK_INTERVAL.default, 100.0);
        assert_eq!(ERROR_THRESHOLD.default, 16.0);
    }

    #[test]
    fn the_send_rate_default_is_ues_send_interval() {
        let hz = (1.0 / f64::from(CLIENT_NET_SEND_MOVE_DELTA_TIME)).round();
        assert_eq!(SEND_RATE.default, hz);
        assert_eq!(ClientConfig::default().clock_speed, 1.0);
    }

    #[test]
    fn the_link_defaults_split_the_rtt_evenly() {
        let n = NetSettings::default();
        assert_eq!(f64::from(n.uplink.latency_ms), RTT.default / 2.0);
        assert_eq!(f64::from(n.downlink.latency_ms), LATENCY.default);
        assert_eq!(n.validate(), Ok(()));
    }

    #[test]
    fn the_rollback_prediction_default_is_500_ms_at_60_hz() {
        let c = RollbackConfig::at_rate(TickRate::Hz60);
        assert_eq!(
            c.max_prediction,
            Some(ROLLBACK_MAX_PREDICTION.default as u16)
        );
        assert_eq!(f64::from(c.redundancy), ROLLBACK_REDUNDANCY.default);
    }

    #[test]
    fn the_room_controls_are_the_rooms_own_ranges() {
        use crate::room::{AmmoMode, PlayerSettings};
        let p = PlayerSettings::default();
        assert_eq!(NET_UPDATE_RATE.default, f64::from(p.net_update_hz));
        assert_eq!((NET_UPDATE_RATE.min, NET_UPDATE_RATE.max), (5.0, 60.0));
        assert_eq!(REWIND_CAP.default, f64::from(p.rewind_cap_ms));
        assert_eq!(REWIND_CAP.max, 1000.0);
        assert_eq!(REWIND.default, p.rewind);
        assert_eq!((MAX_RECORD_TIME.default, MAX_RECORD_TIME.max), (0.4, 4.0));
        assert_eq!(
            AMMO_SEQUENCE.default,
            AmmoMode::default() == AmmoMode::Sequence
        );
    }

    #[test]
    fn every_default_is_in_its_range_and_on_its_step() {
        let all = PAGE_RANGES
            .iter()
            .chain(PER_DIRECTION)
            .chain(ROLLBACK_RANGES);
        for r in all {
            assert!(r.contains(r.default), "{}", r.id);
            let steps = (r.default - r.min) / r.step;
            assert!(
                (steps - steps.round()).abs() < 1e-6,
                "{} default off-step",
                r.id
            );
            assert!(r.step > 0.0 && r.min < r.max, "{}", r.id);
        }
    }

    #[test]
    fn scaled_ranges_count_in_wire_units() {
        assert_eq!(ERROR_THRESHOLD.scaled(10.0), 1..=1000);
        assert_eq!(LOSS.scaled(10.0), 0..=500);
        assert_eq!(SPIKE_DURATION.scaled(1000.0), 100..=30_000);
        assert_eq!(CLOCK_SPEED.clamp(f64::NAN), 1.0);
        assert_eq!(CLOCK_SPEED.clamp(9.0), 2.0);
    }
}
