//! `SavedMove`: one predicted move, kept until the server acknowledges it
//! (UE `FSavedMove_Character`, reference `000_…` §3.1–§3.2).

use crate::math::Vec2;
use crate::movement::{CharacterState, MoveInput};
use crate::time::TimeStamp;
use std::collections::VecDeque;

/// One move the client performed and has not yet seen acknowledged.
///
/// Three kinds of fields, as in UE: the **input** (sent to the server), the
/// **start state** (restored before a replay) and the **end state** (the
/// client's answer, compared by the server).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavedMove {
    /// Client time at the end of the move, ms; the move's identity in Acks
    /// and Adjustments (`000_…` §3.1: "the ID card of the whole scheme").
    pub time_stamp: TimeStamp,
    /// Length of the move, ms (already quantized: this is the exact value
    /// both ends simulate).
    pub dt_ms: u16,
    /// The quantized input, exactly as sent.
    pub input: MoveInput,
    /// State before the move.
    pub start: CharacterState,
    /// State after the move (rewritten by a replay).
    pub end: CharacterState,
    /// The location reported to the server for this move (the end position
    /// as first predicted, at wire precision). Replays do not rewrite it:
    /// it is what the server judges.
    pub reported: Vec2,
}

impl SavedMove {
    /// The move's length in seconds, as fed to `perform_movement`.
    pub fn dt_secs(&self) -> f32 {
        dt_secs(self.dt_ms)
    }
}

/// Converts a quantized move length (ms) to the seconds both ends simulate.
/// One function so client, server and replay cannot disagree on rounding.
pub fn dt_secs(dt_ms: u16) -> f32 {
    f32::from(dt_ms) / 1000.0
}

/// UE `MaxSavedMoveCount` default (`FNetworkPredictionData_Client_Character`
/// constructor, 5.3): 96 unacknowledged moves.
pub const MAX_SAVED_MOVE_COUNT: usize = 96;

/// The ordered queue of unacknowledged moves, oldest first (UE
/// `ClientData->SavedMoves`).
#[derive(Debug, Clone, Default)]
pub struct SavedMoveQueue {
    moves: VecDeque<SavedMove>,
    capacity: usize,
    overflows: u64,
}

impl SavedMoveQueue {
    /// An empty queue holding at most `capacity` moves (at least 1).
    pub fn new(capacity: usize) -> Self {
        SavedMoveQueue {
            moves: VecDeque::with_capacity(capacity.max(1)),
            capacity: capacity.max(1),
            overflows: 0,
        }
    }

    /// Appends a move. When the queue is full it is **emptied first**, as UE
    /// does in `CreateSavedMove` ("Hit limit of %d saved moves (timing out or
    /// very bad ping?)" — it frees the whole list): the client then simply
    /// cannot replay those moves, and the next Adjustment it can match puts
    /// it right. Counted in [`SavedMoveQueue::overflows`].
    pub fn push(&mut self, m: SavedMove) {
        if self.moves.len() >= self.capacity {
            self.moves.clear();
            self.overflows += 1;
        }
        self.moves.push_back(m);
    }

    /// Index of the move with exactly this time stamp (UE
    /// `GetSavedMoveIndex`).
    pub fn index_of(&self, ts: TimeStamp) -> Option<usize> {
        self.moves.iter().position(|m| m.time_stamp == ts)
    }

    /// Drops the moves up to and including `index` (UE `AckMove`:
    /// `SavedMoves.RemoveAt(0, AckedMoveIndex + 1)`); returns how many.
    pub fn ack_through(&mut self, index: usize) -> usize {
        let n = (index + 1).min(self.moves.len());
        self.moves.drain(..n);
        n
    }

    /// Number of unacknowledged moves.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// `true` when no move awaits acknowledgement.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// How many times the queue overflowed and was emptied.
    pub fn overflows(&self) -> u64 {
        self.overflows
    }

    /// The moves, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &SavedMove> {
        self.moves.iter()
    }

    /// The moves, oldest first, for a replay to rewrite their end states.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut SavedMove> {
        self.moves.iter_mut()
    }

    /// The newest move.
    pub fn last(&self) -> Option<&SavedMove> {
        self.moves.back()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ts: u32) -> SavedMove {
        SavedMove {
            time_stamp: TimeStamp(ts),
            dt_ms: 16,
            input: MoveInput::default(),
            start: CharacterState::default(),
            end: CharacterState::at(Vec2::new(ts as f32, 0.0)),
            reported: Vec2::new(ts as f32, 0.0),
        }
    }

    #[test]
    fn ack_drops_exactly_the_acked_prefix() {
        let mut q = SavedMoveQueue::new(MAX_SAVED_MOVE_COUNT);
        for ts in [16, 33, 50, 66, 83] {
            q.push(mv(ts));
        }
        let i = q.index_of(TimeStamp(50)).unwrap();
        assert_eq!(q.ack_through(i), 3);
        let left: Vec<u32> = q.iter().map(|m| m.time_stamp.0).collect();
        assert_eq!(left, vec![66, 83]);
        assert_eq!(q.index_of(TimeStamp(50)), None);
    }

    #[test]
    fn overflow_at_96_frees_the_whole_list_like_ue() {
        let mut q = SavedMoveQueue::new(MAX_SAVED_MOVE_COUNT);
        for ts in 0..96 {
            q.push(mv(ts));
        }
        assert_eq!((q.len(), q.overflows()), (96, 0));
        q.push(mv(96));
        assert_eq!((q.len(), q.overflows()), (1, 1));
        assert_eq!(q.last().unwrap().time_stamp, TimeStamp(96));
    }
}
