//! The A/B view: a second column of panels for a second in-page run,
//! forked from the first with one setting different (the other model, or
//! one setting of this one) and fed the same input and link seed, with a
//! row of paired numbers (B / A) under both.
//!
//! | module | holds |
//! |---|---|
//! | `twin` | B's run ([`twin::Twin`]: forked, mirrored, following A's changes) and the view ([`twin::AbView`]): on / off, B drawn, B's words |
//! | `difference` | which setting B changes, B's settings from A's, what to send B, the column headers (pure) |
//! | `paired` | the paired numbers, B / A (pure) |
//! | `chrome` | the view's HTML: the toggle, the difference pickers, the B column's panels, the table |

pub mod chrome;
pub mod difference;
pub mod paired;
pub mod twin;
