//! Replicated movement (UE `ReplicatedMovement` + `ReplicatedMovementMode`,
//! `000_…` §7.1): who a player is, what one net update says about each
//! other character, quantized, and how many characters fit one frame —
//! which bounds how many players a room may hold.

use super::seq::Seq;
use crate::cmc::wire::NetPosition;
use crate::foundation::math::Vec2;
use crate::foundation::movement::{CharacterState, MovementParams};
use crate::foundation::time::SimTime;
use crate::net::codec::MAX_FRAME_LEN;
use serde::{Deserialize, Serialize};

/// A player of a room, given by the room on joining and never reused
/// while the room lives (a late update about a player who left cannot be
/// mistaken for a newcomer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PlayerId(pub u32);

/// A velocity in whole cm/s (UE `FRepMovement`'s default
/// `VelocityQuantizationLevel::RoundWholeNumber`), saturating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetVelocity {
    /// x, cm/s.
    pub x: i16,
    /// y, cm/s.
    pub y: i16,
}

impl NetVelocity {
    /// Rounds to whole cm/s (non-finite → 0).
    pub fn quantize(v: Vec2) -> NetVelocity {
        let q = |c: f32| if c.is_finite() { c.round() as i16 } else { 0 };
        NetVelocity {
            x: q(v.x),
            y: q(v.y),
        }
    }

    /// cm/s.
    pub fn to_vec2(self) -> Vec2 {
        Vec2::new(self.x.into(), self.y.into())
    }
}

/// What a character is doing (UE `ReplicatedMovementMode`, `000_…` §7.1;
/// the arena has only a floor, so walking, or dashing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MovementMode {
    /// On foot.
    #[default]
    Walking,
    /// Within a dash's braking-free time ([`MovementParams::dash_duration`]).
    Dashing,
}

impl MovementMode {
    /// The mode of `state`.
    pub fn of(state: &CharacterState, params: &MovementParams) -> MovementMode {
        if state.dash_cooldown > params.dash_cooldown - params.dash_duration {
            MovementMode::Dashing
        } else {
            MovementMode::Walking
        }
    }
}

/// One character's replicated movement (UE `ReplicatedMovement` +
/// `ReplicatedMovementMode`, `000_…` §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicatedMovement {
    /// Whose.
    pub id: PlayerId,
    /// Location, 1/100 cm.
    pub position: NetPosition,
    /// Velocity, whole cm/s.
    pub velocity: NetVelocity,
    /// Walking or dashing.
    pub mode: MovementMode,
}

/// Largest encoded [`ReplicatedMovement`], bytes: varint id (5) +
/// position (5 + 5) + velocity (3 + 3) + mode (1).
pub const REPLICATED_MOVEMENT_MAX_LEN: usize = 22;

/// Largest encoded [`ProxyBatch`] frame without its characters, bytes:
/// version (1) + `ServerMsg::Room` (1) + `Proxies` (1) + seq (5) + server
/// time (10) + count (1).
pub const PROXY_BATCH_HEADER_MAX_LEN: usize = 19;

/// Most characters one net update can carry and still fit
/// [`MAX_FRAME_LEN`]: 92. A room holds at most one
/// more player than this ([`super::config::RoomConfig::max_players`]).
pub const MAX_CHARACTERS_PER_BATCH: usize =
    (MAX_FRAME_LEN - PROXY_BATCH_HEADER_MAX_LEN) / REPLICATED_MOVEMENT_MAX_LEN;

/// One net update to one player: every *other* character as the server had
/// it at one tick. State, not events: the newest `seq` wins, an older or
/// equal one is ignored, and a character missing from it has left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyBatch {
    /// The replication counter: the server tick the state is from.
    pub seq: Seq,
    /// Server time of that tick.
    pub server_time: SimTime,
    /// The characters, by id.
    pub characters: Vec<ReplicatedMovement>,
}
