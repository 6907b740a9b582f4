//! The authority for one client's character (UE's server side of
//! `UCharacterMovementComponent` plus `FNetworkPredictionData_Server_Character`,
//! reference `000_…` §4–§5 and §9).
//!
//! [`ServerCharacter::receive_server_move`] verifies each move's time stamp
//! (§9.1–§9.2), derives and clamps its `dt` (§9.3), keeps the
//! time-discrepancy account (§9.4), re-simulates the move with the same
//! [`perform_movement`] the client ran (`MoveAutonomous`) plus any
//! server-only effect, and for the newest move compares the client's
//! reported location with its own, filling the [`PendingAdjustment`] (§4.3).
//! [`ServerCharacter::flush`], called once per server frame (UE `TickFlush`
//! → `SendClientAdjustment`, §5.1), sends at most one response per interval
//! and clears the slot either way (§5.2).
//! [`ServerCharacter::force_position_update`] moves a silent client on
//! (§9.5).

use crate::cmc::saved_move::dt_secs;
use crate::cmc::wire::{AdjustmentReason, MoveResponse, NetworkMove, ServerMove};
use crate::foundation::math::Vec2;
use crate::foundation::movement::{perform_movement, CharacterState, MoveInput, MovementParams};
use crate::foundation::time::{SimTime, TimeStamp};
use crate::foundation::world::World;
use rand_core::{RngCore, SeedableRng};

mod forced_update;
mod log;
mod move_order;
mod time_stamps;

pub use log::{MoveOutcome, MoveRecord};

pub use move_order::MAX_HELD_MOVES;
pub use time_stamps::TIME_STAMP_RESET_WINDOW_MS;

/// Server rules. Defaults are the reference values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerConfig {
    /// Minimum time between two Acks, s. UE
    /// `NetworkMinTimeBetweenClientAckGoodMoves` = 0.10 (`000_…` §5.2).
    pub ack_interval: f32,
    /// Minimum time between two Adjustments, s. UE
    /// `NetworkMinTimeBetweenClientAdjustments` = 0.10 (`000_…` §5.2).
    pub adjustment_interval: f32,
    /// Longest `dt` one move may simulate, s. UE `MaxMoveDeltaTime` =
    /// [`ServerConfig::UE_MAX_MOVE_DELTA_S`] (`000_…` §9.3: the speed-hack
    /// clamp).
    pub max_move_delta: f32,
    /// Client position error above which the server corrects, cm. 16 cm
    /// (error² > 256) per `002_…` (`MAXPOSITIONERRORSQ`). Note the engine's
    /// `GameNetworkManager` default `MAXPOSITIONERRORSQUARED` is 3.0 cm²
    /// (≈ 1.73 cm): see [`ServerConfig::UE_ENGINE_POSITION_ERROR_CM`].
    pub max_position_error: f32,
    /// Percent of checked moves corrected regardless of error (UE
    /// `p.NetForceClientAdjustmentPercent`), `0.0..=100.0`.
    pub forced_adjustment_percent: f32,
    /// Track client time against server time (`000_…` §9.4; UE
    /// `bMovementTimeDiscrepancyDetection`, off by default in UE, on here
    /// because it only reports).
    pub time_discrepancy_detection: bool,
    /// When the client runs ahead of real time beyond the margin, shorten
    /// its moves by the excess (UE `bMovementTimeDiscrepancyResolution`,
    /// resolution rate 1.0).
    pub time_discrepancy_resolution: bool,
    /// UE `MovementTimeDiscrepancyMaxTimeMargin` = 0.25 s.
    pub time_discrepancy_max_margin: f32,
    /// UE `MovementTimeDiscrepancyMinTimeMargin` = −0.25 s.
    pub time_discrepancy_min_margin: f32,
    /// UE `MovementTimeDiscrepancyDriftAllowance` = 0.05 (5 % clock drift
    /// tolerated).
    pub time_discrepancy_drift_allowance: f32,
    /// Silence after which the server moves the client on by itself, s (UE
    /// `MAXCLIENTUPDATEINTERVAL` = 0.25, `000_…` §9.5).
    pub max_client_update_interval: f32,
    /// Longest total forced simulation per silence, s (UE
    /// `MaxClientForcedUpdateDuration` = 1.0).
    pub max_client_forced_update_duration: f32,
    /// Apply the world's server-only push zones (the client cannot predict
    /// them).
    pub server_effects: bool,
}

