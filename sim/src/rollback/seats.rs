//! The per-seat numbers of a rollback room (issue 22): each player's last
//! [`SeatReport`] (what only its page knows: RTT, input delay, time
//! dilation) kept with the tick it arrived, and the reports refused.
//! [`super::match_server::MatchServer`] checks a report's ids against the
//! seat it names, stores it here, and joins it to its own per-seat
//! counters (buffer depth, missed, late) in a [`super::wire::SeatsMsg`]
//! about twice a second.
//!
//! ```text
//! SeatReport ─► ids of the seat (as an InputPacket's) ─► in range? ─► kept
//!                  └ refused: identity (another session, match, no player)
//!                             out of range ─► ReportsRefused
//! seats_msg ─► a row per seat; a report older than REPORT_FRESH_MS: None
//! ```

use super::tick::TickRate;
use super::wire::{IdentityError, ReportedStats};
use thiserror::Error;

/// A report older than this, ms of match time, is shown as stale (its
/// row carries no report): three missed reports at one a second.
pub const REPORT_FRESH_MS: u32 = 3_000;
/// How often a room sends [`super::wire::SeatsMsg`], ms of match time
/// (twice a second).
pub const SEATS_EVERY_MS: u32 = 500;

/// Why a [`SeatReport`](super::wire::SeatReport) was refused (counted;
/// nothing else changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ReportRefused {
    /// The claimed player index is no player's seat (free, a bot's, or
    /// beyond the match).
    #[error("no player {0} in this match")]
    NoSuchPlayer(u8),
    /// The seat's identity check failed (another session or match).
    #[error("refused: {0}")]
    Identity(#[from] IdentityError),
    /// A number outside its range
    /// ([`ReportedStats::in_range`]).
    #[error("a seat report out of range")]
    OutOfRange,
}

/// Reports refused by a match (saturating).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportsRefused {
    /// Naming no player's seat, or failing the seat's ids.
    pub identity: u64,
    /// A number out of range.
    pub out_of_range: u64,
}

impl ReportsRefused {
    /// All refusals.
    pub fn total(&self) -> u64 {
        self.identity + self.out_of_range
    }
}

/// Each seat's last report and the tick count it arrived at.
#[derive(Debug, Clone, Default)]
pub struct SeatReports {
    last: Vec<Option<(ReportedStats, u64)>>,
    refused: ReportsRefused,
}

impl SeatReports {
    /// No reports for `seats` seats.
    pub fn new(seats: usize) -> SeatReports {
        SeatReports {
            last: vec![None; seats],
            refused: ReportsRefused::default(),
        }
    }

    /// Keeps `stats` for `seat`, arrived after `ticks_run` ticks of the
    /// match, or counts it refused when out of range.
    ///
    /// # Errors
    /// [`ReportRefused::OutOfRange`]; nothing is kept.
    pub fn store(
        &mut self,
        seat: usize,
        stats: ReportedStats,
        ticks_run: u64,
    ) -> Result<(), ReportRefused> {
        if !stats.in_range() {
            self.refused.out_of_range += 1;
            return Err(ReportRefused::OutOfRange);
        }
        if let Some(s) = self.last.get_mut(seat) {
            *s = Some((stats, ticks_run));
        }
        Ok(())
    }

    /// Counts a report refused for its ids.
    pub fn refuse_identity(&mut self) {
        self.refused.identity += 1;
    }

    /// Forgets `seat`'s report (a new occupant), or every seat's (`None`,
    /// a new match).
    pub fn clear(&mut self, seat: Option<usize>) {
        match seat {
            Some(i) => {
                if let Some(s) = self.last.get_mut(i) {
                    *s = None;
                }
            }
            None => self.last.iter_mut().for_each(|s| *s = None),
        }
    }

    /// `seat`'s report if it arrived within [`REPORT_FRESH_MS`] of match
    /// time before `ticks_run` ticks at `rate`.
    pub fn fresh(&self, seat: usize, ticks_run: u64, rate: TickRate) -> Option<ReportedStats> {
        let (stats, at) = (*self.last.get(seat)?)?;
        let max_age = u64::from(rate.ticks_in_ms(REPORT_FRESH_MS));
        (ticks_run.saturating_sub(at) <= max_age).then_some(stats)
    }

    /// Reports refused so far.
    pub fn refused(&self) -> ReportsRefused {
        self.refused
    }
}
