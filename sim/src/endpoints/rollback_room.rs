//! [`RollbackRoomHost`]: a shared room that runs the rollback model — one
//! [`MatchServer`] of 2–8 seats, each remote player with their own
//! [`HostLink`] (two seeded conditioners, their own sliders) — driven like
//! [`crate::endpoints::room::RoomHost`]: `receive_msg(now, player, …)`,
//! `poll_until(now)`, `next_wakeup()`, so the relay's room task runs
//! either.
//!
//! ```text
//! receive_msg(p) ─► control? act now: Join ─► Start │ SetNetSettings │
//!                 │   LagSpike │ AddBot │ Trace
//!                 └► Inputs, Ping ─► p's uplink conditioner
//!                 SeatReport ─► p's uplink conditioner
//! receive_msg(s), a spectator: Watch (or Join) ─► Watch · settings as a
//!                 player's · Inputs, SeatReport ─► refused, counted ·
//!                 Ping ─► uplink
//! poll(now): every uplink's due messages: Inputs ─► MatchServer::deliver
//!            (ids checked per seat) · SeatReport ─► MatchServer::report
//!            (ids and ranges checked, refusals counted) · Ping ─► Pong
//!            each tick due (the match's rate): MatchServer::run_tick
//!            ─► Ack (every tick), State (every k) ─► each joined player's
//!            downlink; View (with every State) ─► each watching
//!            spectator's downlink; Seats (every 500 ms of match time,
//!            issue 22) ─► every joined player's and spectator's
//!            downlink; then per connection: control frames,
//!            due downlink frames
//! ```
//!
//! A player is seated by [`RollbackRoomHost::add_player`] and receives
//! Acks and States once their `Room(Join)` is answered with the match's
//! Start (the same order as a CMC room's Join → Joined). Each seat's
//! session id is drawn from the room's seed and the player's id, so a
//! packet of another player's connection or of an earlier room on the same
//! name (another seed, another match id) is refused and counted
//! ([`MatchServer::deliver`]). A player leaving frees the seat; the match
//! goes on (their input held, then empty, `001_…` §5.1).
//!
//! A connection that asks ([`ClientMsg::Trace`]) is streamed its own
//! link's packet trace, as in a CMC room: its Inputs and Pings up, Acks,
//! States and Pongs down, with their fates
//! ([`RollbackRoomHost::take_traces`]).
//!
//! A spectator (issue 22) is added by [`RollbackRoomHost::add_spectator`]
//! from the same id space: it takes no seat (a full match still admits
//! it, up to [`MAX_SPECTATORS`]), has its own [`HostLink`] like a player,
//! and once its `Room(Watch)` is answered with
//! [`RollbackServerMsg::Watch`] receives a [`RollbackServerMsg::View`] (the
//! whole world and its hash) at every State, and no Acks. Inputs it sends
//! never reach the match: they are refused and counted
//! ([`RollbackRoomHost::spectator_inputs_refused`]). Leaving frees
//! nothing in the match.

use crate::endpoints::link::{HostLink, Traffic, DOWNLINK_SEED, UPLINK_SEED};
use crate::endpoints::room::RoomError;
use crate::foundation::control::{check, SettingsError};
use crate::foundation::hash::Fnv64;
use crate::foundation::time::SimTime;
use crate::net::trace_wire::TraceStart;
use crate::protocol::trace::TraceFrame;
use crate::protocol::{ClientMsg, ServerMsg};
use crate::rollback::arena::{MAX_PLAYERS, MIN_PLAYERS};
use crate::rollback::bot::BotPlayer;
use crate::rollback::config::RollbackConfig;
use crate::rollback::match_server::{JoinRefused, MatchError, MatchServer};
use crate::rollback::recording::RecordedLink;
use crate::rollback::wire::{RollbackServerMsg, MAX_INPUTS_PER_PACKET};
use crate::room::replication::PlayerId;
use crate::room::wire::RoomClientMsg;

/// Most spectators a rollback room takes (issue 22): each costs a
/// downlink of Views (≈ 44 bytes every State) and is not a player, so a
/// full match of 8 can still be watched by this many.
pub const MAX_SPECTATORS: usize = 16;

