//! Sending (`000_…` §3.3 and §8): the client time stamp and its 240 s
//! reset, move combining into the pending move, send throttling, the dual
//! move and the old important move resent for redundancy, and the
//! forced-loss switch.

use super::Client;
use crate::cmc::client_config::{
    CLIENT_NET_SEND_MOVE_DELTA_TIME_STATIONARY, MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS,
};
use crate::cmc::saved_move::SavedMove;
use crate::cmc::wire::{NetPosition, NetworkMove, ServerMove};
use crate::foundation::movement::{CharacterState, MoveInput};
use crate::foundation::time::TimeStamp;

impl Client {
    /// [3] Merges this frame into the pending move when they are alike
    /// (`000_…` §8.1): back to the pending move's start state, their `dt`s
    /// summed, simulated again as one move. Returns the move's start state
    /// and length, ms.
    pub(super) fn combine_with_pending(
        &mut self,
        input: &MoveInput,
        dt_ms: u16,
    ) -> (CharacterState, u16) {
        if self.pending {
            let combinable = self.saved_moves.last().is_some_and(|p| {
                p.can_combine_with(input, self.params.max_speed, &self.params)
                    && p.time_stamp.diff(self.time_stamp) < 0
                    && u32::from(p.dt_ms) + u32::from(dt_ms) <= u32::from(u16::MAX)
            });
            if combinable {
                if let Some(p) = self.saved_moves.pop_last() {
                    self.state = p.start;
                    self.pending = false;
                    self.counters.combined_moves += 1;
                    return (p.start, dt_ms + p.dt_ms);
                }
            }
        }
        (self.state, dt_ms)
    }

    /// [5] The ServerMove for the move just saved, or `None` when it is
    /// held back as the pending move because the last send was too recent
    /// (`000_…` §8.2; a move with a flag, a dash, goes out at once) or the
    /// forced-loss switch drops it. The counters count what leaves: a
    /// dropped packet's dual or old move was not resent.
    pub(super) fn send_or_hold(
        &mut self,
        saved: &SavedMove,
        reported: NetPosition,
    ) -> Option<ServerMove> {
        self.since_send_ms = self.since_send_ms.saturating_add(u32::from(saved.dt_ms));
        if self.config.combine_moves
            && !self.pending
            && saved.input.flags.0 == 0
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
        let packet = self.build_server_move(saved, pending_move.as_ref(), reported);
        // Numbered before the forced-loss roll: a dropped packet leaves a
        // gap, as one lost on the way does.
        self.packet_seq = (self.packet_seq + 1) % ServerMove::SEQ_MODULUS;
        if self.config.forced_move_loss_percent > 0.0 {
            let roll =
                crate::foundation::hash::unit(rand_core::RngCore::next_u32(&mut self.rng)) * 100.0;
            if roll < f64::from(self.config.forced_move_loss_percent) {
                self.counters.forced_move_drops += 1;
                self.note_dropped();
                return None;
            }
        }
        self.counters.dual_moves += u64::from(packet.pending_move.is_some());
        self.counters.old_moves_resent += u64::from(packet.old_move.is_some());
        self.counters.server_moves_sent += 1;
        Some(packet)
    }

    /// Advances the client time stamp by `dt_ms`, taking
    /// [`MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS`] off once it has passed it
    /// (UE `CurrentTimeStamp -= MinTimeBetweenTimeStampResets`, `000_…`
    /// §9.2): subtracting, not restarting from 0, keeps the time of a move
    /// lost just before the reset, which the server adds back.
    pub(super) fn advance_time_stamp(&mut self, dt_ms: u16) {
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
}
