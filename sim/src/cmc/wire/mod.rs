//! The CMC model's messages: what a [`ServerMove`] carries (UE
//! `ServerMovePacked`, `000_…` §3.4) and its packed layout, the server's
//! verdict ([`MoveResponse`], §5.3), a simulated proxy's replicated
//! movement ([`ProxyUpdate`], §7.1) and the observer view of the server
//! ([`ObserverSnapshot`]). The protocol nests them in its client and
//! server messages. Every float that feeds a simulation is quantized here
//! before anyone simulates with it (DESIGN "Time and determinism").
//!
//! | module | holds |
//! |---|---|
//! | `moves` | [`ServerMove`], [`NetworkMove`], [`NetPosition`], [`MoveResponse`], [`AdjustmentReason`] |
//! | `packed` | the packed wire layout of a [`ServerMove`] |
//! | `observer` | [`ObserverSnapshot`], [`ObservedMove`], [`ServerTotals`] |
//! | here | [`ProxyUpdate`] |

mod moves;
mod observer;
pub mod packed;

pub use moves::{AdjustmentReason, MoveResponse, NetPosition, NetworkMove, ServerMove};
pub use observer::{ObservedMove, ObserverSnapshot, ServerTotals};

use crate::foundation::math::Vec2;
use serde::{Deserialize, Serialize};

/// Another player, as replicated to a simulated proxy (UE
/// `ReplicatedMovement`, `000_…` §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProxyUpdate {
    /// Which character.
    pub id: u8,
    /// The server's replication counter: newest wins, a late or duplicate
    /// update is ignored ([`crate::net::newest_wins`]).
    pub seq: u32,
    /// Its authoritative position (cm) and velocity (cm/s).
    pub position: Vec2,
    /// Velocity, cm/s, used to extrapolate between updates.
    pub velocity: Vec2,
}
