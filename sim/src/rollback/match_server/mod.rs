//! One rollback match of two to eight players, some of them the server's
//! bots: seats, identities and the authority (`001_…` §5.1
//! `AuthoritativeServer::AdvanceOneTick`, run by [`RollbackServer`]) —
//! what the bot match of [`crate::endpoints::host`] and a rollback room
//! both run. It is sans-IO and clock-free: the caller decides when a tick
//! is due and carries the messages it returns.
//!
//! ```text
//! join(session) ─► a free seat ─► Start │ a full match ─► JoinRefused::Full
//! deliver(InputPacket) ─► seat's ids: magic, version, session, match
//!     ─► that player's input ring            (refusals counted per seat)
//! run_tick ─► bots' inputs ─► RollbackServer::advance
//!     ─► Ack to every player (every tick) ─► State to every player (every k)
//! view() ─► the world, its hash and the seats, for a spectator (issue 22)
//! report(SeatReport) ─► seat's ids, ranges ─► kept (super::seats)
//! seats_msg() ─► every seat's buffer, missed, late + fresh report
//! restart(config) ─► match id + 1, the world from its start, seats kept
//! record(max_ticks) ─► each tick's used inputs and hash ─► recording()
//! ```
//!
//! Each player has its own session id, so a packet is checked against
//! the ids of the seat it claims: another player's session, or an older
//! match, is refused and counted on that seat (`001_…` §4.4 "playerId +
//! sessionId + matchId"). The match-wide settings (tick rate, hold-last
//! limit, State interval) are the creator's [`RollbackConfig`].

use super::arena::{Arena, MAX_PLAYERS, MIN_PLAYERS};
use super::bot::BotPlayer;
use super::config::RollbackConfig;
use super::input::InputCmd;
use super::recording::MatchRecording;
use super::seats::{ReportRefused, ReportsRefused, SeatReports, SEATS_EVERY_MS};
use super::server::{AckInfo, InputCounters, RollbackServer};
use super::snapshot::Snapshot;
use super::wire::{
    AckMsg, IdentityError, Ids, InputPacket, RollbackServerMsg, SeatReport, SeatRow, SeatsMsg,
    StartMsg, StateMsg, ViewMsg,
};
use crate::foundation::control::SettingsError;
use thiserror::Error;

mod record;

/// Why a match cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MatchError {
    /// A player count outside [`MIN_PLAYERS`]`..=`[`MAX_PLAYERS`].
    #[error("a rollback match takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {0}")]
    PlayerCount(usize),
    /// A setting out of range.
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

/// Why a player (or bot) was not seated: the reason a refused page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum JoinRefused {
    /// Every seat is taken.
    #[error("the rollback match is full: {capacity} of {capacity} players")]
    Full {
        /// Seats of the match.
        capacity: usize,
    },
}

/// Why an input packet was refused (counted; the match goes on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PacketRefused {
    /// The claimed player index is no player's seat (free, a bot's, or
    /// beyond the match).
    #[error("no player {0} in this match")]
    NoSuchPlayer(u8),
    /// The seat's identity check failed.
    #[error("refused: {0}")]
    Identity(#[from] IdentityError),
}

/// Input packets refused on one seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RefusedCounters {
    /// For an older match of this seat (`001_…` §4.4).
    pub stale_match: u64,
    /// Carrying another session than the seat's (another player's
    /// connection claiming this seat, or a previous one).
    pub foreign_session: u64,
    /// Bad magic or layout version.
    pub other: u64,
}

impl RefusedCounters {
    /// All refusals.
    pub fn total(&self) -> u64 {
        self.stale_match + self.foreign_session + self.other
    }
}

#[derive(Debug, Clone)]
enum Occupant {
    Free,
    Player { session: u32 },
    Bot { bot: BotPlayer, start: BotPlayer },
}

#[derive(Debug, Clone)]
struct Seat {
    occupant: Occupant,
    refused: RefusedCounters,
}

