//! The autonomous proxy: predict now, remember the move, tell the server,
//! and on an Adjustment snap and replay (reference `000_…` §3 and §6).
//!
//! Each frame: if the last response was an Adjustment, first **replay** the
//! remaining SavedMoves from the authoritative state (UE
//! `ClientUpdatePositionAfterServerUpdate`, run at the start of the next
//! tick, `000_…` §6.3 step 3); then quantize the frame's input and `dt`,
//! `perform_movement` at once, push the [`SavedMove`] and build the
//! [`ServerMove`] (UE `ReplicateMoveToServer`, `000_…` §3.3).
//!
//! Send throttling, move combining and old-move redundancy (`000_…` §8)
//! plug in where `build_server_move` fills `pending_move` / `old_move`.

use crate::math::Vec2;
use crate::movement::{perform_movement, CharacterState, MoveFlags, MoveInput, MovementParams};
use crate::net::protocol::{AdjustmentReason, MoveResponse, NetPosition, NetworkMove, ServerMove};
use crate::saved_move::{dt_secs, SavedMove, SavedMoveQueue, MAX_SAVED_MOVE_COUNT};
use crate::smoothing::{MeshSmoother, SmoothingMode};
use crate::time::TimeStamp;
use crate::world::World;
use std::collections::VecDeque;

pub use crate::client_config::{
    ClientConfig, CLIENT_NET_SEND_MOVE_DELTA_TIME, CLIENT_NET_SEND_MOVE_DELTA_TIME_STATIONARY,
    MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS, SPEED_BUFF,
};

/// Longest frame the client simulates, s. A longer frame (a hidden tab, a
/// debugger pause) loses the excess rather than sending a move the server
/// would clamp to UE's `MaxMoveDeltaTime` (0.125 s, `000_…` §9.3).
pub const MAX_FRAME_DT: f64 = 0.1;

/// How many past corrections are kept for the Replayed panel.
pub const CORRECTION_HISTORY: usize = 8;

/// One Adjustment as the client lived it: what it had predicted, where the
/// server put it, and what the replay produced. Drawn by the Replayed panel
/// (UE `p.NetShowCorrections`, `002_…`).
#[derive(Debug, Clone, PartialEq)]
pub struct CorrectionRecord {
    /// The adjusted move's time stamp.
    pub time_stamp: TimeStamp,
    /// Distance between the location the client reported for that move and
    /// the server's: the error the server judged, cm.
    pub error_cm: f32,
    /// Distance between the client's prediction for that move *as it stood
    /// when the Adjustment arrived* and the server's, cm. Smaller than
    /// `error_cm` when an earlier replay already fixed the prediction: the
    /// server judged a move sent before its previous correction arrived.
    pub residual_cm: f32,
    /// The authoritative position snapped to, cm.
    pub snap: Vec2,
    /// The client's predicted path from the adjusted move to the present,
    /// thrown away by the correction.
    pub discarded: Vec<Vec2>,
    /// The path after replay, from the snap point to the present.
    pub replayed: Vec<Vec2>,
    /// Moves replayed (0 until the replay ran).
    pub moves_replayed: u32,
    /// Why the server corrected.
    pub reason: AdjustmentReason,
}

impl CorrectionRecord {
    /// `true` when the prediction was already within the server's
    /// threshold (16 cm by default) on arrival: a correction of a move the
    /// client had already replayed from an earlier correction. UE sends
    /// these too — every move in flight when a correction leaves the
    /// server is judged against the old prediction.
    pub fn is_redundant(&self, threshold_cm: f32) -> bool {
        self.residual_cm <= threshold_cm
    }
}

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
}

