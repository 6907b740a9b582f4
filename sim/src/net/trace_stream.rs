//! [`TraceStream`]: one connection's packet trace on its way to the page
//! (issue 23), sans IO. The host's link pushes every packet's record as
//! its conditioner decides it (and a room the events its player was part
//! of); every [`TraceRequest::interval_ms`] the stream hands the driver
//! the batches due ([`super::trace_wire::TraceBatch`]).
//!
//! **Bounded, never queued without limit.** Three limits, each with its
//! rule:
//! * a batch carries at most [`MAX_BATCH_RECORDS`] records and
//!   [`MAX_BATCH_EVENTS`] events, and a batch time at most the request's
//!   budget (bytes/s × interval): what does not fit waits for the next;
//! * while the driver says the page is a slow reader
//!   ([`TraceStream::congested`]: its last write did not go at once), no
//!   batch is made — records wait;
//! * at most [`PENDING_RECORDS`] records and [`PENDING_EVENTS`] events
//!   wait. One more **thins** the stream: the oldest record of the lowest
//!   [`rank`] goes (Pings and Pongs first, then net updates, then the
//!   routine moves and Acks; what a story names — lost packets,
//!   Adjustments, shots — last), counted by rank in the next batch
//!   ([`Thinned`]); an event over the limit drops the oldest event,
//!   counted as named.

use super::trace::PacketRecord;
use super::trace_wire::{
    pack, packed_len, rank, RelayTimes, Thinned, TraceBatch, TraceRequest, TraceStart,
    MAX_BATCH_EVENTS, MAX_BATCH_RECORDS,
};
use crate::foundation::time::SimTime;
use std::collections::VecDeque;

/// Records waiting at most: two seconds of a single-player session
/// (~130 packets/s) with room to spare.
pub const PENDING_RECORDS: usize = 256;
/// Events waiting at most.
pub const PENDING_EVENTS: usize = 16;

/// One connection's trace on its way out (see the module doc).
#[derive(Debug, Clone)]
pub struct TraceStream<E> {
    request: TraceRequest,
    /// When the next batch is due.
    next_batch: SimTime,
    pending: VecDeque<PacketRecord>,
    events: VecDeque<E>,
    /// The next batch's number.
    seq: u32,
    thinned: Thinned,
    /// Said in the next batch (the first after a request).
    start: Option<TraceStart>,
    congested: bool,
}

impl<E: Clone> TraceStream<E> {
    /// A stream for `request` (on, validated) made at `now` for the host
    /// `start` describes; its first batch is due one interval on.
    pub fn new(request: TraceRequest, now: SimTime, start: TraceStart) -> TraceStream<E> {
        TraceStream {
            next_batch: now.plus_millis(u64::from(request.interval_ms)),
            request,
            pending: VecDeque::new(),
            events: VecDeque::new(),
            seq: 0,
            thinned: Thinned::default(),
            start: Some(start),
            congested: false,
        }
    }

    /// The request in force.
    pub fn request(&self) -> TraceRequest {
        self.request
    }

    /// One packet's record, as its conditioner decided it.
    pub fn push(&mut self, record: PacketRecord) {
        if self.pending.len() >= PENDING_RECORDS {
            let lowest = self.pending.iter().map(rank).min().unwrap_or(3);
            if rank(&record) < lowest {
                self.thinned.count(rank(&record));
                return;
            }
            if let Some(i) = self.pending.iter().position(|r| rank(r) == lowest) {
                self.pending.remove(i);
            }
            self.thinned.count(lowest);
        }
        self.pending.push_back(record);
    }

    /// A room event the page's player was part of.
    pub fn push_event(&mut self, event: E) {
        if self.events.len() >= PENDING_EVENTS {
            self.events.pop_front();
            self.thinned.count(3);
        }
        self.events.push_back(event);
    }

    /// The driver's word on the page: `true` while its last write did not
    /// go at once (batches wait, and thin when too many wait).
    pub fn congested(&mut self, on: bool) {
        self.congested = on;
    }

    /// When the next batch is due, if there is anything to say and the
    /// page is reading.
    pub fn due(&self) -> Option<SimTime> {
        let something = !self.pending.is_empty()
            || !self.events.is_empty()
            || self.start.is_some()
            || self.thinned.total() > 0;
        (something && !self.congested).then_some(self.next_batch)
    }

    /// The batches due at `now` (none while congested or before the
    /// interval is over): oldest records first, each batch within
    /// [`MAX_BATCH_RECORDS`], all of them within the budget of one
    /// interval. Their [`TraceBatch::relay`] is for the driver to fill.
    pub fn take(&mut self, now: SimTime) -> Vec<TraceBatch<E>> {
        if self.due().is_none_or(|due| due > now) {
            return Vec::new();
        }
        self.next_batch = now.plus_millis(u64::from(self.request.interval_ms));
        let budget = (u64::from(self.request.budget_bytes_per_s)
            * u64::from(self.request.interval_ms)
            / 1000) as usize;
        let mut spent = 0;
        let mut out = Vec::new();
        loop {
            let batch = self.batch(budget.saturating_sub(spent));
            spent += batch.packets.iter().map(packed_len).sum::<usize>();
            // Another batch only when this one was cut by the record cap.
            let more = batch.packets.len() == MAX_BATCH_RECORDS
                && !self.pending.is_empty()
                && spent < budget;
            out.push(batch);
            if !more {
                return out;
            }
        }
    }

