//! A room's page controls (`003_…`, issue #13), from the room's own
//! ranges ([`super::config`], [`super::history`]); `crate::controls`
//! gathers them for the page.

use super::config::{
    DEFAULT_NET_UPDATE_HZ, DEFAULT_REWIND_CAP_MS, MAX_REWIND_CAP_MS, NET_UPDATE_HZ_RANGE,
};
use super::history::{DEFAULT_MAX_RECORD_TIME_MS, MAX_RECORD_TIME_RANGE_MS};
use crate::foundation::control::{range, Range, Switch};

// ---- a shared room (`003_…`, issue #13) ---------------------------------

/// How often the other characters are sent to this player, Hz (UE
/// `NetUpdateFrequency`; [`NET_UPDATE_HZ_RANGE`]).
pub const NET_UPDATE_RATE: Range = range(
    "net-update-rate",
    NET_UPDATE_HZ_RANGE.0 as f64,
    NET_UPDATE_HZ_RANGE.1 as f64,
    1.0,
    DEFAULT_NET_UPDATE_HZ as f64,
    "Hz",
);
/// The furthest back this player's shots are rewound, ms: 250 ms
/// (Overwatch) by default, up to Source's `sv_maxunlag` 1 s
/// ([`MAX_REWIND_CAP_MS`]).
pub const REWIND_CAP: Range = range(
    "rewind-cap",
    0.0,
    MAX_REWIND_CAP_MS as f64,
    10.0,
    DEFAULT_REWIND_CAP_MS as f64,
    "ms",
);
/// How far back the room's frame history reaches, s (`MaxRecordTime`,
/// [`MAX_RECORD_TIME_RANGE_MS`]): 0.4 s, up to the
/// reference's 4 s debug setting. Room-wide.
pub const MAX_RECORD_TIME: Range = range(
    "max-record-time",
    MAX_RECORD_TIME_RANGE_MS.0 as f64 / 1000.0,
    MAX_RECORD_TIME_RANGE_MS.1 as f64 / 1000.0,
    0.1,
    DEFAULT_MAX_RECORD_TIME_MS as f64 / 1000.0,
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
