//! The authority (`001_…` §5.1 `AuthoritativeServer::AdvanceOneTick`):
//! buffers each player's inputs by tick, picks one input per player per
//! tick — the received one, else the last one held for at most the
//! hold-last limit, else the empty input — steps the world, and says what
//! the Ack and the State carry.
//!
//! ```text
//! InputPacket ─► receive_inputs: window check, ring by tick (duplicates idempotent)
//! advance: per player  received │ held (≤ limit) │ empty  ─► Game::step
//!          ─► ack(player) every tick, state_update(k) every k ticks
//! ```

use super::config::HISTORY_CAPACITY;
use super::game::Game;
use super::input::{InputCmd, TickRing};
use super::tick::Tick;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Where the input the server used for one player at one tick came from
/// (`001_…` §5.1 `AuthoritativeServer::AdvanceOneTick`: "the input if it
/// arrived, else hold the last, then empty").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InputFill {
    /// The player's own input for that tick, as received.
    #[serde(rename = "R")]
    Received,
    /// Missing: the previous tick's input repeated (hold-last, at most
    /// the hold-last limit in a row).
    #[serde(rename = "H")]
    Held,
    /// Missing and not held: the empty input (before the player's first
    /// input, or once hold-last ran out).
    #[serde(rename = "E")]
    Empty,
}

/// What the server did with one player's inputs so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InputCounters {
    /// Inputs stored for a tick not yet processed.
    pub received: u64,
    /// Inputs for a tick already stored (redundancy at work; no effect).
    pub duplicates: u64,
    /// Inputs that arrived after their tick was processed without them.
    pub late: u64,
    /// Inputs too far ahead of the server's tick (beyond the ring); dropped.
    pub out_of_window: u64,
    /// Ticks that repeated the last input because the input was missing.
    pub held: u64,
    /// Ticks that used the empty input because hold-last ran out.
    pub defaulted: u64,
}

impl InputCounters {
    /// Ticks decided without the player's own input (`missed-inputs`):
    /// held + defaulted, counted from the player's first input on.
    pub fn missed(&self) -> u64 {
        self.held + self.defaulted
    }
}

#[derive(Debug, Clone)]
struct PlayerInputs {
    ring: TickRing<InputCmd>,
    /// The input used at the previous tick, what hold-last repeats.
    last: Option<InputCmd>,
    /// Consecutive ticks held so far.
    held: u8,
    newest: Option<Tick>,
    counters: InputCounters,
}

impl PlayerInputs {
    fn new() -> PlayerInputs {
        PlayerInputs {
            ring: TickRing::new(HISTORY_CAPACITY),
            last: None,
            held: 0,
            newest: None,
            counters: InputCounters::default(),
        }
    }
}

/// A player index the server does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("no player {0}")]
pub struct UnknownPlayer(pub usize);

/// An authoritative state with the inputs that produced it: what a State
/// message carries.
#[derive(Debug, Clone, PartialEq)]
pub struct StateUpdate<S> {
    /// The state (its own tick inside).
    pub state: S,
    /// [`Game::state_hash`] of `state` as the server computed it.
    pub hash: u64,
    /// The inputs the server used for the ticks just before `state`, oldest
    /// tick first, one per player per tick, each stamped with the tick it
    /// was used at. The client predicts remote players from the newest and
    /// checks determinism with all of them.
    pub inputs: Vec<InputCmd>,
}

/// What the server tells one player every tick (the Ack's content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckInfo {
    /// The tick just processed.
    pub tick: Tick,
    /// The newest input tick received from the player.
    pub newest_input: Option<Tick>,
    /// Input buffer depth, ticks: newest input tick − processed tick (2 =
    /// inputs arrive two ticks early; negative = late); `None` before the
    /// first input.
    pub buffer: Option<i32>,
    /// The player's missed inputs so far.
    pub missed: u64,
    /// The player's late inputs so far.
    pub late: u64,
}

/// The authoritative simulation of one match.
#[derive(Debug, Clone)]
pub struct RollbackServer<G: Game> {
    game: G,
    state: G::State,
    players: Vec<PlayerInputs>,
    hold_last_limit: u8,
    /// Inputs used per tick, for State messages.
    used: TickRing<Vec<InputCmd>>,
    /// The inputs used at the last tick processed, in player order.
    scratch: Vec<InputCmd>,
    /// Where each of `scratch` came from.
    fills: Vec<InputFill>,
}

/// Ticks of used inputs kept for State messages (≥ the longest interval).
const USED_KEPT: usize = 16;

impl<G: Game> RollbackServer<G> {
    /// A server starting from `initial` that holds a missing input for at
    /// most `hold_last_limit` ticks.
    pub fn new(game: G, initial: G::State, hold_last_limit: u8) -> RollbackServer<G> {
        let players = (0..game.players()).map(|_| PlayerInputs::new()).collect();
        RollbackServer {
            game,
            state: initial,
            players,
            hold_last_limit,
            used: TickRing::new(USED_KEPT),
            scratch: Vec::new(),
            fills: Vec::new(),
        }
    }

