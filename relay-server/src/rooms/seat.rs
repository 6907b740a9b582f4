//! One player's place in a shared room ([`Seat`]), what goes between the
//! player's session and the room's task ([`Command`], [`Out`]), and the
//! room's count of seats by client address ([`SeatCounts`]).

use crate::room::RoomId;
use crate::token::TokenHash;
use sim::protocol::ClientMsg;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;

/// Session → room.
#[derive(Debug)]
pub(super) enum Command {
    /// A new seat: take a player in, frames for them go to `out`.
    Join {
        /// The seat's number.
        seat: u64,
        /// Where the player's frames go.
        out: mpsc::Sender<Out>,
        /// The player's address (for the room's checkpoint).
        addr: IpAddr,
        /// The hash of the session's resume token, if it has one.
        token: Option<TokenHash>,
        /// A spectator's place, not a seat (issue 22).
        watch: bool,
    },
    /// A seat taken back by a resume: its frames go to `out` from now.
    Rebind {
        /// The seat's number.
        seat: u64,
        /// The new connection's channel.
        out: mpsc::Sender<Out>,
        /// The hash of the new connection's resume token.
        token: Option<TokenHash>,
    },
    /// A message from the seat's player, which came in a frame of `len`
    /// bytes (already decoded and within its budget).
    Frame {
        /// The seat's number.
        seat: u64,
        /// The frame's size, bytes.
        len: usize,
        /// The message.
        msg: ClientMsg,
    },
    /// The seat's page reads slowly (`on`) or again at once: its trace
    /// batches wait and thin meanwhile (issue 23).
    TraceCongested {
        /// The seat's number.
        seat: u64,
        /// Its last write had to wait.
        on: bool,
    },
    /// The seat is given up: the player leaves the room.
    Leave {
        /// The seat's number.
        seat: u64,
    },
    /// The room's recording so far, for `GET` and `POST /api/rooms/{name}/recording`.
    Recording {
        /// Where it goes.
        reply: super::snapshot::Reply,
    },
    /// The room ends here (handed to another relay, or found to be
    /// another's): every player is told to reconnect.
    Dismiss {
        /// Why, for the close frame.
        reason: String,
    },
}

/// Room → one player's session.
#[derive(Debug, PartialEq)]
pub(crate) enum Out {
    /// The room took the player (or took them back after a resume).
    Seated,
    /// Frames to send, in order.
    Frames(Vec<Vec<u8>>),
    /// A batch of the player's packet trace, for the session to add its
    /// own times to and send (issue 23).
    Trace(Box<sim::protocol::trace::TraceFrame>),
    /// The room refused a message (out of range, not spoken in a room) and
    /// has queued an Error for the player: a strike for the session.
    Rejected(String),
    /// No seat: send `frame` (the room's Refused) and close with `code`
    /// and `reason`.
    Refused {
        /// The room's `Refused` message, encoded.
        frame: Vec<u8>,
        /// The close code.
        code: u16,
        /// Why, for the close frame.
        reason: String,
    },
    /// The room has left this relay: close so that the player reconnects
    /// (and resumes the seat wherever the room is now).
    Moved {
        /// Why, for the close frame.
        reason: String,
    },
}

/// Seats handed out in one room, in all and by client address; shared by
/// the registry and every seat of the room.
#[derive(Debug, Default)]
pub(super) struct SeatCounts(Mutex<Counts>);

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    by_addr: HashMap<IpAddr, usize>,
}

impl SeatCounts {
    /// Counts a seat for `addr` unless it holds `max` already (`0` = no
    /// cap); `false` if refused.
    pub(super) fn try_add(&self, addr: IpAddr, max: usize) -> bool {
        let mut c = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let n = c.by_addr.get(&addr).copied().unwrap_or(0);
        if max != 0 && n >= max {
            return false;
        }
        c.by_addr.insert(addr, n + 1);
        c.total += 1;
        true
    }

    fn remove(&self, addr: IpAddr) {
        let mut c = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.by_addr.get_mut(&addr) {
            *n -= 1;
            if *n == 0 {
                c.by_addr.remove(&addr);
            }
        }
    }

    /// Seats handed out and not yet given back.
    pub(super) fn total(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).total
    }
}

/// A player's place in a room: what the session sends the room through,
/// and — when dropped — the player leaving. A dropped socket's seat is
/// kept by the resume store for the grace period, so the player stays in
/// the room until then.
#[derive(Debug)]
pub(crate) struct Seat {
    room: RoomId,
    key: u64,
    tx: mpsc::UnboundedSender<Command>,
    /// The room's seat counts, this seat's `addr` among them.
    counts: Arc<SeatCounts>,
    addr: IpAddr,
}

impl Seat {
    /// Seat number `key` of `room` for `addr` (already counted in
    /// `counts`).
    pub(super) fn new(
        room: RoomId,
        key: u64,
        tx: mpsc::UnboundedSender<Command>,
        counts: Arc<SeatCounts>,
        addr: IpAddr,
    ) -> Seat {
        Seat {
            room,
            key,
            tx,
            counts,
            addr,
        }
    }

    /// The room.
    pub(crate) fn room(&self) -> &RoomId {
        &self.room
    }

    /// Asks the room to take the player (with `watch`, the spectator) in,
    /// answering on `out`.
    pub(super) fn join(&self, out: mpsc::Sender<Out>, token: Option<TokenHash>, watch: bool) {
        let _ = self.tx.send(Command::Join {
            seat: self.key,
            out,
            addr: self.addr,
            token,
            watch,
        });
    }

    /// The player is back on a new connection (whose resume token hashes
    /// to `token`): frames go to `out`.
    pub(crate) fn rebind(&self, out: mpsc::Sender<Out>, token: Option<TokenHash>) {
        let _ = self.tx.send(Command::Rebind {
            seat: self.key,
            out,
            token,
        });
    }

    /// Hands the room a message from the player, from a frame of `len`
    /// bytes. A room that has ended (the relay shutting down) takes
    /// nothing.
    pub(crate) fn send(&self, len: usize, msg: ClientMsg) {
        let _ = self.tx.send(Command::Frame {
            seat: self.key,
            len,
            msg,
        });
    }
}

impl Seat {
    /// Tells the room the player's page reads slowly (`on`) or again at
    /// once.
    pub(crate) fn trace_congested(&self, on: bool) {
        let _ = self.tx.send(Command::TraceCongested { seat: self.key, on });
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let _ = self.tx.send(Command::Leave { seat: self.key });
        self.counts.remove(self.addr);
    }
}