impl ServerConfig {
    /// The engine-source threshold, cm: `sqrt(MAXPOSITIONERRORSQUARED = 3.0)`
    /// (UE 5.3 `AGameNetworkManager` constructor). A named preset beside the
    /// 16 cm of `002_…`.
    pub const UE_ENGINE_POSITION_ERROR_CM: f32 = 1.732_050_8;

    /// UE's `MaxMoveDeltaTime`, s: 0.125 (`000_…` §9.3), the default of
    /// [`ServerConfig::max_move_delta`] and the frame length over which a
    /// correction is the client's hitch (the inspector's `Origin`).
    pub const UE_MAX_MOVE_DELTA_S: f32 = 0.125;
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            ack_interval: 0.10,
            adjustment_interval: 0.10,
            max_move_delta: Self::UE_MAX_MOVE_DELTA_S,
            max_position_error: 16.0,
            forced_adjustment_percent: 0.0,
            time_discrepancy_detection: true,
            time_discrepancy_resolution: false,
            time_discrepancy_max_margin: 0.25,
            time_discrepancy_min_margin: -0.25,
            time_discrepancy_drift_allowance: 0.05,
            max_client_update_interval: 0.25,
            max_client_forced_update_duration: 1.0,
            server_effects: false,
        }
    }
}

/// A rule's duration in whole ms (`0.125` s → 125).
fn secs_to_ms(secs: f32) -> u32 {
    (secs * 1000.0).round().max(0.0) as u32
}

/// The server's answer-in-waiting (UE `ServerData->PendingAdjustment`):
/// overwritten by every checked move, read once at flush time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PendingAdjustment {
    /// The checked move's time stamp.
    pub time_stamp: TimeStamp,
    /// `true`: the move was good (Ack); `false`: correct the client.
    pub ack_good_move: bool,
    /// The server state after that move (used when correcting).
    pub state: CharacterState,
    /// Why the client is corrected (meaningless for an Ack).
    pub reason: AdjustmentReason,
}

/// Counters for the observer view and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerCounters {
    /// Moves simulated.
    pub moves_simulated: u64,
    /// Moves already processed (duplicates, stale, the resent old move).
    pub moves_ignored: u64,
    /// Moves rejected for a time stamp too far ahead.
    pub time_stamps_rejected: u64,
    /// Legitimate client time stamp resets recognised.
    pub time_stamp_resets: u64,
    /// Moves whose `dt` was clamped to `max_move_delta`.
    pub moves_clamped: u64,
    /// Moves on which the client was found ahead of real time beyond the
    /// margin.
    pub time_discrepancy_events: u64,
    /// Forced position updates of a silent client.
    pub forced_updates: u64,
    /// Dash impulses the server applied (each must match one the client
    /// felt: reference `004_…`).
    pub dashes: u64,
    /// Acks sent.
    pub acks_sent: u64,
    /// Adjustments sent.
    pub adjustments_sent: u64,
    /// Pending responses dropped by the rate limit.
    pub responses_throttled: u64,
}

/// What happened to one move inside a [`ServerMove`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessedMove {
    /// Server position after the move, cm.
    pub position: Vec2,
    /// For the checked new move: the client's position when it was off by
    /// more than the threshold.
    pub client_error_from: Option<Vec2>,
}

/// One client's authoritative character.
#[derive(Debug, Clone)]
pub struct ServerCharacter {
    params: MovementParams,
    config: ServerConfig,
    state: CharacterState,
    current_time_stamp: Option<TimeStamp>,
    last_input: MoveInput,
    pending: Option<PendingAdjustment>,
    last_ack_sent: Option<SimTime>,
    last_adjustment_sent: Option<SimTime>,
    rng: rand_pcg::Pcg32,
    /// Server time of the last accepted move, for time discrepancy and
    /// forced updates.
    last_move_at: Option<SimTime>,
    /// Server time up to which a silent client has been moved on.
    forced_until: Option<SimTime>,
    /// Forced simulation done during the current silence, ms.
    forced_total_ms: u32,
    /// Client time ahead (+) or behind (−) server time, s (`000_…` §9.4).
    time_discrepancy: f32,
    /// Something since the last response explains the next correction.
    reason_hint: Option<AdjustmentReason>,
    /// Held-back ServerMoves and what decides when they go
    /// (`move_order`).
    order: move_order::MoveOrder,
    /// The account of each move, when kept (`log`).
    log: Option<Box<crate::foundation::bounded::Bounded<MoveRecord>>>,
    counters: ServerCounters,
}

