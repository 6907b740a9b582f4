//! A silent client moved on by the server (UE `ForcePositionUpdate`,
//! `000_…` §9.5): after `MAXCLIENTUPDATEINTERVAL` without an accepted move,
//! the server simulates the client's last input itself, and corrects the
//! client when it is back.

use super::{secs_to_ms, ServerCharacter};
use crate::cmc::saved_move::dt_secs;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;

impl ServerCharacter {
    /// Whether [`ServerCharacter::force_position_update`] at `now` would
    /// change anything: no ServerMove accepted for
    /// `max_client_update_interval`, none held back either (the client is
    /// not silent), and this silence not yet marked or with forced-update
    /// time left. Between two such times, checking does nothing, so a
    /// driver need only poll then.
    pub fn forced_update_due(&self, now: SimTime) -> bool {
        let Some(last) = self.last_move_at else {
            return false;
        };
        now.secs_since(last) >= f64::from(self.config.max_client_update_interval)
            && !self.forced_time_used_up()
            && !self.holds_moves()
    }

    /// This silence has been marked and its forced-update time is spent:
    /// checking again changes nothing until the next ServerMove.
    fn forced_time_used_up(&self) -> bool {
        self.forced_until.is_some()
            && self.forced_total_ms >= secs_to_ms(self.config.max_client_forced_update_duration)
    }

    /// A time at or before the first at which
    /// [`ServerCharacter::forced_update_due`] holds, or `None` if it cannot
    /// hold before the next ServerMove (none yet, or this silence's forced
    /// update time is used up).
    pub fn forced_update_from(&self) -> Option<SimTime> {
        let last = self.last_move_at?;
        if self.forced_time_used_up() || self.holds_moves() {
            return None;
        }
        // Rounded down: the exact test is `forced_update_due`.
        let micros = (f64::from(self.config.max_client_update_interval) * 1e6) as u64;
        Some(last.plus_micros(micros.saturating_sub(1)))
    }

    /// UE `ForcePositionUpdate` (`000_…` §9.5): if no ServerMove has been
    /// accepted for `max_client_update_interval`, simulate the client's last
    /// input up to `now` — in whole ms, at most `max_move_delta` per call and
    /// `max_client_forced_update_duration` in total per silence — and make
    /// its next checked move an Adjustment. The simulated time is added to
    /// the client's time stamp, as UE's `ForcePositionUpdate` adds it to
    /// `CurrentClientTimeStamp`: the moves delayed by the silence are then
    /// stale, and the server never simulates the same client time twice.
    /// Returns `true` if it moved the character.
    pub fn force_position_update(&mut self, now: SimTime, world: &World) -> bool {
        if !self.forced_update_due(now) {
            return false;
        }
        let Some(last) = self.last_move_at else {
            return false;
        };
        let from = self.forced_until.unwrap_or(last);
        let budget_ms = secs_to_ms(self.config.max_client_forced_update_duration)
            .saturating_sub(self.forced_total_ms);
        let dt_ms = (now.micros_since(from) / 1000)
            .min(u64::from(budget_ms))
            .min(u64::from(secs_to_ms(self.config.max_move_delta))) as u16;
        self.forced_until = Some(from.plus_millis(u64::from(dt_ms)));
        if dt_ms == 0 {
            return false;
        }
        self.forced_total_ms += u32::from(dt_ms);
        if let Some(ts) = self.current_time_stamp {
            self.current_time_stamp = Some(ts.plus_ms(u32::from(dt_ms)));
        }
        let dt = dt_secs(dt_ms);
        let input = self.last_input;
        // A forced update explains itself; a push on top changes nothing.
        self.simulate(&input, dt, world);
        self.counters.forced_updates += 1;
        let (ts, position) = (
            self.current_time_stamp.unwrap_or_default(),
            self.state.position,
        );
        self.note(
            now,
            ts,
            super::MoveOutcome::Forced {
                dt_ms: u32::from(dt_ms),
                position,
            },
        );
        true
    }
}
