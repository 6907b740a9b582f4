//! The room's handling of shots and reloads: taken once and in order
//! ([`crate::room::actions`]), then `ServerFire_Validate` → `SpendRound` →
//! `ServerSideRewind` (reference `003_…`), answered with the verdict and
//! the ammo.

use super::{wrap, RoomHost};
use crate::endpoints::room::player::AmmoAction;
use crate::foundation::time::SimTime;
use crate::room::actions::Arrival;
use crate::room::hitbox::HitBoxes;
use crate::room::rewind::{self, RewindRules, RewindTarget};
use crate::room::weapon::ActionOutcome;
use crate::room::wire::{AmmoUpdate, RoomServerMsg, Shot, ShotResult, Verdict};
use crate::room::Seq;

impl RoomHost {
    /// Ammo action `seq` from player `i`: handed on in order
    /// ([`ActionInbox`](crate::room::actions::ActionInbox)), each action
    /// freed judged, and the ammo answered — after a repeat too, with a
    /// shot's verdict again, so that a lost answer is made good by the
    /// client's next resend.
    pub(super) fn take_action(&mut self, now: SimTime, i: usize, seq: Seq, action: AmmoAction) {
        match self.players[i].actions.receive(seq, action) {
            Arrival::Ready(ready) => {
                for action in ready {
                    match action {
                        AmmoAction::Fire(shot) => self.fire(now, i, &shot),
                        AmmoAction::Reload(at) => self.reload(now, i, at),
                    }
                }
            }
            Arrival::Repeat => {
                self.players[i].shots.stale += 1;
                let again = self.players[i].answers.get(seq).copied();
                self.answer_ammo(now, i, again);
                return;
            }
            Arrival::Held => {}
        }
        self.answer_ammo(now, i, None);
    }

    /// `ServerFire_Validate` → `SpendRound` → `ServerSideRewind`, answered
    /// with the verdict.
    fn fire(&mut self, now: SimTime, i: usize, shot: &Shot) {
        let outcome = self.players[i]
            .weapon
            .fire(&self.config.weapon, now, shot.at);
        let result = match outcome {
            ActionOutcome::Rejected(r) => ShotResult {
                seq: shot.seq,
                verdict: Verdict::Rejected(r),
                rewind_ms: 0,
                target: None,
            },
            ActionOutcome::Accepted => self.judge(now, i, shot),
        };
        let shooter = &mut self.players[i];
        shooter.answers.keep(shot.seq, result);
        match outcome {
            ActionOutcome::Accepted => shooter.shots.count_verdict(result.verdict),
            rejected => shooter.shots.count_action(rejected),
        }
        if let Some(link) = shooter.link_mut() {
            link.conn
                .send(now, &wrap(RoomServerMsg::ShotResult(result)));
        }
        self.note_shot(now, i, shot, &result);
        self.trace_shot(now, i, result);
    }

    /// A reload claimed at server time `at`.
    fn reload(&mut self, now: SimTime, i: usize, at: SimTime) {
        let p = &mut self.players[i];
        let outcome = p.weapon.reload(&self.config.weapon, now, at);
        p.shots.count_action(outcome);
        p.shots.reloads += u64::from(outcome == ActionOutcome::Accepted);
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

    /// `ClientUpdateAmmo`: the ammo after the newest action handed on, and
    /// the `verdict` of a shot that came again.
    fn answer_ammo(&mut self, now: SimTime, i: usize, verdict: Option<ShotResult>) {
        let p = &mut self.players[i];
        let update = AmmoUpdate {
            ack: p.actions.ack(),
            ammo: p.weapon.ammo(),
            verdict,
        };
        if let Some(link) = p.link_mut() {
            link.conn.send(now, &wrap(RoomServerMsg::Ammo(update)));
        }
    }
}
