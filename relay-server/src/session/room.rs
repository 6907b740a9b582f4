//! A session's seat in a shared room: the room's frames for its player,
//! the room's refusals and moves, and the silent seat closed after its
//! grace.

use super::{Authority, RoomOut, Session, Shared};
use crate::limits::Violation;
use crate::rooms::Out;
use sim::SimTime;

impl Session {
    /// The room's next word for this player; pending for ever in a private
    /// session or before a seat. `None` when the room has ended (the relay
    /// is shutting down).
    pub(crate) async fn room_out(&mut self) -> Option<Out> {
        match &mut self.authority {
            Authority::Shared(Shared { out: Some(rx), .. }) => rx.recv().await,
            _ => std::future::pending().await,
        }
    }

    /// Takes what the room sent at `now`.
    ///
    /// # Errors
    /// A [`Violation`] when the room refused one message too many (1008).
    pub(crate) fn take_room_out(&mut self, now: SimTime, out: Out) -> Result<RoomOut, Violation> {
        match out {
            Out::Seated => {
                self.announce = true;
                self.greeted = true;
                Ok(RoomOut::Frames(self.poll(now)))
            }
            Out::Frames(frames) => {
                self.metrics.sent(&frames);
                Ok(RoomOut::Frames(frames))
            }
            Out::Trace(batch) => {
                let mut frames = Vec::new();
                self.trace.stamp(vec![*batch], &mut frames);
                self.metrics.sent(&frames);
                Ok(RoomOut::Frames(frames))
            }
            // The room queued the Error for the client already.
            Out::Rejected(reason) => {
                self.log.rejected(&reason);
                self.gate.strike(now)?;
                Ok(RoomOut::Frames(Vec::new()))
            }
            Out::Refused {
                frame,
                code,
                reason,
            } => {
                if let Authority::Shared(shared) = &mut self.authority {
                    // Never seated: nothing to keep.
                    shared.seat = None;
                }
                Ok(RoomOut::Refused {
                    frame,
                    code,
                    reason,
                })
            }
            Out::Moved { reason } => {
                if let Authority::Shared(shared) = &mut self.authority {
                    // The seat went with the room (its checkpoint).
                    shared.seat = None;
                }
                Ok(RoomOut::Moved(reason))
            }
        }
    }

    /// Why the session's seat is to be closed for silence at `now`: no
    /// frame from the player within the grace after its Join (or Resume).
    pub(crate) fn silent_seat(&self, now: SimTime) -> Option<String> {
        let since = self.silent_until()?;
        (now >= since).then(|| {
            format!(
                "silent seat: nothing sent within {} s of taking it",
                self.silent_seat_grace.as_secs_f64()
            )
        })
    }

    /// When a silent seat's grace ends, if the session holds one.
    pub(super) fn silent_until(&self) -> Option<SimTime> {
        match &self.authority {
            Authority::Shared(Shared {
                seat: Some(_),
                silent_since: Some(t),
                ..
            }) => Some(t.plus_micros(
                u64::try_from(self.silent_seat_grace.as_micros()).unwrap_or(u64::MAX),
            )),
            _ => None,
        }
    }
}
