//! The server side of one connection, sans IO: the uplink link conditioner,
//! the authoritative [`ServerCharacter`], a bot-driven second character
//! replicated as a simulated proxy, the downlink conditioner and the
//! observer stream. The relay drives it with wall time; the page's local
//! mode and the tests drive it with a virtual clock — the same code.
//!
//! ```text
//! receive_frame ─► decode ─► uplink conditioner ─► ServerCharacter
//!                                                     │ flush (≤ 1 per interval)
//! poll ◄── encode ◄── downlink conditioner ◄──────────┘ + proxy updates, pongs
//!      ◄── observer snapshots (unconditioned debug view)
//! ```

use crate::bot::{Bot, BotCharacter};
use crate::math::Vec2;
use crate::movement::MovementParams;
use crate::net::codec::{self, DecodeError};
use crate::net::conditioner::{LinkConditioner, LinkConditions};
use crate::net::link_stats::SeqWindow;
use crate::net::protocol::{
    ClientMsg, DirectionTotals, LinkTotals, NetSettings, ObservedMove, ObserverSnapshot,
    ProxyUpdate, ServerMsg, ServerRules, ServerTotals, SettingsError,
};
use crate::server::{ProcessedMove, ServerCharacter, ServerConfig};
use crate::time::SimTime;
use crate::world::World;
use thiserror::Error;

/// Interval between the host's net updates, ms (20 Hz): each one sends the
/// simulated proxy's update ("servers usually broadcast simulated proxies
/// at 30 Hz or less", `000_…` §7.2) and the observer snapshot together, so
/// a driver that sends what one [`ServerHost::poll`] returns in one write
/// wakes once per update for both streams.
pub const NET_UPDATE_INTERVAL_MS: u64 = 50;
/// A client that has sent nothing for this long, ms, gets no net updates
/// until it sends again: 10 of the page's Ping intervals
/// ([`crate::endpoint::PING_INTERVAL_MS`]), so a second of silence means
/// its tab is hidden or frozen — the browser runs no frames there — and
/// the updates would only pile up unread in it. A client driven by
/// [`crate::LocalSession`] or a scenario is never this quiet (frames are
/// ≤ 0.25 s apart).
pub const QUIET_CLIENT_MS: u64 = 10 * crate::endpoint::PING_INTERVAL_MS;
/// Period of the server's check for a silent client
/// ([`ServerCharacter::force_position_update`]), ms: 30 Hz, UE's default
/// dedicated-server tick (`NetServerMaxTickRate`). The checks fall on a
/// grid from the host's creation, and the host wakes for one only when it
/// would act.
pub const STALL_CHECK_INTERVAL_MS: u64 = 33;
/// Most control answers (Welcome, Error) waiting between two polls; more
/// are dropped. Every frame received adds at most one and a driver polls
/// after each, so only a driver that feeds many frames without polling (a
/// fuzzer) ever reaches it.
pub const MAX_IMMEDIATE: usize = 16;

