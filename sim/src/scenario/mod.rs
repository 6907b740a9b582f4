//! # Layer 6: scenarios
//!
//! A run written down so that anyone can run it again and get the same
//! trajectories, Adjustments and packet fates, bit for bit.
//!
//! A [`Scenario`] holds everything a [`crate::endpoints::session::LocalSession`] run depends
//! on: the PRNG seed (link conditioner and forced-loss rolls), the arena,
//! the settings at the start ([`Setup`]), every setting changed during the
//! run ([`Change`], stamped with the frame it applies before), and the
//! recorded input of every client frame ([`FrameInput`]: frame time in µs
//! and the quantized input). A run is a pure function of these, so
//! [`ScenarioRun`] gives the same result natively, in wasm, in the CLI and
//! in the page.
//!
//! Scenarios come from the page (Record → Save) or are written by hand
//! (JSON through the relay's API). [`Scenario::validate`] bounds every
//! value before a run or a store sees it; [`codec`] turns a scenario into
//! the compact bytes stored by the relay and carried in links; [`fork`]
//! makes a scenario with one change ([`ForkOption`]) to play beside the
//! original. A relay run cannot be a scenario (the relay's polls are its
//! own), but its client half can be taped and played again ([`tape`]).
//!
//! **May import:** every layer below it (foundation to endpoints) and its
//! own modules (`error`, `outcome`, `migrate`, `codec`, `fork`, `run`,
//! `validate`, `tape`); not the inspector or the console, which stand
//! above it.

pub mod codec;
mod error;
mod fork;
pub mod migrate;
mod outcome;
mod run;
pub mod tape;
mod validate;

pub use error::ScenarioError;
pub use fork::{fork, ForkOption};
pub use outcome::{
    checkpoint, checkpoint_count, Divergence, Outcome, Verdict, CHECKPOINT_BITS, CHECKPOINT_US,
};
pub use run::{ScenarioRun, MAX_RECORDED_FRAMES};

use crate::foundation::math::Vec2;
use crate::foundation::movement::{dequantize_axis, quantize_axis};
use crate::protocol::{Setting, Setup};
use serde::{Deserialize, Serialize};

/// Version of the [`Scenario`] schema: the layout this build writes.
/// Every older version stays readable: [`migrate`] lists each version's
/// layout, reads it with its own decoder and upgrades it to this one (and
/// says how to add a version); `scenarios/frozen/` holds a file saved by
/// each.
pub const SCENARIO_VERSION: u16 = 5;

/// Longest name, characters.
pub const MAX_NAME_CHARS: usize = 80;
/// Longest description, characters.
pub const MAX_DESCRIPTION_CHARS: usize = 2000;
/// Longest client frame a scenario may hold, µs (0.25 s: longer page
/// frames are clamped to this before they are simulated, like UE's
/// `MaxSimulationTimeStep`-style clamps keep one frame from teleporting).
pub const MAX_FRAME_US: u32 = 250_000;
/// Most setting changes in one scenario.
pub const MAX_CHANGES: usize = 10_000;

/// Which arena the run happens in. Only the built-in one exists today
/// ([`crate::foundation::world::World::arena`]); the enum keeps saved scenarios readable when
/// more arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Arena {
    /// The 24 × 15 m arena with pillars, the centre wall and the push zone.
    #[default]
    Standard,
}

/// A setting change applied just before client frame `frame` runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Index of the frame it precedes, `0..=frames.len()`.
    pub frame: u32,
    /// The new value.
    pub setting: Setting,
}

/// One client frame: how long it lasted and what the player pressed.
/// Input is quantized before it is simulated, so the recording *is* what
/// was simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FrameInput {
    /// Frame time, µs, `0..=MAX_FRAME_US`.
    pub dt_us: u32,
    /// Input direction x, `-32767..=32767` for −1.0..=1.0.
    pub x: i16,
    /// Input direction y (down is +), same scale.
    pub y: i16,
    /// Dash pressed this frame.
    pub dash: bool,
    /// Fire (the action button) held this frame.
    #[serde(default)]
    pub fire: bool,
}