/// The authority of one rollback match with its seats.
#[derive(Debug, Clone)]
pub struct MatchServer {
    config: RollbackConfig,
    match_id: u32,
    server: RollbackServer<Arena>,
    seats: Vec<Seat>,
    /// Ticks processed in this match.
    ticks_run: u64,
    /// Packets claiming a seat that has no player.
    no_such_player: u64,
    /// Each seat's last report (issue 22).
    reports: SeatReports,
    /// The match being recorded (opt-in, [`MatchServer::record`]) and the
    /// most ticks it may hold.
    recording: Option<(MatchRecording, usize)>,
}

impl MatchServer {
    /// An empty match of `players` seats with the creator's `config`,
    /// numbered `match_id`.
    ///
    /// # Errors
    /// [`MatchError::PlayerCount`] outside `2..=8`;
    /// [`MatchError::Settings`] if `config` is out of range.
    pub fn new(config: RollbackConfig, players: usize, match_id: u32) -> Result<Self, MatchError> {
        config.validate()?;
        let arena = Arena::with_players(config.tick_rate, players)
            .ok_or(MatchError::PlayerCount(players))?;
        let seats = (0..players)
            .map(|_| Seat {
                occupant: Occupant::Free,
                refused: RefusedCounters::default(),
            })
            .collect();
        Ok(MatchServer {
            server: new_server(arena, &config),
            config,
            match_id,
            seats,
            ticks_run: 0,
            no_such_player: 0,
            reports: SeatReports::new(players),
            recording: None,
        })
    }

    fn free_seat(&self) -> Result<usize, JoinRefused> {
        self.seats
            .iter()
            .position(|s| matches!(s.occupant, Occupant::Free))
            .ok_or(JoinRefused::Full {
                capacity: self.seats.len(),
            })
    }

    /// Puts `occupant` in free seat `seat`: a new occupant starts with no
    /// inputs and no counters of the one before.
    fn seat(&mut self, seat: usize, occupant: Occupant) {
        let _ = self.server.reset_player(seat);
        self.reports.clear(Some(seat));
        self.seats[seat] = Seat {
            occupant,
            refused: RefusedCounters::default(),
        };
        self.note_seated(seat);
    }

    /// Seats the connection `session` in the lowest free seat and returns
    /// its Start (its ids, the tick rate, the world now).
    ///
    /// # Errors
    /// [`JoinRefused::Full`] when every seat is taken; nothing changes.
    pub fn join(&mut self, session: u32) -> Result<StartMsg, JoinRefused> {
        let seat = self.free_seat()?;
        self.seat(seat, Occupant::Player { session });
        Ok(self.start_msg(seat).expect("just seated"))
    }

    /// Seats `bot` in the lowest free seat and returns its player index.
    ///
    /// # Errors
    /// [`JoinRefused::Full`] when every seat is taken.
    pub fn add_bot(&mut self, bot: BotPlayer) -> Result<usize, JoinRefused> {
        let seat = self.free_seat()?;
        self.seat(
            seat,
            Occupant::Bot {
                start: bot.clone(),
                bot,
            },
        );
        Ok(seat)
    }

    /// Frees `player`'s seat (the match goes on: its input is held, then
    /// empty, `001_…` §5.1). A free seat is taken by the next joiner.
    pub fn leave(&mut self, player: usize) {
        if let Some(s) = self.seats.get_mut(player) {
            s.occupant = Occupant::Free;
        }
        self.note_left(player);
    }

    /// The Start for the player in `player`'s seat, `None` if no player
    /// sits there.
    pub fn start_msg(&self, player: usize) -> Option<StartMsg> {
        Some(StartMsg {
            ids: self.ids(player)?,
            tick_rate: self.config.tick_rate,
            snapshot: self.server.state().clone(),
        })
    }

    /// The ids of the player in seat `player`, `None` if no player sits
    /// there.
    pub fn ids(&self, player: usize) -> Option<Ids> {
        match self.seats.get(player)?.occupant {
            Occupant::Player { session } => Some(Ids::new(session, self.match_id, player as u8)),
            _ => None,
        }
    }

