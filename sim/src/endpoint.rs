//! The client end of a connection, sans IO: the predicting [`Client`], the
//! simulated proxy, RTT probes, byte counters and the views the three
//! panels draw. The page (remote or local mode) and the tests feed it
//! frames and time; it returns frames to send.

use crate::client::{Client, ClientConfig};
use crate::math::Vec2;
use crate::metrics::{Metrics, RateMeter};
use crate::movement::MovementParams;
use crate::net::codec::{self, DecodeError};
use crate::net::link_meter::LinkMeter;
use crate::net::newest_wins::NewestWins;
use crate::net::protocol::{
    ClientMsg, LagSpike, LinkTotals, NetSettings, ResumeToken, ServerMsg, ServerRules, ServerTotals,
};
use crate::proxy::SimulatedProxy;
use crate::scenario::{Setting, Setup};
use crate::smoothing::SmoothingMode;
use crate::time::{SimTime, TimeStamp};
use crate::world::World;
use std::collections::VecDeque;

/// Interval between RTT probes, ms: 10 Hz, so the 64-probe loss window
/// spans 6.4 s and the 100-sample RTT percentiles 10 s.
pub const PING_INTERVAL_MS: u64 = 100;
/// Points kept per trail (10 s at 60 Hz).
pub const TRAIL_LEN: usize = 600;
/// Predicted positions kept by time stamp for the error read-out (2 s).
const HISTORY_LEN: usize = 120;
/// Server corrections kept for the Authoritative panel.
const SERVER_CORRECTIONS_KEPT: usize = 24;

/// What a received frame was, for the driver (most need no action).
#[derive(Debug, Clone, PartialEq)]
pub enum ClientEvent {
    /// The server accepted the connection; the character starts moving.
    Welcomed,
    /// The server rejected something; shown to the user.
    ServerError(String),
    /// The relay refused a [`ClientEndpoint::resume_frame`] (the session
    /// expired, or the relay restarted): start a new session.
    ResumeRefused(String),
    /// Anything else (already applied).
    Applied,
}

/// The client end of a connection.
#[derive(Debug, Clone)]
pub struct ClientEndpoint {
    world: World,
    client: Client,
    client_config: ClientConfig,
    seed: u64,
    proxy: SimulatedProxy,
    smoothing: SmoothingMode,
    welcomed: bool,
    outbox: Vec<Vec<u8>>,
    next_ping: SimTime,
    link: LinkMeter,
    link_totals: LinkTotals,
    up: RateMeter,
    down: RateMeter,
    moves_sent: u64,
    history: VecDeque<(TimeStamp, Vec2)>,
    pos_error_cm: Option<f32>,
    predicted_trail: VecDeque<Vec2>,
    server_trail: VecDeque<Vec2>,
    server_corrections: VecDeque<(Vec2, Vec2)>,
    server_position: Option<Vec2>,
    others: Vec<Vec2>,
    /// Observer snapshots are replicated state too: newest wins.
    observer_updates: NewestWins,
    server_totals: ServerTotals,
    last_error: Option<String>,
    /// The relay's resume token and grace period, once sent.
    resume: Option<(ResumeToken, u32)>,
    /// A Resume was sent: the next Welcome keeps the predicted character.
    resuming: bool,
}

impl ClientEndpoint {
    /// A new endpoint; its first outgoing frame is Hello.
    pub fn new() -> ClientEndpoint {
        ClientEndpoint::with_seed(0)
    }

    /// A new endpoint whose client draws its forced-loss rolls from `seed`.
    pub fn with_seed(seed: u64) -> ClientEndpoint {
        let world = World::arena();
        let client = Client::new(MovementParams::default(), world.spawn);
        ClientEndpoint {
            world,
            client,
            client_config: ClientConfig::default(),
            seed,
            proxy: SimulatedProxy::default(),
            smoothing: SmoothingMode::default(),
            welcomed: false,
            outbox: vec![codec::encode(&ClientMsg::Hello)],
            next_ping: SimTime::ZERO,
            link: LinkMeter::default(),
            link_totals: LinkTotals::default(),
            up: RateMeter::default(),
            down: RateMeter::default(),
            moves_sent: 0,
            history: VecDeque::new(),
            pos_error_cm: None,
            predicted_trail: VecDeque::new(),
            server_trail: VecDeque::new(),
            server_corrections: VecDeque::new(),
            server_position: None,
            others: Vec::new(),
            observer_updates: NewestWins::default(),
            server_totals: ServerTotals::default(),
            last_error: None,
            resume: None,
            resuming: false,
        }
    }

    /// A new endpoint whose client draws from `seed`, with every setting of
    /// `setup` applied (the server's queued to go with the first frame).
    pub fn with_setup(seed: u64, setup: &Setup) -> ClientEndpoint {
        let mut e = ClientEndpoint::with_seed(seed);
        for setting in setup.settings() {
            e.apply(setting);
        }
        e
    }

