//! The fixed simulation step (issue #28 item 2): an option to run the
//! page's client in steps of [`STEP_DT`] (1/60 s) however the page
//! renders, instead of UE's one move per rendered frame.
//!
//! The trade-off, as the control's tooltip says: UE's CharacterMovement
//! moves once per frame with that frame's time (`000_…` §6.3), so a slow
//! frame is one long move — clamped by the server at 0.125 s
//! (`MaxMoveDeltaTime`, §9.3) — and a stalled page is a silence the server
//! fills with forced position updates (§9.5). In fixed steps a slow frame
//! becomes several regular moves sent together: no clamp, and the same
//! steps on every machine; but the input is read once per rendered frame
//! for all of its steps, and the drawn position moves in whole steps. A
//! frame longer than [`MAX_STEPS`] steps loses the rest (as the client's
//! own frame limit does). Each step is one recorded frame, so a scenario
//! replays the same either way. Pure: tested natively.

use super::playback::STEP_DT;

/// Steps one rendered frame may run at most: 0.25 s (15 × 1/60 s).
pub const MAX_STEPS: u32 = 15;

/// The time carried over between rendered frames, s.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FixedStep {
    carry: f64,
}

impl FixedStep {
    /// How many [`STEP_DT`] steps a frame of `dt` seconds runs (the rest
    /// carried to the next frame), at most [`MAX_STEPS`].
    pub fn steps(&mut self, dt: f64) -> u32 {
        let total = self.carry + if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        // A hair under a whole step counts as one (frame times are
        // rounded to µs and ms on the way).
        let n = ((total + 1e-6) / STEP_DT).floor();
        if n > f64::from(MAX_STEPS) {
            self.carry = 0.0;
            return MAX_STEPS;
        }
        self.carry = (total - n * STEP_DT).max(0.0);
        n as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_become_whole_60_hz_steps_and_carry_the_rest() {
        let mut f = FixedStep::default();
        // 60 fps: one step a frame.
        assert_eq!((0..60).map(|_| f.steps(1.0 / 60.0)).sum::<u32>(), 60);
        // 144 fps: 60 steps in a second.
        let mut f = FixedStep::default();
        assert_eq!((0..144).map(|_| f.steps(1.0 / 144.0)).sum::<u32>(), 60);
        // 20 fps: three steps a frame.
        let mut f = FixedStep::default();
        assert_eq!(f.steps(0.05), 3);
        // A 1 s stall: 15 steps, the rest lost.
        assert_eq!(f.steps(1.0), MAX_STEPS);
        assert_eq!(f.steps(0.0), 0);
        assert_eq!(f.steps(f64::NAN), 0);
    }
}
