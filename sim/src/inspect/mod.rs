//! # The inspector: every packet, every correction, and what if
//!
//! Every run is deterministic from its seed, input and settings, so the
//! inspector can do what a recorded trace (UE's Network Prediction
//! Insights) cannot: go back to any frame, explain a correction from both
//! ends' records, and re-run with one thing changed.
//!
//! * [`Inspection::of`] plays a [`Scenario`] with the records kept
//!   ([`crate::LocalSession::inspect`]): the packet timeline
//!   ([`crate::net::trace`]), the server's and the client's account of
//!   each move, the rollbacks; it notes every correction with its frame,
//!   and keeps checkpoints for scrubbing.
//! * [`Inspection::seek`] returns the run as it stood after any frame —
//!   backwards too — by re-simulating from the nearest checkpoint
//!   (`scrub`).
//! * [`Inspection::explain`] tells a correction's story: the rule that
//!   fired and the packets or server-only effects that caused it
//!   (`story`).
//! * [`fork`] makes a scenario with one change — deliver a lost packet,
//!   redundancy, combining, smoothing, model, ack interval — to play beside
//!   the original (`fork`).
//! * [`LatencyBudget`] sums what a viewer feels for the settings in force,
//!   beside the same terms measured from the packet timeline (`budget`).
//!
//! | module | holds |
//! |---|---|
//! | `scrub` | [`Inspection`]: the inspected run, frame marks, checkpoints |
//! | `story` | [`Story`], [`Rule`], [`Cause`]: why a correction happened |
//! | `fork` | [`fork`], [`ForkOption`] |
//! | `budget` | [`LatencyBudget`] |
//! | `sample` | [`bot_run`]: the run the inspector's costs are measured on |

mod budget;
mod fork;
mod sample;
mod scrub;
mod story;

pub use budget::{BudgetTerm, LatencyBudget};
pub use fork::{fork, ForkOption};
pub use sample::bot_run;
pub use scrub::{Corrected, Correction, FrameMark, Inspection, RECORDS_KEPT};
pub use story::{Cause, Rule, Story};
