//! The authority for one client's character (UE's server side of
//! `UCharacterMovementComponent` plus `FNetworkPredictionData_Server_Character`,
//! reference `000_…` §4–§5).
//!
//! [`ServerCharacter::receive_server_move`] verifies each move's time stamp,
//! derives and clamps its `dt`, re-simulates it with the same
//! [`perform_movement`] the client ran (`MoveAutonomous`), and for the newest
//! move compares the client's reported location with its own, filling the
//! [`PendingAdjustment`]. [`ServerCharacter::flush`], called once per server
//! frame (UE `TickFlush` → `SendClientAdjustment`, §5.1), sends at most one
//! response per interval and clears the slot either way (§5.2).
//!
//! Time-discrepancy accounting and forced updates for a silent client
//! (`000_…` §9.4–§9.5) attach to `receive_server_move` and `flush`.

use crate::math::Vec2;
use crate::movement::{perform_movement, CharacterState, MoveInput, MovementParams};
use crate::net::protocol::{MoveResponse, NetworkMove, ServerMove};
use crate::saved_move::dt_secs;
use crate::time::{SimTime, TimeStamp};
use crate::world::World;

/// Server rules. Defaults are the reference values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerConfig {
    /// Minimum time between two Acks, s. UE
    /// `NetworkMinTimeBetweenClientAckGoodMoves` = 0.10 (`000_…` §5.2).
    pub ack_interval: f32,
    /// Minimum time between two Adjustments, s. UE
    /// `NetworkMinTimeBetweenClientAdjustments` = 0.10 (`000_…` §5.2).
    pub adjustment_interval: f32,
    /// Longest `dt` one move may simulate, s. UE `MaxMoveDeltaTime` = 0.125
    /// (`000_…` §9.3: the speed-hack clamp).
    pub max_move_delta: f32,
    /// Client position error above which the server corrects, cm. 16 cm
    /// (error² > 256) per `002_…` (`MAXPOSITIONERRORSQ`). Note the engine's
    /// `GameNetworkManager` default `MAXPOSITIONERRORSQUARED` is 3.0 cm²
    /// (≈ 1.73 cm): see [`ServerConfig::UE_ENGINE_POSITION_ERROR_CM`].
    pub max_position_error: f32,
}

impl ServerConfig {
    /// The engine-source threshold, cm: `sqrt(MAXPOSITIONERRORSQUARED = 3.0)`
    /// (UE 5.3 `AGameNetworkManager` constructor). A named preset beside the
    /// 16 cm of `002_…`.
    pub const UE_ENGINE_POSITION_ERROR_CM: f32 = 1.732_050_8;
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            ack_interval: 0.10,
            adjustment_interval: 0.10,
            max_move_delta: 0.125,
            max_position_error: 16.0,
        }
    }
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
}

/// Counters for the observer view and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerCounters {
    /// Moves simulated.
    pub moves_simulated: u64,
    /// Moves rejected by time stamp verification (duplicate or stale).
    pub moves_rejected: u64,
    /// Moves whose `dt` was clamped to `max_move_delta`.
    pub moves_clamped: u64,
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
    counters: ServerCounters,
}

impl ServerCharacter {
    /// A character standing at `spawn` (cm) that has seen no move yet.
    pub fn new(params: MovementParams, config: ServerConfig, spawn: Vec2) -> Self {
        ServerCharacter {
            params,
            config,
            state: CharacterState::at(spawn),
            current_time_stamp: None,
            last_input: MoveInput::default(),
            pending: None,
            last_ack_sent: None,
            last_adjustment_sent: None,
            counters: ServerCounters::default(),
        }
    }

    /// Handles one packed move: old → pending → new, in time-stamp order
    /// (`000_…` §4.1), checking the client's location only on the new one
    /// (§4.2 step 3). Moves already processed are skipped. Returns what
    /// each accepted move did, oldest first (for the observer view).
    pub fn receive_server_move(
        &mut self,
        packet: &ServerMove,
        world: &World,
    ) -> Vec<ProcessedMove> {
        let mut out = Vec::with_capacity(3);
        for m in [packet.old_move, packet.pending_move].into_iter().flatten() {
            if self.perform_network_move(&m, world) {
                out.push(ProcessedMove {
                    position: self.state.position,
                    client_error_from: None,
                });
            }
        }
        if self.perform_network_move(&packet.new_move, world) {
            let client = packet.client_location.to_vec2();
            let wrong = self.handle_client_error(packet.new_move.time_stamp, client);
            out.push(ProcessedMove {
                position: self.state.position,
                client_error_from: wrong.then_some(client),
            });
        }
        out
    }

