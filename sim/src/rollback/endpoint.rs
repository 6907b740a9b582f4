//! The client end of a rollback connection, sans IO: the
//! [`RollbackClient`] on the [`Arena`], its clock (fixed ticks with time
//! dilation, [`TimeSync`]), input packets with redundancy, identity checks
//! and the numbers the page shows. The page and the tests feed it frames
//! and time; it returns frames to send.
//!
//! ```text
//! frame(now, dt, stick, fire): apply a waiting State
//!     clock += dt × rate × dilation ─► per whole tick: sample input,
//!     predict (or wait at the window) ─► Inputs [t, t−1, …] (redundancy)
//! receive_frame: Start ─► new client │ Ack ─► time sync │ State ─► checks ─► pending
//! ```

use super::arena::{Arena, MAX_PROJECTILES, PLAYERS};
use super::client::{RollbackClient, RollbackRecord, StateRejected};
use super::config::RollbackConfig;
use super::input::InputCmd;
use super::snapshot::Snapshot;
use super::tick::Tick;
use super::time_sync::TimeSync;
use super::wire::{
    IdentityError, Ids, InputPacket, PackedInput, RollbackClientMsg, RollbackServerMsg,
};
use crate::math::Vec2;
use crate::metrics::RateMeter;
use crate::net::codec::{self, DecodeError};
use crate::net::protocol::SettingsError;
use crate::time::SimTime;
use thiserror::Error;

/// Longest frame time the clock takes at once, s (`001_…` §2
/// `maxFrame = 0.25`): a frozen tab does not come back to a burst of
/// seconds of ticks.
const MAX_FRAME_S: f64 = 0.25;

/// A frame the endpoint refused (counted); nothing else changes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RollbackEndpointError {
    /// The bytes did not decode.
    #[error("bad frame: {0}")]
    Decode(#[from] DecodeError),
    /// Ack or State before any Start.
    #[error("no match started")]
    NotStarted,
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
}

/// Frames the endpoint refused before they reached the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EndpointCounters {
    /// Did not decode.
    pub decode_errors: u64,
    /// Failed an identity check.
    pub identity_rejected: u64,
    /// Impossible State shapes.
    pub malformed: u64,
    /// Matches started.
    pub starts: u64,
}

/// One read-out of the rollback model's numbers (the page's
/// `data-metric`s).
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
    /// Ticks predicted beyond the last confirmed State (`ticks-ahead`).
    pub ticks_ahead: u32,
    /// Ticks the prediction window held the client back.
    pub stalls: u64,
    /// Clock jumps made by the time sync.
    pub time_jumps: u64,
    /// Rebases reaching past the kept history.
    pub history_overflows: u64,
    /// Bytes per second sent over the last second (`up-bps`).
    pub up_bps: u64,
    /// Bytes per second received over the last second (`down-bps`).
    pub down_bps: u64,
}

/// The client end of a rollback connection.
#[derive(Debug, Clone)]
pub struct RollbackEndpoint {
    config: RollbackConfig,
    ids: Option<Ids>,
    client: Option<RollbackClient<Arena>>,
    time_sync: TimeSync,
    /// Ticks owed by the clock (may be negative after a jump back).
    clock: f64,
    fire_latch: bool,
    outbox: Vec<Vec<u8>>,
    up: RateMeter,
    down: RateMeter,
    missed: u32,
    late: u32,
    counters: EndpointCounters,
}

