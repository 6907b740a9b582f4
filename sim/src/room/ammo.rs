//! Predicted ammo on the client (reference `003_…` "弹药预测").
//!
//! The counter drops the moment the player fires; the server's value comes
//! back a round trip later. Two ways to merge them:
//!
//! - [`AmmoMode::Naive`]: the replicated value overwrites the local one.
//!   While firing, every update is a round trip old, so the counter jumps
//!   back up and down again (`003_…`: "弹药量为11，连开2枪到9 … 就会从9跳到10
//!   再跳回9").
//! - [`AmmoMode::Sequence`]: the reference's fix — the client keeps the
//!   spends the server has not handled yet and applies them on top of each
//!   server value, so an update that only confirms the prediction changes
//!   nothing.
//!
//! **Deviation.** The reference counts unacknowledged spends in one
//! integer (`++Sequence` per shot, `--Sequence` per `ClientUpdateAmmo`),
//! which relies on a reliable, ordered RPC: one lost update and the count
//! is off for good. Here every action carries a [`Seq`] and every update
//! the newest action the server handled, so the client drops exactly the
//! acknowledged actions: updates may be lost, duplicated or reordered (the
//! newest wins). An action the server refused (fire rate, empty) or never
//! received is acknowledged without its effect, and the counter moves to
//! the truth — a jump, recorded like any other.
//!
//! A reload is predicted too: the counter shows the rounds left until the
//! local reload time is over, then a full magazine, without waiting for
//! the server.

use super::seq::Seq;
use crate::foundation::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Changes kept for the timeline (at 10 shots/s, 25 s of firing).
pub const AMMO_TIMELINE_LEN: usize = 256;

/// How server updates merge with the local prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AmmoMode {
    /// The server's value overwrites the counter.
    Naive,
    /// Unacknowledged actions are applied on top of the server's value.
    #[default]
    Sequence,
}

/// What changed the counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmmoCause {
    /// A shot, at once.
    Fire,
    /// A local reload finishing.
    Reload,
    /// A server update: a correction of the prediction — a **jump**.
    Server,
}

/// One change of the counter, for the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmmoChange {
    /// Client time of the change.
    pub at: SimTime,
    /// Shown before.
    pub from: u16,
    /// Shown after.
    pub to: u16,
    /// Why.
    pub cause: AmmoCause,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Fire,
    Reload,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LocalReload {
    /// Client time at which it ends.
    until: SimTime,
    /// Rounds shown while it runs.
    before: u16,
}

/// The client's ammo counter.
#[derive(Debug, Clone)]
pub struct PredictedAmmo {
    mode: AmmoMode,
    magazine: u16,
    /// The newest server update: (action acknowledged, rounds).
    server: Option<(Seq, u16)>,
    unacked: VecDeque<(Seq, Action)>,
    reload: Option<LocalReload>,
    shown: u16,
    timeline: VecDeque<AmmoChange>,
}

impl PredictedAmmo {
    /// A full `magazine`.
    pub fn new(magazine: u16, mode: AmmoMode) -> PredictedAmmo {
        PredictedAmmo {
            mode,
            magazine,
            server: None,
            unacked: VecDeque::new(),
            reload: None,
            shown: magazine,
            timeline: VecDeque::new(),
        }
    }

    /// Switches the merge mode; takes effect with the next change.
    pub fn set_mode(&mut self, mode: AmmoMode) {
        self.mode = mode;
    }

    /// How server updates merge.
    pub fn mode(&self) -> AmmoMode {
        self.mode
    }

    /// The rounds shown.
    pub fn shown(&self) -> u16 {
        self.shown
    }

    /// `true` while a local reload runs at client time `now`.
    pub fn is_reloading(&self, now: SimTime) -> bool {
        self.reload.is_some_and(|r| now < r.until)
    }

    /// A shot fired at `now` as action `seq` (`SpendRound`).
    pub fn spend(&mut self, now: SimTime, seq: Seq) {
        self.unacked.push_back((seq, Action::Fire));
        let value = match self.mode {
            AmmoMode::Naive => self.shown.saturating_sub(1),
            AmmoMode::Sequence => self.predicted(now),
        };
        self.show(now, value, AmmoCause::Fire);
    }

    /// A reload started as action `seq`, ending at client time `until`
    /// (the counter keeps its value until then).
    pub fn start_reload(&mut self, seq: Seq, until: SimTime) {
        self.unacked.push_back((seq, Action::Reload));
        self.reload = Some(LocalReload {
            until,
            before: self.shown,
        });
    }

    /// Finishes a local reload whose time is over at `now`.
    pub fn advance(&mut self, now: SimTime) {
        if self.reload.is_some_and(|r| now >= r.until) {
            self.reload = None;
            let value = match self.mode {
                AmmoMode::Naive => self.magazine,
                AmmoMode::Sequence => self.predicted(now),
            };
            self.show(now, value, AmmoCause::Reload);
        }
    }

