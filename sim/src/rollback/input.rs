//! What a player wants at one tick ([`InputCmd`], `001_…` §1) and the
//! tick-indexed ring that stores inputs and states ([`TickRing`],
//! `001_…` §4.3).

use super::tick::Tick;
use crate::foundation::math::Vec2;
use serde::{Deserialize, Serialize};

/// One player's input for one tick, quantized as it goes on the wire
/// (`001_…` §1 `struct InputCmd { Tick tick; uint16 buttons; int8 moveX;
/// int8 moveY; }`). It carries intent only — never a position, HP or a
/// wall-clock time — so it can be sent, buffered by tick and replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct InputCmd {
    /// The tick this input belongs to.
    pub tick: Tick,
    /// Button bits ([`InputCmd::FIRE`], [`InputCmd::DASH`]).
    pub buttons: u16,
    /// Stick x, `-127..=127` = `-1.0..=1.0`.
    pub move_x: i8,
    /// Stick y, `-127..=127` = `-1.0..=1.0` (down is positive).
    pub move_y: i8,
}

/// Full scale of a quantized stick component.
const STICK_SCALE: f32 = 127.0;

impl InputCmd {
    /// Fire the weapon (level-triggered: held fire fires whenever the
    /// cooldown allows).
    pub const FIRE: u16 = 0x01;
    /// Dash ([`crate::foundation::movement::MovementParams::dash_impulse`]).
    pub const DASH: u16 = 0x02;
    /// Every defined bit; the server clears the others.
    pub const ALL_BUTTONS: u16 = Self::FIRE | Self::DASH;

    /// The empty input for `tick`: no stick, no buttons (what the server
    /// uses once hold-last runs out, `001_…` §5.1).
    pub const fn empty(tick: Tick) -> InputCmd {
        InputCmd {
            tick,
            buttons: 0,
            move_x: 0,
            move_y: 0,
        }
    }

    /// Quantizes a stick direction (clamped to length 1; non-finite
    /// components count as 0) and buttons for `tick`.
    pub fn from_direction(tick: Tick, dir: Vec2, buttons: u16) -> InputCmd {
        let clean = Vec2::new(
            if dir.x.is_finite() { dir.x } else { 0.0 },
            if dir.y.is_finite() { dir.y } else { 0.0 },
        )
        .clamped_to_max_size(1.0);
        let q = |v: f32| (v * STICK_SCALE).round().clamp(-STICK_SCALE, STICK_SCALE) as i8;
        InputCmd {
            tick,
            buttons: buttons & Self::ALL_BUTTONS,
            move_x: q(clean.x),
            move_y: q(clean.y),
        }
    }

    /// The stick as a direction, each component in `-1.0..=1.0`, length ≤ 1.
    pub fn direction(&self) -> Vec2 {
        let d = |v: i8| f32::from(v.max(-127)) / STICK_SCALE;
        Vec2::new(d(self.move_x), d(self.move_y)).clamped_to_max_size(1.0)
    }

    /// `true` while fire is held.
    pub const fn fire(&self) -> bool {
        self.buttons & Self::FIRE != 0
    }

    /// `true` while dash is held.
    pub const fn dash(&self) -> bool {
        self.buttons & Self::DASH != 0
    }

    /// The same intent at another tick (hold-last: `001_…` §5.1).
    pub const fn at(self, tick: Tick) -> InputCmd {
        InputCmd { tick, ..self }
    }
}

/// A ring of `T` indexed by tick whose slots remember their own tick
/// (`001_…` §4.3): slot `tick % capacity`, and a read succeeds only when the
/// slot's stored tick is the one asked for, so tick 10 and tick 10 +
/// capacity never alias. Writing a tick again replaces the slot (a
/// duplicate is idempotent).
#[derive(Debug, Clone)]
pub struct TickRing<T> {
    slots: Vec<Option<(Tick, T)>>,
}