impl RollbackEndpoint {
    /// A new endpoint; its first frame is Join.
    ///
    /// # Errors
    /// [`SettingsError`] if `config` is out of range.
    pub fn new(config: RollbackConfig) -> Result<RollbackEndpoint, SettingsError> {
        config.validate()?;
        Ok(RollbackEndpoint {
            config,
            ids: None,
            client: None,
            time_sync: TimeSync::new(config.input_buffer),
            clock: 0.0,
            fire_latch: false,
            outbox: vec![codec::encode(&RollbackClientMsg::Join)],
            up: RateMeter::default(),
            down: RateMeter::default(),
            missed: 0,
            late: 0,
            counters: EndpointCounters::default(),
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
        }
        Ok(())
    }

    /// Runs one render frame at `now` lasting `dt` s with the stick
    /// `direction` and `fire` held, and returns the frames to send.
    pub fn frame(&mut self, now: SimTime, dt: f64, direction: Vec2, fire: bool) -> Vec<Vec<u8>> {
        self.fire_latch |= fire;
        if let (Some(client), Some(ids)) = (&mut self.client, self.ids) {
            client.rebase_if_due();
            let rate = f64::from(client.game().rate().hz());
            let dt = if dt.is_finite() {
                dt.clamp(0.0, MAX_FRAME_S)
            } else {
                0.0
            };
            self.clock += dt * rate * self.time_sync.dilation();
            while self.clock >= 1.0 {
                let buttons = if fire || self.fire_latch {
                    InputCmd::FIRE
                } else {
                    0
                };
                let cmd = InputCmd::from_direction(client.tick(), direction, buttons);
                if client.advance(cmd).is_err() {
                    // Waiting at the window: the owed time is dropped, and
                    // the time sync sees the server's buffer shrink.
                    self.clock = 0.0;
                    break;
                }
                self.clock -= 1.0;
                self.fire_latch = false;
                let newest = cmd.tick;
                let inputs = (0..u32::from(self.config.redundancy))
                    .map_while(|i| client.local_input(newest.minus(i)))
                    .map(|c| PackedInput::pack(&c))
                    .collect();
                let packet = InputPacket {
                    ids,
                    newest,
                    inputs,
                };
                let frame = codec::encode(&RollbackClientMsg::Inputs(packet));
                self.up.record(now, frame.len());
                self.outbox.push(frame);
            }
        }
        std::mem::take(&mut self.outbox)
    }

    /// Takes one frame from the server at `now`.
    ///
    /// # Errors
    /// [`RollbackEndpointError`] naming why the frame was refused; every
    /// reason but [`RollbackEndpointError::NotStarted`] is counted. Nothing
    /// else changes.
    pub fn receive_frame(
        &mut self,
        now: SimTime,
        frame: &[u8],
    ) -> Result<(), RollbackEndpointError> {
        let msg = codec::decode::<RollbackServerMsg>(frame).inspect_err(|_| {
            self.counters.decode_errors += 1;
        })?;
        self.down.record(now, frame.len());
        if let RollbackServerMsg::Start(s) = msg {
            self.start(s.ids, Arena::new(s.tick_rate), s.snapshot);
            return Ok(());
        }
        let (Some(ids), Some(client)) = (self.ids, &mut self.client) else {
            return Err(RollbackEndpointError::NotStarted);
        };
        msg.ids().check(&ids).inspect_err(|_| {
            self.counters.identity_rejected += 1;
        })?;
        match msg {
            RollbackServerMsg::Start(_) => Ok(()),
            RollbackServerMsg::Ack(a) => {
                self.missed = a.missed;
                self.late = a.late;
                if let (Some(newest), Some(buffer)) = (a.newest_input, a.buffer) {
                    if let Some(jump) = self.time_sync.on_ack(newest, buffer.into()) {
                        self.clock += f64::from(jump);
                        self.time_sync
                            .jumped(client.tick().plus(jump.max(0) as u32));
                    }
                }
                Ok(())
            }
            RollbackServerMsg::State(s) => {
                let update = s
                    .into_update(PLAYERS)
                    .filter(|u| well_formed(&u.state))
                    .ok_or_else(|| {
                        self.counters.malformed += 1;
                        RollbackEndpointError::MalformedState
                    })?;
                Ok(client.receive_state(update)?)
            }
        }
    }

    fn start(&mut self, ids: Ids, arena: Arena, snapshot: Snapshot) {
        self.ids = Some(ids);
        self.client = Some(RollbackClient::new(
            arena,
            snapshot,
            usize::from(ids.player),
            self.config.max_prediction,
        ));
        self.time_sync = TimeSync::new(self.config.input_buffer);
        self.clock = 0.0;
        self.counters.starts += 1;
    }

    /// The read-out for the metrics panel at `now`.
    pub fn metrics(&mut self, now: SimTime) -> RollbackMetrics {
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
            ticks_ahead: self.client.as_ref().map_or(0, |c| c.ticks_ahead()),
            stalls: c.stalls,
            time_jumps: self.time_sync.jumps(),
            history_overflows: c.history_overflows,
            up_bps: self.up.per_second(now),
            down_bps: self.down.per_second(now),
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

    /// The last confirmed State.
    pub fn confirmed(&self) -> Option<&Snapshot> {
        self.client.as_ref().map(|c| c.confirmed())
    }

    /// The last rebase (the Replayed panel).
    pub fn last_rollback(&self) -> Option<&RollbackRecord<Snapshot>> {
        self.client.as_ref().and_then(|c| c.last_rollback())
    }

    /// The client's current tick, once started.
    pub fn tick(&self) -> Option<Tick> {
        self.client.as_ref().map(|c| c.tick())
    }

    /// Frames refused before the client.
    pub fn counters(&self) -> EndpointCounters {
        self.counters
    }

    /// Total bytes sent and received so far.
    pub fn bytes_total(&self) -> (u64, u64) {
        (self.up.total(), self.down.total())
    }
}

fn well_formed(s: &Snapshot) -> bool {
    s.players.len() == PLAYERS && s.projectiles.len() <= MAX_PROJECTILES
}
