//! [`RollbackRoomHost`]: a shared room that runs the rollback model — one
//! [`MatchServer`] of 2–8 seats, each remote player with their own
//! [`HostLink`] (two seeded conditioners, their own sliders) — driven like
//! [`crate::endpoints::room::RoomHost`]: `receive_msg(now, player, …)`,
//! `poll_until(now)`, `next_wakeup()`, so the relay's room task runs
//! either.
//!
//! ```text
//! receive_msg(p) ─► control? act now: Join ─► Start │ SetNetSettings │
//!                 │   LagSpike │ AddBot
//!                 └► Inputs, Ping ─► p's uplink conditioner
//! poll(now): every uplink's due messages: Inputs ─► MatchServer::deliver
//!            (ids checked per seat) · Ping ─► Pong
//!            each tick due (the match's rate): MatchServer::run_tick
//!            ─► Ack (every tick), State (every k) ─► each joined player's
//!            downlink; then per player: control frames, due downlink frames
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

use crate::endpoints::link::{HostLink, Traffic};
use crate::endpoints::room::RoomError;
use crate::foundation::control::{check, SettingsError};
use crate::foundation::hash::Fnv64;
use crate::foundation::time::SimTime;
use crate::protocol::{ClientMsg, ServerMsg};
use crate::rollback::arena::{MAX_PLAYERS, MIN_PLAYERS};
use crate::rollback::bot::BotPlayer;
use crate::rollback::config::RollbackConfig;
use crate::rollback::match_server::{JoinRefused, MatchError, MatchServer};
use crate::rollback::wire::{RollbackServerMsg, MAX_INPUTS_PER_PACKET};
use crate::room::replication::PlayerId;
use crate::room::wire::RoomClientMsg;

/// One remote player.
#[derive(Debug, Clone)]
struct Remote {
    id: PlayerId,
    /// Their seat in the match: their player index.
    seat: usize,
    link: HostLink<ClientMsg>,
    /// Their Join was answered with Start: Acks and States go to them.
    joined: bool,
}

/// A shared room running one rollback match.
#[derive(Debug, Clone)]
pub struct RollbackRoomHost {
    game: MatchServer,
    /// Every player's link conditioners and session id draw from this and
    /// their id.
    seed: u64,
    /// By id, ascending (ids only grow).
    players: Vec<Remote>,
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
            seat: usize::from(start.ids.player),
            link: HostLink::new(seed, now),
            joined: false,
        });
        Ok(id)
    }

    /// Takes remote player `id` out; their seat is free for the next
    /// joiner. `false` if there was no such player.
    pub fn remove_player(&mut self, id: PlayerId) -> bool {
        let Ok(i) = self.index(id) else {
            return false;
        };
        let p = self.players.remove(i);
        self.game.leave(p.seat);
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
    /// [`RoomError::NotInRoom`] (a message a rollback room does not speak).
    pub fn receive_msg(
        &mut self,
        now: SimTime,
        id: PlayerId,
        frame_len: usize,
        msg: ClientMsg,
    ) -> Result<(), RoomError> {
        let i = self.index(id)?;
        let result = self.receive(now, i, frame_len, msg);
        crate::endpoints::room::host::answer(&mut self.players[i].link, now, frame_len, result)
    }

    fn receive(
        &mut self,
        now: SimTime,
        i: usize,
        len: usize,
        msg: ClientMsg,
    ) -> Result<(), RoomError> {
        match msg {
            ClientMsg::Room(RoomClientMsg::Join) => {
                let p = &mut self.players[i];
                if let Some(start) = self.game.start_msg(p.seat) {
                    p.joined = true;
                    p.link
                        .send_now(&ServerMsg::Rollback(RollbackServerMsg::Start(start)));
                }
            }
            ClientMsg::SetNetSettings(s) => self.players[i].link.set_net_settings(s)?,
            ClientMsg::SetTransport(t) => self.players[i].link.set_transport(t),
            ClientMsg::LagSpike(spike) => self.players[i].link.start_lag_spike(now, spike)?,
            ClientMsg::Room(RoomClientMsg::AddBot) => {
                let start = 3 * (self.bots + 1);
                self.game.add_bot(BotPlayer::new(start)).map_err(full)?;
                self.bots += 1;
            }
            ClientMsg::Inputs(p) if p.inputs.len() > MAX_INPUTS_PER_PACKET => {
                let n = u32::try_from(p.inputs.len()).unwrap_or(u32::MAX);
                check("inputs", n, 1..=MAX_INPUTS_PER_PACKET as u32)?;
            }
            msg @ (ClientMsg::Inputs(_) | ClientMsg::Ping { .. }) => {
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
                if let Some(p) = self.players.iter_mut().find(|p| p.seat == seat && p.joined) {
                    p.link.send(at, &ServerMsg::Rollback(msg));
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

    /// Remote players, in id order.
    pub fn player_ids(&self) -> impl Iterator<Item = PlayerId> + '_ {
        self.players.iter().map(|p| p.id)
    }

    /// Remote player `id`'s seat (their player index in the match).
    pub fn seat(&self, id: PlayerId) -> Option<usize> {
        self.index(id).ok().map(|i| self.players[i].seat)
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
        ClientMsg::Trace(_) => "Trace (not in a rollback room yet)",
        ClientMsg::Room(_) => "this room message (the CMC room's)",
        _ => "this message",
    }
}

fn full(e: JoinRefused) -> RoomError {
    match e {
        JoinRefused::Full { capacity } => RoomError::Full { max: capacity },
    }
}
