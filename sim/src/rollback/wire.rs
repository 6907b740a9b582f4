//! The rollback model's messages (`001_…` §5.3, §6). They travel nested in
//! the one protocol both models share — [`InputPacket`] as
//! [`crate::protocol::ClientMsg::Inputs`], the server's as
//! [`crate::protocol::ServerMsg::Rollback`] and
//! [`crate::protocol::ServerMsg::RollbackObserver`] — so Hello,
//! Welcome, settings, Pings, lag spikes and the resume token are the CMC
//! model's own, framed by the crate's codec (postcard after the protocol
//! version byte). Every message after Start carries [`Ids`] — magic,
//! version, session, match and player — so a packet of another protocol,
//! an older build, a previous connection or a previous match is rejected
//! (`001_…` §4.4, §6).
//!
//! | message | when | bytes (typical, framed) |
//! |---|---|---|
//! | `ClientMsg::Inputs` | every client tick, last 4 inputs | 26 |
//! | [`RollbackServerMsg::Start`] | after the Welcome, and for a new match | ≈ 43 |
//! | [`RollbackServerMsg::Ack`] | every server tick | 20 |
//! | [`RollbackServerMsg::State`] | every 2 server ticks | ≈ 63 + 12 per projectile |
//! | [`RollbackServerMsg::Watch`] | a spectator's Watch answered | ≈ 44 |
//! | [`RollbackServerMsg::View`] | to each spectator, with every State | ≈ 44 + 12 per projectile |
//! | [`RollbackObserver`] | 20 Hz, past the conditioner (debug view) | ≈ 78 + 12 per projectile |
//!
//! (`sim/tests/rollback_wire.rs` pins these.) Ticks go as postcard
//! varints, so the bytes grow by up to 2 per tick field near the wrap.

use super::input::InputCmd;
use super::server::StateUpdate;
use super::snapshot::{MmVec, Snapshot};
use super::tick::{Tick, TickRate};
use crate::net::totals::LinkTotals;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// First bytes of every rollback message's [`Ids`] ("RB").
pub const MAGIC: [u8; 2] = *b"RB";
/// Layout version of the rollback messages; bump on any change.
pub const VERSION: u8 = 1;
/// Most inputs an input packet may carry (the top of
/// [`super::config::REDUNDANCY`]).
pub const MAX_INPUTS_PER_PACKET: usize = 8;

/// Who and what a message belongs to (`001_…` §4.4: "playerId + sessionId
/// + matchId").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ids {
    /// [`MAGIC`].
    pub magic: [u8; 2],
    /// [`VERSION`].
    pub version: u8,
    /// The connection, chosen by the host.
    pub session: u32,
    /// The match within the session; a new tick rate or start tick starts a
    /// new one.
    pub match_id: u32,
    /// The client's player index.
    pub player: u8,
}

/// Which identity check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum IdentityError {
    /// Not a rollback message.
    #[error("bad magic")]
    Magic,
    /// Another layout version.
    #[error("rollback layout version {0} is not supported")]
    Version(u8),
    /// Another connection.
    #[error("wrong session")]
    Session,
    /// Another (older) match.
    #[error("wrong match")]
    Match,
    /// Another player.
    #[error("wrong player")]
    Player,
}

impl Ids {
    /// Ids of a session's match for `player`.
    pub const fn new(session: u32, match_id: u32, player: u8) -> Ids {
        Ids {
            magic: MAGIC,
            version: VERSION,
            session,
            match_id,
            player,
        }
    }

    /// Checks `self` (received) against `expected`, in the order magic,
    /// version, session, match, player.
    ///
    /// # Errors
    /// The first [`IdentityError`] that applies.
    pub fn check(&self, expected: &Ids) -> Result<(), IdentityError> {
        if self.magic != MAGIC {
            Err(IdentityError::Magic)
        } else if self.version != VERSION {
            Err(IdentityError::Version(self.version))
        } else if self.session != expected.session {
            Err(IdentityError::Session)
        } else if self.match_id != expected.match_id {
            Err(IdentityError::Match)
        } else if self.player != expected.player {
            Err(IdentityError::Player)
        } else {
            Ok(())
        }
    }
}

