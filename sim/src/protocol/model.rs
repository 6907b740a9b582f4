//! Which prediction model a run uses. The playground teaches two designs
//! on the same arena, link conditioner, panels and scenarios:
//!
//! * **CMC** — UE's `CharacterMovementComponent`: the client reports where
//!   each move ended, the server Acks or sends an Adjustment, the client
//!   replays its unacknowledged SavedMoves (`000_…`).
//! * **Rollback** — a fixed-tick input/snapshot model: the client sends
//!   inputs only, the server streams authoritative States every few ticks,
//!   the client restores each and re-simulates to its present (`001_…`).

use crate::rollback::RollbackConfig;
use serde::{Deserialize, Serialize};

/// The model of a run and, for rollback, its settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Model {
    /// UE's CharacterMovementComponent model (the page's default).
    #[default]
    Cmc,
    /// Fixed-tick input/snapshot rollback with these settings.
    Rollback(RollbackConfig),
}

impl Model {
    /// The page's `#model` value: `cmc` or `rollback`.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Cmc => "cmc",
            Model::Rollback(_) => "rollback",
        }
    }
}
