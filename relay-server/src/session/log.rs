//! Rejection logging that an attack cannot flood ([`RejectLog`]), and the
//! session's disconnect line.

use super::{Authority, Session};
use crate::limits::Kind;
use crate::metrics::Metrics;
use std::sync::Arc;
use tracing::{debug, info};

impl Session {
    /// Logs the disconnect line with the session's totals (those of the
    /// model in force at the end; a room player's are the room's).
    pub(crate) fn log_end(&self, ended_by: &str) {
        let (model, totals) = match &self.authority {
            Authority::Private(host) => {
                let totals = match (host.cmc(), host.rollback()) {
                    (Some(c), _) => {
                        let c = c.counters();
                        format!(
                            "{} moves, {} acks, {} adjustments",
                            c.moves_simulated, c.acks_sent, c.adjustments_sent
                        )
                    }
                    (None, Some(r)) => {
                        let c = r.client_inputs();
                        format!(
                            "{} inputs, {} missed, {} late",
                            c.received,
                            c.missed(),
                            c.late
                        )
                    }
                    (None, None) => String::new(),
                };
                (host.model().name(), totals)
            }
            Authority::Shared(shared) => ("room", format!("room {}", shared.room)),
        };
        let g = self.gate.totals();
        info!(
            connection = self.log.connection,
            model,
            totals,
            rejected = self.log.count,
            dropped_moves = g.dropped_moves,
            dropped_inputs = g.dropped_inputs,
            dropped_pings = g.dropped_pings,
            dropped_room = g.dropped_room,
            dropped_control = g.dropped_control,
            coalesced_settings = g.coalesced,
            ended_by,
            "client disconnected"
        );
    }
}

/// Rejection logging that an attack cannot flood: the first rejection and
/// the first drop per connection at info, the rest at debug; the totals go
/// in the disconnect line. Each is counted in the metrics too.
pub(super) struct RejectLog {
    pub(super) connection: u64,
    pub(super) count: u64,
    pub(super) dropped: u64,
    pub(super) metrics: Arc<Metrics>,
}

impl RejectLog {
    pub(super) fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    pub(super) fn rejected(&mut self, reason: &dyn std::fmt::Display) {
        self.metrics.rejected();
        self.count += 1;
        if self.count == 1 {
            info!(connection = self.connection, reason = %reason, "frame rejected (further rejections logged at debug)");
        } else {
            debug!(connection = self.connection, reason = %reason, "frame rejected");
        }
    }

    pub(super) fn dropped(&mut self, kind: Kind) {
        self.metrics.dropped(kind);
        self.dropped += 1;
        if self.dropped == 1 {
            info!(
                connection = self.connection,
                ?kind,
                "frame over the rate limit dropped (further drops logged at debug)"
            );
        } else {
            debug!(
                connection = self.connection,
                ?kind,
                "frame over the rate limit dropped"
            );
        }
    }
}
