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
//! | `ClientMsg::SeatReport` ([`SeatReport`]) | a room player, once a second | ≈ 21 |
//! | [`RollbackServerMsg::Seats`] ([`SeatsMsg`]) | a room, twice a second, to players and spectators | ≈ 12 + 12 per player, 7 per bot |
//!
//! (`sim/tests/rollback_wire.rs` and, for the room's two,
//! `sim/tests/seats.rs` pin these.) Ticks go as postcard
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
    /// A rollback room's per-seat numbers (issue 22), about twice a
    /// second to every player and spectator.
    Seats(SeatsMsg),
}

impl RollbackServerMsg {
    /// The ids the message carries; `None` for a spectator's messages
    /// (they name no seat).
    pub fn ids(&self) -> Option<&Ids> {
        match self {
            RollbackServerMsg::Start(m) => Some(&m.ids),
            RollbackServerMsg::Ack(m) => Some(&m.ids),
            RollbackServerMsg::State(m) => Some(&m.ids),
            RollbackServerMsg::Watch(_)
            | RollbackServerMsg::View(_)
            | RollbackServerMsg::Seats(_) => None,
        }
    }
}

/// Most round trip a [`SeatReport`] may claim, ms (10 s: a page that
/// measures more is not playing; a larger claim is refused).
pub const MAX_REPORTED_RTT_MS: u16 = 10_000;
/// Most time dilation a [`SeatReport`] may claim either way, thousandths
/// (the clock's ±[`super::time_sync::MAX_DILATION`] = ±10 %).
pub const MAX_REPORTED_DILATION_PERMILLE: i8 = 100;

/// What only a player's own page knows of its seat (issue 22): measured,
/// rounded and sent about once a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReportedStats {
    /// The page's newest Ping round trip through its link, ms,
    /// `0..=`[`MAX_REPORTED_RTT_MS`]; `None` before the first Pong.
    pub rtt_ms: Option<u16>,
    /// Its local input delay, ticks, in
    /// [`super::config::INPUT_DELAY`] (0–15).
    pub input_delay: u8,
    /// Its clock's time dilation − 1, thousandths,
    /// `−`[`MAX_REPORTED_DILATION_PERMILLE`]`..=`[`MAX_REPORTED_DILATION_PERMILLE`]
    /// (1.004 is 4).
    pub dilation_permille: i8,
}

impl ReportedStats {
    /// The numbers of a page that measured `rtt_ms` (ms), plays with
    /// `input_delay` (ticks) and runs its clock at `dilation` (a factor
    /// near 1): rounded and clamped into their ranges.
    pub fn measured(rtt_ms: Option<f64>, input_delay: u8, dilation: f64) -> ReportedStats {
        let max_d = f64::from(MAX_REPORTED_DILATION_PERMILLE);
        ReportedStats {
            rtt_ms: rtt_ms.map(|ms| ms.round().clamp(0.0, f64::from(MAX_REPORTED_RTT_MS)) as u16),
            input_delay: input_delay.min(*super::config::INPUT_DELAY.end()),
            dilation_permille: ((dilation - 1.0) * 1000.0).round().clamp(-max_d, max_d) as i8,
        }
    }

    /// Whether every number is in its range (a report outside is refused
    /// and counted by the match).
    pub fn in_range(&self) -> bool {
        self.rtt_ms.is_none_or(|ms| ms <= MAX_REPORTED_RTT_MS)
            && super::config::INPUT_DELAY.contains(&self.input_delay)
            && self.dilation_permille.unsigned_abs() <= MAX_REPORTED_DILATION_PERMILLE as u8
    }

    /// [`ReportedStats::dilation_permille`] as the factor (1.004).
    pub fn dilation(&self) -> f64 {
        1.0 + f64::from(self.dilation_permille) / 1000.0
    }
}

/// A player's report of its own numbers (issue 22), about once a second
/// through its uplink conditioner (as `ClientMsg::SeatReport`); checked
/// against the seat its [`Ids`] name, like an [`InputPacket`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatReport {
    /// Sender.
    pub ids: Ids,
    /// Its numbers.
    pub stats: ReportedStats,
}

/// One seat of a [`SeatsMsg`]: what the server knows of it and the
/// player's last report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRow {
    /// Player index (seat), `0..8`.
    pub seat: u8,
    /// A server-driven bot sits there (it reports nothing).
    pub bot: bool,
    /// Input buffer depth at the server after the last tick, ticks
    /// (newest input − tick processed), saturated to `i8`; `None` before
    /// the first input.
    pub buffer: Option<i8>,
    /// Ticks the server held or defaulted this seat's input so far.
    pub missed: u32,
    /// This seat's inputs that arrived after their tick so far.
    pub late: u32,
    /// The player's last [`SeatReport`] if it arrived within the last
    /// 3 s of match time; `None` otherwise (stale, never sent, a bot).
    pub report: Option<ReportedStats>,
}

/// Every seated player's and bot's numbers (issue 22): the per-player
/// table of each page and spectator. No [`Ids`]: it names no recipient.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatsMsg {
    /// The match ([`Ids::match_id`] of its players).
    pub match_id: u32,
    /// The last tick processed when it was made.
    pub tick: Tick,
    /// One row per seated player or bot, by seat ascending.
    pub rows: Vec<SeatRow>,
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
