//! The client's half of the CMC model, driven by [`super::ClientEndpoint`]:
//! the predicting [`Client`], the simulated proxy of the other character,
//! and the predicted positions kept by time stamp for the error read-out.

use crate::cmc::client::Client;
use crate::cmc::proxy::SimulatedProxy;
use crate::cmc::wire::{ObserverSnapshot, ServerMove, ServerTotals};
use crate::foundation::math::Vec2;
use crate::foundation::time::TimeStamp;
use std::collections::VecDeque;

/// Predicted positions kept by time stamp for the error read-out (2 s).
const HISTORY_LEN: usize = 120;

/// The CMC model's client half.
#[derive(Debug, Clone)]
pub(crate) struct CmcPredictor {
    pub(crate) client: Client,
    pub(crate) proxy: SimulatedProxy,
    /// ServerMoves that left the client.
    pub(crate) moves_sent: u64,
    history: VecDeque<(TimeStamp, Vec2)>,
    pub(crate) pos_error_cm: Option<f32>,
    pub(crate) server_totals: ServerTotals,
}

impl CmcPredictor {
    pub(crate) fn new(client: Client) -> CmcPredictor {
        CmcPredictor {
            client,
            proxy: SimulatedProxy::default(),
            moves_sent: 0,
            history: VecDeque::new(),
            pos_error_cm: None,
            server_totals: ServerTotals::default(),
        }
    }

    /// A ServerMove left: its predicted end position is kept by time stamp.
    pub(crate) fn sent(&mut self, m: &ServerMove) {
        self.moves_sent += 1;
        super::push_bounded(
            &mut self.history,
            (m.new_move.time_stamp, self.client.state().position),
            HISTORY_LEN,
        );
    }

    /// The server's counters and, for the newest move it simulated, the
    /// distance between the prediction and the server's result.
    pub(crate) fn observe(&mut self, s: &ObserverSnapshot) {
        self.server_totals = s.totals;
        if let Some(ts) = s.last_time_stamp {
            if let Some(&(_, p)) = self.history.iter().rev().find(|(t, _)| *t == ts) {
                self.pos_error_cm = Some((p - s.player.position).length());
            }
        }
    }
}
