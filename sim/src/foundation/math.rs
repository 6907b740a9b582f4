//! A minimal 2-D vector in centimetres.
//!
//! Only `+ - * /` and `sqrt` are used, so results are bit-identical on
//! native and wasm32 (IEEE 754 single precision, round-to-nearest).

use core::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};
use serde::{Deserialize, Serialize};

/// A 2-D vector of `f32`: positions (cm), velocities (cm/s) or
/// accelerations (cm/s²) in the arena plane. `x` grows right, `y` grows down.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vec2 {
    /// Horizontal component.
    pub x: f32,
    /// Vertical component (down is positive, like the screen).
    pub y: f32,
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// Builds a vector from its components.
    pub const fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    /// Dot product.
    pub fn dot(self, o: Vec2) -> f32 {
        self.x * o.x + self.y * o.y
    }

    /// Squared length (avoids the `sqrt`).
    pub fn length_squared(self) -> f32 {
        self.dot(self)
    }

    /// Length.
    pub fn length(self) -> f32 {
        self.length_squared().sqrt()
    }

    /// `true` when both components are exactly zero (UE `IsZero`).
    pub fn is_zero(self) -> bool {
        self.x == 0.0 && self.y == 0.0
    }

    /// Unit vector in the same direction, or zero for a (near-)zero vector
    /// (UE `GetSafeNormal`, tolerance 1e-8 on the squared length).
    pub fn safe_normal(self) -> Vec2 {
        let sq = self.length_squared();
        if sq <= 1e-8 {
            Vec2::ZERO
        } else {
            self * (1.0 / sq.sqrt())
        }
    }

    /// The vector shortened to at most `max` length (UE `GetClampedToMaxSize`).
    pub fn clamped_to_max_size(self, max: f32) -> Vec2 {
        if max < 1e-4 {
            return Vec2::ZERO;
        }
        let sq = self.length_squared();
        if sq > max * max {
            self * (max / sq.sqrt())
        } else {
            self
        }
    }

    /// `true` when both components are finite (no NaN or infinity).
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}
impl AddAssign for Vec2 {
    fn add_assign(&mut self, o: Vec2) {
        *self = *self + o;
    }
}
impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}
impl SubAssign for Vec2 {
    fn sub_assign(&mut self, o: Vec2) {
        *self = *self - o;
    }
}
impl Mul<f32> for Vec2 {
    type Output = Vec2;
    fn mul(self, s: f32) -> Vec2 {
        Vec2::new(self.x * s, self.y * s)
    }
}
impl Neg for Vec2 {
    type Output = Vec2;
    fn neg(self) -> Vec2 {
        Vec2::new(-self.x, -self.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamped_to_max_size_keeps_direction() {
        let v = Vec2::new(300.0, 400.0).clamped_to_max_size(100.0);
        assert!((v.x - 60.0).abs() < 1e-4 && (v.y - 80.0).abs() < 1e-4);
        assert_eq!(
            Vec2::new(3.0, 4.0).clamped_to_max_size(10.0),
            Vec2::new(3.0, 4.0)
        );
    }

    #[test]
    fn safe_normal_of_zero_is_zero() {
        assert_eq!(Vec2::ZERO.safe_normal(), Vec2::ZERO);
        assert_eq!(Vec2::new(0.0, -5.0).safe_normal(), Vec2::new(0.0, -1.0));
    }
}