    /// A new match on the same seats: the next match id, the world from
    /// `config`'s start tick, bots from their tour start. Packets of the
    /// match before are refused from now on; each player needs its new
    /// [`MatchServer::start_msg`].
    ///
    /// # Errors
    /// [`SettingsError`] if `config` is out of range; nothing changes.
    pub fn restart(&mut self, config: RollbackConfig) -> Result<(), SettingsError> {
        config.validate()?;
        let arena = Arena::with_players(config.tick_rate, self.seats.len())
            .expect("the seat count was checked at creation");
        self.config = config;
        self.match_id = self.match_id.wrapping_add(1);
        self.server = new_server(arena, &config);
        self.ticks_run = 0;
        self.reports.clear(None);
        for s in &mut self.seats {
            if let Occupant::Bot { bot, start } = &mut s.occupant {
                bot.clone_from(start);
            }
        }
        if let Some(&(_, max_ticks)) = self.recording.as_ref() {
            self.record(max_ticks);
        }
        Ok(())
    }

    /// Changes the hold-last limit from the next tick on (the State
    /// interval is read every tick).
    ///
    /// # Errors
    /// [`SettingsError`] if `config` is out of range; nothing changes.
    pub fn set_config(&mut self, config: RollbackConfig) -> Result<(), SettingsError> {
        config.validate()?;
        self.config = config;
        self.server.set_hold_last_limit(config.hold_last_limit);
        Ok(())
    }

    /// Takes one input packet off the uplink of the player it claims to
    /// be from, and returns that player's index.
    ///
    /// # Errors
    /// [`PacketRefused`]: no player in the claimed seat, or the seat's
    /// identity check failed (counted per reason on the seat).
    pub fn deliver(&mut self, p: &InputPacket) -> Result<usize, PacketRefused> {
        let player = usize::from(p.ids.player);
        let Some(expected) = self.ids(player) else {
            self.no_such_player += 1;
            return Err(PacketRefused::NoSuchPlayer(p.ids.player));
        };
        if let Err(e) = p.ids.check(&expected) {
            let r = &mut self.seats[player].refused;
            match e {
                IdentityError::Match => r.stale_match += 1,
                IdentityError::Session => r.foreign_session += 1,
                _ => r.other += 1,
            }
            return Err(e.into());
        }
        let cmds: Vec<InputCmd> = p.cmds().collect();
        let _ = self.server.receive_inputs(player, &cmds);
        Ok(player)
    }

    /// Takes one player's report of its own numbers (issue 22) off its
    /// uplink and returns its seat.
    ///
    /// # Errors
    /// [`ReportRefused`]: no player in the claimed seat or its ids fail
    /// (a spectator's, another player's, an older match's), or a number
    /// out of range; counted ([`MatchServer::reports_refused`]).
    pub fn report(&mut self, r: &SeatReport) -> Result<usize, ReportRefused> {
        let player = usize::from(r.ids.player);
        let Some(expected) = self.ids(player) else {
            self.reports.refuse_identity();
            return Err(ReportRefused::NoSuchPlayer(r.ids.player));
        };
        if let Err(e) = r.ids.check(&expected) {
            self.reports.refuse_identity();
            return Err(e.into());
        }
        self.reports.store(player, r.stats, self.ticks_run)?;
        Ok(player)
    }

    /// Reports refused so far (issue 22).
    pub fn reports_refused(&self) -> ReportsRefused {
        self.reports.refused()
    }

    /// The last tick run is one to send [`SeatsMsg`] at: every
    /// [`SEATS_EVERY_MS`] of match time.
    pub fn seats_due(&self) -> bool {
        let every = u64::from(self.config.tick_rate.ticks_in_ms(SEATS_EVERY_MS));
        self.ticks_run > 0 && self.ticks_run % every == 0
    }