impl ServerCharacter {
    /// A character standing at `spawn` (cm) that has seen no move yet; the
    /// forced-adjustment roll draws from seed 0.
    pub fn new(params: MovementParams, config: ServerConfig, spawn: Vec2) -> Self {
        Self::with_seed(params, config, spawn, 0)
    }

    /// As [`ServerCharacter::new`], with the forced-adjustment PRNG seeded.
    pub fn with_seed(params: MovementParams, config: ServerConfig, spawn: Vec2, seed: u64) -> Self {
        ServerCharacter {
            params,
            config,
            state: CharacterState::at(spawn),
            current_time_stamp: None,
            last_input: MoveInput::default(),
            pending: None,
            last_ack_sent: None,
            last_adjustment_sent: None,
            rng: rand_pcg::Pcg32::seed_from_u64(seed ^ 0x5345_5256_4552),
            last_move_at: None,
            forced_until: None,
            forced_total_ms: 0,
            time_discrepancy: 0.0,
            reason_hint: None,
            order: move_order::MoveOrder::default(),
            log: None,
            counters: ServerCounters::default(),
        }
    }

    /// Processes one packed move at server time `now` (see
    /// [`ServerCharacter::receive_server_move`]).
    fn process_server_move(
        &mut self,
        packet: &ServerMove,
        now: SimTime,
        world: &World,
    ) -> Vec<ProcessedMove> {
        // Server time since the last *accepted* move, silences included: the
        // client's moves cover the same span. A packet whose moves are all
        // stale (overtaken by a later one, or duplicated) neither takes this
        // time nor restarts it: UE updates `ServerTimeStamp` only after
        // `VerifyClientTimeStamp` accepts a move.
        self.note_processed(packet);
        let mut elapsed = match self.last_move_at {
            Some(t) => now.secs_since(t) as f32,
            None => 0.0,
        };
        let mut out = Vec::with_capacity(3);
        for m in [packet.old_move, packet.pending_move].into_iter().flatten() {
            if self.perform_network_move(&m, &mut elapsed, now, world) {
                out.push(ProcessedMove {
                    position: self.state.position,
                    client_error_from: None,
                });
            }
        }
        if self.perform_network_move(&packet.new_move, &mut elapsed, now, world) {
            let client = packet.client_location.to_vec2();
            let wrong = self.handle_client_error(now, packet.new_move.time_stamp, client);
            out.push(ProcessedMove {
                position: self.state.position,
                client_error_from: wrong.then_some(client),
            });
        }
        out
    }

    /// Verifies the time stamp and simulates one move (UE
    /// `ServerMove_PerformMovement` → `MoveAutonomous`). `server_elapsed` is
    /// the server time since the last accepted move (s); the first accepted
    /// move of a packet takes it for the time-discrepancy account (an
    /// ignored duplicate must not swallow it) and marks `now` as the time of
    /// the last accepted move. Returns `false` if the move was not
    /// simulated.
    fn perform_network_move(
        &mut self,
        m: &NetworkMove,
        server_elapsed: &mut f32,
        now: SimTime,
        world: &World,
    ) -> bool {
        let Some(dt_ms) = self.verify_client_time_stamp(m.time_stamp) else {
            let outcome = match self.judge_time_stamp(m.time_stamp) {
                time_stamps::TimeStampVerdict::TooFarAhead => MoveOutcome::TooFarAhead,
                _ => MoveOutcome::Stale,
            };
            self.note(now, m.time_stamp, outcome);
            return false;
        };
        self.last_move_at = Some(now);
        if self.forced_until.take().is_some() {
            // The client is back after a silence: whatever it says, it gets
            // the server's state (UE `bForceClientUpdate`).
            self.reason_hint = Some(AdjustmentReason::ForcedPositionUpdate);
            self.forced_total_ms = 0;
        }
        let server_elapsed = std::mem::take(server_elapsed);
        let max_ms = secs_to_ms(self.config.max_move_delta);
        let mut dt = dt_secs(u16::try_from(dt_ms.min(max_ms)).unwrap_or(u16::MAX));
        if dt_ms > max_ms {
            self.counters.moves_clamped += 1;
            self.reason_hint
                .get_or_insert(AdjustmentReason::DeltaClamped);
        }
        if self.config.time_discrepancy_detection {
            dt = self.account_time_discrepancy(dt, server_elapsed);
        }
        self.current_time_stamp = Some(m.time_stamp);
        self.last_input = m.input;
        let pushed = self.simulate(&m.input, dt, world);
        self.counters.moves_simulated += 1;
        let position = self.state.position;
        self.note(
            now,
            m.time_stamp,
            MoveOutcome::Simulated {
                covered_ms: dt_ms,
                simulated_s: dt,
                input: m.input,
                position,
                pushed,
            },
        );
        true
    }

