//! The client's half of a rollback match, driven by
//! [`crate::endpoints::client::ClientEndpoint`] when the server runs the rollback model: the
//! [`RollbackClient`] on the [`Arena`], its clock (fixed ticks with time
//! dilation, [`TimeSync`]), input packets with redundancy, identity checks,
//! the server's observer view and the numbers the page shows. The endpoint
//! owns the link ([`crate::endpoints::link::ClientLink`]): it encodes the
//! packets this half returns and hands it the messages that arrive.
//!
//! ```text
//! frame(dt, stick, buttons): apply a waiting State
//!     clock += dt × rate × dilation ─► per whole tick: sample input,
//!     predict (or wait at the window) ─► InputPacket [t, t−1, …] (redundancy)
//! receive: Start ─► new client │ Ack ─► time sync │ State ─► checks ─► pending
//! observe: the server's true snapshot (Authoritative panel)
//! ```

use super::arena::{Arena, MAX_PROJECTILES};
use super::client::{RollbackClient, RollbackRecord, StateRejected};
use super::config::RollbackConfig;
use super::game::Game;
use super::input::InputCmd;
use super::log::RollbackEvent;
use super::snapshot::{PlayerState, Snapshot};
use super::tick::Tick;
use super::time_sync::TimeSync;
use super::wire::{IdentityError, Ids, InputPacket, PackedInput, RollbackObserver};
use super::wire::{ReportedStats, RollbackServerMsg, RollbackServerTotals, SeatReport};
use crate::foundation::bounded::Bounded;
use crate::foundation::control::SettingsError;
use crate::foundation::math::Vec2;
use thiserror::Error;

/// Longest frame time the clock takes at once, s (`001_…` §2
/// `maxFrame = 0.25`): a frozen tab does not come back to a burst of
/// seconds of ticks.
const MAX_FRAME_S: f64 = 0.25;

/// A rollback message the client refused (counted); nothing else changes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RollbackEndpointError {
    /// Ack or State before any Start.
    #[error("no match started")]
    NotStarted,
    /// A Start whose snapshot has fewer than [`super::arena::MIN_PLAYERS`]
    /// or more than [`super::arena::MAX_PLAYERS`] players.
    #[error("a match of {0} players is not supported")]
    PlayerCount(usize),
    /// An identity check failed.
    #[error("rejected: {0}")]
    Identity(#[from] IdentityError),
    /// A State whose shape is impossible (player count, projectile count,
    /// inputs not filling whole ticks).
    #[error("malformed state")]
    MalformedState,
    /// A State the client refused.
    #[error("state rejected: {0}")]
    State(#[from] StateRejected),
    /// A spectator's message (Watch, View): this end holds a seat.
    #[error("a spectator's message to a seated player")]
    Spectating,
}

/// Messages refused before they reached the client, and matches started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PredictorCounters {
    /// Failed an identity check.
    pub identity_rejected: u64,
    /// Of those, for an older match (`001_…` §4.4: a late packet of an
    /// earlier match must never land in a new one).
    pub stale_match: u64,
    /// Of those, for another session (another player's connection, or a
    /// previous one of this page).
    pub foreign_session: u64,
    /// Impossible State shapes, and a spectator's messages (they are not
    /// a seated player's).
    pub malformed: u64,
    /// Matches started.
    pub starts: u64,
}

