//! The client end of a connection, sans IO: the link probe
//! ([`ClientLink`]: Pings, RTT, loss, bytes), the half of the prediction
//! model the server runs — the CMC model's predicting [`Client`] with the
//! simulated proxy, or the rollback model's [`RollbackPredictor`] — and the
//! views the three panels draw. The page (remote or local mode) and the
//! tests feed it frames and time; it returns frames to send.
//!
//! The model follows the server: every Welcome names it, and the endpoint
//! builds the matching half ([`ClientEndpoint::apply`] with
//! [`Setting::Model`] asks for another; the connection, the link settings
//! and the measured link stay). Like [`crate::endpoints::host::ServerHost`], the two halves
//! are an enum inside one type: the link and the panels' trails are
//! written once, and the page reaches each model's own state through
//! [`ClientEndpoint::cmc`] and [`ClientEndpoint::rollback`].

mod cmc;
mod receive;
mod views;

use crate::cmc::client::{Client, ClientConfig};
use crate::cmc::rules::ServerRules;
use crate::cmc::smoothing::SmoothingMode;
use crate::endpoints::link::ClientLink;
use crate::endpoints::metrics::Metrics;
use crate::endpoints::resume::ResumeTicket;
use crate::endpoints::trace::RelayTrace;
use crate::foundation::math::Vec2;
use crate::foundation::movement::MovementParams;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use crate::net::codec;
use crate::net::newest_wins::NewestWins;
use crate::net::settings::{LagSpike, NetSettings};
use crate::net::trace_wire::TraceRequest;
use crate::net::transport::LinkTransport;
use crate::protocol::ClientMsg;
use crate::protocol::Model;
use crate::protocol::{Setting, Setup};
use crate::rollback::predictor::RollbackEndpointError;
use crate::rollback::{InputCmd, RollbackPredictor};
use cmc::CmcPredictor;
use std::collections::VecDeque;

/// Points kept per trail (10 s at 60 Hz).
pub const TRAIL_LEN: usize = 600;
/// Server corrections kept for the Authoritative panel.
const SERVER_CORRECTIONS_KEPT: usize = 24;

/// What a received frame was, for the driver (most need no action).
#[derive(Debug, Clone, PartialEq)]
pub enum ClientEvent {
    /// The server accepted the connection, or switched models: the
    /// character starts moving.
    Welcomed,
    /// The server rejected something; shown to the user.
    ServerError(String),
    /// The relay refused a [`ClientEndpoint::resume_frame`] (the session
    /// expired, or the relay restarted): start a new session.
    ResumeRefused(String),
    /// A rollback message the client refused (stale, corrupt, another
    /// match): counted in the metrics, nothing to show.
    Refused(RollbackEndpointError),
    /// Anything else (already applied).
    Applied,
}

/// The client half of the model in force.
#[derive(Debug, Clone)]
enum Predictor {
    /// UE's CharacterMovementComponent model.
    Cmc(Box<CmcPredictor>),
    /// Fixed-tick input/snapshot rollback.
    Rollback(Box<RollbackPredictor>),
}

/// The client end of a connection.
#[derive(Debug, Clone)]
pub struct ClientEndpoint {
    world: World,
    predictor: Predictor,
    client_config: ClientConfig,
    seed: u64,
    smoothing: SmoothingMode,
    /// The model last asked for (a setting equal to it sends nothing).
    requested: Model,
    welcomed: bool,
    outbox: Vec<Vec<u8>>,
    link: ClientLink,
    predicted_trail: VecDeque<Vec2>,
    server_trail: VecDeque<Vec2>,
    server_corrections: VecDeque<(Vec2, Vec2)>,
    server_position: Option<Vec2>,
    others: Vec<Vec2>,
    /// Observer views are replicated state too: newest wins.
    observer_updates: NewestWins,
    last_error: Option<String>,
    /// The relay's resume token and grace period, once sent.
    resume: ResumeTicket,
    /// Records kept in the CMC client's move log while inspecting
    /// ([`ClientEndpoint::inspect`]).
    inspect: Option<usize>,
    /// The relay's packet trace, once asked for
    /// ([`ClientEndpoint::request_trace`]).
    trace: Option<Box<RelayTrace>>,
}

impl ClientEndpoint {
    /// A new endpoint; its first outgoing frame is Hello.
    pub fn new() -> ClientEndpoint {
        ClientEndpoint::with_seed(0)
    }