/// An input without its tick (the packet or State implies it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PackedInput {
    /// [`InputCmd::buttons`].
    pub buttons: u16,
    /// [`InputCmd::move_x`].
    pub move_x: i8,
    /// [`InputCmd::move_y`].
    pub move_y: i8,
}

impl PackedInput {
    /// Drops the tick.
    pub const fn pack(c: &InputCmd) -> PackedInput {
        PackedInput {
            buttons: c.buttons,
            move_x: c.move_x,
            move_y: c.move_y,
        }
    }

    /// Puts the tick back.
    pub const fn at(self, tick: Tick) -> InputCmd {
        InputCmd {
            tick,
            buttons: self.buttons,
            move_x: self.move_x,
            move_y: self.move_y,
        }
    }
}

/// The last inputs of one client (`001_…` §6): `newest` and the ticks
/// before it, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputPacket {
    /// Sender.
    pub ids: Ids,
    /// Tick of `inputs[0]`.
    pub newest: Tick,
    /// Inputs of `newest`, `newest − 1`, …; at most
    /// [`MAX_INPUTS_PER_PACKET`] (the host refuses a packet with more
    /// before it enters the uplink).
    pub inputs: Vec<PackedInput>,
}

impl InputPacket {
    /// The inputs with their ticks, newest first.
    pub fn cmds(&self) -> impl Iterator<Item = InputCmd> + '_ {
        self.inputs
            .iter()
            .enumerate()
            .map(|(i, p)| p.at(self.newest.minus(i as u32)))
    }
}

/// The server's per-tick progress report (`001_…` §5.3 ACK: "tick
/// processed, newest input tick, receive statistics").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckMsg {
    /// Recipient.
    pub ids: Ids,
    /// The tick just processed.
    pub tick: Tick,
    /// The newest input tick received from this player, if any.
    pub newest_input: Option<Tick>,
    /// Input buffer depth, ticks (newest input − processed), saturated
    /// to `i8`; `None` before the first input.
    pub buffer: Option<i8>,
    /// Ticks this player's input was held or defaulted so far.
    pub missed: u32,
    /// This player's inputs that arrived after their tick so far.
    pub late: u32,
}

/// An authoritative state (`001_…` §5.3 State: "restorable state, tick,
/// hash") plus the inputs used for the ticks since the previous State.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateMsg {
    /// Recipient.
    pub ids: Ids,
    /// [`Snapshot::state_hash`], little-endian (8 bytes; a varint would
    /// take 10 for a typical hash).
    pub hash: [u8; 8],
    /// The state; its tick is the State's tick.
    pub snapshot: Snapshot,
    /// Inputs used for the ticks before the snapshot's, oldest tick first,
    /// player order within a tick.
    pub inputs: Vec<PackedInput>,
}

impl StateMsg {
    /// The message for `update`.
    pub fn new(ids: Ids, update: &StateUpdate<Snapshot>) -> StateMsg {
        StateMsg {
            ids,
            hash: update.hash.to_le_bytes(),
            snapshot: update.state.clone(),
            inputs: update.inputs.iter().map(PackedInput::pack).collect(),
        }
    }

    /// Back to a [`StateUpdate`] for a game of `players` players (ticks
    /// restored from the snapshot's); `None` if the inputs do not fill
    /// whole ticks.
    pub fn into_update(self, players: usize) -> Option<StateUpdate<Snapshot>> {
        if players == 0 || self.inputs.len() % players != 0 {
            return None;
        }
        let ticks = (self.inputs.len() / players) as u32;
        let first = self.snapshot.tick.minus(ticks);
        let inputs = self
            .inputs
            .iter()
            .enumerate()
            .map(|(i, p)| p.at(first.plus((i / players) as u32)))
            .collect();
        Some(StateUpdate {
            hash: u64::from_le_bytes(self.hash),
            state: self.snapshot,
            inputs,
        })
    }
}

/// The start of a match: who the client is and where the match stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartMsg {
    /// The client's ids for this match.
    pub ids: Ids,
    /// Simulation rate.
    pub tick_rate: TickRate,
    /// The server's state when it answered (the client starts from it).
    pub snapshot: Snapshot,
}

