//! Client time on the server: time stamp verification with the 240 s
//! reset (UE `VerifyClientTimeStamp` + `GetServerMoveDeltaTime`, `000_…`
//! §9.1–§9.2) and the time-discrepancy account (§9.4).

use super::ServerCharacter;
use crate::cmc::client_config::MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS;
use crate::cmc::wire::AdjustmentReason;
use crate::foundation::time::TimeStamp;

/// Half of UE's `MinTimeBetweenTimeStampResets` (240 s, `000_…` §9.2), ms:
/// a time stamp this far *behind* the current one is a legitimate reset; this
/// far *ahead* it is rejected (too far in the future, or a move from before
/// a reset arriving late).
pub const TIME_STAMP_RESET_WINDOW_MS: u32 = MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS / 2;

/// What the server makes of a move's time stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeStampVerdict {
    /// Later than the last one: simulate `dt_ms`.
    Accept {
        /// Client time the move covers, ms.
        dt_ms: u32,
        /// The client's clock went through its 240 s reset.
        reset: bool,
    },
    /// Already processed (a duplicate, an overtaken packet, a resent move).
    Stale,
    /// Too far ahead to be honest.
    TooFarAhead,
}

impl ServerCharacter {
    /// Judges `ts` against the last time stamp processed, without changing
    /// anything. A move is accepted if its time stamp is later than the
    /// last one (wrapping comparison) by at most
    /// [`TIME_STAMP_RESET_WINDOW_MS`]; its `dt` is the difference. A time
    /// stamp more than that window *behind* is the client's 240 s reset
    /// (UE `bTimeStampResetDetected`): the client subtracted exactly
    /// [`MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS`] from its clock, so `dt` =
    /// the new time stamp + 240 s − the last one, and the first move after
    /// the reset covers any move lost just before it. The first move's `dt`
    /// is its time stamp (client time starts at 0).
    pub(super) fn judge_time_stamp(&self, ts: TimeStamp) -> TimeStampVerdict {
        let Some(current) = self.current_time_stamp else {
            return TimeStampVerdict::Accept {
                dt_ms: ts.0,
                reset: false,
            };
        };
        let diff = ts.diff(current);
        let far = diff.unsigned_abs() > TIME_STAMP_RESET_WINDOW_MS;
        match (diff > 0, far) {
            (true, false) => TimeStampVerdict::Accept {
                dt_ms: diff.unsigned_abs(),
                reset: false,
            },
            (false, true) => TimeStampVerdict::Accept {
                dt_ms: ts
                    .0
                    .wrapping_add(MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS)
                    .wrapping_sub(current.0),
                reset: true,
            },
            (true, true) => TimeStampVerdict::TooFarAhead,
            (false, false) => TimeStampVerdict::Stale,
        }
    }

    /// [`ServerCharacter::judge_time_stamp`] with its counters and the
    /// adjustment reason: the `dt` in ms of an accepted move, else `None`.
    pub(super) fn verify_client_time_stamp(&mut self, ts: TimeStamp) -> Option<u32> {
        match self.judge_time_stamp(ts) {
            TimeStampVerdict::Accept { dt_ms, reset } => {
                self.counters.time_stamp_resets += u64::from(reset);
                Some(dt_ms)
            }
            TimeStampVerdict::TooFarAhead => {
                self.counters.time_stamps_rejected += 1;
                self.reason_hint
                    .get_or_insert(AdjustmentReason::TimeStampRejected);
                None
            }
            TimeStampVerdict::Stale => {
                self.counters.moves_ignored += 1;
                None
            }
        }
    }

    /// `000_…` §9.4: accumulates client time minus server time (with UE's
    /// drift allowance), floors it at the min margin, and when it exceeds
    /// the max margin reports an event and — with resolution on — takes the
    /// excess out of this move. Returns the `dt` to simulate, s.
    pub(super) fn account_time_discrepancy(&mut self, dt: f32, server_elapsed: f32) -> f32 {
        let c = self.config;
        let allowed = server_elapsed * (1.0 + c.time_discrepancy_drift_allowance);
        self.time_discrepancy =
            (self.time_discrepancy + dt - allowed).max(c.time_discrepancy_min_margin);
        let excess = self.time_discrepancy - c.time_discrepancy_max_margin;
        if excess <= 0.0 {
            return dt;
        }
        self.counters.time_discrepancy_events += 1;
        if !c.time_discrepancy_resolution {
            return dt;
        }
        self.reason_hint
            .get_or_insert(AdjustmentReason::TimeDiscrepancy);
        self.time_discrepancy = c.time_discrepancy_max_margin;
        (dt - excess).max(0.0)
    }
}
