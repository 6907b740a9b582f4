//! What the panels draw and the tests read: each model's half, the
//! model-agnostic position and hash, the trails and the server's view.

use super::{ClientEndpoint, Predictor};
use crate::cmc::client::Client;
use crate::cmc::proxy::SimulatedProxy;
use crate::cmc::smoothing::SmoothingMode;
use crate::cmc::wire::ServerTotals;
use crate::foundation::math::Vec2;
use crate::foundation::world::World;
use crate::protocol::Model;
use crate::rollback::RollbackPredictor;
use std::collections::VecDeque;

impl ClientEndpoint {
    /// The model running (the last Welcome's).
    pub fn model(&self) -> Model {
        match &self.predictor {
            Predictor::Cmc(_) => Model::Cmc,
            Predictor::Rollback(r) => Model::Rollback(r.config()),
        }
    }

    /// The predicting CMC client (state, SavedMoves, corrections), when
    /// the CMC model runs.
    pub fn cmc(&self) -> Option<&Client> {
        match &self.predictor {
            Predictor::Cmc(c) => Some(&c.client),
            Predictor::Rollback(_) => None,
        }
    }

    /// The other character as a simulated proxy, when the CMC model runs.
    pub fn proxy(&self) -> Option<&SimulatedProxy> {
        match &self.predictor {
            Predictor::Cmc(c) => Some(&c.proxy),
            Predictor::Rollback(_) => None,
        }
    }

    /// The rollback half (predicted, confirmed and server snapshots, the
    /// last rollback, its counters), when the rollback model runs.
    pub fn rollback(&self) -> Option<&RollbackPredictor> {
        match &self.predictor {
            Predictor::Rollback(r) => Some(r),
            Predictor::Cmc(_) => None,
        }
    }

    /// The local character's predicted position, cm, in either model (the
    /// spawn before a rollback match starts): what a bot steers by.
    pub fn position(&self) -> Vec2 {
        match &self.predictor {
            Predictor::Cmc(c) => c.client.state().position,
            Predictor::Rollback(r) => r
                .local_player()
                .map_or(self.world.spawn, |p| p.position.to_cm()),
        }
    }

    /// The local character's predicted velocity, cm/s, in either model.
    pub fn velocity(&self) -> Vec2 {
        match &self.predictor {
            Predictor::Cmc(c) => c.client.state().velocity,
            Predictor::Rollback(r) => r.local_player().map_or(Vec2::ZERO, |p| p.velocity.to_cm()),
        }
    }

    /// Hash of the predicted state: the character's
    /// ([`crate::foundation::movement::CharacterState::state_hash`]) in the CMC model, the whole
    /// snapshot's ([`crate::rollback::Snapshot::state_hash`]) in the
    /// rollback model (0 before its match starts).
    pub fn state_hash(&self) -> u64 {
        match &self.predictor {
            Predictor::Cmc(c) => c.client.state().state_hash(),
            Predictor::Rollback(r) => r.predicted().map_or(0, |s| s.state_hash()),
        }
    }

    /// Where the local character is drawn: smoothed in the CMC model, the
    /// predicted position in the rollback model (display smoothing never
    /// touches its snapshot, `001_…` §9.2).
    pub(super) fn drawn_position(&self) -> Vec2 {
        match &self.predictor {
            Predictor::Cmc(c) => c.client.drawn_position(),
            Predictor::Rollback(_) => self.position(),
        }
    }

    /// The arena in use.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// `true` once the server's Welcome arrived.
    pub fn is_welcomed(&self) -> bool {
        self.welcomed
    }

    /// Drawn positions of the local character, oldest first.
    pub fn predicted_trail(&self) -> &VecDeque<Vec2> {
        &self.predicted_trail
    }

    /// The server's positions of the local character after each move (CMC)
    /// or tick (rollback), oldest first.
    pub fn server_trail(&self) -> &VecDeque<Vec2> {
        &self.server_trail
    }

    /// Where the server issued corrections (CMC): (server position,
    /// client's reported position), oldest first.
    pub fn server_corrections(&self) -> &VecDeque<(Vec2, Vec2)> {
        &self.server_corrections
    }

    /// The server's current position of the player, once observed.
    pub fn server_position(&self) -> Option<Vec2> {
        self.server_position
    }

    /// The server's positions of the other characters.
    pub fn server_others(&self) -> &[Vec2] {
        &self.others
    }

    /// The CMC server's counters, as last observed (default while rollback
    /// runs: see [`RollbackPredictor::server_totals`]).
    pub fn server_totals(&self) -> ServerTotals {
        match &self.predictor {
            Predictor::Cmc(c) => c.server_totals,
            Predictor::Rollback(_) => ServerTotals::default(),
        }
    }

    /// Bytes sent and received so far (game traffic; observer views are
    /// not counted).
    pub fn bytes_total(&self) -> (u64, u64) {
        self.link.bytes_total()
    }

    /// The last error the server reported, if any.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// Smoothing mode in use.
    pub fn smoothing(&self) -> SmoothingMode {
        self.smoothing
    }

    /// Forgets the trails and correction records drawn by the panels.
    pub fn clear_trails(&mut self) {
        self.predicted_trail.clear();
        self.server_trail.clear();
        self.server_corrections.clear();
        if let Predictor::Cmc(c) = &mut self.predictor {
            c.client.clear_corrections();
        }
    }
}
