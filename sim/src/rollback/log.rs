//! The predictor's account of its visible rollbacks, kept when asked
//! (local mode and scenario runs) for the correction inspector: which
//! State restored which tick, how far it re-simulated, and where the local
//! player stood before and after (`001_…` §8: only visible errors count).

use super::game::Divergence;
use super::predictor::RollbackPredictor;
use super::tick::Tick;
use crate::bounded::Bounded;
use crate::math::Vec2;

/// One visible rollback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RollbackEvent {
    /// The tick of the State restored.
    pub from: Tick,
    /// The client's tick, re-simulated up to.
    pub to: Tick,
    /// How far the local player moved between the two predictions.
    pub divergence: Divergence,
    /// The local player at `to` as predicted before, cm.
    pub predicted: Vec2,
    /// The local player at `to` after the re-simulation, cm.
    pub corrected: Vec2,
}

impl RollbackPredictor {
    /// Keeps an account of the newest `capacity` visible rollbacks from now
    /// on ([`RollbackPredictor::rollback_log`]; a second call keeps the
    /// account already kept). Off by default.
    pub fn keep_rollback_log(&mut self, capacity: usize) {
        self.log
            .get_or_insert_with(|| Box::new(Bounded::new(capacity)));
    }

    /// The account kept, oldest first (empty when not kept).
    pub fn rollback_log(&self) -> impl Iterator<Item = &RollbackEvent> {
        self.log.iter().flat_map(|l| l.items().iter())
    }

    /// A rebase just counted a rollback: notes it.
    pub(super) fn note_rollback(&mut self) {
        let (Some(log), Some(r), Some(ids)) = (
            &mut self.log,
            self.client.as_ref().and_then(|c| c.last_rollback()),
            self.ids,
        ) else {
            return;
        };
        let local = |s: Option<&super::Snapshot>| {
            s.and_then(|s| s.players.get(usize::from(ids.player)))
                .map_or(Vec2::ZERO, |p| p.position.to_cm())
        };
        log.push(RollbackEvent {
            from: r.from,
            to: r.to,
            divergence: r.divergence,
            predicted: local(r.discarded.last()),
            corrected: local(r.resimulated.last().or(Some(&r.restored))),
        });
    }
}
