//! The key-to-movement delay (issue 24): from the frame a push of the
//! stick starts, the character standing still, to the first frame it is
//! drawn somewhere else, in the client's frame time. With prediction the
//! push shows in its own frame (`000_…` §3.3: the autonomous proxy moves
//! at once); without, when the server's answer arrives: one RTT plus up
//! to one ack interval later (`000_…` §5.2, 0.1 s).

use crate::foundation::math::Vec2;

/// A drawn position closer than this to another is the same, cm (well
/// below a frame of walking, ≈ 10 cm at 600 cm/s).
const STILL_CM: f32 = 0.01;

/// Watches one push at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct KeyDelay {
    /// Frame time so far, ms.
    now_ms: f64,
    /// The push being timed: when it started, ms, and where the
    /// character was drawn then.
    waiting: Option<(f64, Vec2)>,
    /// The drawn position at the end of the previous frame.
    last_drawn: Vec2,
    /// The previous frame left the drawn position where it was.
    still: bool,
    /// The stick was pushed in the previous frame.
    was_pushed: bool,
    /// The newest delay measured, ms.
    last_ms: Option<f64>,
}

impl KeyDelay {
    /// Notes one frame of `frame_ms` with the stick `pushed` or not, the
    /// character drawn at `drawn` at its end.
    pub(super) fn frame(&mut self, frame_ms: f64, pushed: bool, drawn: Vec2) {
        self.now_ms += frame_ms;
        if self.waiting.is_none() && pushed && !self.was_pushed && self.still {
            self.waiting = Some((self.now_ms - frame_ms, self.last_drawn));
        }
        if let Some((start, at)) = self.waiting {
            if (drawn - at).length() > STILL_CM {
                self.last_ms = Some(self.now_ms - start);
                self.waiting = None;
            }
        }
        self.still = (drawn - self.last_drawn).length() <= STILL_CM;
        self.last_drawn = drawn;
        self.was_pushed = pushed;
    }

    /// The newest key-to-movement delay measured, ms.
    pub(super) fn last_ms(&self) -> Option<f64> {
        self.last_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_is_timed_to_the_first_frame_that_draws_it_moved() {
        let mut k = KeyDelay::default();
        for _ in 0..3 {
            k.frame(16.0, false, Vec2::ZERO);
        }
        // Pushed; drawn where it was for 12 frames (the server's answer).
        for _ in 0..12 {
            k.frame(16.0, true, Vec2::ZERO);
        }
        assert_eq!(k.last_ms(), None);
        k.frame(16.0, true, Vec2::new(5.0, 0.0));
        assert_eq!(k.last_ms(), Some(13.0 * 16.0));
        // Still moving: a new push is not timed until it stands still.
        k.frame(16.0, false, Vec2::new(9.0, 0.0));
        k.frame(16.0, true, Vec2::new(14.0, 0.0));
        assert_eq!(k.last_ms(), Some(13.0 * 16.0));
    }

    #[test]
    fn a_predicted_push_shows_in_its_own_frame() {
        let mut k = KeyDelay::default();
        k.frame(16.0, false, Vec2::ZERO);
        k.frame(16.0, true, Vec2::new(0.5, 0.0));
        assert_eq!(k.last_ms(), Some(16.0));
    }
}
