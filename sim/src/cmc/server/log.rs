//! The server's own account of each move, kept when asked (local mode and
//! scenario runs) for the correction inspector: which moves it simulated,
//! over how much client time, clamped or cut, and which it refused.

use super::ServerCharacter;
use crate::cmc::wire::AdjustmentReason;
use crate::foundation::bounded::Bounded;
use crate::foundation::math::Vec2;
use crate::foundation::movement::MoveInput;
use crate::foundation::time::{SimTime, TimeStamp};

/// What the server did with one move of a ServerMove, or with a silence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MoveOutcome {
    /// Simulated over `covered_ms` of client time (the difference to the
    /// previous time stamp: more than the client's own move when moves
    /// before it never arrived), `simulated_s` after the 0.125 s clamp and
    /// any time-discrepancy cut, with `input`; the character ended at
    /// `position` (cm).
    Simulated {
        /// Client time covered, ms.
        covered_ms: u32,
        /// Time actually simulated, s.
        simulated_s: f32,
        /// The input simulated.
        input: MoveInput,
        /// Where the server's character ended, cm.
        position: Vec2,
        /// A server-only effect (a push zone) moved it too.
        pushed: bool,
    },
    /// The client's reported location for this move was checked against
    /// the server's (UE `ServerMoveHandleClientError`): `verdict` is the
    /// Adjustment's reason, `None` for a good move.
    Checked {
        /// Where the client said it was, cm.
        client: Vec2,
        /// Where the server had it, cm.
        server: Vec2,
        /// Why it gets an Adjustment, if it does.
        verdict: Option<AdjustmentReason>,
    },
    /// Already processed (a duplicate, an overtaken packet, a resent move).
    Stale,
    /// Its time stamp was too far ahead.
    TooFarAhead,
    /// No move for 0.25 s: the server moved the client on by `dt_ms` with
    /// its last input (UE `ForcePositionUpdate`).
    Forced {
        /// Simulated, ms.
        dt_ms: u32,
        /// Where the server's character ended, cm.
        position: Vec2,
    },
}

/// One line of the server's account.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveRecord {
    /// Server time it happened.
    pub at: SimTime,
    /// The move's time stamp (for a forced update: the time stamp the
    /// server moved the client on to).
    pub time_stamp: TimeStamp,
    /// What the server did.
    pub outcome: MoveOutcome,
}

impl ServerCharacter {
    /// Keeps an account of the newest `capacity` moves from now on (a
    /// second call keeps the account already kept)
    /// ([`ServerCharacter::move_log`]); off by default.
    pub fn keep_move_log(&mut self, capacity: usize) {
        self.log
            .get_or_insert_with(|| Box::new(Bounded::new(capacity)));
    }

    /// The account kept, oldest first (empty when not kept).
    pub fn move_log(&self) -> impl Iterator<Item = &MoveRecord> {
        self.log.iter().flat_map(|l| l.items().iter())
    }

    pub(super) fn note(&mut self, at: SimTime, time_stamp: TimeStamp, outcome: MoveOutcome) {
        if let Some(log) = &mut self.log {
            log.push(MoveRecord {
                at,
                time_stamp,
                outcome,
            });
        }
    }
}
