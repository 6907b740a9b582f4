//! The authority a room's task owns, by the room's model
//! ([`crate::room::RoomModel`]): a CMC [`RoomHost`] or a rollback match
//! ([`RollbackRoomHost`], issue 22). Both are driven the same way —
//! players added and removed, their messages in, `poll_until(now)` at
//! the wake-ups — so the task is one loop for either.
//!
//! A rollback room keeps no checkpoint: with a shared registry it is not
//! carried to another relay (its players reconnect and a new match, with
//! a new match id, starts there).

use crate::room::RoomModel;
use sim::endpoints::rollback_room::RollbackRoomHost;
use sim::endpoints::room::{RoomError, RoomHost};
use sim::protocol::trace::TraceFrame;
use sim::protocol::ClientMsg;
use sim::room::PlayerId;
use sim::SimTime;

/// A room's authority.
#[derive(Debug)]
pub(super) enum Hosted {
    /// A CMC room.
    Cmc(Box<RoomHost>),
    /// A rollback match.
    Rollback(Box<RollbackRoomHost>),
}

impl Hosted {
    /// The room's model.
    pub(super) fn model(&self) -> RoomModel {
        match self {
            Hosted::Cmc(_) => RoomModel::Cmc,
            Hosted::Rollback(_) => RoomModel::Rollback,
        }
    }

    /// The CMC room, for its checkpoint.
    pub(super) fn cmc(&self) -> Option<&RoomHost> {
        match self {
            Hosted::Cmc(h) => Some(h),
            Hosted::Rollback(_) => None,
        }
    }

    /// Most players, bots included.
    pub(super) fn max_players(&self) -> usize {
        match self {
            Hosted::Cmc(h) => h.config().max_players,
            Hosted::Rollback(h) => h.max_players(),
        }
    }

    /// Server-driven bots.
    pub(super) fn bot_count(&self) -> usize {
        match self {
            Hosted::Cmc(h) => h.bot_count(),
            Hosted::Rollback(h) => h.bot_count(),
        }
    }

    /// A new remote player, or with `watch` a rollback match's spectator
    /// (issue 22; a CMC room has none: `Rooms::join` refuses that first).
    pub(super) fn add(&mut self, now: SimTime, watch: bool) -> Result<PlayerId, RoomError> {
        match self {
            Hosted::Cmc(_) if watch => Err(RoomError::NotInRoom("Watch")),
            Hosted::Cmc(h) => h.add_player(now),
            Hosted::Rollback(h) if watch => h.add_spectator(now),
            Hosted::Rollback(h) => h.add_player(now),
        }
    }

    /// Spectators (a rollback match's; a CMC room has none).
    pub(super) fn spectator_count(&self) -> usize {
        match self {
            Hosted::Cmc(_) => 0,
            Hosted::Rollback(h) => h.spectator_count(),
        }
    }

    /// Remote player `id` leaves.
    pub(super) fn remove_player(&mut self, id: PlayerId) {
        match self {
            Hosted::Cmc(h) => {
                h.remove_player(id);
            }
            Hosted::Rollback(h) => {
                h.remove_player(id);
            }
        }
    }

    /// One message from remote player `id`.
    pub(super) fn receive_msg(
        &mut self,
        now: SimTime,
        id: PlayerId,
        len: usize,
        msg: ClientMsg,
    ) -> Result<(), RoomError> {
        match self {
            Hosted::Cmc(h) => h.receive_msg(now, id, len, msg),
            Hosted::Rollback(h) => h.receive_msg(now, id, len, msg),
        }
    }

    /// Every frame due by `now`, with the time it left.
    pub(super) fn poll_until(&mut self, now: SimTime) -> Vec<(SimTime, PlayerId, Vec<u8>)> {
        match self {
            Hosted::Cmc(h) => h.poll_until(now),
            Hosted::Rollback(h) => h.poll_until(now),
        }
    }

    /// The next time a poll has something to do.
    pub(super) fn next_wakeup(&self) -> Option<SimTime> {
        match self {
            Hosted::Cmc(h) => h.next_wakeup(),
            Hosted::Rollback(h) => h.next_wakeup(),
        }
    }

    /// When the next tick is due.
    pub(super) fn next_tick(&self) -> SimTime {
        match self {
            Hosted::Cmc(h) => h.next_tick(),
            Hosted::Rollback(h) => h.next_tick(),
        }
    }

    /// The tracing players' batches.
    pub(super) fn take_traces(&mut self) -> Vec<(PlayerId, TraceFrame)> {
        match self {
            Hosted::Cmc(h) => h.take_traces(),
            Hosted::Rollback(h) => h.take_traces(),
        }
    }

    /// A player's trace stream is congested, or no longer.
    pub(super) fn trace_congested(&mut self, id: PlayerId, on: bool) {
        match self {
            Hosted::Cmc(h) => h.trace_congested(id, on),
            Hosted::Rollback(h) => h.trace_congested(id, on),
        }
    }
}