    /// Applies one setting the way the page's controls do: network
    /// settings, server rules and lag spikes are queued for the host (sent
    /// with the next frame); client switches and smoothing act at once. The
    /// model is not this endpoint's to change: whoever drives the run picks
    /// the endpoint of the model.
    pub fn apply(&mut self, setting: Setting) {
        match setting {
            Setting::Net(s) => self.set_net_settings(s),
            Setting::Rules(r) => self.set_server_rules(r),
            Setting::Client(c) => self.set_client_config(c),
            Setting::Smoothing(m) => self.set_smoothing(m),
            Setting::LagSpike(spike) => self.start_lag_spike(spike),
            Setting::Model(_) => {}
        }
    }

    /// The frame that resumes this session on a new connection
    /// ([`ClientMsg::Resume`]), if the relay sent a token; from now until
    /// the Welcome, frames other than settings are held back by the driver.
    /// `None` in local mode.
    pub fn resume_frame(&mut self) -> Option<Vec<u8>> {
        let (token, _) = self.resume?;
        self.resuming = true;
        Some(codec::encode(&ClientMsg::Resume { token }))
    }

    /// How long the relay keeps this session after its socket drops (the
    /// relay's [`ServerMsg::SessionToken`]), if it said so.
    pub fn resume_grace(&self) -> Option<std::time::Duration> {
        self.resume
            .map(|(_, ms)| std::time::Duration::from_millis(u64::from(ms)))
    }

    /// Runs one render frame at `now` lasting `dt` seconds with the player's
    /// (or bot's) input, and returns the frames to send. Before the Welcome
    /// arrives only Hello and settings go out and nothing moves.
    pub fn frame(&mut self, now: SimTime, dt: f64, direction: Vec2, dash: bool) -> Vec<Vec<u8>> {
        if self.welcomed {
            if let Some(m) = self
                .client
                .tick(dt, direction, dash, self.smoothing, &self.world)
            {
                let frame = codec::encode(&ClientMsg::ServerMove(m.clone()));
                self.up.record(now, frame.len());
                self.moves_sent += 1;
                self.outbox.push(frame);
                push_bounded(
                    &mut self.history,
                    (m.new_move.time_stamp, self.client.state().position),
                    HISTORY_LEN,
                );
            }
            self.proxy.advance(dt as f32, self.smoothing, &self.world);
            push_bounded(
                &mut self.predicted_trail,
                self.client.drawn_position(),
                TRAIL_LEN,
            );
            if now >= self.next_ping {
                self.next_ping = now.plus_millis(PING_INTERVAL_MS);
                let id = self.link.next_ping(now);
                let frame = codec::encode(&ClientMsg::Ping { id });
                self.up.record(now, frame.len());
                self.outbox.push(frame);
            }
        }
        std::mem::take(&mut self.outbox)
    }