/// One read-out of the rollback model's own numbers (the page's
/// `data-metric`s; the link's — RTT, loss, bytes/s — are in
/// [`crate::endpoints::metrics::Metrics`] beside them). Counters count from the current
/// match's Start (a new tick rate starts a new match).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RollbackMetrics {
    /// Rebases that moved the local player visibly (`rollbacks`).
    pub rollbacks: u64,
    /// States restored (`rebases`).
    pub rebases: u64,
    /// Ticks re-simulated in all (`resimulated-ticks`).
    pub resimulated_ticks: u64,
    /// Ticks re-simulated by the last rebase.
    pub last_resimulated: u32,
    /// Ticks the server held or defaulted the client's input
    /// (`missed-inputs`), as of the last Ack.
    pub missed_inputs: u32,
    /// Client inputs that reached the server after their tick, as of the
    /// last Ack.
    pub late_inputs: u32,
    /// Confirmed ticks checked against the server's hash.
    pub hash_checks: u64,
    /// Of those, disagreeing (`hash-mismatches`).
    pub hash_mismatches: u64,
    /// States refused: stale, out of window, bad hash, identity, malformed.
    pub states_rejected: u64,
    /// Smoothed input buffer at the server, ticks (`input-buffer`).
    pub input_buffer: Option<f64>,
    /// Clock factor, `0.9..=1.1` (`time-dilation`).
    pub time_dilation: f64,
    /// The clock drifts beyond what dilation takes back
    /// ([`super::time_sync::TimeSync::drifting`]): the page warns.
    pub clock_drifting: bool,
    /// Ticks predicted beyond the last confirmed State (`ticks-ahead`).
    pub ticks_ahead: u32,
    /// Ticks the prediction window held the client back.
    pub stalls: u64,
    /// Ticks the drawn picture stood still waiting for a State, rollback
    /// off (`frozen-ticks`).
    pub frozen_ticks: u64,
    /// Clock jumps made by the time sync.
    pub time_jumps: u64,
    /// Rebases reaching past the kept history.
    pub history_overflows: u64,
    /// Acks received.
    pub acks: u64,
    /// Input packets sent.
    pub packets_sent: u64,
}

/// The client's half of a rollback match.
#[derive(Debug, Clone)]
pub struct RollbackPredictor {
    config: RollbackConfig,
    pub(super) ids: Option<Ids>,
    pub(super) client: Option<RollbackClient<Arena>>,
    time_sync: TimeSync,
    /// Ticks owed by the clock (may be negative after a jump back).
    clock: f64,
    /// Buttons pressed since the last tick (a press between two ticks is
    /// not lost).
    buttons: u16,
    missed: u32,
    late: u32,
    acks: u64,
    packets_sent: u64,
    counters: PredictorCounters,
    /// The server's latest observer view.
    server: Option<RollbackObserver>,
    /// The visible rollbacks, when kept (`log`).
    log: Option<Box<Bounded<RollbackEvent>>>,
}

impl RollbackPredictor {
    /// A half waiting for its Start.
    ///
    /// # Errors
    /// [`SettingsError`] if `config` is out of range.
    pub fn new(config: RollbackConfig) -> Result<RollbackPredictor, SettingsError> {
        config.validate()?;
        Ok(RollbackPredictor {
            config,
            ids: None,
            client: None,
            time_sync: TimeSync::new(config.input_buffer),
            clock: 0.0,
            buttons: 0,
            missed: 0,
            late: 0,
            acks: 0,
            packets_sent: 0,
            counters: PredictorCounters::default(),
            server: None,
            log: None,
        })
    }

    /// Changes the client-side settings live (redundancy, prediction
    /// window, input buffer); the tick rate follows the host's Start.
    ///
    /// # Errors
    /// [`SettingsError`] if out of range; nothing changes.
    pub fn set_config(&mut self, config: RollbackConfig) -> Result<(), SettingsError> {
        config.validate()?;
        self.config = config;
        self.time_sync.set_target(config.input_buffer);
        if let Some(c) = &mut self.client {
            c.set_max_prediction(config.max_prediction);
            c.set_input_delay(config.input_delay);
            c.set_rollback(config.rollback);
        }
        Ok(())
    }

    /// Runs one render frame lasting `dt` s with the stick `direction` and
    /// `buttons` ([`InputCmd::FIRE`], [`InputCmd::DASH`]) held, and returns
    /// one input packet per tick run.
    pub fn frame(&mut self, dt: f64, direction: Vec2, buttons: u16) -> Vec<InputPacket> {
        self.buttons |= buttons;
        let (Some(client), Some(ids)) = (&mut self.client, self.ids) else {
            return Vec::new();
        };
        let rollbacks = client.counters().rollbacks;
        client.rebase_if_due();
        let rolled_back = client.counters().rollbacks > rollbacks;
        let rate = f64::from(client.game().rate().hz());
        let dt = if dt.is_finite() {
            dt.clamp(0.0, MAX_FRAME_S)
        } else {
            0.0
        };
        self.clock += dt * rate * self.time_sync.dilation();
        let mut out = Vec::new();
        let delay = u32::from(self.config.input_delay);
        while self.clock >= 1.0 {
            let cmd = InputCmd::from_direction(client.tick(), direction, self.buttons);
            // The input is simulated, and sent, as this tick + the delay.
            let newest = cmd.tick.plus(delay);
            if client.advance(cmd).is_err() {
                // Waiting at the window: the owed time is dropped, and the
                // time sync sees the server's buffer shrink.
                self.clock = 0.0;
                break;
            }
            self.clock -= 1.0;
            self.buttons = buttons;
            let inputs = (0..u32::from(self.config.redundancy))
                .map_while(|i| client.local_input(newest.minus(i)))
                .map(|c| PackedInput::pack(&c))
                .collect();
            out.push(InputPacket {
                ids,
                newest,
                inputs,
            });
        }
        self.packets_sent += out.len() as u64;
        if rolled_back {
            self.note_rollback();
        }
        out
    }