    /// Every seated player's and bot's numbers now (issue 22): the
    /// server's buffer depth, missed and late counts, and the player's
    /// report if fresh ([`super::seats::REPORT_FRESH_MS`]).
    pub fn seats_msg(&self) -> SeatsMsg {
        let rate = self.config.tick_rate;
        let rows = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| !matches!(s.occupant, Occupant::Free))
            .map(|(i, s)| {
                let ack = self.server.ack(i).ok();
                let bot = matches!(s.occupant, Occupant::Bot { .. });
                SeatRow {
                    seat: i as u8,
                    bot,
                    buffer: ack.and_then(|a| a.buffer).map(|b| b.clamp(-128, 127) as i8),
                    missed: ack.map_or(0, |a| clip(a.missed)),
                    late: ack.map_or(0, |a| clip(a.late)),
                    report: if bot {
                        None
                    } else {
                        self.reports.fresh(i, self.ticks_run, rate)
                    },
                }
            })
            .collect();
        SeatsMsg {
            match_id: self.match_id,
            tick: self.server.tick().minus(1),
            rows,
        }
    }

    /// Runs one tick: each bot's input, then [`RollbackServer::advance`];
    /// pushes an Ack for every player, and a State for every player when
    /// the State interval is due, onto `out` as (player, message).
    pub fn run_tick(&mut self, out: &mut Vec<(usize, RollbackServerMsg)>) {
        let tick = self.server.tick();
        let dt = self.config.tick_rate.dt();
        for (i, seat) in self.seats.iter_mut().enumerate() {
            if let Occupant::Bot { bot, .. } = &mut seat.occupant {
                let at = self.server.state().players[i].position.to_cm();
                let (dir, buttons) = bot.input(at, dt);
                let cmd = InputCmd::from_direction(tick, dir, buttons);
                let _ = self.server.receive_inputs(i, &[cmd]);
            }
        }
        self.server.advance();
        self.ticks_run += 1;
        self.note_tick();
        let interval = self.config.state_interval;
        let update = self
            .state_due()
            .then(|| self.server.state_update(u32::from(interval)));
        for player in 0..self.seats.len() {
            let Some(ids) = self.ids(player) else {
                continue;
            };
            if let Ok(a) = self.server.ack(player) {
                out.push((player, RollbackServerMsg::Ack(ack_msg(ids, &a))));
            }
            if let Some(u) = &update {
                out.push((player, RollbackServerMsg::State(StateMsg::new(ids, u))));
            }
        }
    }

    /// The last tick run sent every player a State (every
    /// `state_interval` ticks of the match): a spectator's View is due
    /// too.
    pub fn state_due(&self) -> bool {
        self.ticks_run > 0 && self.ticks_run % u64::from(self.config.state_interval) == 0
    }

    /// The match as a spectator sees it now: the world, its hash and who
    /// sits where (issue 22).
    pub fn view(&self) -> ViewMsg {
        let mask = |f: fn(&Occupant) -> bool| {
            self.seats
                .iter()
                .enumerate()
                .filter(|(_, s)| f(&s.occupant))
                .fold(0u8, |m, (i, _)| m | 1 << i)
        };
        ViewMsg {
            match_id: self.match_id,
            tick_rate: self.config.tick_rate,
            hash: self.state().state_hash().to_le_bytes(),
            snapshot: self.state().clone(),
            players: mask(|o| matches!(o, Occupant::Player { .. })),
            bots: mask(|o| matches!(o, Occupant::Bot { .. })),
        }
    }

    /// The authority itself.
    pub fn server(&self) -> &RollbackServer<Arena> {
        &self.server
    }

    /// The authoritative world now.
    pub fn state(&self) -> &Snapshot {
        self.server.state()
    }

    /// `player`'s input counters: missed (held + defaulted), hold-last
    /// fills (`held`), late inputs; zero for a seat that is not there.
    pub fn inputs(&self, player: usize) -> InputCounters {
        self.server.counters(player).unwrap_or_default()
    }

    /// `player`'s input buffer depth after the last tick, ticks (newest
    /// input − tick processed); `None` before its first input.
    pub fn buffer_depth(&self, player: usize) -> Option<i32> {
        self.server.ack(player).ok()?.buffer
    }

    /// Packets refused on `player`'s seat.
    pub fn refused(&self, player: usize) -> RefusedCounters {
        self.seats
            .get(player)
            .map(|s| s.refused)
            .unwrap_or_default()
    }

    /// Packets refused on every seat, plus those claiming no player's
    /// seat.
    pub fn refused_total(&self) -> u64 {
        self.seats.iter().map(|s| s.refused.total()).sum::<u64>() + self.no_such_player
    }

    /// Seats of the match.
    pub fn capacity(&self) -> usize {
        self.seats.len()
    }

    /// Seats taken by players (not bots).
    pub fn players_seated(&self) -> usize {
        self.seats
            .iter()
            .filter(|s| matches!(s.occupant, Occupant::Player { .. }))
            .count()
    }

    /// Ticks processed in this match.
    pub fn ticks_run(&self) -> u64 {
        self.ticks_run
    }

    /// Settings in force.
    pub fn config(&self) -> RollbackConfig {
        self.config
    }

    /// The current match's number.
    pub fn match_id(&self) -> u32 {
        self.match_id
    }
}