/// One remote connection: a player or a spectator.
#[derive(Debug, Clone)]
struct Remote {
    id: PlayerId,
    /// Their seat in the match (their player index); `None` for a
    /// spectator.
    seat: Option<usize>,
    link: HostLink<ClientMsg>,
    /// Their Join was answered with Start (a spectator's Watch with
    /// Watch): Acks and States (Views) go to them.
    joined: bool,
}

/// A shared room running one rollback match.
#[derive(Debug, Clone)]
pub struct RollbackRoomHost {
    game: MatchServer,
    /// Every player's link conditioners and session id draw from this and
    /// their id.
    seed: u64,
    /// Players and spectators, by id, ascending (ids only grow).
    players: Vec<Remote>,
    /// Input packets spectators sent (refused: they hold no seat).
    spectator_inputs_refused: u64,
    /// Seat reports spectators sent (refused: they hold no seat).
    spectator_reports_refused: u64,
    /// The id the next player gets; ids are never reused.
    next_id: u32,
    bots: usize,
    /// Origin of the match's tick grid.
    created: SimTime,
    /// Messages of the tick being run (kept for its allocation).
    out: Vec<(usize, RollbackServerMsg)>,
}

impl RollbackRoomHost {
    /// An empty room of `max_players` seats (bots included,
    /// `2..=`[`MAX_PLAYERS`]) made at `now` with the creator's `config`,
    /// whose link conditioners and ids draw from `seed`.
    ///
    /// # Errors
    /// [`RoomError::Settings`] if `config` is out of range or
    /// `max_players` is outside `2..=8`.
    pub fn new(
        config: RollbackConfig,
        max_players: usize,
        seed: u64,
        now: SimTime,
    ) -> Result<RollbackRoomHost, RoomError> {
        // A new room on the same name (another seed) is another match
        // ("MATCH" in ASCII tells it from the players' session ids).
        let match_id = Fnv64::new().u64(seed).u64(0x004d_4154_4348).finish() as u32;
        let game = MatchServer::new(config, max_players, match_id).map_err(|e| match e {
            MatchError::Settings(s) => RoomError::Settings(s),
            MatchError::PlayerCount(n) => RoomError::Settings(SettingsError {
                name: "max_players",
                value: u32::try_from(n).unwrap_or(u32::MAX),
                min: MIN_PLAYERS as u32,
                max: MAX_PLAYERS as u32,
            }),
        })?;
        Ok(RollbackRoomHost {
            game,
            seed,
            players: Vec::new(),
            spectator_inputs_refused: 0,
            spectator_reports_refused: 0,
            next_id: 1,
            bots: 0,
            created: now,
            out: Vec::new(),
        })
    }

