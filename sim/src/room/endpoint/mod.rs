//! [`RoomEndpoint`]: the client end of a room, sans IO. It predicts the
//! player's own character ([`Client`], the CMC model), keeps the other
//! characters as proxies, syncs its clock, predicts ammo and remembers its
//! shots; its link probe ([`ClientLink`]: Pings, RTT, loss, bytes) is a
//! single-player page's. The page and the tests feed it frames and time
//! (its **own** clock: the server's is only estimated); it returns frames
//! to send, in the one protocol ([`ClientMsg`], the room's own nested in
//! [`ClientMsg::Room`]).

use crate::client::{Client, ClientConfig};
use crate::math::Vec2;
use crate::metrics::Metrics;
use crate::movement::MovementParams;
use crate::net::codec;
use crate::net::link::ClientLink;
use crate::net::protocol::{ClientMsg, LagSpike, NetSettings, ServerRules};
use crate::net::resume::ResumeTicket;
use crate::room::ammo::{AmmoMode, PredictedAmmo};
use crate::room::clock::{ClockSync, TIME_SYNC_INTERVAL_MS};
use crate::room::config::PlayerSettings;
use crate::room::history::DEFAULT_MAX_RECORD_TIME_MS;
use crate::room::interpolation::render_delay_us;
use crate::room::proxies::ProxySet;
use crate::room::seq::Seq;
use crate::room::shots::ShotLog;
use crate::room::weapon::WeaponConfig;
use crate::room::wire::{PlayerId, RoomClientMsg, RosterEntry};
use crate::smoothing::SmoothingMode;
use crate::time::SimTime;
use crate::world::World;
use thiserror::Error;

mod receive;
mod weapon;

/// What a received frame was, for the driver.
#[derive(Debug, Clone, PartialEq)]
pub enum RoomEvent {
    /// The room took the player in.
    Joined(PlayerId),
    /// The room refused the player (full): close.
    Refused(String),
    /// The room rejected something; shown to the user.
    ServerError(String),
    /// The relay refused a [`RoomEndpoint::resume_frame`] (the seat's
    /// grace period is over, or the relay restarted): join afresh.
    ResumeRefused(String),
    /// Anything else (already applied).
    Applied,
}

/// Why a shot or reload was not made (the counter and the weapon are
/// predicted: the client refuses what the server would).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum FireError {
    /// Not in a room yet.
    #[error("not joined")]
    NotJoined,
    /// No clock-sync answer yet: the hit time is unknown.
    #[error("clock not synced yet")]
    ClockNotSynced,
    /// A reload is running.
    #[error("reloading")]
    Reloading,
    /// The magazine is empty.
    #[error("magazine empty")]
    Empty,
    /// Sooner than the fire interval after the last shot.
    #[error("fire interval not over")]
    TooSoon,
    /// Reloading a full magazine.
    #[error("magazine full")]
    Full,
}

/// The client end of a room.
#[derive(Debug, Clone)]
pub struct RoomEndpoint {
    /// Seeds the client's forced-loss roll when the join answer resets it.
    seed: u64,
    /// World, movement constants and weapon: the room's, from its answer.
    world: World,
    params: MovementParams,
    weapon: WeaponConfig,
    /// The player's own character, predicted (the CMC model).
    client: Client,
    /// Kept to rebuild the client with on joining.
    client_config: ClientConfig,
    /// How proxies are drawn.
    smoothing: SmoothingMode,
    /// This player's room switches as last sent: the render delay follows
    /// their net update rate.
    settings: PlayerSettings,
    /// The room's `MaxRecordTime` as last heard, ms.
    max_record_time_ms: u16,
    /// `None` until the room's answer.
    me: Option<PlayerId>,
    roster: Vec<RosterEntry>,
    clock: ClockSync,
    next_time_request: SimTime,
    proxies: ProxySet,
    ammo: PredictedAmmo,
    /// The next ammo action's number.
    next_action: Seq,
    /// Client time of the last shot: the local fire-interval check.
    last_shot: Option<SimTime>,
    shots: ShotLog,
    /// ServerMoves that left.
    moves_sent: u64,
    /// Frames queued for the next [`RoomEndpoint::frame`] or
    /// [`RoomEndpoint::take_outgoing`].
    outbox: Vec<Vec<u8>>,
    /// Pings, RTT, loss each way, bytes: the Link card.
    link: ClientLink,
    last_error: Option<String>,
    /// The relay's resume token and grace period, once sent.
    resume: ResumeTicket,
}

