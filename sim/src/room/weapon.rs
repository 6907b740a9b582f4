//! The weapon on the server: ammo, reload and fire-rate validation
//! (reference `003_…` `ServerFire_Validate`, `SpendRound`, "防作弊").
//!
//! Every ammo action (a shot, a reload) carries the server time at which
//! the client says it happened (its clock-sync estimate, [`super::clock`]),
//! and arrives once and in order ([`super::actions`]). The server judges
//! the **claimed times**, not the arrival times: jitter bunches packets up
//! on the way (`003_…`: "RPC并不能保证在特定时间内到达服务器"), so two shots
//! fired 100 ms apart may arrive 40 ms apart, and an honest player must
//! not be rejected for that. A claimed time may not lie in the server's
//! future (beyond [`FIRE_TOLERANCE_MS`]); so a client that claims evenly
//! spaced times while firing faster runs its claims into the future and is
//! rejected there: over any stretch, accepted shots stay within one per
//! interval plus the tolerance.
//!
//! Two claims are compared with a tolerance that grows with the time
//! between them ([`claim_tolerance_us`]): the estimate they are read from
//! slews by up to [`SLEW_PERCENT`] of the time that passes, so two claims
//! of an honest client a reload (1.5 s) apart may differ from 1.5 s by up
//! to 75 ms. A fixed 10 ms refused the first shot after a reload as
//! "reloading" in 8 of 20 runs on a lossless link at RTT 150 ± 30 ms
//! (RiseOfTheDead issue #875: firing around a reload desyncs the ammo).
//! A cheat gains that much and no more: a reload 5 % shorter, a shot
//! 5 ms early.

use super::clock::SLEW_PERCENT;
use crate::foundation::control::{check, SettingsError};
use crate::foundation::time::SimTime;
use serde::{Deserialize, Serialize};

/// Slack on every claimed-time check, ms: the reference's
/// `FMath::IsNearlyEqual(…, 0.01f)` on the fire delay.
pub const FIRE_TOLERANCE_MS: u64 = 10;

/// The slack on comparing two claims `span_ms` apart (a fire interval, a
/// reload), µs: [`FIRE_TOLERANCE_MS`] plus what the clock estimate they
/// were read from may have slewed in between ([`SLEW_PERCENT`] of the
/// span). A stepped estimate (a changed link) can still be refused once.
pub fn claim_tolerance_us(span_ms: u64) -> u64 {
    (FIRE_TOLERANCE_MS + span_ms * SLEW_PERCENT / 100) * 1000
}

/// The oldest a claimed reload start may be, ms: Source's `sv_maxunlag`
/// (1.0 s), the longest rewind any setting allows. An older claim is
/// taken as this old, so a reload cannot be backdated to finish at once.
pub const MAX_CLAIM_AGE_MS: u64 = 1000;

/// What the weapon is: the same on both ends (sent in the join answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeaponConfig {
    /// Shortest time between two shots, ms, `10..=2000` (`003_…`: "原本射击
    /// 间隔为0.1s": 100).
    pub fire_interval_ms: u16,
    /// Rounds in a full magazine, `1..=1000` (`003_…`'s RPC timeline
    /// starts at 30).
    pub magazine: u16,
    /// How long a reload takes, ms, `0..=10000` (playground choice: 1500).
    pub reload_ms: u16,
    /// How far a shot reaches, cm, `100..=10000` (playground choice: 5000,
    /// more than the arena's 28 m diagonal).
    pub range_cm: u16,
}

impl Default for WeaponConfig {
    fn default() -> Self {
        WeaponConfig {
            fire_interval_ms: 100,
            magazine: 30,
            reload_ms: 1500,
            range_cm: 5000,
        }
    }
}

impl WeaponConfig {
    /// Checks every field against its range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check("fire_interval_ms", self.fire_interval_ms.into(), 10..=2000)?;
        check("magazine", self.magazine.into(), 1..=1000)?;
        check("reload_ms", self.reload_ms.into(), 0..=10_000)?;
        check("range_cm", self.range_cm.into(), 100..=10_000)
    }
}

/// Why a shot was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RejectReason {
    /// Its hit time is further back than the shooter's rewind cap, or than
    /// the frame history reaches. The round is spent.
    TooOld,
    /// Sooner than the fire interval after the last accepted shot
    /// (`ServerFire_Validate`).
    FireRate,
    /// Fired during a reload.
    Reloading,
    /// The magazine was empty.
    NoAmmo,
    /// Claimed a time in the server's future.
    ClockAhead,
}

/// What the server did with an ammo action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionOutcome {
    /// Applied: a round spent, or a reload started.
    Accepted,
    /// Refused; the client's prediction is corrected by the next ammo
    /// update.
    Rejected(RejectReason),
}

/// One player's weapon on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeaponState {
    ammo: u16,
    /// Claimed server time at which the reload in progress ends, and how
    /// long it takes, ms.
    reloading_until: Option<(SimTime, u64)>,
    /// Claimed time of the last accepted shot.
    last_fire_at: Option<SimTime>,
}

impl WeaponState {
    /// A full magazine.
    pub fn new(config: &WeaponConfig) -> WeaponState {
        WeaponState {
            ammo: config.magazine,
            reloading_until: None,
            last_fire_at: None,
        }
    }

