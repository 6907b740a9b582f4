//! The weapon on the server: ammo, reload and fire-rate validation
//! (reference `003_…` `ServerFire_Validate`, `SpendRound`, "防作弊").
//!
//! Every ammo action (a shot, a reload) carries the client's sequence
//! number and the server time at which the client says it happened (its
//! clock-sync estimate, [`super::clock`]). The server judges the **claimed
//! times**, not the arrival times: jitter bunches packets up on the way
//! (`003_…`: "RPC并不能保证在特定时间内到达服务器"), so two shots fired
//! 100 ms apart may arrive 40 ms apart, and an honest player must not be
//! rejected for that. A claimed time may not lie in the server's future
//! (beyond [`FIRE_TOLERANCE_MS`]); so a client that claims evenly spaced
//! times while firing faster runs its claims into the future and is
//! rejected there: over any stretch, accepted shots stay within one per
//! interval plus the tolerance.

use super::seq::Seq;
use super::wire::RejectReason;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Slack on every claimed-time check, ms: the reference's
/// `FMath::IsNearlyEqual(…, 0.01f)` on the fire delay. It also absorbs a
/// clock-sync estimate that moves a little between two shots.
pub const FIRE_TOLERANCE_MS: u64 = 10;

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
    /// [`crate::net::protocol::SettingsError`] naming the first field out
    /// of range.
    pub fn validate(&self) -> Result<(), crate::net::protocol::SettingsError> {
        use super::config::check;
        check("fire_interval_ms", self.fire_interval_ms.into(), 10, 2000)?;
        check("magazine", self.magazine.into(), 1, 1000)?;
        check("reload_ms", self.reload_ms.into(), 0, 10_000)?;
        check("range_cm", self.range_cm.into(), 100, 10_000)
    }
}

/// What the server did with an ammo action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionOutcome {
    /// Applied: a round spent, or a reload started.
    Accepted,
    /// Refused; the client's prediction is corrected by the next ammo
    /// update.
    Rejected(RejectReason),
    /// Its sequence number is not newer than one already handled (a
    /// duplicate, or overtaken by a later action): ignored.
    Stale,
}

/// One player's weapon on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeaponState {
    ammo: u16,
    /// Claimed server time at which the reload in progress ends.
    reloading_until: Option<SimTime>,
    /// Claimed time of the last accepted shot.
    last_fire_at: Option<SimTime>,
    /// The newest action handled, accepted or not: what the ammo update
    /// acknowledges.
    last_seq: Option<Seq>,
}

impl WeaponState {
    /// A full magazine.
    pub fn new(config: &WeaponConfig) -> WeaponState {
        WeaponState {
            ammo: config.magazine,
            reloading_until: None,
            last_fire_at: None,
            last_seq: None,
        }
    }

