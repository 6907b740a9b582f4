//! The arena: a walled 2-D floor with a few pillars.
//!
//! Walls are axis-aligned boxes. The character is a circle of radius
//! [`crate::foundation::movement::MovementParams::radius`] that slides along walls (UE's capsule
//! sweep + `SlideAlongSurface`, reduced to 2-D).

use crate::foundation::math::Vec2;
use serde::{Deserialize, Serialize};

/// An axis-aligned wall box, corners in cm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Wall {
    /// Top-left corner (smallest x and y), cm.
    pub min: Vec2,
    /// Bottom-right corner (largest x and y), cm.
    pub max: Vec2,
}

impl Wall {
    /// A wall from its corners (cm); the corners may come in any order.
    pub fn new(a: Vec2, b: Vec2) -> Wall {
        Wall {
            min: Vec2::new(a.x.min(b.x), a.y.min(b.y)),
            max: Vec2::new(a.x.max(b.x), a.y.max(b.y)),
        }
    }

    /// The point of the box closest to `p`.
    fn closest_point(&self, p: Vec2) -> Vec2 {
        Vec2::new(
            p.x.clamp(self.min.x, self.max.x),
            p.y.clamp(self.min.y, self.max.y),
        )
    }
}

/// A server-only effect: inside the box, a constant acceleration (a
/// conveyor, wind, a knockback field). The client draws it but cannot
/// predict it — an honest source of corrections (issue #3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PushZone {
    /// Top-left corner, cm.
    pub min: Vec2,
    /// Bottom-right corner, cm.
    pub max: Vec2,
    /// Acceleration applied to a character whose centre is inside, cm/s².
    pub acceleration: Vec2,
}

impl PushZone {
    /// `true` when `p` lies inside the zone.
    pub fn contains(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }
}

/// The static world both sides simulate against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct World {
    /// Size of the floor, cm: it spans `(0,0)..size`, walled on all sides.
    pub size: Vec2,
    /// Solid boxes, including the four boundary walls.
    pub walls: Vec<Wall>,
    /// Where characters spawn, cm.
    pub spawn: Vec2,
    /// Server-only push zones (applied only when the server's
    /// `server_effects` rule is on).
    pub push_zones: Vec<PushZone>,
}

/// Thickness of the boundary walls, cm.
const BOUNDARY: f32 = 40.0;

impl World {
    /// The default arena: 2400 × 1500 cm (24 m × 15 m — about four seconds
    /// across at UE's 600 cm/s walk speed) with four pillars and a low wall,
    /// so the bot's path has corners to slide along.
    pub fn arena() -> World {
        let size = Vec2::new(2400.0, 1500.0);
        let mut walls = vec![
            Wall::new(Vec2::new(0.0, 0.0), Vec2::new(size.x, BOUNDARY)),
            Wall::new(Vec2::new(0.0, size.y - BOUNDARY), size),
            Wall::new(Vec2::new(0.0, 0.0), Vec2::new(BOUNDARY, size.y)),
            Wall::new(Vec2::new(size.x - BOUNDARY, 0.0), size),
        ];
        for (x, y) in [
            (700.0, 420.0),
            (1700.0, 420.0),
            (700.0, 1080.0),
            (1700.0, 1080.0),
        ] {
            walls.push(Wall::new(
                Vec2::new(x - 70.0, y - 70.0),
                Vec2::new(x + 70.0, y + 70.0),
            ));
        }
        walls.push(Wall::new(
            Vec2::new(1140.0, 560.0),
            Vec2::new(1260.0, 940.0),
        ));
        World {
            size,
            walls,
            spawn: Vec2::new(400.0, 750.0),
            // Across the bot's path down the right-hand corridor: a wind
            // pushing left at 1500 cm/s² (¾ of the walk acceleration).
            push_zones: vec![PushZone {
                min: Vec2::new(1950.0, 420.0),
                max: Vec2::new(2360.0, 620.0),
                acceleration: Vec2::new(-1500.0, 0.0),
            }],
        }
    }

    /// Applies every push zone containing the character at `position`
    /// (cm, velocity cm/s) for `dt` s, then resolves walls again; `true`
    /// if a zone pushed it. Server side only.
    pub fn apply_push_zones(&self, position: &mut Vec2, velocity: &mut Vec2, dt: f32) -> bool {
        let mut pushed = false;
        for z in &self.push_zones {
            if z.contains(*position) {
                *velocity += z.acceleration * dt;
                *position += z.acceleration * (dt * dt);
                pushed = true;
            }
        }
        if pushed {
            self.resolve_collisions(position, velocity, 34.0);
        }
        pushed
    }

    /// Pushes a circle at `pos` with `radius` (cm) out of every wall it
    /// overlaps and removes the velocity component that points into the
    /// wall, so the character slides along it. Walls are resolved in their
    /// list order (deterministic).
    pub fn resolve_collisions(&self, pos: &mut Vec2, vel: &mut Vec2, radius: f32) {
        for wall in &self.walls {
            let closest = wall.closest_point(*pos);
            let delta = *pos - closest;
            let dist_sq = delta.length_squared();
            if dist_sq >= radius * radius {
                continue;
            }
            let normal = if dist_sq > 1e-6 {
                let dist = dist_sq.sqrt();
                let n = delta * (1.0 / dist);
                *pos += n * (radius - dist);
                n
            } else {
                // Centre inside the box: leave through the nearest face.
                let faces = [
                    (pos.x - wall.min.x, Vec2::new(-1.0, 0.0)),
                    (wall.max.x - pos.x, Vec2::new(1.0, 0.0)),
                    (pos.y - wall.min.y, Vec2::new(0.0, -1.0)),
                    (wall.max.y - pos.y, Vec2::new(0.0, 1.0)),
                ];
                let (depth, n) =
                    faces
                        .into_iter()
                        .fold(faces[0], |best, f| if f.0 < best.0 { f } else { best });
                *pos += n * (depth + radius);
                n
            };
            let into = vel.dot(normal);
            if into < 0.0 {
                *vel -= normal * into;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_circle_is_pushed_out_and_slides() {
        let world = World::arena();
        // 10 cm into the left boundary wall (inner face at x = 40), moving
        // down-left: x is corrected, the y velocity survives.
        let mut pos = Vec2::new(64.0, 700.0);
        let mut vel = Vec2::new(-300.0, 200.0);
        world.resolve_collisions(&mut pos, &mut vel, 34.0);
        assert_eq!(pos, Vec2::new(74.0, 700.0));
        assert_eq!(vel, Vec2::new(0.0, 200.0));
    }

    #[test]
    fn free_space_is_untouched() {
        let world = World::arena();
        let mut pos = world.spawn;
        let mut vel = Vec2::new(600.0, 0.0);
        world.resolve_collisions(&mut pos, &mut vel, 34.0);
        assert_eq!((pos, vel), (world.spawn, Vec2::new(600.0, 0.0)));
    }
}
