//! Hit boxes and the ray a shot traces (reference `003_…` "HitBox",
//! `ConfirmHit`).
//!
//! The arena is seen from above, so a character's hit boxes are two
//! circles around its centre: the **body**, the character's collision
//! radius (34 cm, UE's `ACharacter` capsule), and the **head**, a 12 cm
//! circle in the middle (UE's mannequin head is about 24 cm across;
//! playground choice). A ray that passes within 12 cm of the centre is a
//! head shot; within 34 cm, a body shot. The reference keeps one box per
//! bone (`HitCollisionBoxes`); two shapes are enough to show head-first
//! checking. Walls stop a ray: a character behind a pillar is not hit.
//!
//! Only `+ - * /` and `sqrt`, so both ends trace bit for bit alike.

use crate::foundation::math::Vec2;
use crate::foundation::world::World;
use serde::{Deserialize, Serialize};

/// Radius of the head circle, cm (playground choice, see the module doc).
pub const HEAD_RADIUS: f32 = 12.0;

/// A circle in the arena plane, cm.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Circle {
    /// Centre, cm.
    pub center: Vec2,
    /// Radius, cm.
    pub radius: f32,
}

impl Circle {
    /// Distance along `ray` to where it enters the circle (0 if it starts
    /// inside), or `None` if it passes by or the circle lies beyond
    /// `ray.length`.
    pub fn entry(&self, ray: &Ray) -> Option<f32> {
        let m = ray.origin - self.center;
        let b = m.dot(ray.direction);
        let c = m.length_squared() - self.radius * self.radius;
        if c <= 0.0 {
            return Some(0.0);
        }
        if b > 0.0 {
            return None;
        }
        let disc = b * b - c;
        if disc < 0.0 {
            return None;
        }
        let t = -b - disc.sqrt();
        (t <= ray.length).then_some(t)
    }
}

/// Which hit box a ray struck.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HitZone {
    /// The head circle (checked first).
    Head,
    /// The body circle.
    Body,
}

/// One character's hit boxes at one moment (the reference's
/// `FFramePackage::HitBoxInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct HitBoxes {
    /// The head circle.
    pub head: Circle,
    /// The body circle.
    pub body: Circle,
}

impl HitBoxes {
    /// The boxes of a character of collision radius `body_radius` (cm)
    /// centred at `position` (cm).
    pub fn at(position: Vec2, body_radius: f32) -> HitBoxes {
        HitBoxes {
            head: Circle {
                center: position,
                radius: HEAD_RADIUS,
            },
            body: Circle {
                center: position,
                radius: body_radius,
            },
        }
    }

    /// The centre of the character, cm.
    pub fn center(&self) -> Vec2 {
        self.body.center
    }

    /// The boxes a fraction `alpha` (`0.0..=1.0`) of the way from `self`
    /// to `to`: centres interpolated, sizes taken from `to` (the
    /// reference's `InterpBetweenFrames` lerps location and rotation and
    /// keeps the younger frame's extent).
    pub fn lerp(&self, to: &HitBoxes, alpha: f32) -> HitBoxes {
        let mix = |a: Circle, b: Circle| Circle {
            center: a.center + (b.center - a.center) * alpha,
            radius: b.radius,
        };
        HitBoxes {
            head: mix(self.head, to.head),
            body: mix(self.body, to.body),
        }
    }

    /// `ConfirmHit` (`003_…`): the head first — if the ray strikes it the
    /// shot is a head shot — then the body. Returns the zone and the
    /// distance along the ray to where it enters the body, cm (what orders
    /// two characters on one line of fire).
    pub fn confirm_hit(&self, ray: &Ray) -> Option<(HitZone, f32)> {
        let body = self.body.entry(ray)?;
        let zone = if self.head.entry(ray).is_some() {
            HitZone::Head
        } else {
            HitZone::Body
        };
        Some((zone, body))
    }

