//! The rollback model's part of the page (fixed-tick inputs up,
//! authoritative States down, restore and re-simulate: reference
//! `001_…`): its three panels' drawing, the words around them, the
//! Replayed panel's log of rebases, the players' display smoothing, its
//! group of the Metrics card, and its controls (with the model selector).
//!
//! | module | holds |
//! |---|---|
//! | `panels` | Predicted, Authoritative and Replayed contents: both players, projectiles, HP, a rebase zoomed |
//! | `captions` | each panel's footer and the Replayed panel's line (pure) |
//! | `log` | the Replayed panel's rebases that changed something, and ◀ ▶ through them (pure) |
//! | `smoothing` | where each player is drawn after a rebase: the offset decaying, the snapshot untouched (pure) |
//! | `readouts` | the Metrics card's rollback group |
//! | `controls` | the model selector and the Rollback section, bound to `sim::controls` |

pub mod captions;
pub mod controls;
pub mod log;
pub mod panels;
pub mod readouts;
pub mod smoothing;
