//! [`RoomEndpoint`]: the client end of a room, sans IO. It predicts the
//! player's own character ([`Client`], the CMC model), keeps the other
//! characters as proxies, syncs its clock, predicts ammo and remembers its
//! shots; its link probe ([`ClientLink`]: Pings, RTT, loss, bytes) is a
//! single-player page's. The page and the tests feed it frames and time
//! (its **own** clock: the server's is only estimated); it returns frames
//! to send, in the one protocol ([`ClientMsg`], the room's own nested in
//! [`ClientMsg::Room`]).

use crate::cmc::client::{Client, ClientConfig};
use crate::cmc::rules::ServerRules;
use crate::cmc::smoothing::SmoothingMode;
use crate::endpoints::link::ClientLink;
use crate::endpoints::metrics::Metrics;
use crate::endpoints::resume::ResumeTicket;
use crate::endpoints::trace::RelayTrace;
use crate::foundation::interpolation::render_delay_us;
use crate::foundation::math::Vec2;
use crate::foundation::movement::MovementParams;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use crate::net::codec;
use crate::net::settings::{LagSpike, NetSettings};
use crate::net::trace_wire::TraceRequest;
use crate::net::transport::LinkTransport;
use crate::protocol::ClientMsg;
use crate::room::actions::{ActionOutbox, RESEND_SPACING_MS};
use crate::room::ammo::{AmmoMode, PredictedAmmo};
use crate::room::clock::{ClockSync, TIME_SYNC_INTERVAL_MS};
use crate::room::config::PlayerSettings;
use crate::room::history::DEFAULT_MAX_RECORD_TIME_MS;
use crate::room::proxies::{DrawSettings, ProxySet};
use crate::room::replication::PlayerId;
use crate::room::shots::ShotLog;
use crate::room::weapon::WeaponConfig;
use crate::room::wire::{RoomClientMsg, RosterEntry};
use crate::room::Seq;
use thiserror::Error;

mod events;
mod receive;
mod weapon;

pub use events::{NetUpdateRecord, RoomEvents, UpdateFate, PROXY_JUMP_CM};

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
    /// Shots and reloads not acknowledged yet, sent again until they are.
    actions: ActionOutbox,
    /// The next ammo action's number (from 1 in each seat).
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
    /// The room's events as this end saw them (the lanes').
    events: RoomEvents,
    /// The relay's packet trace of this player's link, once asked for.
    trace: Option<Box<RelayTrace>>,
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
            actions: ActionOutbox::default(),
            next_action: Seq(1),
            last_shot: None,
            shots: ShotLog::default(),
            moves_sent: 0,
            outbox: vec![codec::encode(&ClientMsg::Room(RoomClientMsg::Join))],
            link: ClientLink::default(),
            last_error: None,
            resume: ResumeTicket::default(),
            events: RoomEvents::default(),
            trace: None,
        }
    }

    /// Asks the room for this player's packet trace with `request` (sent
    /// with the next frame; [`TraceRequest::OFF`] stops it): its batches
    /// gather in [`RoomEndpoint::trace`], on this end's clock.
    pub fn request_trace(&mut self, request: TraceRequest) {
        self.outbox.push(codec::encode(&ClientMsg::Trace(request)));
        RelayTrace::follow(&mut self.trace, request);
    }

    /// The relay's packet trace of this player's link, if asked for.
    pub fn trace(&self) -> Option<&RelayTrace> {
        self.trace.as_deref()
    }

    /// Runs one render frame at client time `now` lasting `dt` s with the
    /// player's input and returns the frames to send: the move, a time
    /// request every [`TIME_SYNC_INTERVAL_MS`], a Ping every
    /// [`crate::endpoints::link::PING_INTERVAL_MS`], the shots and reloads
    /// due again ([`crate::room::actions`]), and whatever fire, reload and
    /// settings queued. Proxies and the ammo counter advance.
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
                if let Some(t) = &mut self.trace {
                    t.ping_sent(id, now);
                }
            }
            let resend_after = self
                .clock
                .longest_rtt_us()
                .map_or(u64::MAX, |rtt| rtt + RESEND_SPACING_MS * 1000);
            for msg in self.actions.due(now, resend_after) {
                self.queue(now, &ClientMsg::Room(msg));
            }
            self.ammo.advance(now);
            let draw = DrawSettings {
                smoothing: self.smoothing,
                delay_us: render_delay_us(self.settings.net_update_hz),
                interval_us: self.settings.net_update_interval_us(),
            };
            self.proxies.advance(now, dt as f32, draw, &self.world);
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
    /// shot names as its hit time ([`ProxySet::drawn`]: the newest net
    /// update plus how far the proxies were extrapolated, or the render
    /// clock's time the buffers were sampled at with interpolation); the
    /// clock's [`ClockSync::shown_time`] before any update.
    ///
    /// **Deviation.** The reference's hit time is `GetServerTime() −
    /// SingleTripTime` for every shot (`003_…`). Both agree on a steady
    /// link; under jitter the update in hand arrived early or late by its
    /// own jitter and the clock (the best sample, slewed) cannot know it,
    /// while its stamp does. Measured (`tests/room_rewind.rs`: a player
    /// strafing at RTT 200 ms, ±20 ms jitter, 5 % loss both ways): 181 of
    /// 189 shots confirmed with the clock's time, 188 with the stamp's.
    pub fn render_time(&self, now: SimTime) -> Option<SimTime> {
        self.proxies
            .drawn()
            .map(|(t, _)| t)
            .or_else(|| self.clock.shown_time(now))
    }

    /// Queues new link settings for this player's conditioners and
    /// restarts the link measurement (as a single-player page does).
    pub fn set_net_settings(&mut self, settings: NetSettings) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetNetSettings(settings)));
        self.link.restart();
    }

    /// Queues this player's link transport (datagrams or reliable-ordered)
    /// and restarts the link measurement, as new settings do.
    pub fn set_transport(&mut self, transport: LinkTransport) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetTransport(transport)));
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

    /// The newest ammo action's number in this seat (`Seq(0)` before the
    /// first), and how many are not acknowledged yet.
    pub fn actions_sent(&self) -> (Seq, usize) {
        (Seq(self.next_action.0.wrapping_sub(1)), self.actions.len())
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