    /// Takes one message from the server.
    ///
    /// # Errors
    /// [`RollbackEndpointError`] naming why it was refused; every reason
    /// but [`RollbackEndpointError::NotStarted`] is counted. Nothing else
    /// changes.
    pub fn receive(&mut self, msg: RollbackServerMsg) -> Result<(), RollbackEndpointError> {
        if let RollbackServerMsg::Start(s) = msg {
            let players = s.snapshot.players.len();
            let arena = Arena::with_players(s.tick_rate, players).ok_or_else(|| {
                self.counters.malformed += 1;
                RollbackEndpointError::PlayerCount(players)
            })?;
            self.start(s.ids, arena, s.snapshot);
            return Ok(());
        }
        if let RollbackServerMsg::Seats(_) = msg {
            // A room's per-seat numbers are the page's to show, not the
            // prediction's (issue 22).
            return Ok(());
        }
        let (Some(ids), Some(client)) = (self.ids, &mut self.client) else {
            return Err(RollbackEndpointError::NotStarted);
        };
        let Some(msg_ids) = msg.ids() else {
            self.counters.malformed += 1;
            return Err(RollbackEndpointError::Spectating);
        };
        msg_ids.check(&ids).inspect_err(|e| {
            self.counters.identity_rejected += 1;
            match e {
                IdentityError::Match => self.counters.stale_match += 1,
                IdentityError::Session => self.counters.foreign_session += 1,
                _ => {}
            }
        })?;
        match msg {
            RollbackServerMsg::Start(_)
            | RollbackServerMsg::Watch(_)
            | RollbackServerMsg::View(_)
            | RollbackServerMsg::Seats(_) => Ok(()),
            RollbackServerMsg::Ack(a) => {
                self.acks += 1;
                self.missed = a.missed;
                self.late = a.late;
                if let (Some(newest), Some(buffer)) = (a.newest_input, a.buffer) {
                    if let Some(jump) = self.time_sync.on_ack(newest, buffer.into()) {
                        self.clock += f64::from(jump);
                        let delay = u32::from(self.config.input_delay);
                        self.time_sync
                            .jumped(client.tick().plus(jump.max(0) as u32 + delay));
                    }
                }
                Ok(())
            }
            RollbackServerMsg::State(s) => {
                let players = client.game().players();
                let update = s
                    .into_update(players)
                    .filter(|u| well_formed(&u.state, players))
                    .ok_or_else(|| {
                        self.counters.malformed += 1;
                        RollbackEndpointError::MalformedState
                    })?;
                Ok(client.receive_state(update)?)
            }
        }
    }

    /// This player's report of its own numbers for a rollback room (issue
    /// 22): `rtt_ms`, the page's newest Ping round trip (ms), its input
    /// delay and time dilation, rounded into their ranges; `None` before
    /// the Start (no ids yet).
    pub fn seat_report(&self, rtt_ms: Option<f64>) -> Option<SeatReport> {
        Some(SeatReport {
            ids: self.ids?,
            stats: ReportedStats::measured(
                rtt_ms,
                self.config.input_delay,
                self.time_sync.dilation(),
            ),
        })
    }

    /// Keeps the server's observer view (the Authoritative panel).
    pub fn observe(&mut self, view: RollbackObserver) {
        self.server = Some(view);
    }

    fn start(&mut self, ids: Ids, arena: Arena, snapshot: Snapshot) {
        self.ids = Some(ids);
        self.client = Some(RollbackClient::new(
            arena,
            snapshot,
            usize::from(ids.player),
            self.config.max_prediction,
        ));
        if let Some(c) = &mut self.client {
            c.set_input_delay(self.config.input_delay);
            c.set_rollback(self.config.rollback);
        }
        self.time_sync = TimeSync::new(self.config.input_buffer);
        self.clock = 0.0;
        self.acks = 0;
        self.packets_sent = 0;
        self.counters.starts += 1;
    }