    /// A shot the client says it fired at server time `at`, arriving at
    /// `now` (`ServerFire_Validate`, then `SpendRound`): refused if `at` is
    /// in the future, during a reload, sooner than the fire interval after
    /// the last accepted shot, or with an empty magazine.
    pub fn fire(&mut self, config: &WeaponConfig, now: SimTime, at: SimTime) -> ActionOutcome {
        if at > now.plus_millis(FIRE_TOLERANCE_MS) {
            return ActionOutcome::Rejected(RejectReason::ClockAhead);
        }
        if let Some((until, reload_ms)) = self.reloading_until {
            if at.plus_micros(claim_tolerance_us(reload_ms)) < until {
                return ActionOutcome::Rejected(RejectReason::Reloading);
            }
            self.reloading_until = None;
        }
        let interval = u64::from(config.fire_interval_ms);
        if let Some(last) = self.last_fire_at {
            if at.plus_micros(claim_tolerance_us(interval)) < last.plus_millis(interval) {
                return ActionOutcome::Rejected(RejectReason::FireRate);
            }
        }
        if self.ammo == 0 {
            return ActionOutcome::Rejected(RejectReason::NoAmmo);
        }
        self.ammo -= 1;
        self.last_fire_at = Some(at);
        ActionOutcome::Accepted
    }

    /// A reload the client says it started at server time `at`, arriving
    /// at `now`: the magazine is full from `at` + the reload time (a claim
    /// older than [`MAX_CLAIM_AGE_MS`] counts as that old), and shots
    /// claimed before then are refused.
    pub fn reload(&mut self, config: &WeaponConfig, now: SimTime, at: SimTime) -> ActionOutcome {
        if at > now.plus_millis(FIRE_TOLERANCE_MS) {
            return ActionOutcome::Rejected(RejectReason::ClockAhead);
        }
        let oldest = SimTime(now.0.saturating_sub(MAX_CLAIM_AGE_MS * 1000));
        let start = at.max(oldest);
        let reload_ms = u64::from(config.reload_ms);
        self.reloading_until = Some((start.plus_millis(reload_ms), reload_ms));
        self.ammo = config.magazine;
        ActionOutcome::Accepted
    }

    /// Rounds left (a reload in progress counts as done: shots before its
    /// end are refused anyway).
    pub fn ammo(&self) -> u16 {
        self.ammo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ActionOutcome::{Accepted, Rejected};
    use RejectReason::{ClockAhead, FireRate, NoAmmo, Reloading};

    /// A shot (`true`) or a reload arriving at `arrival` ms, claimed at
    /// `claimed` ms, and what the server must do with it.
    type Step = (bool, u64, u64, ActionOutcome);

    /// Feeds `steps` in order to `w`, checking each outcome.
    fn run(w: &mut WeaponState, c: &WeaponConfig, steps: &[Step]) {
        for (i, &(fire, arrival, claimed, want)) in steps.iter().enumerate() {
            let (now, at) = (SimTime::from_millis(arrival), SimTime::from_millis(claimed));
            let got = if fire {
                w.fire(c, now, at)
            } else {
                w.reload(c, now, at)
            };
            assert_eq!(got, want, "step {i}: claimed at {claimed} ms");
        }
    }

    #[test]
    fn the_tolerance_grows_with_the_span_the_estimate_may_slew_over() {
        assert_eq!(claim_tolerance_us(100), 15_000);
        assert_eq!(claim_tolerance_us(1500), 85_000);
    }

    #[test]
    fn shots_faster_than_the_interval_are_rejected_by_their_claimed_times() {
        let c = WeaponConfig::default();
        let mut w = WeaponState::new(&c);
        run(
            &mut w,
            &c,
            &[
                // Claimed 100 ms apart but arriving 40 ms apart (jitter):
                // accepted.
                (true, 1000, 900, Accepted),
                (true, 1040, 1000, Accepted),
                // 86 ms after the last is within the 15 ms tolerance; 84
                // is not.
                (true, 1200, 1084, Rejected(FireRate)),
                (true, 1200, 1086, Accepted),
                (true, 1200, 1211, Rejected(ClockAhead)),
            ],
        );
        assert_eq!(w.ammo(), 27);
    }

    #[test]
    fn a_reload_fills_the_magazine_from_its_claimed_start() {
        let c = WeaponConfig {
            magazine: 2,
            ..WeaponConfig::default()
        };
        let mut w = WeaponState::new(&c);
        run(
            &mut w,
            &c,
            &[
                (true, 100, 0, Accepted),
                (true, 200, 100, Accepted),
                (true, 300, 200, Rejected(NoAmmo)),
                (false, 400, 300, Accepted),
                // Reload ends at 300 + 1500 = 1800 (claimed), whatever the
                // arrival, less the 85 ms the estimate may slew in 1.5 s.
                (true, 1800, 1714, Rejected(Reloading)),
                (true, 1850, 1715, Accepted),
            ],
        );
        assert_eq!(w.ammo(), 1);
        run(
            &mut w,
            &c,
            &[
                // A reload claimed 5 s ago counts as 1 s ago: it ends at
                // 9.5 s.
                (false, 9000, 4000, Accepted),
                (true, 9400, 9400, Rejected(Reloading)),
                (true, 9500, 9500, Accepted),
            ],
        );
    }
}
