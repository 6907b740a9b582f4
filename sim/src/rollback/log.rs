//! The predictor's account of its visible rollbacks, kept when asked
//! (local mode and scenario runs) for the correction inspector: which
//! State restored which tick, how far it re-simulated, and where the local
//! player stood before and after (`001_…` §8: only visible errors count).

use super::client::RollbackRecord;
use super::game::Divergence;
use super::snapshot::Snapshot;
use super::tick::Tick;
use crate::foundation::math::Vec2;

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

impl RollbackEvent {
    /// The visible rollback `r` as the local player `player` lived it.
    pub(super) fn of(r: &RollbackRecord<Snapshot>, player: u8) -> RollbackEvent {
        let local = |s: Option<&Snapshot>| {
            s.and_then(|s| s.players.get(usize::from(player)))
                .map_or(Vec2::ZERO, |p| p.position.to_cm())
        };
        RollbackEvent {
            from: r.from,
            to: r.to,
            divergence: r.divergence,
            predicted: local(r.discarded.last()),
            corrected: local(r.resimulated.last().or(Some(&r.restored))),
        }
    }
}