    /// The server's ammo after action `ack` arrived at `now`
    /// (`ClientUpdateAmmo`). An update not newer than the last one is
    /// ignored.
    pub fn on_server(&mut self, now: SimTime, ack: Seq, ammo: u16) {
        if self.server.is_some_and(|(last, _)| !ack.is_after(last)) {
            return;
        }
        self.server = Some((ack, ammo));
        self.unacked.retain(|(seq, _)| seq.is_after(ack));
        let value = match self.mode {
            AmmoMode::Naive => ammo,
            AmmoMode::Sequence => self.predicted(now),
        };
        self.show(now, value, AmmoCause::Server);
    }

    /// The server's value with the unacknowledged actions on top; during
    /// a local reload, the rounds shown when it began.
    fn predicted(&self, now: SimTime) -> u16 {
        if let Some(r) = self.reload.filter(|r| now < r.until) {
            return r.before;
        }
        let base = self.server.map_or(self.magazine, |(_, ammo)| ammo);
        self.unacked
            .iter()
            .fold(base, |ammo, (_, action)| match action {
                Action::Fire => ammo.saturating_sub(1),
                Action::Reload => self.magazine,
            })
    }

    fn show(&mut self, now: SimTime, value: u16, cause: AmmoCause) {
        if value == self.shown {
            return;
        }
        if self.timeline.len() == AMMO_TIMELINE_LEN {
            self.timeline.pop_front();
        }
        self.timeline.push_back(AmmoChange {
            at: now,
            from: self.shown,
            to: value,
            cause,
        });
        self.shown = value;
    }

    /// Every change kept, oldest first.
    pub fn timeline(&self) -> impl Iterator<Item = &AmmoChange> {
        self.timeline.iter()
    }

    /// The changes a server update made: the jumps the timeline marks.
    pub fn jumps(&self) -> impl Iterator<Item = &AmmoChange> {
        self.timeline
            .iter()
            .filter(|c| c.cause == AmmoCause::Server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// The reference's example: 11 rounds, two quick shots, the server's
    /// answer to the first arriving after the second.
    fn two_shots(mode: AmmoMode) -> Vec<u16> {
        let mut a = PredictedAmmo::new(11, mode);
        a.spend(ms(0), Seq(1));
        a.spend(ms(50), Seq(2));
        a.on_server(ms(200), Seq(1), 10);
        a.on_server(ms(250), Seq(2), 9);
        a.timeline().map(|c| c.to).collect()
    }

    #[test]
    fn the_naive_counter_jumps_11_9_10_9_and_the_sequence_counter_does_not() {
        assert_eq!(two_shots(AmmoMode::Naive), vec![10, 9, 10, 9]);
        assert_eq!(two_shots(AmmoMode::Sequence), vec![10, 9]);
    }

    #[test]
    fn a_lost_update_costs_nothing_and_a_refused_shot_is_given_back() {
        let mut a = PredictedAmmo::new(30, AmmoMode::Sequence);
        for i in 1..=3 {
            a.spend(ms(100 * i), Seq(i as u32));
        }
        assert_eq!(a.shown(), 27);
        // The update for action 1 is lost; action 2 was refused (fire rate).
        a.on_server(ms(500), Seq(2), 29);
        assert_eq!(a.shown(), 28);
        a.on_server(ms(500), Seq(1), 29); // late: ignored
        a.on_server(ms(600), Seq(3), 28);
        assert_eq!(a.shown(), 28);
        let jumps: Vec<_> = a.jumps().map(|c| (c.from, c.to)).collect();
        assert_eq!(jumps, vec![(27, 28)]);
    }

    #[test]
    fn a_reload_is_predicted_and_the_server_confirming_it_is_no_jump() {
        let mut a = PredictedAmmo::new(30, AmmoMode::Sequence);
        a.spend(ms(0), Seq(1));
        a.start_reload(Seq(2), ms(1600));
        assert!(a.is_reloading(ms(1000)));
        // The server handled the reload first: full at once, but the
        // counter waits for the local reload to end.
        a.on_server(ms(300), Seq(2), 30);
        assert_eq!(a.shown(), 29);
        a.advance(ms(1600));
        assert_eq!(a.shown(), 30);
        a.spend(ms(1700), Seq(3));
        assert_eq!(a.shown(), 29);
        assert_eq!(a.jumps().count(), 0);
        let causes: Vec<_> = a.timeline().map(|c| c.cause).collect();
        assert_eq!(
            causes,
            vec![AmmoCause::Fire, AmmoCause::Reload, AmmoCause::Fire]
        );
    }
}