    /// Forgets everything about `player`'s inputs — ring, held input,
    /// counters — for a new occupant of the seat: until their first input
    /// arrives they stand still without a miss counted, as at the start.
    ///
    /// # Errors
    /// [`UnknownPlayer`] if there is no such player.
    pub fn reset_player(&mut self, player: usize) -> Result<(), UnknownPlayer> {
        let p = self.players.get_mut(player).ok_or(UnknownPlayer(player))?;
        *p = PlayerInputs::new();
        Ok(())
    }

    /// Changes the hold-last limit from the next tick on.
    pub fn set_hold_last_limit(&mut self, ticks: u8) {
        self.hold_last_limit = ticks;
    }

    /// The authoritative state (at [`RollbackServer::tick`]).
    pub fn state(&self) -> &G::State {
        &self.state
    }

    /// The next tick to process.
    pub fn tick(&self) -> Tick {
        G::tick(&self.state)
    }

    /// The game being run.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Stores `player`'s inputs by tick. Buttons outside
    /// [`InputCmd::ALL_BUTTONS`] are cleared.
    ///
    /// # Errors
    /// [`UnknownPlayer`] if there is no such player; nothing is stored.
    pub fn receive_inputs(
        &mut self,
        player: usize,
        cmds: &[InputCmd],
    ) -> Result<(), UnknownPlayer> {
        let next = self.tick();
        let p = self.players.get_mut(player).ok_or(UnknownPlayer(player))?;
        for cmd in cmds {
            let ahead = cmd.tick.diff(next);
            if (ahead.unsigned_abs() as usize) < p.ring.capacity() {
                // Late ones too: the Ack's buffer must show how late.
                if p.newest.is_none_or(|n| cmd.tick.is_after(n)) {
                    p.newest = Some(cmd.tick);
                }
            }
            if p.ring.contains(cmd.tick) {
                p.counters.duplicates += 1;
            } else if ahead < 0 {
                p.counters.late += 1;
            } else if ahead as usize >= p.ring.capacity() {
                p.counters.out_of_window += 1;
            } else {
                let clean = InputCmd {
                    buttons: cmd.buttons & InputCmd::ALL_BUTTONS,
                    ..*cmd
                };
                p.ring.insert(cmd.tick, clean);
                p.counters.received += 1;
            }
        }
        Ok(())
    }

    /// Processes one tick: picks each player's input and steps the world.
    /// Returns the tick processed.
    pub fn advance(&mut self) -> Tick {
        let t = self.tick();
        let limit = self.hold_last_limit;
        self.scratch.clear();
        self.fills.clear();
        for p in &mut self.players {
            let (cmd, fill) = if let Some(c) = p.ring.get(t) {
                p.held = 0;
                (*c, InputFill::Received)
            } else if p.newest.is_none() {
                // Not joined yet: standing still is not a miss.
                (InputCmd::empty(t), InputFill::Empty)
            } else if let Some(last) = p.last.filter(|_| p.held < limit) {
                p.held += 1;
                p.counters.held += 1;
                (last.at(t), InputFill::Held)
            } else {
                p.counters.defaulted += 1;
                (InputCmd::empty(t), InputFill::Empty)
            };
            p.last = Some(cmd);
            self.scratch.push(cmd);
            self.fills.push(fill);
        }
        self.game.step_in_place(&mut self.state, &self.scratch);
        self.used.insert_from(t, &self.scratch);
        t
    }

    /// The inputs used at the last tick processed, one per player in
    /// player order, each with where it came from; empty before the first
    /// tick.
    pub fn last_inputs(&self) -> impl Iterator<Item = (InputCmd, InputFill)> + '_ {
        self.scratch.iter().copied().zip(self.fills.iter().copied())
    }

    /// The Ack for `player` after the tick just processed.
    ///
    /// # Errors
    /// [`UnknownPlayer`] if there is no such player.
    pub fn ack(&self, player: usize) -> Result<AckInfo, UnknownPlayer> {
        let p = self.players.get(player).ok_or(UnknownPlayer(player))?;
        let tick = self.tick().minus(1);
        Ok(AckInfo {
            tick,
            newest_input: p.newest,
            buffer: p.newest.map(|n| n.diff(tick)),
            missed: p.counters.missed(),
            late: p.counters.late,
        })
    }

    /// The current state, its hash and the inputs of the last `ticks` ticks
    /// (fewer if not that many were processed or kept).
    pub fn state_update(&self, ticks: u32) -> StateUpdate<G::State> {
        let now = self.tick();
        let mut inputs = Vec::with_capacity(ticks as usize * self.players.len());
        for t in now.minus(ticks.min(USED_KEPT as u32)).until(now) {
            match self.used.get(t) {
                Some(used) => inputs.extend_from_slice(used),
                // Not processed (the match is younger): start after the gap.
                None => inputs.clear(),
            }
        }
        StateUpdate {
            state: self.state.clone(),
            hash: G::state_hash(&self.state),
            inputs,
        }
    }

    /// `player`'s input counters.
    ///
    /// # Errors
    /// [`UnknownPlayer`] if there is no such player.
    pub fn counters(&self, player: usize) -> Result<InputCounters, UnknownPlayer> {
        self.players
            .get(player)
            .map(|p| p.counters)
            .ok_or(UnknownPlayer(player))
    }
}