    /// A shot the client says it fired at server time `at`, arriving at
    /// `now` (`ServerFire_Validate`, then `SpendRound`): refused if `at` is
    /// in the future, during a reload, sooner than the fire interval after
    /// the last accepted shot, or with an empty magazine.
    pub fn fire(
        &mut self,
        config: &WeaponConfig,
        now: SimTime,
        seq: Seq,
        at: SimTime,
    ) -> ActionOutcome {
        if !self.take(seq) {
            return ActionOutcome::Stale;
        }
        if at > now.plus_millis(FIRE_TOLERANCE_MS) {
            return ActionOutcome::Rejected(RejectReason::ClockAhead);
        }
        if let Some(until) = self.reloading_until {
            if at.plus_millis(FIRE_TOLERANCE_MS) < until {
                return ActionOutcome::Rejected(RejectReason::Reloading);
            }
            self.reloading_until = None;
        }
        let interval = u64::from(config.fire_interval_ms);
        if let Some(last) = self.last_fire_at {
            if at.plus_millis(FIRE_TOLERANCE_MS) < last.plus_millis(interval) {
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
    pub fn reload(
        &mut self,
        config: &WeaponConfig,
        now: SimTime,
        seq: Seq,
        at: SimTime,
    ) -> ActionOutcome {
        if !self.take(seq) {
            return ActionOutcome::Stale;
        }
        if at > now.plus_millis(FIRE_TOLERANCE_MS) {
            return ActionOutcome::Rejected(RejectReason::ClockAhead);
        }
        let oldest = SimTime(now.0.saturating_sub(MAX_CLAIM_AGE_MS * 1000));
        let start = at.max(oldest);
        self.reloading_until = Some(start.plus_millis(config.reload_ms.into()));
        self.ammo = config.magazine;
        ActionOutcome::Accepted
    }

    fn take(&mut self, seq: Seq) -> bool {
        if self.last_seq.is_some_and(|last| !seq.is_after(last)) {
            return false;
        }
        self.last_seq = Some(seq);
        true
    }

    /// Rounds left (a reload in progress counts as done: shots before its
    /// end are refused anyway).
    pub fn ammo(&self) -> u16 {
        self.ammo
    }

    /// The newest action handled.
    pub fn last_seq(&self) -> Option<Seq> {
        self.last_seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn shots_faster_than_the_interval_are_rejected_by_their_claimed_times() {
        let c = WeaponConfig::default();
        let mut w = WeaponState::new(&c);
        // Claimed 100 ms apart but arriving 40 ms apart (jitter): accepted.
        assert_eq!(
            w.fire(&c, ms(1000), Seq(1), ms(900)),
            ActionOutcome::Accepted
        );
        assert_eq!(
            w.fire(&c, ms(1040), Seq(2), ms(1000)),
            ActionOutcome::Accepted
        );
        // 91 ms after the last is within the 10 ms tolerance; 89 is not.
        assert_eq!(
            w.fire(&c, ms(1200), Seq(3), ms(1089)),
            ActionOutcome::Rejected(RejectReason::FireRate)
        );
        assert_eq!(
            w.fire(&c, ms(1200), Seq(4), ms(1091)),
            ActionOutcome::Accepted
        );
        assert_eq!(w.fire(&c, ms(1200), Seq(4), ms(1300)), ActionOutcome::Stale);
        assert_eq!(
            w.fire(&c, ms(1200), Seq(5), ms(1211)),
            ActionOutcome::Rejected(RejectReason::ClockAhead)
        );
        assert_eq!(w.ammo(), 27);
        assert_eq!(w.last_seq(), Some(Seq(5)));
    }

    #[test]
    fn a_reload_fills_the_magazine_from_its_claimed_start() {
        let c = WeaponConfig {
            magazine: 2,
            ..WeaponConfig::default()
        };
        let mut w = WeaponState::new(&c);
        assert_eq!(w.fire(&c, ms(100), Seq(1), ms(0)), ActionOutcome::Accepted);
        assert_eq!(
            w.fire(&c, ms(200), Seq(2), ms(100)),
            ActionOutcome::Accepted
        );
        assert_eq!(
            w.fire(&c, ms(300), Seq(3), ms(200)),
            ActionOutcome::Rejected(RejectReason::NoAmmo)
        );
        assert_eq!(
            w.reload(&c, ms(400), Seq(4), ms(300)),
            ActionOutcome::Accepted
        );
        // Reload ends at 300 + 1500 = 1800 (claimed), whatever the arrival.
        assert_eq!(
            w.fire(&c, ms(1800), Seq(5), ms(1700)),
            ActionOutcome::Rejected(RejectReason::Reloading)
        );
        assert_eq!(
            w.fire(&c, ms(1850), Seq(6), ms(1800)),
            ActionOutcome::Accepted
        );
        assert_eq!(w.ammo(), 1);
        // A reload claimed 5 s ago counts as 1 s ago: it ends at 9.5 s.
        assert_eq!(
            w.reload(&c, ms(9000), Seq(7), ms(4000)),
            ActionOutcome::Accepted
        );
        assert_eq!(
            w.fire(&c, ms(9400), Seq(8), ms(9400)),
            ActionOutcome::Rejected(RejectReason::Reloading)
        );
        assert_eq!(
            w.fire(&c, ms(9500), Seq(9), ms(9500)),
            ActionOutcome::Accepted
        );
    }
}
