//! The autonomous proxy: predict now, remember the move, tell the server,
//! and on an Adjustment snap and replay (reference `000_…` §3 and §6).
//!
//! Each frame ([`Client::tick`]): if the last response was an Adjustment,
//! first **replay** the remaining SavedMoves from the authoritative state
//! (UE `ClientUpdatePositionAfterServerUpdate`, run at the start of the
//! tick, `000_…` §6.3 step 3); then quantize the frame's input and `dt`,
//! `perform_movement` at once, push the [`SavedMove`] and build the
//! [`ServerMove`] (UE `ReplicateMoveToServer`, `000_…` §3.3).
//!
//! | module | holds |
//! |---|---|
//! | here | the [`Client`], its frame and its read-outs |
//! | `sending` | time stamps, combining, throttling, dual and old moves, forced loss (`000_…` §8) |
//! | `responses` | Ack, Adjustment, replay, [`CorrectionRecord`] (`000_…` §6) |
//! | `key_delay` | the key-to-movement delay, measured as drawn (issue 24) |

mod key_delay;
mod log;
mod responses;
mod sending;

pub use log::ClientMoveRecord;

pub use responses::{CorrectionRecord, CORRECTION_HISTORY};

use crate::cmc::saved_move::{dt_secs, SavedMove, SavedMoveQueue, MAX_SAVED_MOVE_COUNT};
use crate::cmc::smoothing::{MeshSmoother, SmoothingMode};
use crate::cmc::wire::{NetPosition, ServerMove};
use crate::foundation::math::Vec2;
use crate::foundation::movement::{
    perform_movement, CharacterState, MoveFlags, MoveInput, MovementParams,
};
use crate::foundation::time::TimeStamp;
use crate::foundation::world::World;
use std::collections::VecDeque;

pub use crate::cmc::client_config::{
    ClientConfig, CLIENT_NET_SEND_MOVE_DELTA_TIME, CLIENT_NET_SEND_MOVE_DELTA_TIME_STATIONARY,
    CLOCK_SPEED, MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS, SPEED_BUFF,
};

/// Longest frame the client simulates, s. A longer frame (a hidden tab, a
/// debugger pause) loses the excess rather than sending a move the server
/// would clamp to UE's `MaxMoveDeltaTime` (0.125 s, `000_…` §9.3).
pub const MAX_FRAME_DT: f64 = 0.1;

/// Counters the client keeps (UE has them scattered; here in one place).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientCounters {
    /// Moves performed (one per frame with a non-zero quantized dt).
    pub moves: u64,
    /// Acks that matched a SavedMove.
    pub acks: u64,
    /// Adjustments that matched a SavedMove.
    pub adjustments: u64,
    /// Responses whose time stamp matched no SavedMove (stale or lost).
    pub unmatched_responses: u64,
    /// Moves re-simulated by replays.
    pub replayed_moves: u64,
    /// Dash effects fired (counted once per dash, never by a replay).
    pub dash_events: u64,
    /// ServerMoves sent.
    pub server_moves_sent: u64,
    /// Moves merged into a pending move (UE combining).
    pub combined_moves: u64,
    /// ServerMoves that carried a pending move that could not combine.
    pub dual_moves: u64,
    /// ServerMoves that carried an old important move again.
    pub old_moves_resent: u64,
    /// ServerMoves dropped by the forced-loss switch.
    pub forced_move_drops: u64,
    /// Client time stamp resets (every 240 s).
    pub time_stamp_resets: u64,
    /// Unacknowledged SavedMoves an Adjustment dropped unreplayed
    /// (reconciliation off, [`ClientConfig::reconciliation`]).
    pub dropped_moves: u64,
}

