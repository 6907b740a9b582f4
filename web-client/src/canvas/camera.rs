//! The Predicted panel's follow camera: its centre trails the drawn
//! character a little (time constant [`FOLLOW_TIME`]), so a correction is
//! seen as the character jumping on screen instead of the whole arena
//! jumping under it. Pure: tested natively.

use sim::Vec2;

/// Time constant of the camera's catch-up, s: at 600 cm/s the character
/// runs 90 cm ahead of the centre, within the panel at 8×.
pub const FOLLOW_TIME: f32 = 0.15;
/// A jump longer than this (a respawn, a new session) moves the camera at
/// once, cm.
pub const CUT_DISTANCE: f32 = 400.0;

/// See the module docs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FollowCamera {
    centre: Option<Vec2>,
}

impl FollowCamera {
    /// Moves the centre towards `target` for `dt` s and returns it.
    pub fn follow(&mut self, target: Vec2, dt: f32) -> Vec2 {
        let c = match self.centre {
            Some(c) if (target - c).length() <= CUT_DISTANCE => {
                let k = if dt.is_finite() && dt > 0.0 {
                    1.0 - (-dt / FOLLOW_TIME).exp()
                } else {
                    0.0
                };
                c + (target - c) * k
            }
            _ => target,
        };
        self.centre = Some(c);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_camera_trails_a_running_character_by_speed_times_the_time_constant() {
        let mut cam = FollowCamera::default();
        let mut c = Vec2::ZERO;
        for i in 0..=120 {
            let target = Vec2::new(600.0 * i as f32 / 60.0, 0.0);
            c = cam.follow(target, 1.0 / 60.0);
        }
        let lag = 1200.0 - c.x;
        assert!((lag - 600.0 * FOLLOW_TIME).abs() < 6.0, "lag {lag} cm");
    }

    #[test]
    fn a_long_jump_cuts_and_a_frozen_frame_holds() {
        let mut cam = FollowCamera::default();
        assert_eq!(
            cam.follow(Vec2::new(100.0, 0.0), 0.016),
            Vec2::new(100.0, 0.0)
        );
        assert_eq!(
            cam.follow(Vec2::new(900.0, 0.0), 0.016),
            Vec2::new(900.0, 0.0)
        );
        assert_eq!(
            cam.follow(Vec2::new(950.0, 0.0), 0.0),
            Vec2::new(900.0, 0.0)
        );
    }
}