impl Client {
    /// A client standing at `spawn` (cm) with client time 0 and the
    /// default [`ClientConfig`]; `seed` drives the forced-loss switch.
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
    /// `frame_dt` is clamped to `0..=`[`MAX_FRAME_DT`]; NaN counts as 0.
    pub fn tick(
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
            frame_dt.clamp(0.0, MAX_FRAME_DT)
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
        let mut start = self.state;
        let mut dt_ms = dt_ms;
        // [3] Merge into the pending move when alike (`000_…` §8.1): back to
        // its start state, summed dt, simulated again as one move.
        if self.pending {
            let combinable = self.saved_moves.last().is_some_and(|p| {
                p.can_combine_with(&input, self.params.max_speed, &self.params)
                    && p.time_stamp.diff(self.time_stamp) < 0
                    && u32::from(p.dt_ms) + u32::from(dt_ms) <= u32::from(u16::MAX)
            });
            if combinable {
                if let Some(p) = self.saved_moves.pop_last() {
                    start = p.start;
                    self.state = p.start;
                    dt_ms += p.dt_ms;
                    self.pending = false;
                    self.counters.combined_moves += 1;
                }
            }
        }
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
        // [5] Hold it back if the last send was too recent (`000_…` §8.2). A
        // move with a flag (a dash) goes out at once.
        self.since_send_ms = self.since_send_ms.saturating_add(u32::from(dt_ms));
        if self.config.combine_moves
            && !self.pending
            && input.flags.0 == 0
            && self.since_send_ms < self.send_interval_ms()
        {
            self.pending = true;
            return None;
        }
        self.since_send_ms = 0;
        let pending_move = if std::mem::take(&mut self.pending) {
            let n = self.saved_moves.len();
            n.checked_sub(2)
                .and_then(|i| self.saved_moves.get(i))
                .copied()
        } else {
            None
        };
        let packet = self.build_server_move(&saved, pending_move.as_ref(), reported);
        // Counted before the forced-loss roll: a dropped packet leaves a
        // gap, as one lost on the way does.
        self.packet_seq = (self.packet_seq + 1) % ServerMove::SEQ_MODULUS;
        self.counters.dual_moves += u64::from(packet.pending_move.is_some());
        self.counters.old_moves_resent += u64::from(packet.old_move.is_some());
        if self.config.forced_move_loss_percent > 0.0 {
            let roll = crate::hash::unit(rand_core::RngCore::next_u32(&mut self.rng)) * 100.0;
            if roll < f64::from(self.config.forced_move_loss_percent) {
                self.counters.forced_move_drops += 1;
                return None;
            }
        }
        self.counters.server_moves_sent += 1;
        Some(packet)
    }

    /// Advances the client time stamp by `dt_ms`, taking
    /// [`MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS`] off once it has passed it
    /// (UE `CurrentTimeStamp -= MinTimeBetweenTimeStampResets`, `000_…`
    /// §9.2): subtracting, not restarting from 0, keeps the time of a move
    /// lost just before the reset, which the server adds back.
    fn advance_time_stamp(&mut self, dt_ms: u16) {
        if self.time_stamp.0 >= MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS {
            self.time_stamp = TimeStamp(self.time_stamp.0 - MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS);
            self.counters.time_stamp_resets += 1;
        }
        self.time_stamp = self.time_stamp.plus_ms(u32::from(dt_ms));
    }

    /// UE `GetClientNetSendDeltaTime`: the send interval, or the stationary
    /// one when the last move had no input and no velocity; clamped to
    /// 1/120..=1/5 s. In ms.
    fn send_interval_ms(&self) -> u32 {
        let mut interval = self.config.send_interval;
        if let Some(m) = self.saved_moves.last() {
            if m.input.accel_x == 0 && m.input.accel_y == 0 && m.end.velocity.is_zero() {
                interval = interval.max(CLIENT_NET_SEND_MOVE_DELTA_TIME_STATIONARY);
            }
        }
        (interval.clamp(1.0 / 120.0, 1.0 / 5.0) * 1000.0) as u32
    }

    /// The move to resend in the old-move slot, not counting the newest one
    /// or two (the new and a pending move) (UE `ReplicateMoveToServer` step
    /// [1], `000_…` §8.3): the oldest unacknowledged important move.
    ///
    /// One deviation, on purpose: an unacknowledged move carrying a flag (a
    /// dash) takes the slot first. UE resends only the *oldest* important
    /// move, and needs a `LastAckedMove` to compare with, so a lost dash is
    /// not resent while an older turn is unacknowledged (or before the first
    /// Ack); the server then moves past its time stamp and the dash is lost
    /// for good — exactly what reference `004_…` warns about impulses. Here
    /// the dash rides in the very next packet.
    fn old_important_move(&self, exclude_newest: usize) -> Option<&SavedMove> {
        let n = self.saved_moves.len().saturating_sub(exclude_newest);
        let candidates = || self.saved_moves.iter().take(n);
        if let Some(flagged) = candidates().find(|m| m.input.flags.0 != 0) {
            return Some(flagged);
        }
        let last_acked = self.last_acked.as_ref()?;
        candidates().find(|m| m.is_important(last_acked, &self.params))
    }

