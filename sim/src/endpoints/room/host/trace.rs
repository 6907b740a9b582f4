//! A room player's packet trace (issue 23): started by their
//! [`ClientMsg::Trace`](crate::protocol::ClientMsg::Trace), fed by their
//! own link (each player has their own conditioners), and — what only a
//! room has — the shots they fired or were judged the target of, with
//! their verdicts, so that both ends of a shot see it in their lanes.

use super::RoomHost;
use crate::foundation::time::SimTime;
use crate::net::trace_wire::{TraceRequest, TraceStart};
use crate::protocol::trace::{JudgedShot, TraceEvent, TraceFrame};
use crate::room::replication::PlayerId;
use crate::room::wire::ShotResult;

impl RoomHost {
    /// Starts, changes or stops player `i`'s trace at `now`; its first
    /// batch names their link's seed and the room's birth.
    pub(super) fn stream_trace(&mut self, now: SimTime, i: usize, request: TraceRequest) {
        let start = TraceStart {
            seed: self.player_seed(self.players[i].id),
            made: self.created,
        };
        if let Some(link) = self.players[i].link_mut() {
            link.conn.stream_trace(now, request, start);
        }
    }

    /// Tells the shooter (player `shooter`) and the character judged of a
    /// shot judged at `now`.
    pub(super) fn trace_shot(&mut self, now: SimTime, shooter: usize, result: ShotResult) {
        let shot = JudgedShot {
            at: now,
            shooter: self.players[shooter].id,
            result,
        };
        let target = result.target.map(|t| t.id);
        for p in &mut self.players {
            if p.id == shot.shooter || Some(p.id) == target {
                if let Some(link) = p.link_mut() {
                    link.conn.trace_event(TraceEvent::Shot(shot));
                }
            }
        }
    }

    /// Every player's trace batches the polls made since the last call,
    /// by player: the driver fills in its processing times and sends each
    /// as a [`crate::protocol::ServerMsg::Trace`].
    pub fn take_traces(&mut self) -> Vec<(PlayerId, TraceFrame)> {
        let mut out = Vec::new();
        for p in &mut self.players {
            let id = p.id;
            if let Some(link) = p.link_mut() {
                out.extend(link.conn.take_trace().into_iter().map(|b| (id, b)));
            }
        }
        out
    }

    /// The driver's word on player `id`'s reading: `true` while their
    /// last write did not go at once (their batches wait and thin).
    pub fn trace_congested(&mut self, id: PlayerId, on: bool) {
        if let Ok(i) = self.index(id) {
            if let Some(link) = self.players[i].link_mut() {
                link.conn.trace_congested(on);
            }
        }
    }
}