    /// Queues new network settings for the host (sent with the next frame)
    /// and restarts the link measurement, so that the measured figures
    /// describe the new link from the next Ping on ([`LinkMeter`]).
    pub fn set_net_settings(&mut self, settings: NetSettings) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetNetSettings(settings)));
        self.link.restart();
    }

    /// Asks the host for a lag spike on both directions (sent with the next
    /// frame).
    pub fn start_lag_spike(&mut self, spike: LagSpike) {
        self.outbox.push(codec::encode(&ClientMsg::LagSpike(spike)));
    }

    /// Queues new server rules for the host (sent with the next frame).
    pub fn set_server_rules(&mut self, rules: ServerRules) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetServerRules(rules)));
    }

    /// Changes the client's switches live.
    pub fn set_client_config(&mut self, config: ClientConfig) {
        self.client_config = config;
        self.client.set_config(config);
    }

    /// Sets the smoothing mode for corrections and the simulated proxy.
    pub fn set_smoothing(&mut self, mode: SmoothingMode) {
        self.smoothing = mode;
    }

    /// Takes one frame from the server at `now`.
    ///
    /// # Errors
    /// [`DecodeError`] if the frame does not decode; nothing changes.
    pub fn receive_frame(
        &mut self,
        now: SimTime,
        frame: &[u8],
    ) -> Result<ClientEvent, DecodeError> {
        let msg = codec::decode::<ServerMsg>(frame)?;
        if !matches!(msg, ServerMsg::Observer(_)) {
            self.down.record(now, frame.len());
        }
        Ok(match msg {
            ServerMsg::Welcome { world, params, .. } => {
                // A resumed session keeps its predicted character: the
                // server corrects it with its next response.
                if !std::mem::take(&mut self.resuming) {
                    self.client =
                        Client::with_config(params, world.spawn, self.client_config, self.seed);
                }
                self.world = world;
                self.welcomed = true;
                ClientEvent::Welcomed
            }
            ServerMsg::SessionToken { token, grace_ms } => {
                self.resume = Some((token, grace_ms));
                ClientEvent::Applied
            }
            ServerMsg::MoveResponse(r) => {
                self.client.handle_move_response(&r, &self.world);
                ClientEvent::Applied
            }
            ServerMsg::Proxy(u) => {
                self.proxy.on_update(&u, self.smoothing);
                ClientEvent::Applied
            }
            ServerMsg::Observer(s) if !self.observer_updates.accept(s.seq) => ClientEvent::Applied,
            ServerMsg::Observer(s) => {
                for m in &s.moves {
                    push_bounded(&mut self.server_trail, m.position, TRAIL_LEN);
                    if let Some(from) = m.corrected_from {
                        push_bounded(
                            &mut self.server_corrections,
                            (m.position, from),
                            SERVER_CORRECTIONS_KEPT,
                        );
                    }
                }
                self.server_position = Some(s.player.position);
                self.others = s.others;
                self.server_totals = s.totals;
                self.link_totals = s.link;
                if let Some(ts) = s.last_time_stamp {
                    if let Some(&(_, p)) = self.history.iter().rev().find(|(t, _)| *t == ts) {
                        self.pos_error_cm = Some((p - s.player.position).length());
                    }
                }
                ClientEvent::Applied
            }
            ServerMsg::Pong { id, received } => {
                self.link.on_pong(now, id, received);
                ClientEvent::Applied
            }
            ServerMsg::Error { reason } => {
                self.last_error = Some(reason.clone());
                // While resuming, only the Resume frame is out.
                if std::mem::take(&mut self.resuming) {
                    self.resume = None;
                    ClientEvent::ResumeRefused(reason)
                } else {
                    ClientEvent::ServerError(reason)
                }
            }
        })
    }

    /// The read-out for the metrics panel at `now`.
    pub fn metrics(&mut self, now: SimTime) -> Metrics {
        let c = self.client.counters();
        let l = self.link.report();
        Metrics {
            rtt_ms: l.rtt_smoothed_ms,
            rtt_last_ms: l.rtt_last_ms,
            rtt_p50_ms: l.rtt_p50_ms,
            rtt_p99_ms: l.rtt_p99_ms,
            jitter_ms: l.jitter_ms,
            rtt_samples: l.rtt_samples,
            loss_up: l.window_up.and_then(|c| c.rate()),
            loss_down: l.window_down.and_then(|c| c.rate()),
            loss_up_probes: l.window_up.map_or(0, |c| c.sent),
            loss_down_probes: l.window_down.map_or(0, |c| c.sent),
            loss_since_up: l.since_up,
            loss_since_down: l.since_down,
            link: self.link_totals,
            moves_sent: self.moves_sent,
            acks: c.acks,
            adjustments: c.adjustments,
            replayed_moves: c.replayed_moves,
            queue_len: self.client.saved_moves().len(),
            up_bps: self.up.per_second(now),
            down_bps: self.down.per_second(now),
            pos_error_cm: self.pos_error_cm,
            state_hash: self.client.state().state_hash(),
            dash_events: c.dash_events,
            combined_moves: c.combined_moves,
            dual_moves: c.dual_moves,
            old_moves_resent: c.old_moves_resent,
            time_discrepancy_events: u64::from(self.server_totals.time_discrepancy_events),
            stale_updates: self.proxy.stale_updates() + self.observer_updates.stale(),
        }
    }

    /// The predicting client (state, SavedMoves, corrections).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The other character as a simulated proxy.
    pub fn proxy(&self) -> &SimulatedProxy {
        &self.proxy
    }

    /// The arena in use.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// `true` once the server's Welcome arrived.
    pub fn is_welcomed(&self) -> bool {
        self.welcomed
    }

    /// Drawn positions of the local character, oldest first.
    pub fn predicted_trail(&self) -> &VecDeque<Vec2> {
        &self.predicted_trail
    }

    /// Server positions after each simulated move, oldest first.
    pub fn server_trail(&self) -> &VecDeque<Vec2> {
        &self.server_trail
    }

    /// Where the server issued corrections: (server position, client's
    /// reported position), oldest first.
    pub fn server_corrections(&self) -> &VecDeque<(Vec2, Vec2)> {
        &self.server_corrections
    }

    /// The server's current position of the player, once observed.
    pub fn server_position(&self) -> Option<Vec2> {
        self.server_position
    }

    /// The server's positions of the other characters.
    pub fn server_others(&self) -> &[Vec2] {
        &self.others
    }

    /// The server's counters, as last observed.
    pub fn server_totals(&self) -> ServerTotals {
        self.server_totals
    }

    /// The last error the server reported, if any.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// Smoothing mode in use.
    pub fn smoothing(&self) -> SmoothingMode {
        self.smoothing
    }

    /// Forgets the trails and correction records drawn by the panels.
    pub fn clear_trails(&mut self) {
        self.predicted_trail.clear();
        self.server_trail.clear();
        self.server_corrections.clear();
        self.client.clear_corrections();
    }
}

impl Default for ClientEndpoint {
    fn default() -> Self {
        ClientEndpoint::new()
    }
}

fn push_bounded<T>(q: &mut VecDeque<T>, item: T, cap: usize) {
    if q.len() >= cap {
        q.pop_front();
    }
    q.push_back(item);
}
