//! The arena's canonical state: [`Snapshot`], in integers (positions in
//! mm, velocities in mm/s, timers in ticks), so that restoring one from the
//! wire is exact and the hashes of confirmed ticks agree across machines
//! (`001_…` §7: "quantize float positions to integer millimetres, then mix
//! in a fixed byte order"). [`crate::rollback::Arena`] quantizes at the end
//! of every step, so a state never holds more precision than the wire.

use super::tick::Tick;
use crate::foundation::hash::Fnv64;
use crate::foundation::math::Vec2;
use serde::{Deserialize, Serialize};

/// A vector in whole millimetres (or mm/s, or mm per tick — the field
/// says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct MmVec {
    /// x, mm (or mm/s, mm/tick).
    pub x: i32,
    /// y, mm (or mm/s, mm/tick); down is positive.
    pub y: i32,
}

impl MmVec {
    /// Quantizes a vector in cm (or cm/s) to whole mm (mm/s), rounding to
    /// nearest and saturating; non-finite components become 0.
    pub fn from_cm(v: Vec2) -> MmVec {
        let q = |c: f32| {
            if c.is_finite() {
                (c * 10.0).round() as i32
            } else {
                0
            }
        };
        MmVec {
            x: q(v.x),
            y: q(v.y),
        }
    }

    /// The vector in cm (cm/s), as the movement code uses it.
    pub fn to_cm(self) -> Vec2 {
        Vec2::new(self.x as f32 / 10.0, self.y as f32 / 10.0)
    }

    /// Squared distance to `o`, mm² (exact in `i64`).
    pub fn distance_sq(self, o: MmVec) -> i64 {
        let (dx, dy) = (
            i64::from(self.x) - i64::from(o.x),
            i64::from(self.y) - i64::from(o.y),
        );
        dx * dx + dy * dy
    }

    fn fold(self, h: &mut Fnv64) {
        h.u32(self.x as u32).u32(self.y as u32);
    }
}

/// One player: what `perform_movement` evolves plus the combat state
/// (`001_…` §4.2: "position, velocity, HP, action state and timers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PlayerState {
    /// Centre, mm.
    pub position: MmVec,
    /// Velocity, mm/s.
    pub velocity: MmVec,
    /// Time until the next dash may start, µs
    /// ([`crate::foundation::movement::CharacterState::dash_cooldown`] quantized).
    pub dash_cooldown_us: u32,
    /// Hit points, `0..=`[`crate::rollback::arena::MAX_HP`]; at 0 the
    /// player respawns.
    pub hp: u8,
    /// Ticks until fire is allowed again (0 = ready). Leaving it out of the
    /// snapshot is `001_…` §4.2's example of a bug that shows only ticks
    /// after a rollback.
    pub fire_cooldown: u8,
    /// Ticks of hit-stun left: the action state. While stunned the
    /// player's input is ignored.
    pub stun: u8,
    /// Aim: the last non-zero stick direction, `-127..=127` per component
    /// (`001_…` §4.2 "the latest aim direction").
    pub aim: (i8, i8),
}

impl PlayerState {
    fn fold(&self, h: &mut Fnv64) {
        self.position.fold(h);
        self.velocity.fold(h);
        h.u32(self.dash_cooldown_us);
        h.bytes(&[
            self.hp,
            self.fire_cooldown,
            self.stun,
            self.aim.0 as u8,
            self.aim.1 as u8,
        ]);
    }
}

/// A projectile in flight (`001_…` §4.2: "position, velocity, lifetime and
/// owner").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Projectile {
    /// Index of the player who fired it (it never hits them).
    pub owner: u8,
    /// Centre, mm.
    pub position: MmVec,
    /// Velocity, mm per tick (exact integers at 30/60/120 Hz).
    pub velocity: MmVec,
    /// Ticks left before it vanishes.
    pub life: u16,
}

impl Projectile {
    fn fold(&self, h: &mut Fnv64) {
        h.bytes(&[self.owner]);
        self.position.fold(h);
        self.velocity.fold(h);
        h.bytes(&self.life.to_le_bytes());
    }
}

/// Everything in the arena that affects the future, at one tick: the one
/// type the server sends, the client restores, and both step.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Snapshot {
    /// The next tick whose inputs this state consumes (`001_…` §3
    /// `nextTick`).
    pub tick: Tick,
    /// Players in player order (0 = the connecting client, 1 = the bot).
    pub players: Vec<PlayerState>,
    /// Projectiles in the order they were fired.
    pub projectiles: Vec<Projectile>,
}

impl Snapshot {
    /// FNV-1a 64 over every field in declaration order, integers
    /// little-endian, list lengths as `u32` first: the state hash of
    /// `001_…` §7, identical natively and in wasm.
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv64::new();
        h.u32(self.tick.0).u32(self.players.len() as u32);
        for p in &self.players {
            p.fold(&mut h);
        }
        h.u32(self.projectiles.len() as u32);
        for p in &self.projectiles {
            p.fold(&mut h);
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mm_quantization_rounds_and_saturates() {
        assert_eq!(
            MmVec::from_cm(Vec2::new(1.04, -1.06)),
            MmVec { x: 10, y: -11 }
        );
        assert_eq!(MmVec::from_cm(Vec2::new(f32::NAN, 1e30)).x, 0);
        assert_eq!(MmVec::from_cm(Vec2::new(0.0, 1e30)).y, i32::MAX);
        assert_eq!(MmVec { x: 12345, y: -7 }.to_cm(), Vec2::new(1234.5, -0.7));
    }

    #[test]
    fn the_hash_covers_every_field() {
        let base = Snapshot {
            tick: Tick(7),
            players: vec![PlayerState::default(); 2],
            projectiles: vec![Projectile::default()],
        };
        let h = base.state_hash();
        let mut changed = Vec::new();
        let mut edit = |f: &dyn Fn(&mut Snapshot)| {
            let mut s = base.clone();
            f(&mut s);
            changed.push(s.state_hash() != h);
        };
        edit(&|s| s.tick = Tick(8));
        edit(&|s| s.players[1].position.y = 1);
        edit(&|s| s.players[0].velocity.x = -1);
        edit(&|s| s.players[0].dash_cooldown_us = 1);
        edit(&|s| s.players[0].hp = 1);
        edit(&|s| s.players[0].fire_cooldown = 1);
        edit(&|s| s.players[0].stun = 1);
        edit(&|s| s.players[0].aim.1 = 1);
        edit(&|s| s.projectiles[0].owner = 1);
        edit(&|s| s.projectiles[0].position.x = 1);
        edit(&|s| s.projectiles[0].velocity.y = 1);
        edit(&|s| s.projectiles[0].life = 1);
        edit(&|s| s.projectiles.clear());
        assert!(changed.iter().all(|&c| c), "{changed:?}");
    }
}