impl<T> TickRing<T> {
    /// An empty ring of `capacity` slots.
    ///
    /// # Panics
    /// If `capacity` is 0.
    pub fn new(capacity: usize) -> TickRing<T> {
        assert!(capacity > 0, "a ring needs a slot");
        TickRing {
            slots: (0..capacity).map(|_| None).collect(),
        }
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn index(&self, tick: Tick) -> usize {
        tick.0 as usize % self.slots.len()
    }

    /// Stores `value` for `tick`, replacing whatever the slot held (an older
    /// tick that aliases it, or the same tick).
    pub fn insert(&mut self, tick: Tick, value: T) {
        let i = self.index(tick);
        self.slots[i] = Some((tick, value));
    }

    /// The value stored for exactly `tick`, if the slot still holds it.
    pub fn get(&self, tick: Tick) -> Option<&T> {
        match &self.slots[self.index(tick)] {
            Some((t, v)) if *t == tick => Some(v),
            _ => None,
        }
    }

    /// `true` when the value for exactly `tick` is stored.
    pub fn contains(&self, tick: Tick) -> bool {
        self.get(tick).is_some()
    }
}

impl<T: Default> TickRing<T> {
    /// The slot for `tick`, claimed for it: its old value (and its
    /// allocations) if it already held `tick` or an aliasing tick, to be
    /// overwritten in place.
    pub fn entry(&mut self, tick: Tick) -> &mut T {
        let i = self.index(tick);
        let slot = &mut self.slots[i];
        let (t, v) = slot.get_or_insert_with(|| (tick, T::default()));
        *t = tick;
        v
    }
}

impl<T: Clone> TickRing<T> {
    /// Stores a copy of `value` for `tick`, reusing the slot's allocations
    /// when it already holds a value (`Clone::clone_from`).
    pub fn insert_from(&mut self, tick: Tick, value: &T) {
        let i = self.index(tick);
        match &mut self.slots[i] {
            Some((t, v)) => {
                *t = tick;
                v.clone_from(value);
            }
            slot => *slot = Some((tick, value.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_10_and_10_plus_capacity_never_alias() {
        let mut ring = TickRing::new(64);
        ring.insert(Tick(10), 'a');
        assert_eq!(ring.get(Tick(10)), Some(&'a'));
        assert_eq!(ring.get(Tick(74)), None, "same slot, other tick");
        ring.insert(Tick(74), 'b');
        assert_eq!(ring.get(Tick(10)), None, "overwritten, not returned");
        assert_eq!(ring.get(Tick(74)), Some(&'b'));
        // 001's own example: 10 and 4106 in a ring of 4096.
        let mut big = TickRing::new(4096);
        big.insert(Tick(4106), 1u8);
        assert!(!big.contains(Tick(10)));
        assert!(big.contains(Tick(4106)));
    }

    #[test]
    fn a_duplicate_write_is_idempotent() {
        let mut ring = TickRing::new(8);
        let cmd = InputCmd::from_direction(Tick(3), Vec2::new(1.0, 0.0), InputCmd::FIRE);
        ring.insert(cmd.tick, cmd);
        ring.insert(cmd.tick, cmd);
        assert_eq!(ring.get(Tick(3)), Some(&cmd));
        assert_eq!((0..8).filter(|&t| ring.contains(Tick(t))).count(), 1);
    }

    #[test]
    fn the_ring_works_across_the_wrap() {
        let mut ring = TickRing::new(16);
        let start = Tick(u32::MAX - 3);
        for t in start.until(start.plus(8)) {
            ring.insert(t, t.0);
        }
        for t in start.until(start.plus(8)) {
            assert_eq!(ring.get(t), Some(&t.0), "{t:?}");
        }
    }

    #[test]
    fn inputs_quantize_to_8_bit_sticks() {
        let i = InputCmd::from_direction(Tick(0), Vec2::new(3.0, 4.0), 0xffff);
        assert_eq!((i.move_x, i.move_y), (76, 102));
        assert_eq!(i.buttons, InputCmd::FIRE | InputCmd::DASH);
        assert!(i.fire() && i.dash());
        let full = InputCmd::from_direction(Tick(0), Vec2::new(-1.0, 0.0), 0);
        assert_eq!(full.direction(), Vec2::new(-1.0, 0.0));
        let nan = InputCmd::from_direction(Tick(0), Vec2::new(f32::NAN, 1.0), 0);
        assert_eq!((nan.move_x, nan.move_y), (0, 127));
        let hostile = InputCmd {
            move_x: i8::MIN,
            move_y: i8::MIN,
            ..InputCmd::empty(Tick(0))
        };
        assert!(hostile.direction().length() <= 1.0);
    }
}
