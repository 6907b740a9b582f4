//! The relay's part of a page's packet trace (issue 23): what `sim` cannot
//! know — the relay's own processing times, read off its clock — added to
//! each batch the host makes before it goes out.
//!
//! ```text
//! ws.rs:      socket read ─► Session::receive_binary ─┐ receive
//!             timer fired (late by …) ────────────────┤ late
//!             Session::poll ─► ServerHost::poll ───────┤ poll
//!             send_all (went at once, or waited) ──────┘ write, congested?
//! Session:    ServerHost::take_trace ─► TraceTimes::stamp ─► ServerMsg::Trace
//! room task:  RoomHost::take_traces (its poll and lateness stamped there)
//!             ─► Out::Trace ─► the player's Session stamps receive, write
//! ```
//!
//! Nothing is measured while the page has no trace: the trace's cost on a
//! session without one is a branch per frame.

use sim::net::codec;
use sim::net::trace_wire::RelayTimes;
use sim::protocol::trace::TraceFrame;
use sim::protocol::{ClientMsg, ServerMsg};
use std::time::{Duration, Instant};

/// One session's processing times since its last trace batch, while its
/// page has a trace.
#[derive(Debug, Default)]
pub(crate) struct TraceTimes {
    /// The page asked for a trace (a valid request that did not stop it).
    on: bool,
    times: RelayTimes,
}

impl TraceTimes {
    /// Notes a message the page sent: a trace request turns measuring on
    /// or off.
    pub(crate) fn saw(&mut self, msg: &ClientMsg) {
        if let ClientMsg::Trace(r) = msg {
            self.on = r.validate().is_ok() && r.is_on();
            if !self.on {
                self.times = RelayTimes::default();
            }
        }
    }

    /// Whether the page has a trace (worth a clock read).
    pub(crate) fn on(&self) -> bool {
        self.on
    }

    /// A frame's receive began at `started`.
    pub(crate) fn received(&mut self, started: Instant) {
        if self.on {
            self.times.receive.record(micros(started.elapsed()));
        }
    }

    /// A poll began at `started`, `late` after the wake-up it was for.
    pub(crate) fn polled(&mut self, started: Instant, late: Option<Duration>) {
        if self.on {
            self.times.poll.record(micros(started.elapsed()));
            if let Some(late) = late {
                self.times.late.record(micros(late));
            }
        }
    }

    /// A write took `took`.
    pub(crate) fn wrote(&mut self, took: Duration) {
        if self.on {
            self.times.write.record(micros(took));
        }
    }

    /// Adds the times since the last batch to the first of `batches` (the
    /// others cover no time of their own) and encodes them all.
    pub(crate) fn stamp(&mut self, batches: Vec<TraceFrame>, out: &mut Vec<Vec<u8>>) {
        for (i, mut batch) in batches.into_iter().enumerate() {
            if i == 0 {
                batch.relay.merge(&std::mem::take(&mut self.times));
            }
            out.push(codec::encode(&ServerMsg::Trace(Box::new(batch))));
        }
    }
}

/// A room's own processing times (its polls and how late they ran) since
/// each player's last batch: every player's batch of one poll gets them.
#[derive(Debug, Default)]
pub(crate) struct RoomTimes {
    times: RelayTimes,
}

impl RoomTimes {
    /// A room poll began at `started`, `late` after its wake-up.
    pub(crate) fn polled(&mut self, started: Instant, late: Option<Duration>) {
        self.times.poll.record(micros(started.elapsed()));
        if let Some(late) = late {
            self.times.late.record(micros(late));
        }
    }

    /// Stamps `batches` (every player's of one poll) with the room's times
    /// since the last stamp.
    pub(crate) fn stamp(&mut self, batches: &mut [(sim::room::PlayerId, TraceFrame)]) {
        if batches.is_empty() {
            return;
        }
        let times = std::mem::take(&mut self.times);
        for (_, b) in batches {
            b.relay.merge(&times);
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
