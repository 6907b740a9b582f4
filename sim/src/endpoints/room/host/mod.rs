//! [`RoomHost`]: one authoritative world for several players, sans IO,
//! driven like [`crate::endpoints::host::ServerHost`] — `receive_frame(now, player, …)`,
//! `poll(now)`, `next_wakeup()` — so the relay stays a loop.
//!
//! ```text
//! receive_frame(p) ─► decode ─► control? act now (join, settings, rules,
//!                             │   lag spike, room switches, add bot, trace)
//!                             └► p's uplink conditioner
//! poll(now):
//!   1 every uplink's due messages: moves → p's ServerCharacter · pings →
//!     pongs · time requests → time reports · shots and reloads → in
//!     order, once → weapon → rewind → verdict, ammo
//!   2 forced position updates, move responses (≤ 1 per ack interval)
//!   3 each 60 Hz tick due: bots step · frame history saved ·
//!     net update to every player whose rate says so
//!   4 per player: control frames, then their downlink's due frames
//! take_traces(now): each tracing player's batches due (their packets and
//!   the shots they fired or were the target of), for the driver to send
//! record(limit), from the room's creation: every input the rules take
//!   (joins, leaves, bots, controls, each poll's deliveries) and each
//!   tick's state hash go into a RoomRecording (`record.rs`)
//! ```
//!
//! Network input is handled before the tick, as in UE's frame. Players are
//! kept in id order and visited in it: no map iteration in the step.
//!
//! A player speaks the one protocol ([`ClientMsg`] / [`ServerMsg`]): the
//! connection's messages and the CMC model's moves as a single-player
//! session does, and the room's own nested in [`ClientMsg::Room`] /
//! [`ServerMsg::Room`]. What only a single-player session understands
//! (Hello, Resume, SetModel, rollback Inputs) is refused with
//! [`RoomError::NotInRoom`].

use crate::endpoints::room::link::Traffic;
use crate::endpoints::room::player::{AmmoAction, Driver, Player, ShotCounters};
use crate::endpoints::room::recording::{RecordedEvent, Recorder};
use crate::foundation::control::SettingsError;
use crate::foundation::movement::MovementParams;
use crate::net::codec::{self, DecodeError};
use crate::protocol::{ClientMsg, ServerMsg};
use crate::room::config::{check_record_time, PlayerSettings, RoomConfig, TICK_HZ};
use crate::room::hitbox::HitBoxes;
use crate::room::replication::PlayerId;
use crate::room::wire::{RoomClientMsg, RoomServerMsg};

/// A room message as it goes on the wire.
pub(crate) fn wrap(msg: RoomServerMsg) -> ServerMsg {
    ServerMsg::Room(msg)
}
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use thiserror::Error;

mod record;
mod replicate;
mod roster;
mod shots;
mod trace;

