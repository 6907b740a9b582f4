//! Scenario version 2, saved from f7d209b (issue #16) until version 3: the
//! model and its rollback settings, the fire button, the client's clock
//! speed, what-if deliveries. Its outcome had no checkpoints; everything
//! else is version 3's ([`super::v3`]).

use super::v3 as next;
use serde::Deserialize;

pub(super) use next::{
    Arena, Change, ClientConfig, FrameInput, LagSpike, Model, NetSettings, ServerRules, Setting,
    Setup, SmoothingMode,
};

/// A version-2 scenario, field for field.
#[derive(Deserialize)]
pub(super) struct Scenario {
    /// The version ([`super::read`] picked this decoder by it).
    #[serde(rename = "version")]
    pub(super) _version: u16,
    pub(super) name: String,
    pub(super) description: String,
    pub(super) seed: u64,
    pub(super) arena: Arena,
    pub(super) setup: Setup,
    pub(super) changes: Vec<Change>,
    pub(super) frames: Vec<FrameInput>,
    pub(super) outcome: Option<Outcome>,
}

/// A version-2 outcome: version 3's without checkpoints.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct Outcome {
    frames: u32,
    state_hash: u64,
    trajectory_hash: u64,
    adjustments: u64,
    replayed_moves: u64,
    acks: u64,
    moves_sent: u64,
}

impl Outcome {
    /// Version 3's outcome: no checkpoints are known.
    pub(super) fn upgrade(self) -> next::Outcome {
        next::Outcome {
            frames: self.frames,
            state_hash: self.state_hash,
            trajectory_hash: self.trajectory_hash,
            adjustments: self.adjustments,
            replayed_moves: self.replayed_moves,
            acks: self.acks,
            moves_sent: self.moves_sent,
            checkpoints: Vec::new(),
        }
    }
}

impl Scenario {
    /// Version 3: the same run, its outcome without checkpoints.
    fn upgrade(self) -> next::Scenario {
        let Scenario {
            _version: _,
            name,
            description,
            seed,
            arena,
            setup,
            changes,
            frames,
            outcome,
        } = self;
        next::Scenario {
            _version: 3,
            name,
            description,
            seed,
            arena,
            setup,
            changes,
            frames,
            outcome: outcome.map(Outcome::upgrade),
        }
    }
}

impl super::Layout for Scenario {
    fn into_current(self) -> crate::Scenario {
        self.upgrade().into_current()
    }
}