    /// The packet for a new move (UE `CallServerMovePacked`).
    fn build_server_move(
        &self,
        new_move: &SavedMove,
        pending: Option<&SavedMove>,
        location: NetPosition,
    ) -> ServerMove {
        let net = |m: &SavedMove| NetworkMove {
            time_stamp: m.time_stamp,
            input: m.input,
        };
        let old_move = if self.config.old_move_redundancy {
            self.old_important_move(1 + usize::from(pending.is_some()))
                .map(net)
        } else {
            None
        };
        ServerMove {
            old_move,
            pending_move: pending.map(net),
            new_move: net(new_move),
            client_location: location,
            seq: self.packet_seq,
        }
    }

    /// Applies the server's verdict (UE `ClientHandleMoveResponse`,
    /// `000_…` §6.1).
    ///
    /// * Ack: drops every SavedMove up to and including its time stamp
    ///   (§6.2).
    /// * Adjustment: drops through its time stamp, snaps to the
    ///   authoritative state and flags a replay for the start of the next
    ///   tick (§6.3).
    ///
    /// A time stamp that matches no SavedMove (already acknowledged, or
    /// emptied by an overflow) is ignored, as in UE, and counted.
    ///
    /// An Ack that arrives after an Adjustment but before its replay (both
    /// in one frame's packets) acknowledges moves the replay has not re-run
    /// yet. UE's `AckMove` simply drops them, so the replay then starts from
    /// the adjusted state *without* their motion — one more correction
    /// later. Here they are re-simulated from the adjusted state first (as
    /// part of the replay), then dropped.
    pub fn handle_move_response(&mut self, response: &MoveResponse, world: &World) {
        match *response {
            MoveResponse::Ack { time_stamp } => match self.saved_moves.index_of(time_stamp) {
                Some(i) => {
                    if self.needs_replay {
                        self.fold_acked_moves_into_replay(i, world);
                    }
                    self.last_acked = self.saved_moves.get(i).copied();
                    self.saved_moves.ack_through(i);
                    self.counters.acks += 1;
                }
                None => self.counters.unmatched_responses += 1,
            },
            MoveResponse::Adjustment {
                time_stamp,
                state,
                reason,
            } => {
                let Some(i) = self.saved_moves.index_of(time_stamp) else {
                    self.counters.unmatched_responses += 1;
                    return;
                };
                let (predicted, reported) = self
                    .saved_moves
                    .iter()
                    .nth(i)
                    .map(|m| (m.end.position, m.reported))
                    .unwrap_or_default();
                self.last_acked = self.saved_moves.get(i).copied();
                self.saved_moves.ack_through(i);
                let mut discarded = vec![predicted];
                discarded.extend(self.saved_moves.iter().map(|m| m.end.position));
                self.corrections.push_back(CorrectionRecord {
                    time_stamp,
                    error_cm: (reported - state.position).length(),
                    residual_cm: (predicted - state.position).length(),
                    reason,
                    snap: state.position,
                    discarded,
                    replayed: vec![state.position],
                    moves_replayed: 0,
                });
                if self.corrections.len() > CORRECTION_HISTORY {
                    self.corrections.pop_front();
                }
                // Remember where the mesh was drawn before the first snap of
                // this correction, so smoothing hides the whole jump.
                if self.drawn_before_snap.is_none() {
                    self.drawn_before_snap = Some(self.drawn_position());
                }
                self.state = state;
                self.needs_replay = true;
                self.counters.adjustments += 1;
            }
        }
    }

    /// Advances the snapped state through the moves up to `index` (which an
    /// Ack is about to drop) with replay semantics.
    fn fold_acked_moves_into_replay(&mut self, index: usize, world: &World) {
        self.resimulate(index + 1, world);
    }