    fn player_seed(&self, id: PlayerId) -> u64 {
        self.seed ^ u64::from(id.0).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// Seats a new remote player at `now`; their first frame should be
    /// [`RoomClientMsg::Join`] (in a [`ClientMsg::Room`]).
    ///
    /// # Errors
    /// [`RoomError::Full`] when every seat is taken (bots included): send
    /// [`crate::endpoints::room::RoomHost::refusal_frame`] and close.
    pub fn add_player(&mut self, now: SimTime) -> Result<PlayerId, RoomError> {
        let id = PlayerId(self.next_id);
        let seed = self.player_seed(id);
        let session = Fnv64::new().u64(seed).finish() as u32;
        let start = self.game.join(session).map_err(full)?;
        self.next_id += 1;
        self.players.push(Remote {
            id,
            seat: Some(usize::from(start.ids.player)),
            link: HostLink::new(seed, now),
            joined: false,
        });
        self.note_link(self.players.len() - 1);
        Ok(id)
    }

    /// Notes player `i`'s link (settings and conditioner seeds) in the
    /// match's recording, for the record of who played through what.
    fn note_link(&mut self, i: usize) {
        let p = &self.players[i];
        let Some(seat) = p.seat else { return };
        let (settings, seed) = (p.link.settings(), self.player_seed(p.id));
        self.game.note_link(
            seat,
            RecordedLink {
                up: settings.uplink,
                up_seed: seed ^ UPLINK_SEED,
                down: settings.downlink,
                down_seed: seed ^ DOWNLINK_SEED,
            },
        );
    }

    /// Admits a spectator at `now` (issue 22): no seat, its own link
    /// (conditioners seeded like a player's); its first frame should be
    /// [`RoomClientMsg::Watch`].
    ///
    /// # Errors
    /// [`RoomError::Spectators`] when [`MAX_SPECTATORS`] watch already:
    /// send [`RollbackRoomHost::refusal_frame`] and close.
    pub fn add_spectator(&mut self, now: SimTime) -> Result<PlayerId, RoomError> {
        if self.spectator_count() >= MAX_SPECTATORS {
            return Err(RoomError::Spectators {
                max: MAX_SPECTATORS,
            });
        }
        let id = PlayerId(self.next_id);
        self.next_id += 1;
        self.players.push(Remote {
            id,
            seat: None,
            link: HostLink::new(self.player_seed(id), now),
            joined: false,
        });
        Ok(id)
    }

    /// Takes remote player or spectator `id` out; a player's seat is free
    /// for the next joiner, a spectator frees nothing in the match.
    /// `false` if there was no such connection.
    pub fn remove_player(&mut self, id: PlayerId) -> bool {
        let Ok(i) = self.index(id) else {
            return false;
        };
        if let Some(seat) = self.players.remove(i).seat {
            self.game.leave(seat);
        }
        true
    }

    fn index(&self, id: PlayerId) -> Result<usize, RoomError> {
        self.players
            .binary_search_by_key(&id, |p| p.id)
            .map_err(|_| RoomError::NoSuchPlayer(id))
    }

    /// Takes one message from remote player `id` at `now`, that came in a
    /// frame of `frame_len` bytes. Control acts at once; Inputs and Pings
    /// enter the player's uplink conditioner.
    ///
    /// # Errors
    /// [`RoomError::NoSuchPlayer`] (nothing is sent); otherwise the player
    /// is sent an Error and nothing else changes:
    /// [`RoomError::Settings`] (a setting out of range, or an input packet
    /// with more than [`MAX_INPUTS_PER_PACKET`] inputs),
    /// [`RoomError::Full`] (AddBot in a full match),
    /// [`RoomError::NotInRoom`] (a message a rollback room does not speak),
    /// [`RoomError::Spectator`] (AddBot from a spectator). A spectator's
    /// Inputs are no error: they are counted and dropped.
    pub fn receive_msg(
        &mut self,
        now: SimTime,
        id: PlayerId,
        frame_len: usize,
        msg: ClientMsg,
    ) -> Result<(), RoomError> {
        let i = self.index(id)?;
        let streams = self.players[i].link.streams_trace() || matches!(msg, ClientMsg::Trace(_));
        let traced = (msg.is_control() && streams).then(|| msg.clone());
        let result = self.receive(now, i, frame_len, msg);
        if let (Ok(()), Some(msg)) = (&result, traced) {
            self.players[i].link.trace_control(now, msg);
        }
        crate::endpoints::room::host::answer(&mut self.players[i].link, now, frame_len, result)
    }

    fn receive(
        &mut self,
        now: SimTime,
        i: usize,
        len: usize,
        msg: ClientMsg,
    ) -> Result<(), RoomError> {
        let spectator = self.players[i].seat.is_none();
        match msg {
            // The role was chosen when the connection was added: either
            // greeting is answered with that role's start.
            ClientMsg::Room(RoomClientMsg::Join | RoomClientMsg::Watch) => {
                let answer = match self.players[i].seat {
                    Some(seat) => self.game.start_msg(seat).map(RollbackServerMsg::Start),
                    None => Some(RollbackServerMsg::Watch(self.game.view())),
                };
                if let Some(answer) = answer {
                    let p = &mut self.players[i];
                    p.joined = true;
                    p.link.send_now(&ServerMsg::Rollback(answer));
                }
            }
            ClientMsg::Trace(request) => {
                request.validate()?;
                let start = TraceStart {
                    seed: self.player_seed(self.players[i].id),
                    made: self.created,
                };
                self.players[i].link.stream_trace(now, request, start);
            }
            ClientMsg::SetNetSettings(s) => {
                self.players[i].link.set_net_settings(s)?;
                self.note_link(i);
            }
            ClientMsg::SetTransport(t) => self.players[i].link.set_transport(t),
            ClientMsg::LagSpike(spike) => self.players[i].link.start_lag_spike(now, spike)?,
            ClientMsg::Room(RoomClientMsg::AddBot) if spectator => {
                return Err(RoomError::Spectator("adds no bot"));
            }
            ClientMsg::Inputs(_) if spectator => self.spectator_inputs_refused += 1,
            ClientMsg::SeatReport(_) if spectator => self.spectator_reports_refused += 1,
            ClientMsg::Room(RoomClientMsg::AddBot) => {
                let start = 3 * (self.bots + 1);
                self.game.add_bot(BotPlayer::new(start)).map_err(full)?;
                self.bots += 1;
            }
            ClientMsg::Inputs(p) if p.inputs.len() > MAX_INPUTS_PER_PACKET => {
                let n = u32::try_from(p.inputs.len()).unwrap_or(u32::MAX);
                check("inputs", n, 1..=MAX_INPUTS_PER_PACKET as u32)?;
            }
            msg @ (ClientMsg::Inputs(_) | ClientMsg::Ping { .. } | ClientMsg::SeatReport(_)) => {
                self.players[i].link.send_up(now, len, msg);
            }
            other => return Err(RoomError::NotInRoom(not_spoken(&other))),
        }
        Ok(())
    }

    /// Advances the room to `now` and returns each player's frames, in
    /// order (see the module doc).
    pub fn poll(&mut self, now: SimTime) -> Vec<(PlayerId, Vec<u8>)> {
        for p in &mut self.players {
            while let Some(msg) = p.link.poll_up(now) {
                match msg {
                    ClientMsg::Inputs(packet) => {
                        // Refused packets are counted; the match goes on.
                        let _ = self.game.deliver(&packet);
                    }
                    ClientMsg::SeatReport(r) => {
                        // Refused reports are counted by the match.
                        let _ = self.game.report(&r);
                    }
                    ClientMsg::Ping { id } => {
                        let received = p.link.ping_received(id);
                        p.link.send(now, &ServerMsg::Pong { id, received });
                    }
                    _ => {}
                }
            }
        }
        while self.next_tick() <= now {
            let at = self.next_tick();
            self.out.clear();
            self.game.run_tick(&mut self.out);
            for (seat, msg) in self.out.drain(..) {
                if let Some(p) = self
                    .players
                    .iter_mut()
                    .find(|p| p.seat == Some(seat) && p.joined)
                {
                    p.link.send(at, &ServerMsg::Rollback(msg));
                }
            }
            let watching = |p: &&mut Remote| p.seat.is_none() && p.joined;
            if self.game.state_due() && self.players.iter_mut().any(|p| watching(&p)) {
                let view = ServerMsg::Rollback(RollbackServerMsg::View(self.game.view()));
                for p in self.players.iter_mut().filter(watching) {
                    p.link.send(at, &view);
                }
            }
            if self.game.seats_due() {
                let seats = ServerMsg::Rollback(RollbackServerMsg::Seats(self.game.seats_msg()));
                for p in self.players.iter_mut().filter(|p| p.joined) {
                    p.link.send(at, &seats);
                }
            }
        }
        let mut frames = Vec::new();
        for p in &mut self.players {
            let id = p.id;
            frames.extend(p.link.drain(now).into_iter().map(|f| (id, f)));
        }
        frames
    }

    /// Runs [`RollbackRoomHost::poll`] at every wake-up before `now` and
    /// then at `now`; each frame comes with the time it left.
    pub fn poll_until(&mut self, now: SimTime) -> Vec<(SimTime, PlayerId, Vec<u8>)> {
        crate::endpoints::room::host::poll_until(
            self,
            now,
            RollbackRoomHost::next_wakeup,
            RollbackRoomHost::poll,
        )
    }

    /// The earliest time at which [`RollbackRoomHost::poll`] has something
    /// to do: the next tick, or a packet due on some player's link.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.players
            .iter()
            .filter_map(|p| p.link.next_delivery())
            .chain([self.next_tick()])
            .min()
    }