    /// One batch of at most `budget` bytes of records (at least one
    /// record if any waits: a budget never stalls the stream). A prefix
    /// of records packs to a prefix of the packing, so the candidates are
    /// packed once.
    fn batch(&mut self, budget: usize) -> TraceBatch<E> {
        let base_us = self.pending.front().map_or(0, |r| r.sent.0);
        let candidates: Vec<PacketRecord> = self
            .pending
            .iter()
            .take(MAX_BATCH_RECORDS)
            .copied()
            .collect();
        let mut packets = pack(base_us, &candidates);
        let mut bytes = 0;
        let n = packets
            .iter()
            .take_while(|p| {
                bytes += packed_len(p);
                bytes <= budget
            })
            .count()
            .max(usize::from(!packets.is_empty()));
        packets.truncate(n);
        self.pending.drain(..n);
        let events = self
            .events
            .drain(..self.events.len().min(MAX_BATCH_EVENTS))
            .collect();
        let seq = self.seq;
        self.seq = self.seq.wrapping_add(1);
        TraceBatch {
            seq,
            start: self.start.take(),
            base_us,
            packets,
            thinned: std::mem::take(&mut self.thinned),
            events,
            relay: RelayTimes::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::conditioner::Fate;
    use crate::net::trace::{Direction, PacketKind};

    fn record(index: u64, kind: PacketKind, lost: bool) -> PacketRecord {
        let sent = SimTime::from_millis(index * 5);
        PacketRecord {
            direction: Direction::Up,
            index,
            kind,
            detail: index as u32,
            also: [0, 0],
            bytes: 15,
            sent,
            fate: if lost {
                Fate::Lost { in_burst: false }
            } else {
                Fate::Delivered {
                    at: sent.plus_millis(40),
                    duplicate: false,
                    overtook: false,
                    resent: false,
                    held: false,
                }
            },
        }
    }

    fn stream() -> TraceStream<()> {
        TraceStream::new(
            TraceRequest::default(),
            SimTime::ZERO,
            TraceStart {
                seed: 7,
                made: SimTime::ZERO,
            },
        )
    }

    #[test]
    fn batches_come_every_interval_and_say_the_start_once() {
        let mut s = stream();
        s.push(record(0, PacketKind::ServerMove, false));
        assert_eq!(s.due(), Some(SimTime::from_millis(100)));
        assert!(s.take(SimTime::from_millis(99)).is_empty());
        let b = s.take(SimTime::from_millis(100));
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].seq, 0);
        assert_eq!(b[0].start.map(|s| s.seed), Some(7));
        assert_eq!(
            b[0].records().unwrap(),
            [record(0, PacketKind::ServerMove, false)]
        );
        assert_eq!(s.due(), None, "nothing more to say");
        s.push(record(1, PacketKind::Ack, false));
        let b = s.take(SimTime::from_millis(200));
        assert_eq!((b[0].seq, b[0].start), (1, None));
    }

    #[test]
    fn a_slow_page_loses_probes_first_then_updates_and_never_a_lost_packet() {
        let mut s = stream();
        s.congested(true);
        // Every fourth a Ping, every fourth a lost move, the rest net
        // updates and delivered moves: 400 records, 256 may wait.
        for i in 0..400 {
            let (kind, lost) = match i % 4 {
                0 => (PacketKind::Ping, false),
                1 => (PacketKind::ServerMove, true),
                2 => (PacketKind::Proxy, false),
                _ => (PacketKind::ServerMove, false),
            };
            s.push(record(i, kind, lost));
        }
        assert_eq!(s.due(), None, "no batch while congested");
        assert!(s.take(SimTime::from_millis(5_000)).is_empty());
        s.congested(false);
        let mut kept = Vec::new();
        let mut thinned = Thinned::default();
        let mut t = SimTime::from_millis(5_000);
        while s.due().is_some() {
            for b in s.take(t) {
                kept.extend(b.records().unwrap());
                thinned.merge(&b.thinned);
            }
            t = t.plus_millis(100);
        }
        // 144 thinned: all 100 Pings, then the 44 oldest net updates.
        assert_eq!(thinned, Thinned([100, 44, 0, 0]));
        assert_eq!(kept.len(), 256);
        let lost = kept.iter().filter(|r| !r.fate.delivered()).count();
        assert_eq!(lost, 100);
        assert!(kept.windows(2).all(|w| w[0].index < w[1].index));
    }

    #[test]
    fn a_budget_spreads_a_burst_over_the_next_batches() {
        let mut s: TraceStream<()> = TraceStream::new(
            TraceRequest {
                budget_bytes_per_s: 1_000,
                ..TraceRequest::default()
            },
            SimTime::ZERO,
            TraceStart {
                seed: 1,
                made: SimTime::ZERO,
            },
        );
        for i in 0..60 {
            s.push(record(i, PacketKind::ServerMove, false));
        }
        // 100 bytes per 100 ms: about a dozen 8-byte records each time.
        let first: Vec<_> = s.take(SimTime::from_millis(100));
        assert_eq!(first.len(), 1);
        let n = first[0].packets.len();
        let bytes: usize = first[0].packets.iter().map(packed_len).sum();
        assert!(
            (8..=14).contains(&n) && bytes <= 100,
            "{n} records, {bytes} B"
        );
        let second = s.take(SimTime::from_millis(200));
        assert_eq!(second[0].records().unwrap()[0].index, n as u64);
        assert_eq!(second[0].thinned.total(), 0, "waiting is not thinning");
    }
}
