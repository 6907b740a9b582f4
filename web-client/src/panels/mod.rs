//! The three panels — Predicted, Authoritative, Replayed — as the page
//! shows them for a single-player run in either model: the HTML around
//! each (title, tools, the line under it, the footer), the rectangles the
//! canvas draws into, and one column's own state, words and drawing,
//! which hand over to `crate::cmc` or `crate::rollback` for what the
//! model draws. The A/B view's B column is a second [`column::ColumnState`];
//! a shared room draws its own panels (`crate::room::panels`).
//!
//! | module | holds |
//! |---|---|
//! | `chrome` | the HTML around each panel and the body rectangles measured from it |
//! | `column` | a column's view state, its words and its frame, in the model it runs |
//! | `resim` | the wall time of re-simulation as the page sees it (pure) |

pub mod chrome;
pub mod column;
pub mod resim;
