//! Display smoothing of the rollback model's players ([`DisplaySmoothing`]):
//! when a rebase moves a player on screen, the drawn position keeps where
//! it was as an offset that decays in the smoothing mode in force — the
//! CMC model's mesh offset ([`sim::cmc::smoothing::MeshSmoother`], UE's modes
//! and distances) applied to every player of the snapshot. It only ever
//! changes where a player is *drawn*: the snapshot the client steps,
//! hashes and sends inputs from is never touched (`001_…` §9.2). Pure:
//! tested natively.

use super::log::ends;
use sim::cmc::smoothing::MeshSmoother;
use sim::rollback::{RollbackRecord, Snapshot};
use sim::{SmoothingMode, Vec2};

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct DisplaySmoothing {
    players: Vec<MeshSmoother>,
    rebases: u64,
}

impl DisplaySmoothing {
    /// Forgets every offset (a new run).
    pub fn reset(&mut self) {
        *self = DisplaySmoothing::default();
    }

    /// One page frame of `dt` s after the predictor ran: `rebases` is its
    /// rebase counter and `last` its last rebase. A new rebase moves each
    /// player's offset by how far its prediction jumped (old prediction at
    /// the client's tick → re-simulated); otherwise the offsets decay.
    pub fn update(
        &mut self,
        last: Option<&RollbackRecord<Snapshot>>,
        rebases: u64,
        mode: SmoothingMode,
        dt: f32,
    ) {
        let fresh = rebases != self.rebases;
        self.rebases = rebases;
        let snapped = match (fresh, last) {
            (true, Some(r)) => self.snap(r, mode),
            _ => false,
        };
        if !snapped {
            for s in &mut self.players {
                s.advance(dt, mode);
            }
        }
    }

    fn snap(&mut self, r: &RollbackRecord<Snapshot>, mode: SmoothingMode) -> bool {
        let (Some(old), new) = ends(r) else {
            return false;
        };
        if self.players.len() < new.players.len() {
            self.players
                .resize(new.players.len(), MeshSmoother::default());
        }
        for (p, (a, b)) in old.players.iter().zip(&new.players).enumerate() {
            let s = &mut self.players[p];
            if a.position != b.position {
                let drawn_before = a.position.to_cm() + s.offset();
                s.on_snap(drawn_before, b.position.to_cm(), mode);
            }
        }
        true
    }

    /// Where player `p` is drawn minus where it is, cm.
    pub fn offset(&self, p: usize) -> Vec2 {
        self.players.get(p).map_or(Vec2::ZERO, MeshSmoother::offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::rollback::snapshot::{MmVec, PlayerState};
    use sim::rollback::{Divergence, Tick};

    fn snap(x: [i32; 2]) -> Snapshot {
        Snapshot {
            tick: Tick(14),
            players: x
                .iter()
                .map(|&x| PlayerState {
                    position: MmVec { x, y: 0 },
                    ..PlayerState::default()
                })
                .collect(),
            projectiles: Vec::new(),
        }
    }

    fn rebase(old: [i32; 2], new: [i32; 2]) -> RollbackRecord<Snapshot> {
        RollbackRecord {
            from: Tick(10),
            to: Tick(14),
            discarded: vec![snap(old)],
            restored: snap(new),
            resimulated: vec![snap(new)],
            divergence: Divergence::default(),
        }
    }

    #[test]
    fn a_jump_is_drawn_where_it_was_then_decays_exponentially() {
        let mut d = DisplaySmoothing::default();
        let mode = SmoothingMode::Exponential;
        // The bot was predicted 40 cm further right than it turned out.
        d.update(Some(&rebase([0, 1400], [0, 1000])), 1, mode, 0.033);
        assert_eq!(d.offset(1), Vec2::new(40.0, 0.0));
        assert_eq!(d.offset(0), Vec2::ZERO, "the local player did not move");
        d.update(Some(&rebase([0, 1400], [0, 1000])), 1, mode, 0.05);
        assert_eq!(d.offset(1), Vec2::new(20.0, 0.0), "halved after 50 ms");
    }

    #[test]
    fn disabled_snaps_and_a_teleport_is_not_smoothed() {
        let mut d = DisplaySmoothing::default();
        d.update(
            Some(&rebase([0, 1400], [0, 1000])),
            1,
            SmoothingMode::Disabled,
            0.0,
        );
        assert_eq!(d.offset(1), Vec2::ZERO);
        // A respawn: 10 m away.
        d.update(
            Some(&rebase([100_000, 0], [0, 0])),
            2,
            SmoothingMode::Exponential,
            0.0,
        );
        assert_eq!(d.offset(0), Vec2::ZERO);
    }

    #[test]
    fn offsets_add_up_over_two_quick_rebases_and_linear_ends_in_100_ms() {
        let mut d = DisplaySmoothing::default();
        let mode = SmoothingMode::Linear;
        d.update(Some(&rebase([300, 0], [0, 0])), 1, mode, 0.0);
        d.update(Some(&rebase([300, 0], [200, 0])), 2, mode, 0.0);
        // Drawn at 30 + 30 cm, now at 20 cm: 40 cm behind… ahead.
        assert_eq!(d.offset(0), Vec2::new(40.0, 0.0));
        d.update(None, 2, mode, 0.1);
        assert_eq!(d.offset(0), Vec2::ZERO);
    }
}