/// The local player's predicting client.
#[derive(Debug, Clone)]
pub struct Client {
    config: ClientConfig,
    base_params: MovementParams,
    params: MovementParams,
    rng: rand_pcg::Pcg32,
    pending: bool,
    /// Sequence number of the next ServerMove ([`ServerMove::seq`]).
    packet_seq: u8,
    since_send_ms: u32,
    last_acked: Option<SavedMove>,
    state: CharacterState,
    /// The state the server last confirmed: the end of the move an Ack
    /// named, or an Adjustment's state. Drawn when prediction is off.
    confirmed: CharacterState,
    time_stamp: TimeStamp,
    dt_carry_ms: f64,
    pending_dash: bool,
    saved_moves: SavedMoveQueue,
    needs_replay: bool,
    is_replaying: bool,
    smoother: MeshSmoother,
    drawn_before_snap: Option<Vec2>,
    corrections: VecDeque<CorrectionRecord>,
    counters: ClientCounters,
    /// The account of each move, when kept (`log`).
    log: Option<Box<crate::foundation::bounded::Bounded<ClientMoveRecord>>>,
    /// The key-to-movement delay as drawn.
    key_delay: key_delay::KeyDelay,
}

impl Client {
    /// A client standing at `spawn` (cm) with client time 0 and the
    /// default [`ClientConfig`]; its forced-loss roll draws from seed 0
    /// ([`Client::with_config`] takes a seed).
    pub fn new(params: MovementParams, spawn: Vec2) -> Client {
        Client::with_config(params, spawn, ClientConfig::default(), 0)
    }

    /// A client with explicit switches; `seed` drives the forced-loss roll.
    pub fn with_config(
        params: MovementParams,
        spawn: Vec2,
        config: ClientConfig,
        seed: u64,
    ) -> Client {
        use rand_core::SeedableRng;
        let mut c = Client {
            config,
            base_params: params,
            params,
            rng: rand_pcg::Pcg32::seed_from_u64(seed ^ 0x434c_4945_4e54),
            pending: false,
            packet_seq: 0,
            since_send_ms: u32::MAX,
            last_acked: None,
            state: CharacterState::at(spawn),
            confirmed: CharacterState::at(spawn),
            time_stamp: TimeStamp(0),
            dt_carry_ms: 0.0,
            pending_dash: false,
            saved_moves: SavedMoveQueue::new(MAX_SAVED_MOVE_COUNT),
            needs_replay: false,
            is_replaying: false,
            smoother: MeshSmoother::default(),
            drawn_before_snap: None,
            corrections: VecDeque::new(),
            counters: ClientCounters::default(),
            log: None,
            key_delay: key_delay::KeyDelay::default(),
        };
        c.set_config(config);
        c
    }

    /// Changes the switches live (the page's controls).
    pub fn set_config(&mut self, config: ClientConfig) {
        self.config = config;
        self.params = self.base_params;
        if config.speed_buff {
            self.params.max_speed *= SPEED_BUFF;
        }
    }

    /// The switches in force.
    pub fn config(&self) -> ClientConfig {
        self.config
    }

    /// Runs one render frame of `frame_dt` seconds with the player's
    /// `direction` (length ≤ 1) and `dash` press, and returns the
    /// [`ServerMove`] to send, or `None` when the frame was too short to
    /// make a whole millisecond of move (its time carries to the next
    /// frame, and so does a dash press).
    ///
    /// `frame_dt` is clamped to `0..=`[`MAX_FRAME_DT`] (NaN counts as 0),
    /// then scaled by the config's `clock_speed` (1 unless speed hacking).
    pub fn tick(
        &mut self,
        frame_dt: f64,
        direction: Vec2,
        dash: bool,
        smoothing: SmoothingMode,
        world: &World,
    ) -> Option<ServerMove> {
        let sent = self.tick_move(frame_dt, direction, dash, smoothing, world);
        let frame_ms = if frame_dt.is_finite() {
            frame_dt.clamp(0.0, MAX_FRAME_DT) * 1000.0
        } else {
            0.0
        };
        self.key_delay
            .frame(frame_ms, !direction.is_zero(), self.drawn_position());
        sent
    }