    /// Re-simulates every remaining SavedMove from the snapped state, in
    /// order, rewriting their start and end states (UE
    /// `ClientUpdatePositionAfterServerUpdate`, `000_…` §6.4). While it runs
    /// [`Client::is_replaying`] is `true` and side effects are suppressed.
    fn replay(&mut self, world: &World, smoothing: SmoothingMode) {
        self.needs_replay = false;
        self.resimulate(self.saved_moves.len(), world);
        if let Some(before) = self.drawn_before_snap.take() {
            self.smoother
                .on_snap(before, self.state.position, smoothing);
        }
    }

    /// Re-runs the oldest `count` SavedMoves from the current state with
    /// replay semantics, and adds them to the latest correction record.
    fn resimulate(&mut self, count: usize, world: &World) {
        self.is_replaying = true;
        let mut path = Vec::with_capacity(count);
        for m in self.saved_moves.iter_mut().take(count) {
            m.start = self.state;
            // Events are ignored: the dash was already felt when the move was
            // first performed (reference `004_…` §2).
            let _ = perform_movement(&mut self.state, &m.input, m.dt_secs(), &self.params, world);
            m.end = self.state;
            path.push(self.state.position);
        }
        self.is_replaying = false;
        self.counters.replayed_moves += path.len() as u64;
        if let Some(rec) = self.corrections.back_mut() {
            rec.moves_replayed += path.len() as u32;
            rec.replayed.extend(path);
        }
    }

    /// `true` only while a replay runs (UE `bClientUpdating`). Code with side
    /// effects (sounds, counters, particles) checks it.
    pub fn is_replaying(&self) -> bool {
        self.is_replaying
    }

    /// `true` between an Adjustment and the replay at the next tick.
    pub fn needs_replay(&self) -> bool {
        self.needs_replay
    }

    /// The predicted (collision) state.
    pub fn state(&self) -> &CharacterState {
        &self.state
    }

