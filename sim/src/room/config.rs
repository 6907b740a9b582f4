//! A room's settings: [`RoomConfig`] for the room, [`PlayerSettings`] for
//! each player (one player's settings never change another's view).

use super::history::{DEFAULT_MAX_RECORD_TIME_MS, MAX_RECORD_TIME_RANGE_MS};
use super::replication::MAX_CHARACTERS_PER_BATCH;
use super::weapon::WeaponConfig;
use crate::foundation::control::{check, SettingsError};
use serde::{Deserialize, Serialize};

/// Default most players in a room (issue #13), bots included.
pub const DEFAULT_MAX_PLAYERS: usize = 16;

/// The largest `max_players` a room may have: 93, so that a net update
/// about everyone else fits one frame
/// ([`MAX_CHARACTERS_PER_BATCH`]).
pub const MAX_ROOM_PLAYERS: usize = MAX_CHARACTERS_PER_BATCH + 1;

/// The room's server tick, Hz: 60, the rollback model's fixed tick
/// (`001_…` §2) and a browser's frame rate. Every tick steps the bots,
/// saves the frame history and sends the net updates that are due.
pub const TICK_HZ: u64 = 60;

/// Range of the net update rate, Hz (issue #13's slider).
pub const NET_UPDATE_HZ_RANGE: (u8, u8) = (5, 60);

/// Default net update rate, Hz: 20 (UE `NetUpdateFrequency` is per actor;
/// `000_…` §7.2: "servers usually broadcast simulated proxies at 30 Hz or
/// less").
pub const DEFAULT_NET_UPDATE_HZ: u8 = 20;

/// Default rewind cap, ms: 250, Overwatch's favor-the-shooter limit.
pub const DEFAULT_REWIND_CAP_MS: u16 = 250;

/// Largest rewind cap, ms: Source's `sv_maxunlag` default of 1.0 s.
pub const MAX_REWIND_CAP_MS: u16 = 1000;

/// How a room is set up when it is made (serde: a room recording starts
/// from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomConfig {
    /// Most players, bots included, `1..=`[`MAX_ROOM_PLAYERS`]; one more
    /// is refused.
    pub max_players: usize,
    /// How far back the frame history reaches, ms (`MaxRecordTime`); see
    /// [`MAX_RECORD_TIME_RANGE_MS`]. The one room-wide setting players can
    /// change ([`super::wire::RoomClientMsg::SetMaxRecordTime`]).
    pub max_record_time_ms: u16,
    /// Everyone's weapon.
    pub weapon: WeaponConfig,
}

impl Default for RoomConfig {
    fn default() -> Self {
        RoomConfig {
            max_players: DEFAULT_MAX_PLAYERS,
            max_record_time_ms: DEFAULT_MAX_RECORD_TIME_MS,
            weapon: WeaponConfig::default(),
        }
    }
}

impl RoomConfig {
    /// Checks every field against its range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let players = u32::try_from(self.max_players).unwrap_or(u32::MAX);
        check("max_players", players, 1..=MAX_ROOM_PLAYERS as u32)?;
        check_record_time(self.max_record_time_ms)?;
        self.weapon.validate()
    }
}

/// `MaxRecordTime` against its range.
///
/// # Errors
/// [`SettingsError`] for `max_record_time_ms`.
pub fn check_record_time(ms: u16) -> Result<(), SettingsError> {
    let (min, max) = MAX_RECORD_TIME_RANGE_MS;
    check("max_record_time_ms", ms.into(), min.into()..=max.into())
}

/// One player's own switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerSettings {
    /// How often this player receives the other characters, Hz, see
    /// [`NET_UPDATE_HZ_RANGE`]. UE sets `NetUpdateFrequency` per actor;
    /// here each viewer sets it for what *they* receive, so one player's
    /// slider never changes what another sees.
    pub net_update_hz: u8,
    /// Server-side rewind for this player's shots; off, they are judged
    /// against where the targets are now.
    pub rewind: bool,
    /// The furthest back this player's shots are rewound, ms,
    /// `0..=`[`MAX_REWIND_CAP_MS`]; an older shot is rejected as too old.
    pub rewind_cap_ms: u16,
}

impl Default for PlayerSettings {
    fn default() -> Self {
        PlayerSettings {
            net_update_hz: DEFAULT_NET_UPDATE_HZ,
            rewind: true,
            rewind_cap_ms: DEFAULT_REWIND_CAP_MS,
        }
    }
}

impl PlayerSettings {
    /// Checks every field against its range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let (lo, hi) = NET_UPDATE_HZ_RANGE;
        check(
            "net_update_hz",
            self.net_update_hz.into(),
            lo.into()..=hi.into(),
        )?;
        check(
            "rewind_cap_ms",
            self.rewind_cap_ms.into(),
            0..=MAX_REWIND_CAP_MS.into(),
        )
    }

    /// Time between two net updates to this player, µs.
    pub fn net_update_interval_us(&self) -> u64 {
        1_000_000 / u64::from(self.net_update_hz.max(1))
    }
}