    /// When the match's next tick is due (at its tick rate from the room's
    /// making).
    pub fn next_tick(&self) -> SimTime {
        let rate = self.game.config().tick_rate;
        self.created
            .plus_micros(rate.micros_at(self.game.ticks_run() + 1))
    }

    /// The match: seats, counters, the authoritative world.
    pub fn game(&self) -> &MatchServer {
        &self.game
    }

    /// Starts recording the match from now on, at most `max_ticks` ticks
    /// (capped at [`crate::rollback::recording::MAX_RECORDED_TICKS`], 10 min
    /// at 60 Hz); past that the recording stops and is marked truncated
    /// while the match plays on. Delegates to [`MatchServer::record`]: the
    /// world now, every seat's occupant (players and bots, now and later)
    /// and each tick's used inputs and state hash. Called on a fresh room,
    /// it holds the whole match; read it with [`RollbackRoomHost::game`]
    /// and [`MatchServer::recording`]. A recording already running starts
    /// again. (The room never restarts its match; a
    /// [`MatchServer::restart`] would keep recording, from the new match's
    /// start, dropping the old match's recording.)
    pub fn record(&mut self, max_ticks: usize) {
        self.game.record(max_ticks);
    }

    /// Remote players and spectators, in id order.
    pub fn player_ids(&self) -> impl Iterator<Item = PlayerId> + '_ {
        self.players.iter().map(|p| p.id)
    }

    /// Remote player `id`'s seat (their player index in the match);
    /// `None` for a spectator or no such player.
    pub fn seat(&self, id: PlayerId) -> Option<usize> {
        self.index(id).ok().and_then(|i| self.players[i].seat)
    }

    /// Spectators watching (or admitted and about to).
    pub fn spectator_count(&self) -> usize {
        self.players.iter().filter(|p| p.seat.is_none()).count()
    }

    /// Input packets spectators sent, refused before the match (they
    /// hold no seat).
    pub fn spectator_inputs_refused(&self) -> u64 {
        self.spectator_inputs_refused
    }

    /// Seat reports spectators sent, refused before the match (they hold
    /// no seat); a player's refused reports are the match's
    /// ([`MatchServer::reports_refused`]).
    pub fn spectator_reports_refused(&self) -> u64 {
        self.spectator_reports_refused
    }

    /// What crossed remote player `id`'s connection (frames and bytes each
    /// way, as the driver moved them); `None` if there is no such player.
    pub fn traffic(&self, id: PlayerId) -> Option<Traffic> {
        self.index(id).ok().map(|i| self.players[i].link.traffic())
    }

    /// Server-driven bots in the match.
    pub fn bot_count(&self) -> usize {
        self.bots
    }

    /// Seats of the match, bots included.
    pub fn max_players(&self) -> usize {
        self.game.capacity()
    }

    /// The frame that tells a refused player why (as a CMC room's).
    pub fn refusal_frame(error: &RoomError) -> Vec<u8> {
        crate::endpoints::room::RoomHost::refusal_frame(error)
    }
}