    /// `perform_movement` plus the server-only effects the client cannot
    /// predict; `true` if one of those (a push zone) moved the character.
    fn simulate(&mut self, input: &MoveInput, dt: f32, world: &World) -> bool {
        let events = perform_movement(&mut self.state, input, dt, &self.params, world);
        self.counters.dashes += u64::from(events.dashed);
        self.config.server_effects
            && world.apply_push_zones(&mut self.state.position, &mut self.state.velocity, dt)
    }

    /// UE `ServerMoveHandleClientError` (`000_…` §4.3): fills the pending
    /// slot with an Ack, or with an Adjustment when the client's location
    /// is off by more than `max_position_error`, when the forced-adjustment
    /// roll says so, or after a forced position update. Returns `true` for
    /// an Adjustment.
    fn handle_client_error(&mut self, now: SimTime, ts: TimeStamp, client_location: Vec2) -> bool {
        let err_sq = (self.state.position - client_location).length_squared();
        let limit = self.config.max_position_error;
        let forced = self.config.forced_adjustment_percent > 0.0
            && crate::foundation::hash::unit(self.rng.next_u32()) * 100.0
                < f64::from(self.config.forced_adjustment_percent);
        let hint = self.reason_hint.take();
        let reason = if hint == Some(AdjustmentReason::ForcedPositionUpdate) {
            Some(AdjustmentReason::ForcedPositionUpdate)
        } else if err_sq.is_nan() || err_sq > limit * limit {
            Some(hint.unwrap_or(AdjustmentReason::PositionError))
        } else if forced {
            Some(AdjustmentReason::Forced)
        } else {
            None
        };
        let server = self.state.position;
        self.note(
            now,
            ts,
            MoveOutcome::Checked {
                client: client_location,
                server,
                verdict: reason,
            },
        );
        self.pending = Some(PendingAdjustment {
            time_stamp: ts,
            ack_good_move: reason.is_none(),
            state: self.state,
            reason: reason.unwrap_or(AdjustmentReason::PositionError),
        });
        reason.is_some()
    }

    /// UE `SendClientAdjustment` (`000_…` §5.2): at most one response per
    /// flush; an Ack only if more than `ack_interval` has passed since the
    /// last Ack, an Adjustment only if more than `adjustment_interval` since
    /// the last Adjustment. The pending slot is cleared whether or not
    /// anything was sent: the next move is judged afresh.
    pub fn flush(&mut self, now: SimTime) -> Option<MoveResponse> {
        let pending = self.pending.take()?;
        let (last, interval) = if pending.ack_good_move {
            (self.last_ack_sent, self.config.ack_interval)
        } else {
            (self.last_adjustment_sent, self.config.adjustment_interval)
        };
        // UE compares `CurrentTime - LastSent > MinTimeBetween…` (strictly).
        let interval_us = (f64::from(interval) * 1e6).round() as u64;
        let due = last.is_none_or(|t| now.micros_since(t) > interval_us);
        if !due {
            self.counters.responses_throttled += 1;
            return None;
        }
        if pending.ack_good_move {
            self.last_ack_sent = Some(now);
            self.counters.acks_sent += 1;
            Some(MoveResponse::Ack {
                time_stamp: pending.time_stamp,
            })
        } else {
            self.last_adjustment_sent = Some(now);
            self.counters.adjustments_sent += 1;
            Some(MoveResponse::Adjustment {
                time_stamp: pending.time_stamp,
                state: pending.state,
                reason: pending.reason,
            })
        }
    }

    /// Changes the rules (the page's server controls) without touching state.
    pub fn set_config(&mut self, config: ServerConfig) {
        self.config = config;
    }

    /// Current rules.
    pub fn config(&self) -> ServerConfig {
        self.config
    }