    /// The model's read-out.
    pub fn metrics(&self) -> RollbackMetrics {
        let c = self
            .client
            .as_ref()
            .map(|c| c.counters())
            .unwrap_or_default();
        let e = self.counters;
        RollbackMetrics {
            rollbacks: c.rollbacks,
            rebases: c.rebases,
            resimulated_ticks: c.resimulated_ticks,
            last_resimulated: self
                .last_rollback()
                .map_or(0, |r| r.to.diff(r.from).max(0) as u32),
            missed_inputs: self.missed,
            late_inputs: self.late,
            hash_checks: c.hash_checks,
            hash_mismatches: c.hash_mismatches,
            states_rejected: c.rejected_stale
                + c.rejected_window
                + c.rejected_hash
                + e.identity_rejected
                + e.malformed,
            input_buffer: self.time_sync.buffer(),
            time_dilation: self.time_sync.dilation(),
            clock_drifting: self.time_sync.drifting(),
            ticks_ahead: self.client.as_ref().map_or(0, |c| c.ticks_ahead()),
            stalls: c.stalls,
            frozen_ticks: c.frozen_ticks,
            time_jumps: self.time_sync.jumps(),
            history_overflows: c.history_overflows,
            acks: self.acks,
            packets_sent: self.packets_sent,
        }
    }

    /// The predicting client, once a match started.
    pub fn client(&self) -> Option<&RollbackClient<Arena>> {
        self.client.as_ref()
    }

    /// What the client draws (the Predicted panel).
    pub fn predicted(&self) -> Option<&Snapshot> {
        self.client.as_ref().map(|c| c.predicted())
    }

    /// The local player in the predicted state, once a match started.
    pub fn local_player(&self) -> Option<&PlayerState> {
        let player = usize::from(self.ids?.player);
        self.predicted()?.players.get(player)
    }

    /// The last confirmed State.
    pub fn confirmed(&self) -> Option<&Snapshot> {
        self.client.as_ref().map(|c| c.confirmed())
    }

    /// The last rebase (the Replayed panel): discarded predictions, the
    /// restored State, the re-simulated ticks.
    pub fn last_rollback(&self) -> Option<&RollbackRecord<Snapshot>> {
        self.client.as_ref().and_then(|c| c.last_rollback())
    }

    /// The server's true state, as last observed (the Authoritative
    /// panel).
    pub fn server_snapshot(&self) -> Option<&Snapshot> {
        self.server.as_ref().map(|v| &v.snapshot)
    }

    /// The server's counters, as last observed.
    pub fn server_totals(&self) -> RollbackServerTotals {
        self.server.as_ref().map(|v| v.totals).unwrap_or_default()
    }

    /// The client's current tick, once started.
    pub fn tick(&self) -> Option<Tick> {
        self.client.as_ref().map(|c| c.tick())
    }

    /// Settings in force.
    pub fn config(&self) -> RollbackConfig {
        self.config
    }

    /// Messages refused before the client, and matches started.
    pub fn counters(&self) -> PredictorCounters {
        self.counters
    }

    /// Keeps an account of the newest `capacity` visible rollbacks from now
    /// on ([`RollbackPredictor::rollback_log`]; a second call keeps the
    /// account already kept). Off by default.
    pub fn keep_rollback_log(&mut self, capacity: usize) {
        self.log
            .get_or_insert_with(|| Box::new(Bounded::new(capacity)));
    }

    /// Stops keeping the account and forgets it.
    pub fn forget_rollback_log(&mut self) {
        self.log = None;
    }

    /// The account kept, oldest first (empty when not kept).
    pub fn rollback_log(&self) -> impl Iterator<Item = &RollbackEvent> {
        self.log.iter().flat_map(|l| l.items().iter())
    }

    /// A rebase just counted a rollback: notes it.
    fn note_rollback(&mut self) {
        let (Some(log), Some(r), Some(ids)) = (
            &mut self.log,
            self.client.as_ref().and_then(|c| c.last_rollback()),
            self.ids,
        ) else {
            return;
        };
        log.push(RollbackEvent::of(r, ids.player));
    }
}

fn well_formed(s: &Snapshot, players: usize) -> bool {
    s.players.len() == players && s.projectiles.len() <= MAX_PROJECTILES
}