/// The name of a message a rollback room does not speak.
fn not_spoken(msg: &ClientMsg) -> &'static str {
    match msg {
        ClientMsg::Hello => "Hello",
        ClientMsg::Resume { .. } => "Resume",
        ClientMsg::SetModel(_) => "SetModel",
        ClientMsg::ServerMove(_) => "ServerMove (the CMC model's)",
        ClientMsg::SetServerRules(_) => "SetServerRules (the CMC model's)",
        ClientMsg::Room(_) => "this room message (the CMC room's)",
        _ => "this message",
    }
}

impl RollbackRoomHost {
    /// Every connection's trace batches the polls made since the last
    /// call (issue 22: a match's packets in the page's lanes, as a CMC
    /// room's): the driver fills in its processing times and sends each
    /// as a [`ServerMsg::Trace`].
    pub fn take_traces(&mut self) -> Vec<(PlayerId, TraceFrame)> {
        let mut out = Vec::new();
        for p in &mut self.players {
            let id = p.id;
            out.extend(p.link.take_trace().into_iter().map(|b| (id, b)));
        }
        out
    }

    /// The driver's word on connection `id`'s reading: `true` while its
    /// last write did not go at once (its batches wait and thin).
    pub fn trace_congested(&mut self, id: PlayerId, on: bool) {
        if let Ok(i) = self.index(id) {
            self.players[i].link.trace_congested(on);
        }
    }
}

fn full(e: JoinRefused) -> RoomError {
    match e {
        JoinRefused::Full { capacity } => RoomError::Full { max: capacity },
    }
}