    /// [`Client::tick`] but the key-to-movement delay.
    fn tick_move(
        &mut self,
        frame_dt: f64,
        direction: Vec2,
        dash: bool,
        smoothing: SmoothingMode,
        world: &World,
    ) -> Option<ServerMove> {
        if self.needs_replay {
            self.replay(world, smoothing);
        }
        let frame_dt = if frame_dt.is_finite() {
            frame_dt.clamp(0.0, MAX_FRAME_DT) * f64::from(self.config.clock_speed)
        } else {
            0.0
        };
        self.smoother.advance(frame_dt as f32, smoothing);
        self.pending_dash |= dash;
        let total_ms = frame_dt * 1000.0 + self.dt_carry_ms;
        let dt_ms = total_ms.floor() as u16;
        self.dt_carry_ms = total_ms - f64::from(dt_ms);
        if dt_ms == 0 {
            return None;
        }
        let dash = std::mem::take(&mut self.pending_dash);
        let mut input = MoveInput::from_direction(direction, dash);
        if dash && self.config.dash_outside_saved_move {
            // The bug of reference `004_…`: an impulse straight into the
            // velocity, not part of the move's input.
            input.flags = MoveFlags::default();
            if self.state.dash_cooldown <= 0.0 {
                let dir = input.direction().safe_normal();
                let dir = if dir.is_zero() {
                    Vec2::new(1.0, 0.0)
                } else {
                    dir
                };
                self.state.velocity += dir * self.params.dash_impulse;
                self.state.dash_cooldown = self.params.dash_cooldown;
                self.counters.dash_events += 1;
            }
        }
        self.advance_time_stamp(dt_ms);
        let combined_before = self.counters.combined_moves;
        let (start, dt_ms) = self.combine_with_pending(&input, dt_ms);
        let combined = self.counters.combined_moves > combined_before;
        // [4] Predict now.
        let events = perform_movement(&mut self.state, &input, dt_secs(dt_ms), &self.params, world);
        if events.dashed {
            // A side effect: fired by live moves only, never by a replay.
            self.counters.dash_events += 1;
        }
        self.counters.moves += 1;
        let reported = NetPosition::quantize(self.state.position);
        let saved = SavedMove {
            time_stamp: self.time_stamp,
            dt_ms,
            input,
            start,
            end: self.state,
            reported: reported.to_vec2(),
            max_speed: self.params.max_speed,
        };
        self.saved_moves.push(saved);
        self.note_move(saved.time_stamp, dt_ms, input, combined);
        self.send_or_hold(&saved, reported)
    }

    /// The predicted (collision) state.
    pub fn state(&self) -> &CharacterState {
        &self.state
    }

    /// Where the character is drawn, cm: the predicted position plus the
    /// smoothing offset left by the last correction; with prediction off
    /// ([`ClientConfig::prediction`]) the state the server last confirmed
    /// ([`Client::confirmed`]), unsmoothed.
    pub fn drawn_position(&self) -> Vec2 {
        if self.config.prediction {
            self.state.position + self.smoother.offset()
        } else {
            self.confirmed.position
        }
    }

    /// The state the server last confirmed: the end of the newest move an
    /// Ack named, or the newest Adjustment's state (the spawn before
    /// either). What a client without prediction draws (`000_…` §5.2: it
    /// arrives one RTT plus up to one ack interval after the move).
    pub fn confirmed(&self) -> &CharacterState {
        &self.confirmed
    }

    /// Client time of the newest move.
    pub fn time_stamp(&self) -> TimeStamp {
        self.time_stamp
    }

    /// The unacknowledged moves, oldest first.
    pub fn saved_moves(&self) -> &SavedMoveQueue {
        &self.saved_moves
    }

    /// The last [`CORRECTION_HISTORY`] corrections, oldest first.
    pub fn corrections(&self) -> &VecDeque<CorrectionRecord> {
        &self.corrections
    }

    /// Forgets the correction records (the page's "clear trails").
    pub fn clear_corrections(&mut self) {
        self.corrections.clear();
    }

    /// Counters so far.
    pub fn counters(&self) -> ClientCounters {
        self.counters
    }

    /// The newest key-to-movement delay, ms of frame time: from the frame
    /// a push of the stick started, the character drawn standing still,
    /// to the first frame it was drawn moved (`None` before one). One
    /// frame with prediction; one RTT plus up to one ack interval without
    /// ([`ClientConfig::prediction`], `000_…` §5.2).
    pub fn key_delay_ms(&self) -> Option<f64> {
        self.key_delay.last_ms()
    }

    /// Movement constants in use.
    pub fn params(&self) -> &MovementParams {
        &self.params
    }
}

#[cfg(test)]
mod tests;