    /// A new endpoint whose CMC client draws its forced-loss rolls from
    /// `seed`.
    pub fn with_seed(seed: u64) -> ClientEndpoint {
        let world = World::arena();
        let client = Client::new(MovementParams::default(), world.spawn);
        ClientEndpoint {
            world,
            predictor: Predictor::Cmc(Box::new(CmcPredictor::new(client))),
            client_config: ClientConfig::default(),
            seed,
            smoothing: SmoothingMode::default(),
            requested: Model::Cmc,
            welcomed: false,
            outbox: vec![codec::encode(&ClientMsg::Hello)],
            link: ClientLink::default(),
            predicted_trail: VecDeque::new(),
            server_trail: VecDeque::new(),
            server_corrections: VecDeque::new(),
            server_position: None,
            others: Vec::new(),
            observer_updates: NewestWins::default(),
            last_error: None,
            resume: ResumeTicket::default(),
            inspect: None,
            trace: None,
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
    /// settings, server rules, lag spikes and another model are queued for
    /// the host (sent with the next frame); client switches, smoothing and
    /// the rollback model's client-side settings act at once. A model
    /// equal to the one last asked for sends nothing.
    pub fn apply(&mut self, setting: Setting) {
        match setting {
            Setting::Net(s) => self.set_net_settings(s),
            Setting::Rules(r) => self.set_server_rules(r),
            Setting::Client(c) => self.set_client_config(c),
            Setting::Smoothing(m) => self.set_smoothing(m),
            Setting::LagSpike(spike) => self.start_lag_spike(spike),
            Setting::Model(m) => self.set_model(m),
            Setting::Transport(t) => self.set_transport(t),
            // The relay's conditioner is out of reach: only a
            // [`crate::endpoints::session::LocalSession`] acts on it.
            Setting::Deliver { .. } => {}
        }
    }

    /// Keeps, from now on, the newest `capacity` records of the CMC
    /// client's moves ([`Client::move_log`]) and of the rollback
    /// predictor's rollbacks ([`RollbackPredictor::rollback_log`]), across
    /// Welcomes and model switches (a new half starts an empty account):
    /// the client's side of the correction inspector ([`crate::inspect`]).
    /// Off by default.
    pub fn inspect(&mut self, capacity: usize) {
        self.inspect = Some(capacity);
        self.keep_logs();
    }

    /// A copy without the inspector's records (moves, rollbacks, the
    /// trace): what a checkpoint of a taped run keeps. It plays on exactly
    /// as the original (the records change nothing it does).
    pub fn without_records(&self) -> ClientEndpoint {
        let mut copy = self.clone();
        copy.trace = None;
        copy.inspect = None;
        match &mut copy.predictor {
            Predictor::Cmc(c) => c.client.forget_move_log(),
            Predictor::Rollback(r) => r.forget_rollback_log(),
        }
        copy
    }

    /// Starts the current half's account if inspecting.
    fn keep_logs(&mut self) {
        let Some(capacity) = self.inspect else {
            return;
        };
        match &mut self.predictor {
            Predictor::Cmc(c) => c.client.keep_move_log(capacity),
            Predictor::Rollback(r) => r.keep_rollback_log(capacity),
        }
    }

    /// Asks the host for its packet trace with `request` (sent with the
    /// next frame; [`TraceRequest::OFF`] stops it): the relay's batches
    /// gather in [`ClientEndpoint::trace`], on this end's clock.
    pub fn request_trace(&mut self, request: TraceRequest) {
        self.outbox.push(codec::encode(&ClientMsg::Trace(request)));
        RelayTrace::follow(&mut self.trace, request);
    }

    /// The relay's packet trace, if asked for.
    pub fn trace(&self) -> Option<&RelayTrace> {
        self.trace.as_deref()
    }

    /// Asks the host for `model` (sent with the next frame): another model
    /// starts when its Welcome arrives; new rollback settings apply here at
    /// once and at the host when it gets them.
    pub fn set_model(&mut self, model: Model) {
        if model == self.requested {
            return;
        }
        self.requested = model;
        if let (Predictor::Rollback(r), Model::Rollback(config)) = (&mut self.predictor, model) {
            // Validated by the host too; out of range changes nothing.
            let _ = r.set_config(config);
        }
        self.outbox.push(codec::encode(&ClientMsg::SetModel(model)));
    }

    /// The frame that resumes this session on a new connection
    /// ([`ClientMsg::Resume`]), if the relay sent a token; from now until
    /// the Welcome, frames other than settings are held back by the driver.
    /// `None` in local mode.
    pub fn resume_frame(&mut self) -> Option<Vec<u8>> {
        self.resume.frame()
    }

    /// How long the relay keeps this session after its socket drops (the
    /// relay's [`crate::protocol::ServerMsg::SessionToken`]), if it
    /// said so.
    pub fn resume_grace(&self) -> Option<std::time::Duration> {
        self.resume.grace()
    }

    /// Runs one render frame at `now` lasting `dt` seconds with the player's
    /// (or bot's) input — the stick `direction`, `dash` pressed, `fire`
    /// held (the rollback arena's action button; the CMC model has none) —
    /// and returns the frames to send. Before the Welcome arrives only
    /// Hello and settings go out and nothing moves.
    pub fn frame(
        &mut self,
        now: SimTime,
        dt: f64,
        direction: Vec2,
        dash: bool,
        fire: bool,
    ) -> Vec<Vec<u8>> {
        if self.welcomed {
            match &mut self.predictor {
                Predictor::Cmc(c) => {
                    if let Some(m) = c
                        .client
                        .tick(dt, direction, dash, self.smoothing, &self.world)
                    {
                        let frame = codec::encode(&ClientMsg::ServerMove(m.clone()));
                        self.link.sent(now, frame.len());
                        self.outbox.push(frame);
                        c.sent(&m);
                    }
                    c.proxy.advance(dt as f32, self.smoothing, &self.world);
                }
                Predictor::Rollback(r) => {
                    let buttons = if fire { InputCmd::FIRE } else { 0 }
                        | if dash { InputCmd::DASH } else { 0 };
                    for p in r.frame(dt, direction, buttons) {
                        let frame = codec::encode(&ClientMsg::Inputs(p));
                        self.link.sent(now, frame.len());
                        self.outbox.push(frame);
                    }
                }
            }
            let drawn = self.drawn_position();
            push_bounded(&mut self.predicted_trail, drawn, TRAIL_LEN);
            if let Some(id) = self.link.ping_due(now) {
                let frame = codec::encode(&ClientMsg::Ping { id });
                self.link.sent(now, frame.len());
                self.outbox.push(frame);
                if let Some(t) = &mut self.trace {
                    t.ping_sent(id, now);
                }
            }
        }
        std::mem::take(&mut self.outbox)
    }

    /// Queues new network settings for the host (sent with the next frame)
    /// and restarts the link measurement, so that the measured figures
    /// describe the new link from the next Ping on
    /// ([`crate::net::link_meter::LinkMeter`]).
    pub fn set_net_settings(&mut self, settings: NetSettings) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetNetSettings(settings)));
        self.link.restart();
    }

    /// Queues the link's new transport for the host (sent with the next
    /// frame) and restarts the link measurement, as new settings do.
    pub fn set_transport(&mut self, transport: LinkTransport) {
        self.outbox
            .push(codec::encode(&ClientMsg::SetTransport(transport)));
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

    /// Changes the CMC client's switches live (kept for the next CMC
    /// client while rollback runs).
    pub fn set_client_config(&mut self, config: ClientConfig) {
        self.client_config = config;
        if let Predictor::Cmc(c) = &mut self.predictor {
            c.client.set_config(config);
        }
    }

    /// Sets the smoothing mode for corrections and the simulated proxy.
    pub fn set_smoothing(&mut self, mode: SmoothingMode) {
        self.smoothing = mode;
    }

    /// The read-out for the metrics panel at `now`: the link's numbers and
    /// the model's. In the rollback model the CMC fields hold the
    /// analogous numbers (see [`Metrics`]) and [`Metrics::rollback`] all
    /// of them.
    pub fn metrics(&mut self, now: SimTime) -> Metrics {
        let m = self.link.metrics(now);
        let stale = self.observer_updates.stale();
        let state_hash = self.state_hash();
        match &self.predictor {
            Predictor::Cmc(c) => {
                let n = c.client.counters();
                Metrics {
                    moves_sent: c.moves_sent,
                    acks: n.acks,
                    adjustments: n.adjustments,
                    replayed_moves: n.replayed_moves,
                    queue_len: c.client.saved_moves().len(),
                    pos_error_cm: c.pos_error_cm,
                    state_hash,
                    dash_events: n.dash_events,
                    combined_moves: n.combined_moves,
                    dual_moves: n.dual_moves,
                    old_moves_resent: n.old_moves_resent,
                    time_discrepancy_events: u64::from(c.server_totals.time_discrepancy_events),
                    stale_updates: c.proxy.stale_updates() + stale,
                    ..m
                }
            }
            Predictor::Rollback(r) => {
                let rm = r.metrics();
                Metrics {
                    moves_sent: rm.packets_sent,
                    acks: rm.acks,
                    adjustments: rm.rollbacks,
                    replayed_moves: rm.resimulated_ticks,
                    queue_len: rm.ticks_ahead as usize,
                    pos_error_cm: r
                        .last_rollback()
                        .map(|l| l.divergence.position_mm as f32 / 10.0),
                    state_hash,
                    stale_updates: stale,
                    rollback: Some(rm),
                    ..m
                }
            }
        }
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