/// The match as a spectator sees it (issue 22): the authoritative world
/// with its hash and who sits where — no seat and so no [`Ids`] (a
/// spectator sends no input), and no inputs (it predicts nothing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewMsg {
    /// The match it shows ([`Ids::match_id`] of its players).
    pub match_id: u32,
    /// Simulation rate.
    pub tick_rate: TickRate,
    /// [`Snapshot::state_hash`] of `snapshot`, little-endian (as
    /// [`StateMsg::hash`]).
    pub hash: [u8; 8],
    /// The authoritative world; its tick is the view's.
    pub snapshot: Snapshot,
    /// Seats taken by remote players: bit `i` is seat (player index) `i`.
    pub players: u8,
    /// Seats taken by the server's bots: bit `i` is seat `i`.
    pub bots: u8,
}

impl ViewMsg {
    /// The seats with a remote player (`players`) or a bot (`bots`) in
    /// `mask`, ascending.
    pub fn seats(mask: u8) -> impl Iterator<Item = usize> {
        (0..8).filter(move |i| mask & (1 << i) != 0)
    }

    /// [`ViewMsg::hash`] as a number.
    pub fn hash(&self) -> u64 {
        u64::from_le_bytes(self.hash)
    }
}

/// Server → client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RollbackServerMsg {
    /// A match started: after the Welcome that names the rollback model,
    /// and when a new tick rate or start tick starts a new one.
    Start(StartMsg),
    /// Every tick.
    Ack(AckMsg),
    /// Every `state_interval` ticks.
    State(StateMsg),
    /// The answer to a spectator's
    /// [`crate::room::wire::RoomClientMsg::Watch`]: the match as it
    /// stands (issue 22).
    Watch(ViewMsg),
    /// To a spectator, with every State (every `state_interval` ticks).
    View(ViewMsg),
}

impl RollbackServerMsg {
    /// The ids the message carries; `None` for a spectator's messages
    /// (they name no seat).
    pub fn ids(&self) -> Option<&Ids> {
        match self {
            RollbackServerMsg::Start(m) => Some(&m.ids),
            RollbackServerMsg::Ack(m) => Some(&m.ids),
            RollbackServerMsg::State(m) => Some(&m.ids),
            RollbackServerMsg::Watch(_) | RollbackServerMsg::View(_) => None,
        }
    }
}

/// What the server did at one tick for the client's player, for the
/// Authoritative panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedTick {
    /// The player's position after the tick, mm.
    pub position: MmVec,
    /// The player's own input was missing: held or defaulted.
    pub missed: bool,
}

/// The server's counters for the client's player (saturating at
/// `u32::MAX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RollbackServerTotals {
    /// Ticks processed in this match.
    pub ticks: u32,
    /// Inputs stored for a tick not yet processed.
    pub received: u32,
    /// Inputs received again (redundancy at work).
    pub duplicates: u32,
    /// Inputs that arrived after their tick.
    pub late: u32,
    /// Inputs too far ahead of the server's tick, dropped.
    pub out_of_window: u32,
    /// Ticks that repeated the last input (hold-last).
    pub held: u32,
    /// Ticks that used the empty input (hold-last ran out).
    pub defaulted: u32,
    /// Input packets refused for their ids (another match or session).
    pub identity_rejected: u32,
}

/// The server's true state, streamed to the page for the Authoritative
/// panel (the rollback model's [`crate::cmc::wire::ObserverSnapshot`]):
/// a debug view past the link conditioner, not counted in bytes/s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollbackObserver {
    /// The host's replication counter (newest wins).
    pub seq: u32,
    /// The server's state now (its tick inside).
    pub snapshot: Snapshot,
    /// The ticks since the previous view, oldest first (at most
    /// [`RollbackObserver::MAX_TICKS`]; older ones are left out).
    pub ticks: Vec<ObservedTick>,
    /// The server's counters so far.
    pub totals: RollbackServerTotals,
    /// What the host's two link conditioners did so far.
    pub link: LinkTotals,
}

impl RollbackObserver {
    /// Cap on [`RollbackObserver::ticks`] per view (0.27 s at 120 Hz, more
    /// than the 50 ms between two views).
    pub const MAX_TICKS: usize = 32;
}