impl FrameInput {
    /// Quantizes a page frame: `dt` seconds (clamped to
    /// `0..=MAX_FRAME_US`, rounded to µs) and a direction of length ≤ 1
    /// (each axis by [`quantize_axis`], the moves' own quantizer).
    pub fn quantize(dt: f64, direction: Vec2, dash: bool, fire: bool) -> FrameInput {
        let dt_us = if dt.is_finite() {
            (dt * 1e6).round().clamp(0.0, f64::from(MAX_FRAME_US)) as u32
        } else {
            0
        };
        FrameInput {
            dt_us,
            x: quantize_axis(direction.x),
            y: quantize_axis(direction.y),
            dash,
            fire,
        }
    }

    /// Frame time, s.
    pub fn dt(&self) -> f64 {
        f64::from(self.dt_us) / 1e6
    }

    /// Input direction, each axis `-1.0..=1.0`.
    pub fn direction(&self) -> Vec2 {
        Vec2::new(dequantize_axis(self.x), dequantize_axis(self.y))
    }
}

/// A saved run. See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Schema version, [`SCENARIO_VERSION`].
    pub version: u16,
    /// Short title, 1..=[`MAX_NAME_CHARS`] characters, no control
    /// characters.
    pub name: String,
    /// Free text, ≤ [`MAX_DESCRIPTION_CHARS`] characters; newlines and
    /// tabs allowed, other control characters not.
    pub description: String,
    /// Seed of the link conditioner and the client's forced-loss rolls.
    pub seed: u64,
    /// The arena.
    pub arena: Arena,
    /// Settings at frame 0.
    pub setup: Setup,
    /// Settings changed during the run, in frame order.
    pub changes: Vec<Change>,
    /// Every client frame, in order; ≤ [`MAX_RECORDED_FRAMES`].
    pub frames: Vec<FrameInput>,
    /// What the recording ended with, if known.
    pub outcome: Option<Outcome>,
}

impl Scenario {
    /// An empty scenario (no frames yet) starting from `setup`.
    pub fn new(name: &str, seed: u64, setup: Setup) -> Scenario {
        Scenario {
            version: SCENARIO_VERSION,
            name: name.to_owned(),
            description: String::new(),
            seed,
            arena: Arena::Standard,
            setup,
            changes: Vec::new(),
            frames: Vec::new(),
            outcome: None,
        }
    }

    /// Recorded duration, s (sum of frame times).
    pub fn duration_secs(&self) -> f64 {
        self.duration_us() as f64 / 1e6
    }

    /// Recorded duration, µs (sum of frame times).
    pub fn duration_us(&self) -> u64 {
        self.frames.iter().map(|f| u64::from(f.dt_us)).sum()
    }

    /// The settings in force when frame `frame` runs: the setup with every
    /// change up to and including that frame's applied.
    pub fn settings_at(&self, frame: usize) -> Setup {
        self.changes
            .iter()
            .take_while(|c| c.frame as usize <= frame)
            .fold(self.setup, |s, c| s.with(c.setting))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_rounds_and_clamps() {
        let f = FrameInput::quantize(1.0 / 60.0, Vec2::new(0.70710677, -0.70710677), true, true);
        assert_eq!(
            (f.dt_us, f.x, f.y, f.dash, f.fire),
            (16_667, 23_170, -23_170, true, true)
        );
        let f = FrameInput::quantize(3.0, Vec2::new(f32::NAN, 2.0), false, false);
        assert_eq!((f.dt_us, f.x, f.y), (250_000, 0, 32_767));
        assert_eq!(
            FrameInput::quantize(f64::NAN, Vec2::ZERO, false, false).dt_us,
            0
        );
        assert_eq!(
            FrameInput::quantize(-1.0, Vec2::ZERO, false, false).dt_us,
            0
        );
    }
}