    /// Where the character is drawn: predicted position plus the smoothing
    /// offset left by the last correction, cm.
    pub fn drawn_position(&self) -> Vec2 {
        self.state.position + self.smoother.offset()
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

    /// Movement constants in use.
    pub fn params(&self) -> &MovementParams {
        &self.params
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> (Client, World) {
        let w = World::arena();
        (Client::new(MovementParams::default(), w.spawn), w)
    }

    #[test]
    fn frames_quantize_to_whole_ms_and_carry_the_rest() {
        let (mut c, w) = client();
        let dts: Vec<u16> = (0..3)
            .filter_map(|_| {
                c.tick(
                    1.0 / 60.0,
                    Vec2::new(1.0, 0.0),
                    false,
                    SmoothingMode::Exponential,
                    &w,
                )
            })
            .map(|m| m.new_move.time_stamp.0 as u16)
            .collect();
        // 16.67 ms frames → time stamps 16, 33, 50.
        assert_eq!(dts, vec![16, 33, 50]);
        assert_eq!(c.saved_moves().len(), 3);
        assert_eq!(
            c.saved_moves().iter().map(|m| m.dt_ms).collect::<Vec<_>>(),
            vec![16, 17, 17]
        );
    }

    #[test]
    fn ack_drops_exactly_the_acked_prefix() {
        let (mut c, w) = client();
        for _ in 0..6 {
            c.tick(
                1.0 / 60.0,
                Vec2::new(1.0, 0.0),
                false,
                SmoothingMode::Exponential,
                &w,
            );
        }
        c.handle_move_response(
            &MoveResponse::Ack {
                time_stamp: TimeStamp(50),
            },
            &w,
        );
        let left: Vec<u32> = c.saved_moves().iter().map(|m| m.time_stamp.0).collect();
        assert_eq!(left, vec![66, 83, 100]);
        assert_eq!(c.counters().acks, 1);
        // Unknown time stamp: ignored, nothing dropped.
        c.handle_move_response(
            &MoveResponse::Ack {
                time_stamp: TimeStamp(51),
            },
            &w,
        );
        assert_eq!(c.saved_moves().len(), 3);
        assert_eq!(c.counters().unmatched_responses, 1);
    }

    #[test]
    fn adjustment_snaps_then_replays_next_tick_without_repeating_the_dash() {
        let (mut c, w) = client();
        c.tick(
            1.0 / 60.0,
            Vec2::new(1.0, 0.0),
            true,
            SmoothingMode::Exponential,
            &w,
        );
        for _ in 0..5 {
            c.tick(
                1.0 / 60.0,
                Vec2::new(1.0, 0.0),
                false,
                SmoothingMode::Exponential,
                &w,
            );
        }
        assert_eq!(c.counters().dash_events, 1);
        let before = *c.state();
        // The server says: at ts 33 you were 50 cm lower.
        let mut server = c.saved_moves().iter().nth(1).unwrap().end;
        server.position.y += 50.0;
        c.handle_move_response(
            &MoveResponse::Adjustment {
                time_stamp: TimeStamp(33),
                state: server,
                reason: AdjustmentReason::PositionError,
            },
            &w,
        );
        assert!(c.needs_replay());
        assert_eq!(c.state().position, server.position);
        assert_eq!(c.saved_moves().len(), 4);
        c.tick(
            1.0 / 60.0,
            Vec2::new(1.0, 0.0),
            false,
            SmoothingMode::Disabled,
            &w,
        );
        // Replayed 4 moves; same inputs from a state 50 cm lower: x is
        // identical, y is 50 cm lower, and the dash did not fire again.
        assert_eq!(c.counters().replayed_moves, 4);
        assert_eq!(c.counters().dash_events, 1);
        let replayed_end = c.saved_moves().iter().nth(3).unwrap().end;
        assert_eq!(replayed_end.position.x, before.position.x);
        assert_eq!(replayed_end.position.y, before.position.y + 50.0);
        let rec = c.corrections().back().unwrap();
        assert_eq!(
            (rec.error_cm, rec.residual_cm, rec.moves_replayed),
            (50.0, 50.0, 4)
        );
        assert!(!rec.is_redundant(16.0));
        assert_eq!(rec.discarded.len(), 5);
        assert_eq!(rec.replayed.len(), 5);
    }

    #[test]
    fn an_ack_before_the_replay_folds_its_moves_into_the_replay() {
        let (mut c, w) = client();
        for _ in 0..6 {
            c.tick(
                1.0 / 60.0,
                Vec2::new(1.0, 0.0),
                false,
                SmoothingMode::Exponential,
                &w,
            );
        }
        let predicted_end = c.saved_moves().last().unwrap().end;
        let mut server = c.saved_moves().iter().nth(1).unwrap().end;
        server.position.y += 30.0;
        c.handle_move_response(
            &MoveResponse::Adjustment {
                time_stamp: TimeStamp(33),
                state: server,
                reason: AdjustmentReason::PositionError,
            },
            &w,
        );
        // Same frame: an Ack for ts 66 (two moves later).
        c.handle_move_response(
            &MoveResponse::Ack {
                time_stamp: TimeStamp(66),
            },
            &w,
        );
        assert_eq!(c.saved_moves().len(), 2);
        c.tick(0.0, Vec2::ZERO, false, SmoothingMode::Disabled, &w);
        // All 4 moves after the adjusted one were re-run: 30 cm lower, same x.
        let end = c.saved_moves().last().unwrap().end;
        assert_eq!(end.position.x, predicted_end.position.x);
        assert_eq!(end.position.y, predicted_end.position.y + 30.0);
        assert_eq!(c.counters().replayed_moves, 4);
        assert_eq!(c.corrections().back().unwrap().moves_replayed, 4);
    }

    #[test]
    fn smoothing_hides_the_snap_then_decays() {
        let (mut c, w) = client();
        for _ in 0..3 {
            c.tick(
                1.0 / 60.0,
                Vec2::ZERO,
                false,
                SmoothingMode::Exponential,
                &w,
            );
        }
        let mut server = *c.state();
        server.position.x += 20.0;
        c.handle_move_response(
            &MoveResponse::Adjustment {
                time_stamp: TimeStamp(16),
                state: server,
                reason: AdjustmentReason::PositionError,
            },
            &w,
        );
        c.tick(0.0, Vec2::ZERO, false, SmoothingMode::Exponential, &w);
        // Drawn where it was, collision 20 cm further.
        assert_eq!(c.drawn_position(), w.spawn);
        assert_eq!(c.state().position.x, w.spawn.x + 20.0);
        c.tick(0.05, Vec2::ZERO, false, SmoothingMode::Exponential, &w);
        assert_eq!(c.drawn_position().x, w.spawn.x + 10.0);
    }
}
