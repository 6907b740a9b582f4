//! The Timeline card (`<canvas id="plots">`): the last 10 s of the run,
//! strip by strip — position error, SavedMove queue, RTT, corrections,
//! drops (their analogues in the rollback model, the ammo counter in a
//! room) — and the CSV download of its last minute.
//!
//! | module | holds |
//! |---|---|
//! | `samples` | one sample per page frame on the run's clock, the window around the last snap, the CSV (pure) |
//! | `plots` | the strips drawn on the card's 2D canvas, with loss-burst, lag-spike and correction marks |

pub mod plots;
pub mod samples;