/// Something the room refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RoomError {
    /// The room already holds its most players (16 by default).
    #[error("the room is full ({max} players)")]
    Full {
        /// The room's limit.
        max: usize,
    },
    /// No remote player has this id (never joined, left, or a bot).
    #[error("no player {0:?} in this room")]
    NoSuchPlayer(PlayerId),
    /// The bytes did not decode.
    #[error("bad frame: {0}")]
    Decode(#[from] DecodeError),
    /// A setting was out of range; nothing was changed.
    #[error("bad settings: {0}")]
    Settings(#[from] SettingsError),
    /// A single-player message (Hello, Resume, SetModel, rollback Inputs)
    /// sent to a room; it names the message.
    #[error("{0} is not spoken in a room: send Room(Join)")]
    NotInRoom(&'static str),
    /// A rollback room already has its most spectators
    /// ([`crate::endpoints::rollback_room::MAX_SPECTATORS`], issue 22).
    #[error("the match has its most spectators ({max} watching)")]
    Spectators {
        /// The room's limit.
        max: usize,
    },
    /// A spectator sent what only a player may (issue 22); it says what.
    #[error("a spectator {0}: it only watches")]
    Spectator(&'static str),
}

/// Runs `poll` on `host` at every wake-up before `now` and then at `now`;
/// each frame comes with the time it left. Both room hosts
/// ([`RoomHost`], [`crate::endpoints::rollback_room::RollbackRoomHost`])
/// catch up this way.
pub(crate) fn poll_until<H>(
    host: &mut H,
    now: SimTime,
    next_wakeup: impl Fn(&H) -> Option<SimTime>,
    mut poll: impl FnMut(&mut H, SimTime) -> Vec<(PlayerId, Vec<u8>)>,
) -> Vec<(SimTime, PlayerId, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some(t) = next_wakeup(host).filter(|&t| t < now) {
        out.extend(poll(host, t).into_iter().map(|(id, f)| (t, id, f)));
    }
    out.extend(poll(host, now).into_iter().map(|(id, f)| (now, id, f)));
    out
}

/// Counts a frame of `frame_len` bytes heard on `link` at `now` and, if
/// `result` is an error, tells the player (both room hosts answer so).
pub(crate) fn answer(
    link: &mut crate::endpoints::link::HostLink<ClientMsg>,
    now: SimTime,
    frame_len: usize,
    result: Result<(), RoomError>,
) -> Result<(), RoomError> {
    link.heard(now, frame_len);
    if let Err(e) = &result {
        link.send_now(&ServerMsg::Error {
            reason: e.to_string(),
        });
    }
    result
}

/// The authoritative room.
#[derive(Debug, Clone)]
pub struct RoomHost {
    /// In force; `max_record_time_ms` changes at a player's request.
    config: RoomConfig,
    world: World,
    params: MovementParams,
    /// Every player's link conditioners and forced-adjustment roll draw
    /// from this and their id.
    seed: u64,
    /// By id, ascending (ids only grow).
    players: Vec<Player>,
    /// The id the next player gets; ids are never reused.
    next_id: u32,
    /// Origin of the tick grid.
    created: SimTime,
    /// Index of the next server tick: also the replication counter.
    tick: u64,
    /// The recording, once [`RoomHost::record`] turned it on.
    recorder: Option<Box<Recorder>>,
}

impl RoomHost {
    /// An empty room for the default arena made at `now`, whose link
    /// conditioners draw from `seed`.
    ///
    /// # Errors
    /// [`RoomError::Settings`] if `config` is out of range.
    pub fn new(config: RoomConfig, seed: u64, now: SimTime) -> Result<RoomHost, RoomError> {
        config.validate()?;
        Ok(RoomHost {
            config,
            world: World::arena(),
            params: MovementParams::default(),
            seed,
            players: Vec::new(),
            next_id: 1,
            created: now,
            tick: 0,
            recorder: None,
        })
    }

    fn index(&self, id: PlayerId) -> Result<usize, usize> {
        self.players.binary_search_by_key(&id, |p| p.id)
    }

    /// Takes one frame from remote player `id` at `now`. Control messages
    /// act at once; moves, time requests, shots and reloads enter the
    /// player's uplink conditioner.
    ///
    /// # Errors
    /// [`RoomError::NoSuchPlayer`] (nothing is sent), or
    /// [`RoomError::Decode`] / [`RoomError::Settings`] / [`RoomError::Full`]
    /// (for AddBot): the player is sent an Error and nothing else changes.
    pub fn receive_frame(
        &mut self,
        now: SimTime,
        id: PlayerId,
        frame: &[u8],
    ) -> Result<(), RoomError> {
        match codec::decode::<ClientMsg>(frame) {
            Ok(msg) => self.receive_msg(now, id, frame.len(), msg),
            Err(e) => {
                let i = self.remote(id)?;
                let e = RoomError::from(e);
                self.answer(now, i, frame.len(), Err(e))
            }
        }
    }

    /// Takes one already decoded message from remote player `id` at `now`
    /// (for a driver that decodes first, to rate-limit by message kind):
    /// the second half of
    /// [`RoomHost::receive_frame`]. `frame_len` is the size of the frame it
    /// came in, bytes: the uplink's bandwidth cap and the player's byte
    /// count take it.
    ///
    /// # Errors
    /// As [`RoomHost::receive_frame`], without [`RoomError::Decode`].
    pub fn receive_msg(
        &mut self,
        now: SimTime,
        id: PlayerId,
        frame_len: usize,
        msg: ClientMsg,
    ) -> Result<(), RoomError> {
        let i = self.remote(id)?;
        let streams = self.players[i]
            .link()
            .is_some_and(|l| l.conn.streams_trace());
        let traced = (msg.is_control() && (streams || matches!(msg, ClientMsg::Trace(_))))
            .then(|| msg.clone());
        let recorded = (self.recorder.as_ref().is_some_and(|r| r.takes_events())
            && record::recorded_control(&msg))
        .then(|| msg.clone());
        let result = self.receive(now, i, frame_len, msg);
        if let (Ok(()), Some(msg)) = (&result, recorded) {
            self.note(|| RecordedEvent::Control { at: now, id, msg });
        }
        if let (Ok(()), Some(msg), Some(link)) = (&result, traced, self.players[i].link_mut()) {
            link.conn.trace_control(now, msg);
        }
        self.answer(now, i, frame_len, result)
    }

    /// The index of remote player `id`.
    fn remote(&self, id: PlayerId) -> Result<usize, RoomError> {
        self.index(id)
            .ok()
            .filter(|&i| self.players[i].link().is_some())
            .ok_or(RoomError::NoSuchPlayer(id))
    }

    /// Counts a received frame and tells the player about an error.
    fn answer(
        &mut self,
        now: SimTime,
        i: usize,
        frame_len: usize,
        result: Result<(), RoomError>,
    ) -> Result<(), RoomError> {
        match self.players.get_mut(i).and_then(Player::link_mut) {
            Some(link) => answer(&mut link.conn, now, frame_len, result),
            None => result,
        }
    }

    fn receive(
        &mut self,
        now: SimTime,
        i: usize,
        len: usize,
        msg: ClientMsg,
    ) -> Result<(), RoomError> {
        let player = &mut self.players[i];
        let Driver::Remote { character, link } = &mut player.driver else {
            return Err(RoomError::NoSuchPlayer(player.id));
        };
        match msg {
            ClientMsg::Room(RoomClientMsg::Join) => {
                link.conn.send_now(&wrap(RoomServerMsg::Joined {
                    you: player.id,
                    spawn: character.state().position,
                    world: self.world.clone(),
                    params: self.params,
                    weapon: self.config.weapon,
                    settings: player.settings,
                    max_record_time_ms: self.config.max_record_time_ms,
                }));
            }
            ClientMsg::SetNetSettings(s) => link.conn.set_net_settings(s)?,
            ClientMsg::SetTransport(t) => link.conn.set_transport(t),
            ClientMsg::SetServerRules(r) => {
                r.validate()?;
                character.set_config(r.apply_to(character.config()));
            }
            ClientMsg::LagSpike(spike) => link.conn.start_lag_spike(now, spike)?,
            ClientMsg::Room(RoomClientMsg::SetPlayerSettings(s)) => {
                s.validate()?;
                player.settings = s;
            }
            ClientMsg::Room(RoomClientMsg::SetMaxRecordTime { ms }) => {
                check_record_time(ms)?;
                self.config.max_record_time_ms = ms;
                self.send_roster();
            }
            ClientMsg::Room(RoomClientMsg::AddBot) => {
                self.add_bot(now)?;
            }
            ClientMsg::Trace(request) => {
                request.validate()?;
                self.stream_trace(now, i, request);
            }
            msg @ (ClientMsg::ServerMove(_)
            | ClientMsg::Ping { .. }
            | ClientMsg::Room(
                RoomClientMsg::TimeRequest { .. }
                | RoomClientMsg::Fire(_)
                | RoomClientMsg::Reload { .. },
            )) => {
                link.conn.send_up(now, len, msg);
            }
            ClientMsg::Hello => return Err(RoomError::NotInRoom("Hello")),
            ClientMsg::Resume { .. } => return Err(RoomError::NotInRoom("Resume")),
            ClientMsg::SetModel(_) => return Err(RoomError::NotInRoom("SetModel")),
            ClientMsg::Inputs(_) => return Err(RoomError::NotInRoom("Inputs")),
            ClientMsg::SeatReport(_) => {
                return Err(RoomError::NotInRoom("SeatReport (a rollback room's)"))
            }
            ClientMsg::Room(RoomClientMsg::Watch) => {
                return Err(RoomError::NotInRoom(
                    "Watch (only a rollback match is watched)",
                ))
            }
        }
        Ok(())
    }

    /// Advances the room to `now` and returns each player's frames, in
    /// order (see the module doc for what happens).
    pub fn poll(&mut self, now: SimTime) -> Vec<(PlayerId, Vec<u8>)> {
        let mut inbox = Vec::new();
        for (i, p) in self.players.iter_mut().enumerate() {
            if let Some(link) = p.link_mut() {
                while let Some(msg) = link.conn.poll_up(now) {
                    inbox.push((i, msg));
                }
            }
        }
        self.step(now, inbox);
        let mut out = Vec::new();
        for p in &mut self.players {
            let id = p.id;
            if let Some(link) = p.link_mut() {
                out.extend(link.conn.drain(now).into_iter().map(|f| (id, f)));
            }
        }
        out
    }

    /// Steps 1–3 of [`RoomHost::poll`] at `now`, with the messages the
    /// uplinks delivered (by player index, in order).
    fn step(&mut self, now: SimTime, inbox: Vec<(usize, ClientMsg)>) {
        self.note_poll(now, &inbox);
        for (i, msg) in inbox {
            self.deliver(now, i, msg);
        }
        for p in &mut self.players {
            if let Driver::Remote { character, link } = &mut p.driver {
                character.force_position_update(now, &self.world);
                if let Some(r) = character.flush(now) {
                    link.conn.send(now, &ServerMsg::MoveResponse(r));
                }
            }
        }
        while self.tick_time(self.tick) <= now {
            let at = self.tick_time(self.tick);
            self.run_tick(at);
            self.tick += 1;
            self.note_tick(at);
        }
    }

    /// Runs [`RoomHost::poll`] at every wake-up before `now` and then at
    /// `now`; each frame comes with the time it left.
    pub fn poll_until(&mut self, now: SimTime) -> Vec<(SimTime, PlayerId, Vec<u8>)> {
        poll_until(self, now, RoomHost::next_wakeup, RoomHost::poll)
    }

    /// The earliest time at which [`RoomHost::poll`] has something to do:
    /// the next tick, or a packet due on some player's link.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.players
            .iter()
            .filter_map(|p| p.link()?.conn.next_delivery())
            .chain([self.tick_time(self.tick)])
            .min()
    }

    /// When the next 60 Hz server tick is due: a [`RoomHost::poll`] at or
    /// after it runs it (a driver times its ticks by this).
    pub fn next_tick(&self) -> SimTime {
        self.tick_time(self.tick)
    }

    fn tick_time(&self, tick: u64) -> SimTime {
        self.created.plus_micros(tick * 1_000_000 / TICK_HZ)
    }

    fn deliver(&mut self, now: SimTime, i: usize, msg: ClientMsg) {
        let player = &mut self.players[i];
        let Driver::Remote { character, link } = &mut player.driver else {
            return;
        };
        match msg {
            ClientMsg::ServerMove(m) => {
                character.receive_server_move(&m, now, &self.world);
            }
            ClientMsg::Ping { id } => {
                let received = link.conn.ping_received(id);
                link.conn.send(now, &ServerMsg::Pong { id, received });
            }
            ClientMsg::Room(RoomClientMsg::TimeRequest {
                client_time,
                server_estimate,
            }) => {
                if let Some(e) = server_estimate {
                    link.lead_us = now.micros_since(e);
                }
                link.conn.send(
                    now,
                    &wrap(RoomServerMsg::TimeReport {
                        client_time,
                        server_time: now,
                    }),
                );
            }
            ClientMsg::Room(RoomClientMsg::Reload { seq, at }) => {
                self.take_action(now, i, seq, AmmoAction::Reload(at));
            }
            ClientMsg::Room(RoomClientMsg::Fire(shot)) => {
                self.take_action(now, i, shot.seq, AmmoAction::Fire(shot));
            }
            // Control messages act in `receive` and never enter the uplink.
            _ => {}
        }
    }

    /// Remote and bot players, by id.
    pub fn player_ids(&self) -> impl Iterator<Item = PlayerId> + '_ {
        self.players.iter().map(|p| p.id)
    }

    /// How many players are bots.
    pub fn bot_count(&self) -> usize {
        self.players.iter().filter(|p| p.link().is_none()).count()
    }

    /// Player `id`'s current hit boxes.
    pub fn hit_boxes(&self, id: PlayerId) -> Option<HitBoxes> {
        let p = &self.players[self.index(id).ok()?];
        Some(HitBoxes::at(p.state().position, self.params.radius))
    }

    /// Player `id`'s saved frames.
    pub fn history(&self, id: PlayerId) -> Option<&crate::room::history::FrameHistory> {
        Some(&self.players[self.index(id).ok()?].history)
    }

    /// What the server did with player `id`'s shots.
    pub fn shot_counters(&self, id: PlayerId) -> Option<ShotCounters> {
        Some(self.players[self.index(id).ok()?].shots)
    }

    /// Player `id`'s rounds left on the server.
    pub fn ammo(&self, id: PlayerId) -> Option<u16> {
        Some(self.players[self.index(id).ok()?].weapon.ammo())
    }

    /// The newest of player `id`'s ammo actions handed on (`Seq(0)`
    /// before the first): what their ammo updates acknowledge.
    pub fn actions_handled(&self, id: PlayerId) -> Option<crate::room::Seq> {
        Some(self.players[self.index(id).ok()?].actions.ack())
    }

    /// Remote player `id`'s link settings.
    pub fn net_settings(&self, id: PlayerId) -> Option<crate::net::settings::NetSettings> {
        Some(self.players[self.index(id).ok()?].link()?.conn.settings())
    }

    /// What crossed remote player `id`'s connection so far.
    pub fn traffic(&self, id: PlayerId) -> Option<Traffic> {
        Some(self.players[self.index(id).ok()?].link()?.conn.traffic())
    }

    /// Player `id`'s room switches.
    pub fn player_settings(&self, id: PlayerId) -> Option<PlayerSettings> {
        Some(self.players[self.index(id).ok()?].settings)
    }

    /// The room's configuration in force.
    pub fn config(&self) -> RoomConfig {
        self.config
    }

    /// The arena.
    pub fn world(&self) -> &World {
        &self.world
    }
}
