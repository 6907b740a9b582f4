//! One player's place in a shared room ([`Seat`]) and what goes between
//! the player's session and the room's task ([`Command`], [`Out`]).

use crate::room::RoomId;
use sim::net::protocol::ClientMsg;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
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
    },
    /// A seat taken back by a resume: its frames go to `out` from now.
    Rebind {
        /// The seat's number.
        seat: u64,
        /// The new connection's channel.
        out: mpsc::Sender<Out>,
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
    /// The seat is given up: the player leaves the room.
    Leave {
        /// The seat's number.
        seat: u64,
    },
}

/// Room → one player's session.
#[derive(Debug, PartialEq)]
pub(crate) enum Out {
    /// The room took the player (or took them back after a resume).
    Seated,
    /// Frames to send, in order.
    Frames(Vec<Vec<u8>>),
    /// The room refused a message (out of range, not spoken in a room) and
    /// has queued an Error for the player: a strike for the session.
    Rejected(String),
    /// The room is full: send `frame` (the room's Refused) and close with
    /// `reason`.
    Refused {
        /// The room's `Refused` message, encoded.
        frame: Vec<u8>,
        /// Why, for the close frame.
        reason: String,
    },
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
    /// The room's count of seats handed out.
    seats: Arc<AtomicUsize>,
}

impl Seat {
    /// Seat number `key` of `room` (already counted in `seats`).
    pub(super) fn new(
        room: RoomId,
        key: u64,
        tx: mpsc::UnboundedSender<Command>,
        seats: Arc<AtomicUsize>,
    ) -> Seat {
        Seat {
            room,
            key,
            tx,
            seats,
        }
    }

    /// The room.
    pub(crate) fn room(&self) -> &RoomId {
        &self.room
    }

    /// Asks the room to take the player in, answering on `out`.
    pub(super) fn join(&self, out: mpsc::Sender<Out>) {
        let _ = self.tx.send(Command::Join {
            seat: self.key,
            out,
        });
    }

    /// The player is back on a new connection: frames go to `out`.
    pub(crate) fn rebind(&self, out: mpsc::Sender<Out>) {
        let _ = self.tx.send(Command::Rebind {
            seat: self.key,
            out,
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

impl Drop for Seat {
    fn drop(&mut self) {
        let _ = self.tx.send(Command::Leave { seat: self.key });
        self.seats.fetch_sub(1, Ordering::Relaxed);
    }
}
