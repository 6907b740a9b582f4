//! # Layer 7, a tool: the inspector — every packet, every correction, and what if
//!
//! Every run is deterministic from its seed, input and settings, so the
//! inspector can do what a recorded trace (UE's Network Prediction
//! Insights) cannot: go back to any frame, explain a correction from both
//! ends' records, and re-run with one thing changed.
//!
//! * [`Inspection::of`] plays a [`crate::scenario::Scenario`] with the records kept
//!   ([`crate::endpoints::session::LocalSession::inspect`]): the packet timeline
//!   ([`crate::net::trace`]), the server's and the client's account of
//!   each move, the rollbacks; it notes every correction with its frame,
//!   and keeps checkpoints for scrubbing.
//! * [`Inspection::seek`] returns the run as it stood after any frame —
//!   backwards too — by re-simulating from the nearest checkpoint
//!   (`scrub`).
//! * [`Inspection::explain`] tells a correction's story: the rule that
//!   fired and the packets or server-only effects that caused it
//!   (`story`).
//! * Each story offers what-ifs ([`crate::scenario::ForkOption`]): one
//!   change — deliver a lost packet, redundancy, combining, smoothing,
//!   model, ack interval — that [`crate::scenario::fork`] turns into a
//!   scenario to play beside the original (`fork`).
//! * [`LatencyBudget`] sums what a viewer feels for the settings in force,
//!   beside the same terms measured from the packet timeline (`budget`).
//! * [`RelayInspection`] does what can be done for a run on the relay
//!   (issue 23): the page's own end played again from its tape to any
//!   frame, its corrections, and stories told from the relay's packet
//!   trace (`relay`).
//!
//! **May import:** every layer below it (up to scenarios) and its own
//! modules, each only those above it here; not the console, nor the
//! page's controls.
//!
//! | module | holds |
//! |---|---|
//! | `sample` | [`bot_run`]: the run the inspector's costs are measured on |
//! | `budget` | [`LatencyBudget`] |
//! | `scrub` | [`Inspection`]: the inspected run, frame marks, checkpoints |
//! | `origin` | [`Origin`]: network, client hitch or client clock |
//! | `story` | [`Story`], [`Rule`], [`Cause`]: why a correction happened |
//! | `fork` | the what-ifs of a story, [`Inspection::explain`] |
//! | `relay` | [`RelayInspection`]: a relay run's client half and its trace |

mod budget;
mod fork;
mod origin;
mod relay;
mod sample;
mod scrub;
mod story;

pub use budget::{BudgetTerm, LatencyBudget, RelayCost, RELAY_PROCESSING};
pub use fork::deliverable;
pub use origin::{Origin, HITCH_US};
pub use relay::RelayInspection;
pub use sample::bot_run;
pub use scrub::{Corrected, Correction, FrameMark, Inspection, RECORDS_KEPT};
pub use story::{Cause, Rule, Story};
