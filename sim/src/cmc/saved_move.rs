//! `SavedMove`: one predicted move, kept until the server acknowledges it
//! (UE `FSavedMove_Character`, reference `000_…` §3.1–§3.2).

use crate::foundation::math::Vec2;
use crate::foundation::movement::{CharacterState, MoveInput};
use crate::foundation::time::TimeStamp;
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
    /// The client's max speed when the move was made, cm/s (UE
    /// `FSavedMove_Character::MaxSpeed`; changes with the speed buff).
    pub max_speed: f32,
}

/// UE `AccelDotThresholdCombine` (`FSavedMove_Character`): two moves combine
/// only if their acceleration directions differ by at most ≈ 5°
/// (cos ≥ 0.996). `000_…` §8.1.
pub const ACCEL_DOT_THRESHOLD_COMBINE: f32 = 0.996;
/// UE `MaxSpeedThresholdCombine`: max speeds within 10 cm/s may combine.
pub const MAX_SPEED_THRESHOLD_COMBINE: f32 = 10.0;
/// UE `AccelDotThreshold`: a move whose acceleration direction differs from
/// the last acknowledged move's by more than this (cos < 0.9, ≈ 26°) is
/// *important* and is resent as the old move (`000_…` §8.3).
pub const ACCEL_DOT_THRESHOLD: f32 = 0.9;
/// UE `AccelMagThreshold`: an acceleration magnitude change of more than
/// 1 cm/s² also makes a move important.
pub const ACCEL_MAG_THRESHOLD: f32 = 1.0;

impl SavedMove {
    /// The move's length in seconds, as fed to `perform_movement`.
    pub fn dt_secs(&self) -> f32 {
        dt_secs(self.dt_ms)
    }
}

impl SavedMove {
    /// UE `FSavedMove_Character::CanCombineWith` (`000_…` §8.1): `new` (an
    /// input about to be performed with `new_max_speed`) may be merged into
    /// this pending move when neither carries a flag (a dash is an impulse:
    /// never combined, reference `004_…` §2), both accelerate or both do
    /// not, their directions are within [`ACCEL_DOT_THRESHOLD_COMBINE`], and
    /// their max speeds within [`MAX_SPEED_THRESHOLD_COMBINE`].
    pub fn can_combine_with(
        &self,
        new: &MoveInput,
        new_max_speed: f32,
        params: &crate::foundation::movement::MovementParams,
    ) -> bool {
        if self.input.flags.0 != 0 || new.flags.0 != 0 || self.input.flags != new.flags {
            return false;
        }
        if (self.max_speed - new_max_speed).abs() > MAX_SPEED_THRESHOLD_COMBINE {
            return false;
        }
        let (a, b) = (self.input.acceleration(params), new.acceleration(params));
        match (a.is_zero(), b.is_zero()) {
            (true, true) => true,
            (false, false) => a.safe_normal().dot(b.safe_normal()) >= ACCEL_DOT_THRESHOLD_COMBINE,
            _ => false,
        }
    }

    /// UE `FSavedMove_Character::IsImportantMove` (`000_…` §8.3): flags
    /// changed, or the acceleration changed by more than
    /// [`ACCEL_MAG_THRESHOLD`] in size or [`ACCEL_DOT_THRESHOLD`] in
    /// direction, compared with the last acknowledged move.
    pub fn is_important(
        &self,
        last_acked: &SavedMove,
        params: &crate::foundation::movement::MovementParams,
    ) -> bool {
        if self.input.flags != last_acked.input.flags {
            return true;
        }
        if self.input.accel_x == last_acked.input.accel_x
            && self.input.accel_y == last_acked.input.accel_y
        {
            return false;
        }
        let (a, b) = (
            self.input.acceleration(params),
            last_acked.input.acceleration(params),
        );
        (a.length() - b.length()).abs() > ACCEL_MAG_THRESHOLD
            || a.safe_normal().dot(b.safe_normal()) < ACCEL_DOT_THRESHOLD
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

    /// The move at `index` (0 = oldest).
    pub fn get(&self, index: usize) -> Option<&SavedMove> {
        self.moves.get(index)
    }

    /// Removes and returns the newest move (a pending move being combined).
    pub fn pop_last(&mut self) -> Option<SavedMove> {
        self.moves.pop_back()
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
            max_speed: 600.0,
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

    fn with_input(dir: Vec2, dash: bool) -> SavedMove {
        SavedMove {
            input: MoveInput::from_direction(dir, dash),
            ..mv(1)
        }
    }

    #[test]
    fn moves_combine_within_0_996_and_never_with_a_dash() {
        let p = crate::foundation::movement::MovementParams::default();
        let east = with_input(Vec2::new(1.0, 0.0), false);
        // cos(5°) = 0.99619 ≥ 0.996: combines; cos(5.2°) = 0.99588: does not.
        let (s5, c5) = (5.0f32.to_radians().sin(), 5.0f32.to_radians().cos());
        let (s52, c52) = (5.2f32.to_radians().sin(), 5.2f32.to_radians().cos());
        assert!(east.can_combine_with(
            &MoveInput::from_direction(Vec2::new(c5, s5), false),
            600.0,
            &p
        ));
        assert!(!east.can_combine_with(
            &MoveInput::from_direction(Vec2::new(c52, s52), false),
            600.0,
            &p
        ));
        assert!(!east.can_combine_with(
            &MoveInput::from_direction(Vec2::new(1.0, 0.0), true),
            600.0,
            &p
        ));
        assert!(!with_input(Vec2::new(1.0, 0.0), true).can_combine_with(&east.input, 600.0, &p));
        assert!(!east.can_combine_with(&MoveInput::default(), 600.0, &p));
        // Max speeds 10 cm/s apart still combine; 11 do not.
        assert!(east.can_combine_with(&east.input, 610.0, &p));
        assert!(!east.can_combine_with(&east.input, 611.0, &p));
        let idle = with_input(Vec2::ZERO, false);
        assert!(idle.can_combine_with(&MoveInput::default(), 600.0, &p));
    }

    #[test]
    fn important_moves_turn_beyond_0_9_or_change_flags() {
        let p = crate::foundation::movement::MovementParams::default();
        let acked = with_input(Vec2::new(1.0, 0.0), false);
        // cos(25°) = 0.906 ≥ 0.9: not important; cos(26°) = 0.899: important.
        let turn = |deg: f32| {
            with_input(
                Vec2::new(deg.to_radians().cos(), deg.to_radians().sin()),
                false,
            )
        };
        assert!(!turn(25.0).is_important(&acked, &p));
        assert!(turn(26.0).is_important(&acked, &p));
        assert!(with_input(Vec2::new(1.0, 0.0), true).is_important(&acked, &p));
        // Half throttle: |Δa| = 1024 cm/s² > 1.
        assert!(with_input(Vec2::new(0.5, 0.0), false).is_important(&acked, &p));
        assert!(!acked.is_important(&acked, &p));
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