fn ack_msg(ids: Ids, a: &AckInfo) -> AckMsg {
    AckMsg {
        ids,
        tick: a.tick,
        newest_input: a.newest_input,
        buffer: a.buffer.map(|b| b.clamp(-128, 127) as i8),
        missed: clip(a.missed),
        late: clip(a.late),
    }
}

/// `n` saturated to `u32`.
pub(crate) fn clip(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn new_server(arena: Arena, config: &RollbackConfig) -> RollbackServer<Arena> {
    let initial = arena.initial(config.start_tick);
    RollbackServer::new(arena, initial, config.hold_last_limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rollback::tick::TickRate;

    #[test]
    fn a_new_occupant_of_a_freed_seat_starts_with_no_inputs_or_counters() {
        use crate::rollback::wire::{InputPacket, PackedInput};
        let mut m = MatchServer::new(RollbackConfig::at_rate(TickRate::Hz60), 2, 1).unwrap();
        let a = m.join(10).unwrap().ids;
        m.join(11).unwrap();
        let fire = PackedInput {
            buttons: InputCmd::FIRE,
            move_x: 0,
            move_y: 0,
        };
        let packet = |ids, tick| InputPacket {
            ids,
            newest: tick,
            inputs: vec![fire],
        };
        m.deliver(&packet(a, m.state().tick)).unwrap();
        let mut out = Vec::new();
        for _ in 0..3 {
            m.run_tick(&mut out);
        }
        // Held twice, then a stale packet refused.
        assert_eq!((m.inputs(0).received, m.inputs(0).held), (1, 2));
        let _ = m.deliver(&InputPacket {
            ids: Ids { match_id: 0, ..a },
            ..packet(a, m.state().tick)
        });
        assert_eq!(m.refused(0).stale_match, 1);
        m.leave(0);
        let b = m.join(12).unwrap().ids;
        assert_eq!((b.player, b.session), (0, 12));
        assert_eq!(m.inputs(0), InputCounters::default());
        assert_eq!(m.refused(0), RefusedCounters::default());
        // Standing still until their first input is no miss.
        m.run_tick(&mut out);
        assert_eq!(m.inputs(0).missed(), 0);
        // The one who left is another session now.
        assert_eq!(
            m.deliver(&packet(a, m.state().tick)),
            Err(PacketRefused::Identity(IdentityError::Session))
        );
    }

    #[test]
    fn the_ninth_player_is_refused_with_its_reason() {
        let mut m = MatchServer::new(RollbackConfig::at_rate(TickRate::Hz60), 8, 1).unwrap();
        for s in 0..8 {
            assert_eq!(m.join(100 + s).unwrap().ids.player, s as u8);
        }
        let refused = m.join(108).unwrap_err();
        assert_eq!(refused, JoinRefused::Full { capacity: 8 });
        assert_eq!(
            refused.to_string(),
            "the rollback match is full: 8 of 8 players"
        );
        assert_eq!(m.players_seated(), 8);
        assert!(matches!(
            MatchServer::new(RollbackConfig::at_rate(TickRate::Hz60), 9, 1),
            Err(MatchError::PlayerCount(9))
        ));
    }
}