/// A frame the host refused. The session goes on; the client is told why
/// with a [`ServerMsg::Error`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HostError {
    /// The bytes did not decode.
    #[error("bad frame: {0}")]
    Decode(#[from] DecodeError),
    /// A setting was out of range; nothing was changed.
    #[error("bad settings: {0}")]
    Settings(#[from] SettingsError),
    /// A [`ClientMsg::Resume`] reached a host: sessions are kept by the
    /// relay, not by a host on its own (local mode).
    #[error("resume is not available here")]
    ResumeUnavailable,
}

/// The server end of one connection.
#[derive(Debug, Clone)]
pub struct ServerHost {
    world: World,
    params: MovementParams,
    settings: NetSettings,
    rules: ServerRules,
    uplink: LinkConditioner<ClientMsg>,
    /// Encoded frames: the bandwidth cap needs their size.
    downlink: LinkConditioner<Vec<u8>>,
    /// Ping ids received, returned in every Pong.
    pings_received: SeqWindow,
    player: ServerCharacter,
    npc: BotCharacter,
    /// When the next proxy update and observer snapshot are due.
    next_net_update: SimTime,
    /// The replication counter of the latest net update (newest wins).
    net_update_seq: u32,
    /// Origin of the stall-check grid (the host's creation).
    created: SimTime,
    /// The latest [`ServerHost::poll`].
    last_poll: SimTime,
    /// When the client last sent a frame.
    last_heard: SimTime,
    observed: Vec<ObservedMove>,
    immediate: Vec<ServerMsg>,
}

impl ServerHost {
    /// A host for the default arena whose conditioners draw from `seed`.
    pub fn new(seed: u64, now: SimTime) -> ServerHost {
        let world = World::arena();
        let params = MovementParams::default();
        let settings = NetSettings::default();
        let player = ServerCharacter::with_seed(params, ServerConfig::default(), world.spawn, seed);
        // The proxy runs the same tour half a lap ahead of the player.
        let npc_bot = Bot::new().starting_at(6);
        let npc_start = Vec2::new(1450.0, 1300.0);
        let mut host = ServerHost {
            uplink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ 0x5550_4c49_4e4b),
            downlink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ 0x444f_574e_4c4e),
            pings_received: SeqWindow::default(),
            player,
            npc: BotCharacter::new(npc_bot, npc_start, now),
            next_net_update: now,
            net_update_seq: 0,
            created: now,
            last_poll: now,
            last_heard: now,
            observed: Vec::new(),
            immediate: Vec::new(),
            world,
            params,
            settings,
            rules: ServerRules::default(),
        };
        host.apply_settings(settings);
        host
    }

    /// Takes one frame from the client at `now`. Control messages (Hello,
    /// settings, lag spikes) act at once; moves and pings enter the uplink
    /// conditioner with the frame's size.
    ///
    /// # Errors
    /// [`HostError`] if the frame does not decode or a setting is out of
    /// range. An Error message is queued for the client either way; nothing
    /// else changes.
    pub fn receive_frame(&mut self, now: SimTime, frame: &[u8]) -> Result<(), HostError> {
        match codec::decode::<ClientMsg>(frame) {
            Ok(msg) => self.receive_msg(now, frame.len(), msg),
            Err(e) => {
                self.last_heard = self.last_heard.max(now);
                let e = HostError::from(e);
                self.send_error(e.to_string());
                Err(e)
            }
        }
    }

    /// Takes one already decoded message at `now` (for a driver that
    /// decodes first, e.g. to rate-limit by message kind): the second half
    /// of [`ServerHost::receive_frame`]. `frame_len` is the size of the
    /// frame it came in, bytes: the uplink's bandwidth cap counts it for
    /// the messages that cross the uplink (ServerMove, Ping).
    ///
    /// # Errors
    /// [`HostError::Settings`] if a setting is out of range; an Error
    /// message is queued for the client and nothing else changes.
    pub fn receive_msg(
        &mut self,
        now: SimTime,
        frame_len: usize,
        msg: ClientMsg,
    ) -> Result<(), HostError> {
        self.last_heard = self.last_heard.max(now);
        let result = self.receive(now, frame_len, msg);
        if let Err(e) = &result {
            self.send_error(e.to_string());
        }
        result
    }

    /// Queues a [`ServerMsg::Error`] with `reason` for the next
    /// [`ServerHost::poll`]. At most [`MAX_IMMEDIATE`] messages wait between
    /// two polls; an error beyond that is dropped (a client sending garbage
    /// faster than the host is polled gets no more answers, not more memory).
    pub fn send_error(&mut self, reason: String) {
        self.push_immediate(ServerMsg::Error { reason });
    }

    fn push_immediate(&mut self, msg: ServerMsg) {
        if self.immediate.len() < MAX_IMMEDIATE {
            self.immediate.push(msg);
        }
    }

    fn receive(&mut self, now: SimTime, frame_len: usize, msg: ClientMsg) -> Result<(), HostError> {
        match msg {
            ClientMsg::Hello => self.push_immediate(ServerMsg::Welcome {
                world: self.world.clone(),
                params: self.params,
                settings: self.settings,
                rules: self.rules,
            }),
            ClientMsg::SetNetSettings(s) => {
                s.validate()?;
                self.apply_settings(s);
            }
            ClientMsg::SetServerRules(r) => {
                r.validate()?;
                self.rules = r;
                self.player.set_config(r.apply_to(self.player.config()));
            }
            ClientMsg::LagSpike(spike) => {
                spike.validate()?;
                let (extra, duration) = (spike.extra_ms.into(), spike.duration_ms.into());
                self.uplink.start_lag_spike(now, extra, duration);
                self.downlink.start_lag_spike(now, extra, duration);
            }
            ClientMsg::Resume { .. } => return Err(HostError::ResumeUnavailable),
            msg @ (ClientMsg::ServerMove(_) | ClientMsg::Ping { .. }) => {
                self.uplink.send(now, frame_len, msg);
            }
        }
        Ok(())
    }

    fn apply_settings(&mut self, s: NetSettings) {
        self.settings = s;
        self.uplink.set_conditions(s.uplink.conditions());
        self.downlink.set_conditions(s.downlink.conditions());
    }

    /// Advances the host to `now` and returns the frames to send, in order:
    /// delivers due uplink packets to the server, flushes its response,
    /// steps the bot character, queues the proxy update when a net update
    /// is due, delivers due downlink packets and adds the net update's
    /// observer snapshot.
    pub fn poll(&mut self, now: SimTime) -> Vec<Vec<u8>> {
        self.last_poll = self.last_poll.max(now);
        while let Some(msg) = self.uplink.poll(now) {
            match msg {
                ClientMsg::ServerMove(m) => {
                    let processed = self.player.receive_server_move(&m, now, &self.world);
                    self.observe(&processed);
                }
                ClientMsg::Ping { id } => {
                    self.pings_received.record(id);
                    let received = self.pings_received;
                    self.send_down(now, &ServerMsg::Pong { id, received });
                }
                ClientMsg::Hello
                | ClientMsg::SetNetSettings(_)
                | ClientMsg::SetServerRules(_)
                | ClientMsg::LagSpike(_)
                | ClientMsg::Resume { .. } => {}
            }
        }
        let released = self.player.release_held_moves(now, &self.world);
        self.observe(&released);
        if self.player.force_position_update(now, &self.world)
            && self.observed.len() < ObserverSnapshot::MAX_MOVES
        {
            self.observed.push(ObservedMove {
                position: self.player.state().position,
                corrected_from: None,
            });
        }
        if let Some(r) = self.player.flush(now) {
            self.send_down(now, &ServerMsg::MoveResponse(r));
        }
        self.npc.step_until(now, &self.params, &self.world);
        let net_update = now >= self.next_net_update && self.listening();
        if net_update {
            self.next_net_update = now.plus_millis(NET_UPDATE_INTERVAL_MS);
            self.net_update_seq = self.net_update_seq.wrapping_add(1);
            let update = ProxyUpdate {
                id: 1,
                seq: self.net_update_seq,
                position: self.npc.state().position,
                velocity: self.npc.state().velocity,
            };
            self.send_down(now, &ServerMsg::Proxy(update));
        }
        let mut out: Vec<Vec<u8>> = self
            .immediate
            .drain(..)
            .map(|m| codec::encode(&m))
            .collect();
        while let Some(frame) = self.downlink.poll(now) {
            out.push(frame);
        }
        if net_update {
            out.push(codec::encode(&ServerMsg::Observer(
                self.observer_snapshot(now),
            )));
        }
        out
    }

    /// Adds what the server did with moves to the next observer snapshot.
    fn observe(&mut self, processed: &[ProcessedMove]) {
        for p in processed {
            if self.observed.len() < ObserverSnapshot::MAX_MOVES {
                self.observed.push(ObservedMove {
                    position: p.position,
                    corrected_from: p.client_error_from,
                });
            }
        }
    }

    fn send_down(&mut self, now: SimTime, msg: &ServerMsg) {
        let frame = codec::encode(msg);
        self.downlink.send(now, frame.len(), frame);
    }

    fn observer_snapshot(&mut self, now: SimTime) -> ObserverSnapshot {
        let c = self.player.counters();
        let clip = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        ObserverSnapshot {
            seq: self.net_update_seq,
            player: *self.player.state(),
            last_time_stamp: self.player.current_time_stamp(),
            moves: std::mem::take(&mut self.observed),
            others: vec![self.npc.state().position],
            totals: ServerTotals {
                moves: clip(c.moves_simulated),
                acks: clip(c.acks_sent),
                adjustments: clip(c.adjustments_sent),
                ignored: clip(c.moves_ignored),
                rejected: clip(c.time_stamps_rejected),
                clamped: clip(c.moves_clamped),
                time_discrepancy_events: clip(c.time_discrepancy_events),
                forced_updates: clip(c.forced_updates),
            },
            link: LinkTotals {
                up: direction_totals(&self.uplink, now),
                down: direction_totals(&self.downlink, now),
            },
        }
    }

    /// Runs [`ServerHost::poll`] at every wake-up up to `now` and then at
    /// `now`, and returns each frame with the time it left: a driver that
    /// only gets to run now and then (a page's frame, a session's step)
    /// still sees packets arrive at their own times, so measured RTT is
    /// not rounded up to its frame rate.
    pub fn poll_until(&mut self, now: SimTime) -> Vec<(SimTime, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some(t) = self.next_wakeup().filter(|&t| t < now) {
            out.extend(self.poll(t).into_iter().map(|f| (t, f)));
        }
        out.extend(self.poll(now).into_iter().map(|f| (now, f)));
        out
    }

    /// The earliest time at which [`ServerHost::poll`] has something to do,
    /// or `None` if nothing happens until the client sends a frame (it
    /// has been quiet for [`QUIET_CLIENT_MS`] and nothing is in flight).
    pub fn next_wakeup(&self) -> Option<SimTime> {
        [
            self.uplink.next_delivery(),
            self.downlink.next_delivery(),
            self.listening().then_some(self.next_net_update),
            self.player.held_moves_due(),
            self.next_stall_check(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Whether the next net update falls before the client has been quiet
    /// for [`QUIET_CLIENT_MS`].
    fn listening(&self) -> bool {
        self.next_net_update < self.last_heard.plus_millis(QUIET_CLIENT_MS)
    }

    /// The first point of the stall-check grid after the latest poll at
    /// which a forced position update would act, if any.
    fn next_stall_check(&self) -> Option<SimTime> {
        let tick = STALL_CHECK_INTERVAL_MS * 1000;
        let from = self
            .player
            .forced_update_from()?
            .max(self.last_poll.plus_micros(1));
        let ticks = from.micros_since(self.created).div_ceil(tick);
        let mut at = self.created.plus_micros(ticks * tick);
        // `from` is at most a tick early: the second grid point is due.
        for _ in 0..3 {
            if self.player.forced_update_due(at) {
                return Some(at);
            }
            at = at.plus_micros(tick);
        }
        debug_assert!(false, "forced_update_from is more than a tick early");
        None
    }

    /// The authoritative player character.
    pub fn player(&self) -> &ServerCharacter {
        &self.player
    }

    /// Server rules in force.
    pub fn rules(&self) -> ServerRules {
        self.rules
    }

    /// Settings in force.
    pub fn settings(&self) -> NetSettings {
        self.settings
    }

    /// The arena.
    pub fn world(&self) -> &World {
        &self.world
    }
}

fn direction_totals<T: Clone>(c: &LinkConditioner<T>, now: SimTime) -> DirectionTotals {
    let s = c.stats();
    let clip = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    DirectionTotals {
        sent: clip(s.sent),
        lost: clip(s.lost),
        overflowed: clip(s.overflowed),
        duplicated: clip(s.duplicated),
        reordered: clip(s.reordered),
        in_flight: clip(c.in_flight() as u64),
        in_burst: c.in_burst(),
        in_spike: c.in_lag_spike(now),
    }
}
