//! The room's handling of a shot: `ServerFire_Validate` → `SpendRound` →
//! `ServerSideRewind` (reference `003_…`), answered with the verdict and
//! the ammo.

use super::{wrap, RoomHost};
use crate::room::hitbox::HitBoxes;
use crate::room::rewind::{self, RewindRules, RewindTarget};
use crate::room::weapon::ActionOutcome;
use crate::room::wire::{AmmoUpdate, RoomServerMsg, Shot, ShotResult, Verdict};
use crate::time::SimTime;

impl RoomHost {
    /// `ServerFire_Validate` → `SpendRound` → `ServerSideRewind`, answered
    /// with the verdict and the ammo.
    pub(super) fn fire(&mut self, now: SimTime, i: usize, shot: &Shot) {
        let outcome = self.players[i]
            .weapon
            .fire(&self.config.weapon, now, shot.seq, shot.at);
        let result = match outcome {
            ActionOutcome::Stale => None,
            ActionOutcome::Rejected(r) => Some(ShotResult {
                seq: shot.seq,
                verdict: Verdict::Rejected(r),
                rewind_ms: 0,
                target: None,
            }),
            ActionOutcome::Accepted => Some(self.judge(now, i, shot)),
        };
        let shooter = &mut self.players[i];
        match result {
            Some(r) if outcome == ActionOutcome::Accepted => shooter.shots.count_verdict(r.verdict),
            _ => shooter.shots.count_action(outcome),
        }
        if let (Some(r), Some(link)) = (result, shooter.link_mut()) {
            link.conn.send(now, &wrap(RoomServerMsg::ShotResult(r)));
        }
        self.answer_ammo(now, i, outcome);
    }

    fn judge(&self, now: SimTime, shooter: usize, shot: &Shot) -> ShotResult {
        let targets: Vec<RewindTarget> = self
            .players
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != shooter)
            .map(|(_, p)| RewindTarget {
                id: p.id,
                history: &p.history,
                current: HitBoxes::at(p.state().position, self.params.radius),
                lead_us: p.link().map_or(0, |l| l.lead_us),
            })
            .collect();
        let rules = RewindRules {
            settings: self.players[shooter].settings,
            max_record_us: u64::from(self.config.max_record_time_ms) * 1000,
            range_cm: f32::from(self.config.weapon.range_cm),
            world: &self.world,
        };
        rewind::judge(shot, now, &rules, &targets)
    }

    /// `ClientUpdateAmmo`: the ammo after the newest action, unless the
    /// action was stale (nothing changed).
    pub(super) fn answer_ammo(&mut self, now: SimTime, i: usize, outcome: ActionOutcome) {
        let p = &mut self.players[i];
        let (Some(ack), ammo) = (p.weapon.last_seq(), p.weapon.ammo()) else {
            return;
        };
        if outcome != ActionOutcome::Stale {
            if let Some(link) = p.link_mut() {
                link.conn
                    .send(now, &wrap(RoomServerMsg::Ammo(AmmoUpdate { ack, ammo })));
            }
        }
    }
}
