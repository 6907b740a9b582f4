//! The move messages of the CharacterMovementComponent model: what a
//! [`ServerMove`] carries (UE `ServerMovePacked`, `000_…` §3.4) and the
//! server's verdict, [`MoveResponse`] (§5.3).

use crate::foundation::math::Vec2;
use crate::foundation::movement::{CharacterState, MoveInput};
use crate::foundation::time::TimeStamp;
use crate::net::trace::{PacketKind, Traced};
use serde::{Deserialize, Serialize};

/// One move as the server receives it (UE `FCharacterNetworkMoveData`):
/// time stamp and quantized input. The server derives the move's length
/// from the difference to the previous time stamp, as UE's
/// `GetServerMoveDeltaTime` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkMove {
    /// Client time at the end of the move, ms.
    pub time_stamp: TimeStamp,
    /// The quantized input.
    pub input: MoveInput,
}

/// A position quantized to 1/100 cm (UE `FVector_NetQuantize100`), the
/// client's answer that the server checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetPosition {
    /// x in 1/100 cm.
    pub x: i32,
    /// y in 1/100 cm.
    pub y: i32,
}

impl NetPosition {
    /// Quantizes a position (cm), saturating out-of-range or non-finite
    /// values (non-finite → 0).
    pub fn quantize(p: Vec2) -> NetPosition {
        let q = |v: f32| {
            if v.is_finite() {
                (v * 100.0).round() as i32
            } else {
                0
            }
        };
        NetPosition {
            x: q(p.x),
            y: q(p.y),
        }
    }

    /// The position in cm.
    pub fn to_vec2(self) -> Vec2 {
        Vec2::new(self.x as f32 / 100.0, self.y as f32 / 100.0)
    }
}

/// The packed move message (UE `ServerMovePacked`, `000_…` §3.4): the new
/// move, optionally the held pending move (dual move, `000_…` §8.2) and an
/// old important move sent again for redundancy (`000_…` §8.3). The server
/// runs them old → pending → new (`000_…` §4.1). On the wire it is packed
/// ([`super::packed`]): a typical new move is 15 bytes of body.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerMove {
    /// An unacknowledged important move resent in case it was lost.
    pub old_move: Option<NetworkMove>,
    /// A move held back by send throttling that could not be combined.
    pub pending_move: Option<NetworkMove>,
    /// The newest move.
    pub new_move: NetworkMove,
    /// Where the client ended up after the new move (its answer).
    pub client_location: NetPosition,
    /// The packet's sequence number, `0..=15`, counting every ServerMove the
    /// client sends (lost ones too) and wrapping: the server can tell
    /// that up to 15 of a packet's predecessors are missing (reordered or
    /// lost) — 250 ms of packets at 60 Hz — which time stamps cannot
    /// (move order correction, [`crate::cmc::server`]). UE numbers packets at the connection
    /// level (14-bit `FNetPacketNotify` sequence); this is the ServerMove's
    /// own, 4 bits in the packed header.
    pub seq: u8,
}

impl ServerMove {
    /// Largest [`ServerMove::seq`] + 1: the sequence counts modulo 16.
    pub const SEQ_MODULUS: u8 = 16;

    /// Packet number `seq` (kept modulo [`ServerMove::SEQ_MODULUS`]) with
    /// only a new move (tests, tools).
    pub fn new(seq: u32, new_move: NetworkMove, client_location: NetPosition) -> ServerMove {
        ServerMove {
            old_move: None,
            pending_move: None,
            new_move,
            client_location,
            seq: (seq % u32::from(Self::SEQ_MODULUS)) as u8,
        }
    }
}

/// Why the server corrected the client, shown by the Replayed panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AdjustmentReason {
    /// The reported location was off by more than the threshold (16 cm).
    PositionError,
    /// `p.NetForceClientAdjustmentPercent` picked this move.
    Forced,
    /// The client went silent and the server moved it on (`000_…` §9.5).
    ForcedPositionUpdate,
    /// A move was rejected for its time stamp (too far ahead).
    TimeStampRejected,
    /// A move's `dt` was clamped to 0.125 s (`000_…` §9.3).
    DeltaClamped,
    /// The client ran ahead of real time and the excess was cut (§9.4).
    TimeDiscrepancy,
}

impl AdjustmentReason {
    /// A short label for people.
    pub fn label(self) -> &'static str {
        match self {
            AdjustmentReason::PositionError => "error above threshold",
            AdjustmentReason::Forced => "forced (NetForceClientAdjustmentPercent)",
            AdjustmentReason::ForcedPositionUpdate => "forced position update",
            AdjustmentReason::TimeStampRejected => "time stamp rejected",
            AdjustmentReason::DeltaClamped => "delta clamped to 0.125 s",
            AdjustmentReason::TimeDiscrepancy => "time discrepancy",
        }
    }
}

/// The server's verdict on the newest move it checked (UE
/// `FClientAdjustment` sent by `ServerSendMoveResponse`, `000_…` §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum MoveResponse {
    /// Every move up to this time stamp was good (UE `ClientAckGoodMove`).
    Ack {
        /// The acknowledged time stamp.
        time_stamp: TimeStamp,
    },
    /// The client diverged: take this state as of this time stamp (UE
    /// `ClientAdjustPosition`).
    Adjustment {
        /// The time stamp the state belongs to.
        time_stamp: TimeStamp,
        /// The authoritative state, full precision so a replay from it is
        /// bit-identical to the server's own simulation.
        state: CharacterState,
        /// Why.
        reason: AdjustmentReason,
    },
}

impl Traced for ServerMove {
    fn traced(&self) -> (PacketKind, u32, [u32; 2]) {
        (
            PacketKind::ServerMove,
            self.new_move.time_stamp.0,
            [
                self.pending_move.map_or(0, |p| p.time_stamp.0),
                self.old_move.map_or(0, |o| o.time_stamp.0),
            ],
        )
    }
}

impl Traced for MoveResponse {
    fn traced(&self) -> (PacketKind, u32, [u32; 2]) {
        match self {
            MoveResponse::Ack { time_stamp } => (PacketKind::Ack, time_stamp.0, [0; 2]),
            MoveResponse::Adjustment { time_stamp, .. } => {
                (PacketKind::Adjustment, time_stamp.0, [0; 2])
            }
        }
    }
}
