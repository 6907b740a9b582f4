//! Message types. Client → server: [`ClientMsg`]; server → client:
//! [`ServerMsg`]. Both prediction models speak this one protocol: the
//! connection's messages (Hello / Welcome, settings, Ping / Pong, lag
//! spikes, resume, errors, the model switch) are shared, and each model
//! adds its own — the CMC model's ServerMove / MoveResponse / Proxy /
//! Observer, the rollback model's Inputs / [`ServerMsg::Rollback`] /
//! [`ServerMsg::RollbackObserver`] ([`crate::rollback::wire`]), and a
//! shared room's [`ClientMsg::Room`] / [`ServerMsg::Room`]
//! ([`crate::room::wire`]; a room player's moves are the CMC model's). Every
//! float that feeds a simulation is quantized here before anyone
//! simulates with it (DESIGN "Time and determinism").
//!
//! | module | holds |
//! |---|---|
//! | `moves` | [`ServerMove`], [`NetworkMove`], [`NetPosition`], [`MoveResponse`], [`AdjustmentReason`] |
//! | `settings` | [`NetSettings`], [`LinkSettings`], [`LagSpike`], [`ServerRules`], [`SettingsError`] |
//! | `observer` | [`ObserverSnapshot`] and its totals |
//! | here | the two message enums, [`ProxyUpdate`], [`ResumeToken`] |

mod moves;
mod observer;
mod settings;

pub use moves::{AdjustmentReason, MoveResponse, NetPosition, NetworkMove, ServerMove};
pub use observer::{DirectionTotals, LinkTotals, ObservedMove, ObserverSnapshot, ServerTotals};
pub use settings::{LagSpike, LinkSettings, NetSettings, ServerRules, SettingsError};

use crate::math::Vec2;
use crate::model::Model;
use crate::movement::MovementParams;
use crate::net::link_stats::SeqWindow;
use crate::rollback::wire::{InputPacket, RollbackObserver, RollbackServerMsg};
use crate::room::wire::{RoomClientMsg, RoomServerMsg};
use crate::world::World;
use serde::{Deserialize, Serialize};

/// A client → server message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ClientMsg {
    /// First message of a connection.
    Hello,
    /// Moves to re-simulate.
    ServerMove(ServerMove),
    /// New link slider values; applied at once (control channel, not
    /// delayed).
    SetNetSettings(NetSettings),
    /// New server rules; applied at once.
    SetServerRules(ServerRules),
    /// RTT probe; answered with a [`ServerMsg::Pong`] carrying the same id.
    /// Travels through the link conditioner like moves do.
    Ping {
        /// Sender's sequence number, from 1 (see [`super::link_stats`]).
        id: u32,
    },
    /// Start a lag spike on both directions now (control channel).
    LagSpike(LagSpike),
    /// Instead of Hello, on a new connection after the old one dropped:
    /// take over the session `token` names, character and all (reference
    /// `003_…` 断线重连). Answered with a Welcome (the client keeps its
    /// predicted state; the server corrects it with its next response), or
    /// an Error when the token is unknown or its grace period is over.
    /// Only the relay keeps sessions; a host on its own refuses it.
    Resume {
        /// The token from the old connection's [`ServerMsg::SessionToken`].
        token: ResumeToken,
    },
    /// Switch to another prediction model, or change the rollback
    /// model's settings; applied at once (control channel). Another model
    /// starts afresh and is announced with a Welcome naming it; the link,
    /// its settings, the rules and the resume token carry over.
    SetModel(Model),
    /// The rollback model's input packet: the last inputs, every client
    /// tick. Travels through the link conditioner.
    Inputs(InputPacket),
    /// A shared room's own message (join, clock sync, shots, reloads, the
    /// player's room switches, add bot: [`crate::room::wire`]). Only a
    /// room answers it; a single-player host refuses it.
    Room(RoomClientMsg),
}

/// An unguessable name for a session (128 random bits from the relay's OS
/// randomness): whoever holds it may resume the session, so it is sent only
/// to that session's client.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ResumeToken(pub [u8; 16]);

impl std::fmt::Debug for ResumeToken {
    /// Never prints the secret itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResumeToken(…)")
    }
}

/// Another player, as replicated to a simulated proxy (UE
/// `ReplicatedMovement`, `000_…` §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProxyUpdate {
    /// Which character.
    pub id: u8,
    /// The server's replication counter: newest wins, a late or duplicate
    /// update is ignored ([`super::newest_wins`]).
    pub seq: u32,
    /// Its authoritative position (cm) and velocity (cm/s).
    pub position: Vec2,
    /// Velocity, cm/s, used to extrapolate between updates.
    pub velocity: Vec2,
}

/// A server → client message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ServerMsg {
    /// Reply to Hello: the world and rules both sides simulate.
    Welcome {
        /// The arena.
        world: World,
        /// Movement constants.
        params: MovementParams,
        /// Current network settings.
        settings: NetSettings,
        /// Current server rules.
        rules: ServerRules,
        /// The prediction model the server runs (the client builds its
        /// half of it).
        model: Model,
    },
    /// Ack or Adjustment.
    MoveResponse(MoveResponse),
    /// A simulated proxy's replicated movement.
    Proxy(ProxyUpdate),
    /// The server's true state (debug view).
    Observer(ObserverSnapshot),
    /// Answer to a Ping.
    Pong {
        /// The Ping's id.
        id: u32,
        /// The Ping ids the server has received, for the client's
        /// observed-loss read-out ([`super::link_stats`]).
        received: SeqWindow,
    },
    /// Something the client sent was rejected; the session goes on.
    Error {
        /// Why, for people.
        reason: String,
    },
    /// Sent by the relay after a Welcome: the token that resumes this
    /// session from a new connection within `grace_ms` of this one
    /// dropping ([`ClientMsg::Resume`]).
    SessionToken {
        /// The secret.
        token: ResumeToken,
        /// How long the relay keeps the session after the socket drops, ms.
        grace_ms: u32,
    },
    /// The rollback model's Start, Ack or State (through the link
    /// conditioner).
    Rollback(RollbackServerMsg),
    /// The rollback server's true state (debug view, like
    /// [`ServerMsg::Observer`]).
    RollbackObserver(RollbackObserver),
    /// A shared room's own message (joined or refused, roster, net
    /// updates, clock sync, shot verdicts, ammo: [`crate::room::wire`]).
    Room(RoomServerMsg),
}