impl RoomEndpoint {
    /// A new endpoint; its first outgoing frame is Join. `seed` drives the
    /// client's forced-loss switch.
    pub fn new(seed: u64) -> RoomEndpoint {
        let world = World::arena();
        let params = MovementParams::default();
        let weapon = WeaponConfig::default();
        RoomEndpoint {
            seed,
            client: Client::new(params, world.spawn),
            world,
            params,
            weapon,
            client_config: ClientConfig::default(),
            smoothing: SmoothingMode::default(),
            settings: PlayerSettings::default(),
            max_record_time_ms: DEFAULT_MAX_RECORD_TIME_MS,
            me: None,
            roster: Vec::new(),
            clock: ClockSync::default(),
            next_time_request: SimTime::ZERO,
            proxies: ProxySet::default(),
            ammo: PredictedAmmo::new(weapon.magazine, AmmoMode::default()),
            next_action: Seq(1),
            last_shot: None,
            shots: ShotLog::default(),
            moves_sent: 0,
            outbox: vec![codec::encode(&ClientMsg::Room(RoomClientMsg::Join))],
            link: ClientLink::default(),
            last_error: None,
            resume: ResumeTicket::default(),
        }
    }

    /// Runs one render frame at client time `now` lasting `dt` s with the
    /// player's input and returns the frames to send: the move, a time
    /// request every [`TIME_SYNC_INTERVAL_MS`], a Ping every
    /// [`crate::net::link::PING_INTERVAL_MS`], and whatever fire, reload
    /// and settings queued. Proxies and the ammo counter advance.
    pub fn frame(&mut self, now: SimTime, dt: f64, direction: Vec2, dash: bool) -> Vec<Vec<u8>> {
        if self.me.is_some() {
            if let Some(m) = self
                .client
                .tick(dt, direction, dash, self.smoothing, &self.world)
            {
                self.queue(now, &ClientMsg::ServerMove(m));
                self.moves_sent += 1;
            }
            if now >= self.next_time_request {
                self.next_time_request = now.plus_millis(TIME_SYNC_INTERVAL_MS);
                let msg = RoomClientMsg::TimeRequest {
                    client_time: now,
                    server_estimate: self.clock.server_time(now),
                };
                self.queue(now, &ClientMsg::Room(msg));
            }
            if let Some(id) = self.link.ping_due(now) {
                self.queue(now, &ClientMsg::Ping { id });
            }
            self.ammo.advance(now);
            let render = self.render_time(now);
            self.proxies
                .advance(dt as f32, self.smoothing, render, &self.world);
        }
        self.take_outgoing()
    }

