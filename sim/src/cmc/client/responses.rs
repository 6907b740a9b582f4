//! Responses (`000_…` §6): an Ack drops the acknowledged SavedMoves; an
//! Adjustment drops them, snaps to the server's state and flags a replay,
//! which re-runs the rest of the SavedMoves with `is_replaying` set (UE
//! `ClientUpdatePositionAfterServerUpdate`). Every Adjustment is kept as a
//! [`CorrectionRecord`] for the Replayed panel. With reconciliation off
//! the Adjustment drops the unacknowledged moves instead, and the replay
//! re-runs none.

use super::Client;
use crate::cmc::smoothing::SmoothingMode;
use crate::cmc::wire::{AdjustmentReason, MoveResponse};
use crate::foundation::math::Vec2;
use crate::foundation::movement::perform_movement;
use crate::foundation::time::TimeStamp;
use crate::foundation::world::World;

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

impl Client {
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
                    if let Some(m) = self.last_acked {
                        self.confirmed = m.end;
                    }
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
                self.confirmed = state;
                self.needs_replay = true;
                self.counters.adjustments += 1;
                if !self.config.reconciliation {
                    self.drop_unacknowledged();
                }
            }
        }
    }

    /// Reconciliation off ([`crate::cmc::client_config::ClientConfig::reconciliation`]):
    /// forgets every unacknowledged SavedMove (and the pending one), so the
    /// replay due at the next tick re-runs none and the character stays
    /// where the server put it, the moves made during one RTT lost. The
    /// smoothing of the snap still runs in [`Client::replay`].
    fn drop_unacknowledged(&mut self) {
        let n = self.saved_moves.len();
        if n > 0 {
            self.saved_moves.ack_through(n - 1);
        }
        self.pending = false;
        self.counters.dropped_moves += n as u64;
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
    pub(super) fn replay(&mut self, world: &World, smoothing: SmoothingMode) {
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
}
