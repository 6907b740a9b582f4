//! Simulated proxies: other characters, seen only through replicated
//! movement (reference `000_…` §7). The collision position snaps to each
//! update and is extrapolated with the replicated velocity in between; the
//! drawn position is smoothed with a [`MeshSmoother`].

use crate::cmc::smoothing::{MeshSmoother, SmoothingMode};
use crate::cmc::wire::ProxyUpdate;
use crate::foundation::math::Vec2;
use crate::foundation::world::World;
use crate::net::newest_wins::NewestWins;

/// Longest extrapolation past the last update, s: Source's
/// `cl_extrapolate_amount` default 0.25 ("Source Multiplayer Networking",
/// Valve Developer Community: a client extrapolates a lost snapshot's
/// entities at most that long); UE's `MAXCLIENTUPDATEINTERVAL` = 0.25 s is
/// the same bound on the server side.
pub const MAX_EXTRAPOLATION: f32 = 0.25;

/// Radius used when an extrapolated proxy meets a wall, cm (UE capsule).
const PROXY_RADIUS: f32 = 34.0;

/// One other character as this client sees it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SimulatedProxy {
    position: Vec2,
    velocity: Vec2,
    since_update: f32,
    smoother: MeshSmoother,
    seen: bool,
    updates: NewestWins,
    extrapolation_error: Option<f32>,
}

impl SimulatedProxy {
    /// A replicated update arrived: snap the collision position, keep the
    /// mesh where it was as an offset (UE `SmoothCorrection`). An update
    /// not newer than the last one applied (late or duplicated on the way)
    /// is ignored and counted ([`SimulatedProxy::stale_updates`]); returns
    /// whether it was applied. [`SmoothingMode::Extrapolation`] keeps no
    /// mesh offset ([`SmoothingMode::proxy_mesh`]).
    pub fn on_update(&mut self, update: &ProxyUpdate, mode: SmoothingMode) -> bool {
        if !self.updates.accept(update.seq) {
            return false;
        }
        let drawn_before = self.drawn_position();
        self.extrapolation_error = self
            .seen
            .then(|| (update.position - self.position).length());
        self.position = update.position;
        self.velocity = update.velocity;
        self.since_update = 0.0;
        if self.seen {
            self.smoother
                .on_snap(drawn_before, self.position, mode.proxy_mesh());
        }
        self.seen = true;
        true
    }

    /// How far the newest update moved the collision position from where
    /// it had been extrapolated to, cm — the dead reckoning's error at that
    /// update: a proxy that stopped or turned after the update before was
    /// extrapolated past the truth (the overshoot), about speed × the
    /// update interval. `None` before a second update.
    pub fn extrapolation_error(&self) -> Option<f32> {
        self.extrapolation_error
    }

    /// Updates ignored because a newer one had already been applied.
    pub fn stale_updates(&self) -> u64 {
        self.updates.stale()
    }

    /// Advances render time by `dt` s: extrapolate (at most
    /// [`MAX_EXTRAPOLATION`] past the update) and decay the mesh offset.
    pub fn advance(&mut self, dt: f32, mode: SmoothingMode, world: &World) {
        if dt.is_nan() || dt <= 0.0 || !self.seen {
            return;
        }
        let step = dt.min((MAX_EXTRAPOLATION - self.since_update).max(0.0));
        self.since_update += dt;
        if step > 0.0 {
            self.position += self.velocity * step;
            world.resolve_collisions(&mut self.position, &mut self.velocity, PROXY_RADIUS);
        }
        self.smoother.advance(dt, mode.proxy_mesh());
    }

    /// Collision position, cm.
    pub fn position(&self) -> Vec2 {
        self.position
    }

    /// Replicated velocity, cm/s (what it is extrapolated with).
    pub fn velocity(&self) -> Vec2 {
        self.velocity
    }

    /// Drawn (smoothed) position, cm.
    pub fn drawn_position(&self) -> Vec2 {
        self.position + self.smoother.offset()
    }

    /// `true` once an update has arrived.
    pub fn is_visible(&self) -> bool {
        self.seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_update_does_not_move_the_proxy_back() {
        let mut p = SimulatedProxy::default();
        let update = |seq, x| ProxyUpdate {
            id: 1,
            seq,
            position: Vec2::new(x, 300.0),
            velocity: Vec2::ZERO,
        };
        assert!(p.on_update(&update(2, 1100.0), SmoothingMode::Disabled));
        assert!(!p.on_update(&update(1, 1000.0), SmoothingMode::Disabled));
        assert!(!p.on_update(&update(2, 1000.0), SmoothingMode::Disabled));
        assert_eq!(p.position(), Vec2::new(1100.0, 300.0));
        assert_eq!(p.stale_updates(), 2);
    }

    #[test]
    fn extrapolates_then_smooths_the_next_snap() {
        let w = World::arena();
        let mut p = SimulatedProxy::default();
        p.on_update(
            &ProxyUpdate {
                id: 1,
                seq: 1,
                position: Vec2::new(1000.0, 300.0),
                velocity: Vec2::new(600.0, 0.0),
            },
            SmoothingMode::Exponential,
        );
        p.advance(0.05, SmoothingMode::Exponential, &w);
        assert_eq!(p.position(), Vec2::new(1030.0, 300.0));
        // The server says it actually stopped at 1020.
        p.on_update(
            &ProxyUpdate {
                id: 1,
                seq: 2,
                position: Vec2::new(1020.0, 300.0),
                velocity: Vec2::ZERO,
            },
            SmoothingMode::Exponential,
        );
        assert_eq!(p.drawn_position(), Vec2::new(1030.0, 300.0));
        p.advance(0.05, SmoothingMode::Exponential, &w);
        assert_eq!(p.drawn_position(), Vec2::new(1025.0, 300.0));
        // Extrapolation stops 0.25 s after the last update.
        p.on_update(
            &ProxyUpdate {
                id: 1,
                seq: 3,
                position: Vec2::new(1000.0, 300.0),
                velocity: Vec2::new(100.0, 0.0),
            },
            SmoothingMode::Disabled,
        );
        for _ in 0..10 {
            p.advance(0.1, SmoothingMode::Disabled, &w);
        }
        assert_eq!(p.position(), Vec2::new(1025.0, 300.0));
    }
}