    /// The authoritative state.
    pub fn state(&self) -> &CharacterState {
        &self.state
    }

    /// Time stamp of the last move simulated.
    pub fn current_time_stamp(&self) -> Option<TimeStamp> {
        self.current_time_stamp
    }

    /// The input of the last move simulated (what a forced update
    /// continues with).
    pub fn last_input(&self) -> MoveInput {
        self.last_input
    }

    /// Client time minus server time so far, s (`000_…` §9.4).
    pub fn time_discrepancy(&self) -> f32 {
        self.time_discrepancy
    }

    /// Counters so far.
    pub fn counters(&self) -> ServerCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::wire::NetPosition;

    fn packet(ts: u32, dir: Vec2, client: Vec2) -> ServerMove {
        ServerMove::new(
            ts / 16,
            NetworkMove {
                time_stamp: TimeStamp(ts),
                input: MoveInput::from_direction(dir, false),
            },
            NetPosition::quantize(client),
        )
    }

    /// Delivers a packet at server time = its time stamp (a client running
    /// exactly in real time).
    fn recv(s: &mut ServerCharacter, p: &ServerMove, w: &World) -> Vec<ProcessedMove> {
        let now = SimTime::from_millis(u64::from(p.new_move.time_stamp.0));
        s.receive_server_move(p, now, w)
    }

    fn server() -> (ServerCharacter, World) {
        let w = World::arena();
        (
            ServerCharacter::new(MovementParams::default(), ServerConfig::default(), w.spawn),
            w,
        )
    }

    #[test]
    fn error_threshold_is_16_cm() {
        let (mut s, w) = server();
        recv(
            &mut s,
            &packet(16, Vec2::ZERO, w.spawn + Vec2::new(15.99, 0.0)),
            &w,
        );
        assert_eq!(
            s.flush(SimTime::ZERO),
            Some(MoveResponse::Ack {
                time_stamp: TimeStamp(16)
            })
        );
        recv(
            &mut s,
            &packet(33, Vec2::ZERO, w.spawn + Vec2::new(16.01, 0.0)),
            &w,
        );
        assert!(matches!(
            s.flush(SimTime::from_millis(1)),
            Some(MoveResponse::Adjustment {
                time_stamp: TimeStamp(33),
                ..
            })
        ));
    }

    #[test]
    fn acks_are_sent_at_most_every_100_ms_and_the_slot_is_cleared() {
        let (mut s, w) = server();
        let mut sent = Vec::new();
        for i in 1..=30u32 {
            recv(&mut s, &packet(i * 10, Vec2::ZERO, w.spawn), &w);
            if let Some(r) = s.flush(SimTime::from_millis(u64::from(i) * 10)) {
                sent.push(r);
            }
        }
        // Strictly more than 100 ms apart: t = 10, 120, 230 ms.
        let ts: Vec<_> = sent
            .iter()
            .map(|r| match r {
                MoveResponse::Ack { time_stamp } => time_stamp.0,
                _ => 0,
            })
            .collect();
        assert_eq!(ts, vec![10, 120, 230]);
        assert_eq!(s.counters().responses_throttled, 27);
        assert_eq!(s.flush(SimTime::from_millis(1000)), None);
    }

    #[test]
    fn duplicates_and_stale_moves_are_ignored_and_dt_is_clamped_to_125_ms() {
        let (mut s, w) = server();
        let fwd = Vec2::new(1.0, 0.0);
        assert_eq!(recv(&mut s, &packet(16, fwd, w.spawn), &w).len(), 1);
        let after_first = *s.state();
        assert!(s
            .receive_server_move(&packet(16, fwd, w.spawn), SimTime::ZERO, &w)
            .is_empty());
        assert!(s
            .receive_server_move(&packet(10, fwd, w.spawn), SimTime::ZERO, &w)
            .is_empty());
        assert_eq!(*s.state(), after_first);
        assert_eq!(s.counters().moves_ignored, 2);
        // A 10 s "move" simulates 0.125 s.
        recv(&mut s, &packet(10_016, fwd, w.spawn), &w);
        assert_eq!(s.counters().moves_clamped, 1);
        let mut expect = after_first;
        perform_movement(
            &mut expect,
            &MoveInput::from_direction(fwd, false),
            0.125,
            &MovementParams::default(),
            &w,
        );
        assert_eq!(*s.state(), expect);
    }
}
