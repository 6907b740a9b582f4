//! The client's own account of its moves, kept when asked (local mode and
//! scenario runs) for the correction inspector: each move it made, its
//! time stamp, length and input, and whether it left in a ServerMove.

use super::Client;
use crate::foundation::bounded::Bounded;
use crate::foundation::movement::MoveInput;
use crate::foundation::time::TimeStamp;

/// One move as the client made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientMoveRecord {
    /// Its time stamp (client time at its end), ms.
    pub time_stamp: TimeStamp,
    /// Its length, ms (a combined move: both moves' time).
    pub dt_ms: u16,
    /// Its input.
    pub input: MoveInput,
    /// The forced-loss switch dropped the ServerMove it would have left in.
    pub dropped_by_client: bool,
}

impl Client {
    /// Keeps an account of the newest `capacity` moves from now on (a
    /// second call keeps the account already kept)
    /// ([`Client::move_log`]); off by default.
    pub fn keep_move_log(&mut self, capacity: usize) {
        self.log
            .get_or_insert_with(|| Box::new(Bounded::new(capacity)));
    }

    /// Stops keeping the account and forgets it.
    pub fn forget_move_log(&mut self) {
        self.log = None;
    }

    /// The account kept, oldest first (empty when not kept).
    pub fn move_log(&self) -> impl Iterator<Item = &ClientMoveRecord> {
        self.log.iter().flat_map(|l| l.items().iter())
    }

    /// A move was made (or a pending one grew by combining: it replaces
    /// the last record).
    pub(super) fn note_move(
        &mut self,
        time_stamp: TimeStamp,
        dt_ms: u16,
        input: MoveInput,
        combined: bool,
    ) {
        if let Some(log) = &mut self.log {
            if combined {
                log.pop_last();
            }
            log.push(ClientMoveRecord {
                time_stamp,
                dt_ms,
                input,
                dropped_by_client: false,
            });
        }
    }

    /// The forced-loss switch dropped the packet of the newest move.
    pub(super) fn note_dropped(&mut self) {
        if let Some(r) = self.log.as_mut().and_then(|l| l.last_mut()) {
            r.dropped_by_client = true;
        }
    }
}