    /// The frames queued since the last call (a driver that sends a shot
    /// at once rather than with the next frame).
    pub fn take_outgoing(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.outbox)
    }

    /// Queues a frame that counts as game traffic sent at `now`.
    fn queue(&mut self, now: SimTime, msg: &ClientMsg) {
        let frame = codec::encode(msg);
        self.link.sent(now, frame.len());
        self.outbox.push(frame);
    }

    /// The server time of the world drawn at client time `now`: what a
    /// shot names as its hit time.
    ///
    /// - With interpolation: the clock's [`ClockSync::shown_time`] less
    ///   the render delay — the render clock the buffer is sampled at.
    /// - Otherwise: the newest net update's server time plus the time
    ///   since it arrived, the time the extrapolated collision positions
    ///   stand for ([`ProxySet::extrapolated_time`]); the clock's value
    ///   before any update.
    ///
    /// **Deviation.** The reference's hit time is `GetServerTime() −
    /// SingleTripTime` for every shot (`003_…`). Both agree on a steady
    /// link; under jitter the update in hand arrived early or late by its
    /// own jitter and the clock (the best sample, slewed) cannot know it,
    /// while its stamp does. Measured (`tests/room_rewind.rs`: a player
    /// strafing at RTT 200 ms, ±20 ms jitter, 5 % loss both ways): 181 of
    /// 189 shots confirmed with the clock's time, 188 with the stamp's.
    /// Interpolation keeps the clock: its render time must run smoothly,
    /// and a stamp-anchored one would jump with every update's jitter.
    pub fn render_time(&self, now: SimTime) -> Option<SimTime> {
        let shown = self.clock.shown_time(now)?;
        Some(match self.smoothing {
            SmoothingMode::Interpolation => SimTime(
                shown
                    .0
                    .saturating_sub(render_delay_us(self.settings.net_update_hz)),
            ),
            _ => self.proxies.extrapolated_time(now).unwrap_or(shown),
        })
    }

    /// Queues new link settings for this player's conditioners and
    /// restarts the link measurement (as a single-player page does).
    pub fn set_net_settings(&mut self, settings: NetSettings) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetNetSettings(settings)));
        self.link.restart();
    }

    /// Queues new CMC server rules for this player's character.
    pub fn set_server_rules(&mut self, rules: ServerRules) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetServerRules(rules)));
    }

    /// Asks for a lag spike on this player's link.
    pub fn start_lag_spike(&mut self, spike: LagSpike) {
        self.outbox.push(codec::encode(&ClientMsg::LagSpike(spike)));
    }

    /// Queues new room switches for this player (net update rate, rewind);
    /// the render delay follows the rate at once.
    pub fn set_player_settings(&mut self, settings: PlayerSettings) {
        self.settings = settings;
        self.send(&RoomClientMsg::SetPlayerSettings(settings));
    }

    /// Queues a request to the room for `msg` (the room's
    /// `MaxRecordTime`, add a bot).
    pub fn send(&mut self, msg: &RoomClientMsg) {
        self.outbox
            .push(codec::encode(&ClientMsg::Room(msg.clone())));
    }

    /// The frame that takes this player's seat back on a new connection
    /// ([`ClientMsg::Resume`]), if the relay sent a token; the room answers
    /// with a Joined that keeps the predicted character. `None` before a
    /// token (or in a session with no relay).
    pub fn resume_frame(&mut self) -> Option<Vec<u8>> {
        self.resume.frame()
    }

    /// How long the relay keeps this seat after the socket drops, if it
    /// said so.
    pub fn resume_grace(&self) -> Option<std::time::Duration> {
        self.resume.grace()
    }

    /// Sets how proxies are drawn.
    pub fn set_smoothing(&mut self, mode: SmoothingMode) {
        self.smoothing = mode;
    }

    /// Sets how the ammo counter merges server updates.
    pub fn set_ammo_mode(&mut self, mode: AmmoMode) {
        self.ammo.set_mode(mode);
    }

    /// Changes the predicting client's switches live.
    pub fn set_client_config(&mut self, config: ClientConfig) {
        self.client_config = config;
        self.client.set_config(config);
    }

    /// This player, once joined.
    pub fn me(&self) -> Option<PlayerId> {
        self.me
    }

    /// The predicting client (the player's own character).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The other characters.
    pub fn proxies(&self) -> &ProxySet {
        &self.proxies
    }

    /// The clock-sync estimate.
    pub fn clock(&self) -> &ClockSync {
        &self.clock
    }

    /// The ammo counter and its timeline.
    pub fn ammo(&self) -> &PredictedAmmo {
        &self.ammo
    }

    /// The newest shots and their four views.
    pub fn shots(&self) -> &ShotLog {
        &self.shots
    }

    /// Who is in the room.
    pub fn roster(&self) -> &[RosterEntry] {
        &self.roster
    }

    /// This player's room switches.
    pub fn settings(&self) -> PlayerSettings {
        self.settings
    }

    /// The weapon.
    pub fn weapon(&self) -> WeaponConfig {
        self.weapon
    }

    /// The arena.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// How proxies are drawn.
    pub fn smoothing(&self) -> SmoothingMode {
        self.smoothing
    }

    /// Bytes per second sent and received over the second ending at `now`.
    pub fn bytes_per_second(&mut self, now: SimTime) -> (u64, u64) {
        let m = self.link.metrics(now);
        (m.up_bps, m.down_bps)
    }

    /// The read-out at `now`: the link's numbers (RTT, loss, bytes/s) and
    /// the predicting client's counters, as a single-player page shows
    /// them (the link conditioner's totals are not reported by a room).
    pub fn metrics(&mut self, now: SimTime) -> Metrics {
        let m = self.link.metrics(now);
        let n = self.client.counters();
        Metrics {
            moves_sent: self.moves_sent,
            acks: n.acks,
            adjustments: n.adjustments,
            replayed_moves: n.replayed_moves,
            queue_len: self.client.saved_moves().len(),
            dash_events: n.dash_events,
            combined_moves: n.combined_moves,
            dual_moves: n.dual_moves,
            old_moves_resent: n.old_moves_resent,
            stale_updates: {
                let c = self.proxies.counters();
                c.late + c.duplicate
            },
            ..m
        }
    }

    /// The room's `MaxRecordTime` as last heard (the join answer or a
    /// roster), ms.
    pub fn max_record_time_ms(&self) -> u16 {
        self.max_record_time_ms
    }

    /// The last error the room reported.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }
}
