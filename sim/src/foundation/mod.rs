//! # Layer 1: foundation
//!
//! What every model stands on: the vector and the clocks, the one hasher,
//! the bounded log, the page-control types and the settings check, the
//! arena, the one physics function and the built-in bot. Nothing here
//! knows a link, a message or a model.
//!
//! **May import:** only its own modules, each only those above it here:
//!
//! | module | holds |
//! |---|---|
//! | `hash` | [`hash::Fnv64`] (FNV-1a), the one stable hasher, and the PRNG-draw roll |
//! | `math` | [`math::Vec2`] (cm) |
//! | `time` | [`time::TimeStamp`] (wrapping ms), [`time::SimTime`] (µs) |
//! | `bounded` | [`bounded::Bounded`]: the newest `capacity` records |
//! | `control` | a page control's [`control::Range`] / [`control::Switch`], [`control::SettingsError`] and the one range check |
//! | `interpolation` | interpolation in the past: [`interpolation::InterpolationBuffer`] |
//! | `world` | the arena, [`world::World`] |
//! | `movement` | [`movement::perform_movement`], the only physics |
//! | `bot` | the built-in driver, [`bot::Bot`] |

pub mod bot;
pub mod bounded;
pub mod control;
pub mod hash;
pub mod interpolation;
pub mod math;
pub mod movement;
pub mod time;
pub mod world;
