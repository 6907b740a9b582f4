//! The guided tour (issue 24): about a dozen stops from "why predict" to
//! "TCP vs datagrams", each a run in the page (`sim::tour`: its settings,
//! script, moment and number), paused at the moment that matters, with two
//! to four sentences on what to see, the reference section that says so,
//! the panel to look at and one control that turns the lesson around.
//!
//! | module | holds |
//! |---|---|
//! | `texts` | each stop's title, sentences (around the measured number), reference and target: pure, tested natively |
//! | `card` | the tour's card above the panels, its buttons and keys |
//!
//! Opened by the header's Tour button or a `?tour=N` link (N from 1, or a
//! stop's key); the run is the page's own, so no relay is needed.

pub mod card;
pub mod texts;
