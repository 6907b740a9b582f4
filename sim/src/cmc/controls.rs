//! The CMC model's page controls: the server's rules and the client's
//! switches. [`super::rules`] and [`super::client_config`] take their
//! ranges and defaults from them; `crate::controls` gathers them for the
//! page.

use crate::foundation::control::{range, Range, Switch};

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
/// The page runs its client in fixed 1/60 s steps instead of one move per
/// rendered frame (UE's way, `000_…` §6.3): the page's option, not a
/// setting of the run (each step is a recorded frame).
pub const FIXED_STEP: Switch = Switch {
    id: "fixed-step",
    default: false,
};
/// Client-side prediction (`000_…` §3.3: the autonomous proxy performs
/// each move at once). Off, the client still simulates each move to fill
/// the ServerMove's reported location, but draws only what the server
/// confirmed: the key-to-movement delay becomes one RTT plus the ack
/// interval (`000_…` §5.2).
pub const PREDICTION: Switch = Switch {
    id: "prediction",
    default: true,
};
/// Reconciliation: replay the unacknowledged SavedMoves after an
/// Adjustment (UE `ClientUpdatePositionAfterServerUpdate`, `000_…` §6.3–
/// §6.4). Off, the client takes the server's state and drops its
/// unacknowledged moves: it jumps back by what it moved in one RTT.
pub const RECONCILIATION: Switch = Switch {
    id: "reconciliation",
    default: true,
};