    /// How far the ray passes from the centre, cm, if the centre lies
    /// ahead of the origin (the character a miss was aimed at is the one
    /// it passed closest to).
    pub fn miss_distance(&self, ray: &Ray) -> Option<f32> {
        let to = self.center() - ray.origin;
        let along = to.dot(ray.direction);
        (along > 0.0 && along <= ray.length).then(|| (to - ray.direction * along).length())
    }
}

/// A shot's line of fire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where it starts (the shooter's centre), cm.
    pub origin: Vec2,
    /// Unit direction.
    pub direction: Vec2,
    /// How far it reaches, cm.
    pub length: f32,
}

impl Ray {
    /// This ray stopped at the first wall of `world` it meets.
    pub fn stopped_by_walls(mut self, world: &World) -> Ray {
        for wall in &world.walls {
            if let Some(t) = slab_entry(self.origin, self.direction, wall.min, wall.max) {
                self.length = self.length.min(t);
            }
        }
        self
    }
}

/// Distance along the ray from `o` in direction `d` to where it enters the
/// box `min..max` (0 from inside), or `None` if it misses it or the box is
/// behind (slab method).
fn slab_entry(o: Vec2, d: Vec2, min: Vec2, max: Vec2) -> Option<f32> {
    let mut near = 0.0f32;
    let mut far = f32::INFINITY;
    for (o, d, lo, hi) in [(o.x, d.x, min.x, max.x), (o.y, d.y, min.y, max.y)] {
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        near = near.max(a.min(b));
        far = far.min(a.max(b));
        if near > far {
            return None;
        }
    }
    Some(near)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray_right(y: f32) -> Ray {
        Ray {
            origin: Vec2::new(0.0, y),
            direction: Vec2::new(1.0, 0.0),
            length: 5000.0,
        }
    }

    #[test]
    fn the_head_is_checked_first_then_the_body() {
        let boxes = HitBoxes::at(Vec2::new(1000.0, 0.0), 34.0);
        assert_eq!(
            boxes.confirm_hit(&ray_right(0.0)),
            Some((HitZone::Head, 966.0))
        );
        assert_eq!(
            boxes.confirm_hit(&ray_right(11.9)).unwrap().0,
            HitZone::Head
        );
        assert_eq!(
            boxes.confirm_hit(&ray_right(12.1)).unwrap().0,
            HitZone::Body
        );
        assert_eq!(
            boxes.confirm_hit(&ray_right(33.9)).unwrap().0,
            HitZone::Body
        );
        assert_eq!(boxes.confirm_hit(&ray_right(34.1)), None);
        assert_eq!(boxes.miss_distance(&ray_right(40.0)), Some(40.0));
    }

    #[test]
    fn a_target_behind_the_origin_or_out_of_range_is_not_hit() {
        let behind = HitBoxes::at(Vec2::new(-100.0, 0.0), 34.0);
        assert_eq!(behind.confirm_hit(&ray_right(0.0)), None);
        let far = HitBoxes::at(Vec2::new(6000.0, 0.0), 34.0);
        assert_eq!(far.confirm_hit(&ray_right(0.0)), None);
    }

    #[test]
    fn walls_stop_the_ray() {
        let world = World::arena();
        // From spawn (400, 750) to the right: the centre wall's face at
        // x = 1140 is 740 cm away.
        let ray = Ray {
            origin: world.spawn,
            direction: Vec2::new(1.0, 0.0),
            length: 5000.0,
        }
        .stopped_by_walls(&world);
        assert_eq!(ray.length, 740.0);
        let beyond = HitBoxes::at(Vec2::new(1400.0, 750.0), 34.0);
        assert_eq!(beyond.confirm_hit(&ray), None);
    }

    #[test]
    fn lerp_moves_centres_and_keeps_the_younger_size() {
        let a = HitBoxes::at(Vec2::new(0.0, 0.0), 30.0);
        let b = HitBoxes::at(Vec2::new(100.0, 40.0), 34.0);
        assert_eq!(a.lerp(&b, 0.25), HitBoxes::at(Vec2::new(25.0, 10.0), 34.0));
    }
}