    /// Verifies the time stamp and simulates one move (UE
    /// `ServerMove_PerformMovement` → `MoveAutonomous`). Returns `false` if
    /// the move was rejected.
    fn perform_network_move(&mut self, m: &NetworkMove, world: &World) -> bool {
        let Some(dt_ms) = self.verify_client_time_stamp(m.time_stamp) else {
            self.counters.moves_rejected += 1;
            return false;
        };
        let max_ms = (self.config.max_move_delta * 1000.0) as u32;
        let clamped = dt_ms.min(max_ms);
        if clamped < dt_ms {
            self.counters.moves_clamped += 1;
        }
        self.current_time_stamp = Some(m.time_stamp);
        self.last_input = m.input;
        let dt_ms = u16::try_from(clamped).unwrap_or(u16::MAX);
        perform_movement(
            &mut self.state,
            &m.input,
            dt_secs(dt_ms),
            &self.params,
            world,
        );
        self.counters.moves_simulated += 1;
        true
    }

    /// UE `VerifyClientTimeStamp` + `GetServerMoveDeltaTime`: a move is
    /// accepted only if its time stamp is later than the last one processed
    /// (wrapping comparison); its `dt` is the difference, in ms. The first
    /// move's `dt` is its time stamp (client time starts at 0).
    fn verify_client_time_stamp(&self, ts: TimeStamp) -> Option<u32> {
        match self.current_time_stamp {
            None => Some(ts.0),
            Some(current) if ts.is_after(current) => Some(ts.diff(current) as u32),
            Some(_) => None,
        }
    }

    /// UE `ServerMoveHandleClientError` (`000_…` §4.3): fills the pending
    /// slot with an Ack, or with an Adjustment when the client's location
    /// is off by more than `max_position_error`. Returns `true` for an
    /// Adjustment.
    fn handle_client_error(&mut self, ts: TimeStamp, client_location: Vec2) -> bool {
        let err_sq = (self.state.position - client_location).length_squared();
        let limit = self.config.max_position_error;
        let wrong = err_sq.is_nan() || err_sq > limit * limit;
        self.pending = Some(PendingAdjustment {
            time_stamp: ts,
            ack_good_move: !wrong,
            state: self.state,
        });
        wrong
    }

    /// UE `SendClientAdjustment` (`000_…` §5.2): at most one response per
    /// flush; an Ack only if more than `ack_interval` has passed since the
    /// last Ack, an Adjustment only if more than `adjustment_interval` since the
    /// last Adjustment. The pending slot is cleared whether or not anything
    /// was sent: the next move is judged afresh.
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
            })
        }
    }

    /// Changes the rules (ack interval slider) without touching state.
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

    /// The input of the last move simulated (what a forced update would
    /// continue with).
    pub fn last_input(&self) -> MoveInput {
        self.last_input
    }

    /// Counters so far.
    pub fn counters(&self) -> ServerCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::protocol::NetPosition;

    fn packet(ts: u32, dir: Vec2, client: Vec2) -> ServerMove {
        ServerMove {
            old_move: None,
            pending_move: None,
            new_move: NetworkMove {
                time_stamp: TimeStamp(ts),
                input: MoveInput::from_direction(dir, false),
            },
            client_location: NetPosition::quantize(client),
        }
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
        s.receive_server_move(&packet(16, Vec2::ZERO, w.spawn + Vec2::new(15.99, 0.0)), &w);
        assert_eq!(
            s.flush(SimTime::ZERO),
            Some(MoveResponse::Ack {
                time_stamp: TimeStamp(16)
            })
        );
        s.receive_server_move(&packet(33, Vec2::ZERO, w.spawn + Vec2::new(16.01, 0.0)), &w);
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
            s.receive_server_move(&packet(i * 10, Vec2::ZERO, w.spawn), &w);
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
        assert_eq!(
            s.receive_server_move(&packet(16, fwd, w.spawn), &w).len(),
            1
        );
        let after_first = *s.state();
        assert!(s
            .receive_server_move(&packet(16, fwd, w.spawn), &w)
            .is_empty());
        assert!(s
            .receive_server_move(&packet(10, fwd, w.spawn), &w)
            .is_empty());
        assert_eq!(*s.state(), after_first);
        assert_eq!(s.counters().moves_rejected, 2);
        // A 10 s "move" simulates 0.125 s.
        s.receive_server_move(&packet(10_016, fwd, w.spawn), &w);
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
