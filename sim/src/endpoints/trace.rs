//! [`RelayTrace`]: the page's end of the packet trace (issue 23) — the
//! relay's batches ([`crate::net::trace_wire`]) turned into the same
//! [`PacketLog`] a local run keeps, on the **page's** clock, so that the
//! lanes, stories and the latency budget read them as they read a local
//! run's; with the relay's processing times, what was thinned, and in a
//! room the shots the player fired or was judged the target of.
//!
//! ## Two clocks
//! The relay stamps records with its clock; the page draws on its own.
//! Their offset is measured as NTP measures it, from the page's Pings:
//! the page knows when it sent Ping *n* (t0) and when its Pong came back
//! (t3); the trace says when the relay took the Ping in (t1, the Ping's
//! record) and when its Pong left the conditioner (t2, the Pong's
//! arrival). Offset θ = ((t1 − t0) + (t2 − t3)) / 2, good to half the
//! real network's round trip δ = (t3 − t0) − (t2 − t1); of the last
//! [`OFFSET_SAMPLES`] the sample with the least δ is used (RFC 5905's
//! clock filter), and the records move with it. Records that come before
//! the first sample wait for it (at most [`UNPLACED_KEPT`]).

use crate::foundation::bounded::Bounded;
use crate::foundation::time::SimTime;
use crate::net::conditioner::Fate;
use crate::net::trace::{Direction, PacketKind, PacketLog, PacketRecord};
use crate::net::trace_wire::{RelayTimes, Thinned, TraceRequest, TraceStart};
use crate::protocol::trace::{JudgedShot, TraceEvent, TraceFrame};
use std::collections::VecDeque;

/// Records kept on the page: ~130 packets/s for a minute (as an in-page
/// run's live timeline keeps).
pub const TRACE_RECORDS_KEPT: usize = 8192;
/// Clock samples the offset is chosen from (6.4 s of Pings at 10 Hz).
pub const OFFSET_SAMPLES: usize = 64;
/// Records kept while no clock sample exists yet.
pub const UNPLACED_KEPT: usize = 1024;
/// A better clock sample moves the records only if it moves them by more
/// than this, µs.
const SHIFT_AT_US: i64 = 200;
/// Batches' relay times kept (a minute at 10 batches/s).
const TIMES_KEPT: usize = 600;
/// Judged shots kept.
const SHOTS_KEPT: usize = 64;
/// Control messages kept.
const CONTROLS_KEPT: usize = 256;

/// A control message the host acted on, as the trace told it: when
/// (relay clock), after how many packets each way, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlRecord {
    /// Relay clock.
    pub at: SimTime,
    /// Uplink packets sent before it.
    pub up: u64,
    /// Downlink packets sent before it.
    pub down: u64,
    /// The message.
    pub msg: crate::protocol::ClientMsg,
}

/// One Ping's four times, as they become known.
#[derive(Debug, Clone, Copy, Default)]
struct PingTimes {
    id: u32,
    /// Page: sent.
    t0: Option<SimTime>,
    /// Relay: taken in.
    t1: Option<SimTime>,
    /// Relay: its Pong left the conditioner.
    t2: Option<SimTime>,
    /// Page: its Pong arrived.
    t3: Option<SimTime>,
}

/// A clock sample: relay minus page, and the real network's round trip
/// it was measured over, µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSample {
    /// Relay clock minus page clock, µs.
    pub offset_us: i64,
    /// The round trip outside the relay (network and both ends), µs.
    pub delay_us: i64,
}

/// The page's end of the packet trace (see the module doc).
#[derive(Debug, Clone)]
pub struct RelayTrace {
    log: PacketLog,
    unplaced: Vec<PacketRecord>,
    pings: VecDeque<PingTimes>,
    samples: VecDeque<ClockSample>,
    /// The sample the log is placed with.
    placed: Option<ClockSample>,
    times: Bounded<(SimTime, RelayTimes)>,
    shots: Bounded<JudgedShot>,
    controls: Bounded<ControlRecord>,
    thinned: Thinned,
    start: Option<TraceStart>,
    batches: u64,
    missed_batches: u64,
    bad_batches: u64,
    bytes: u64,
    next_seq: Option<u32>,
}

impl Default for RelayTrace {
    fn default() -> Self {
        RelayTrace {
            log: PacketLog::new(TRACE_RECORDS_KEPT),
            unplaced: Vec::new(),
            pings: VecDeque::new(),
            samples: VecDeque::new(),
            placed: None,
            times: Bounded::new(TIMES_KEPT),
            shots: Bounded::new(SHOTS_KEPT),
            controls: Bounded::new(CONTROLS_KEPT),
            thinned: Thinned::default(),
            start: None,
            batches: 0,
            missed_batches: 0,
            bad_batches: 0,
            bytes: 0,
            next_seq: None,
        }
    }
}

impl RelayTrace {
    /// Follows a trace `request` an end sent: the trace kept in `slot`
    /// starts (or carries on) while it is on and is dropped when it is off.
    pub(crate) fn follow(slot: &mut Option<Box<RelayTrace>>, request: TraceRequest) {
        if request.is_on() {
            slot.get_or_insert_with(Box::default);
        } else {
            *slot = None;
        }
    }

    /// Ping `id` left the page at `now`.
    pub fn ping_sent(&mut self, id: u32, now: SimTime) {
        self.ping(id).t0 = Some(now);
    }

    /// Pong `id` arrived at `now`.
    pub fn pong_arrived(&mut self, id: u32, now: SimTime) {
        self.ping(id).t3 = Some(now);
        self.try_sample(id);
    }

    fn ping(&mut self, id: u32) -> &mut PingTimes {
        let i = match self.pings.iter().position(|p| p.id == id) {
            Some(i) => i,
            None => {
                if self.pings.len() >= OFFSET_SAMPLES {
                    self.pings.pop_front();
                }
                self.pings.push_back(PingTimes {
                    id,
                    ..PingTimes::default()
                });
                self.pings.len() - 1
            }
        };
        &mut self.pings[i]
    }

    /// A batch of `bytes` bytes that arrived at `now` (page clock).
    pub fn receive(&mut self, now: SimTime, batch: &TraceFrame, bytes: usize) {
        self.batches += 1;
        self.bytes += bytes as u64;
        if let Some(expected) = self.next_seq {
            self.missed_batches += u64::from(batch.seq.wrapping_sub(expected));
        }
        self.next_seq = Some(batch.seq.wrapping_add(1));
        if batch.start.is_some() {
            self.start = batch.start;
        }
        self.thinned.merge(&batch.thinned);
        self.times.push((now, batch.relay));
        let Ok(records) = batch.records() else {
            self.bad_batches += 1;
            return;
        };
        for r in &records {
            let slot = match (r.direction, r.kind) {
                (Direction::Up, PacketKind::Ping) => Some(r.detail),
                (Direction::Down, PacketKind::Pong) => Some(r.detail),
                _ => None,
            };
            if let Some(id) = slot {
                let p = self.ping(id);
                match r.fate {
                    Fate::Delivered { at, .. } if r.direction == Direction::Down => p.t2 = Some(at),
                    _ if r.direction == Direction::Up => p.t1 = Some(r.sent),
                    _ => {}
                }
                self.try_sample(id);
            }
        }
        for e in &batch.events {
            match e {
                TraceEvent::Shot(s) => self.shots.push(*s),
                TraceEvent::Control { at, up, down, msg } => self.controls.push(ControlRecord {
                    at: *at,
                    up: *up,
                    down: *down,
                    msg: msg.clone(),
                }),
            }
        }
        match self.placed {
            Some(c) => {
                for r in records {
                    self.log.push(to_page(r, c.offset_us));
                }
            }
            None => {
                let room = UNPLACED_KEPT.saturating_sub(self.unplaced.len());
                self.unplaced.extend(records.into_iter().take(room));
            }
        }
    }

    /// A sample from Ping `id` if its four times are known; the offset
    /// follows the least-delay sample of the last [`OFFSET_SAMPLES`].
    fn try_sample(&mut self, id: u32) {
        let Some(p) = self.pings.iter().find(|p| p.id == id).copied() else {
            return;
        };
        let (Some(t0), Some(t1), Some(t2), Some(t3)) = (p.t0, p.t1, p.t2, p.t3) else {
            return;
        };
        self.pings.retain(|q| q.id != id);
        let us = |t: SimTime| t.0 as i64;
        let sample = ClockSample {
            offset_us: ((us(t1) - us(t0)) + (us(t2) - us(t3))) / 2,
            delay_us: (us(t3) - us(t0)) - (us(t2) - us(t1)),
        };
        if self.samples.len() >= OFFSET_SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back(sample);
        let Some(best) = self.samples.iter().min_by_key(|s| s.delay_us).copied() else {
            return;
        };
        match self.placed {
            None => {
                self.placed = Some(best);
                for r in std::mem::take(&mut self.unplaced) {
                    self.log.push(to_page(r, best.offset_us));
                }
            }
            Some(old) if (old.offset_us - best.offset_us).abs() > SHIFT_AT_US => {
                self.log.shift(old.offset_us - best.offset_us);
                self.placed = Some(best);
            }
            Some(_) => {}
        }
    }

    /// The packets, on the page's clock (empty until the first clock
    /// sample).
    pub fn log(&self) -> &PacketLog {
        &self.log
    }

    /// The clock sample the records are placed with.
    pub fn clock(&self) -> Option<ClockSample> {
        self.placed
    }

    /// Relay time `t` on the page's clock (`None` before a clock sample).
    pub fn to_page(&self, t: SimTime) -> Option<SimTime> {
        let c = self.placed?;
        Some(SimTime(t.0.saturating_add_signed(-c.offset_us)))
    }

    /// The relay's times of the batches that arrived in `from..=to` (page
    /// clock), added up.
    pub fn relay_times(&self, from: SimTime, to: SimTime) -> RelayTimes {
        let mut sum = RelayTimes::default();
        for (at, t) in self.times.items() {
            if (from..=to).contains(at) {
                sum.merge(t);
            }
        }
        sum
    }

    /// The shots judged (a room), oldest first, on the relay's clock.
    pub fn shots(&self) -> impl Iterator<Item = &JudgedShot> {
        self.shots.items().iter()
    }

    /// The control messages the host acted on, oldest first (the newest
    /// [`CONTROLS_KEPT`]).
    pub fn controls(&self) -> impl Iterator<Item = &ControlRecord> {
        self.controls.items().iter()
    }

    /// Records and events thinned by the relay so far, by rank.
    pub fn thinned(&self) -> Thinned {
        self.thinned
    }

    /// What the first batch said of the host.
    pub fn start(&self) -> Option<TraceStart> {
        self.start
    }

    /// Batches received, batches missing (gaps in their numbers), batches
    /// that did not add up, and trace bytes received.
    pub fn counts(&self) -> (u64, u64, u64, u64) {
        (
            self.batches,
            self.missed_batches,
            self.bad_batches,
            self.bytes,
        )
    }
}

/// `r` moved from the relay's clock to the page's (`offset_us`: relay −
/// page).
fn to_page(mut r: PacketRecord, offset_us: i64) -> PacketRecord {
    r.sent = SimTime(r.sent.0.saturating_add_signed(-offset_us));
    if let Fate::Delivered { at, .. } = &mut r.fate {
        *at = SimTime(at.0.saturating_add_signed(-offset_us));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::trace_wire::{pack, Thinned, TraceBatch};

    fn rec(direction: Direction, index: u64, kind: PacketKind, sent: u64, at: u64) -> PacketRecord {
        PacketRecord {
            direction,
            index,
            kind,
            detail: 1,
            also: [0, 0],
            bytes: 6,
            sent: SimTime(sent),
            fate: Fate::Delivered {
                at: SimTime(at),
                duplicate: false,
                overtook: false,
                resent: false,
                held: false,
            },
        }
    }

    fn batch(seq: u32, records: &[PacketRecord]) -> TraceFrame {
        let base = records.first().map_or(0, |r| r.sent.0);
        TraceBatch {
            seq,
            start: None,
            base_us: base,
            packets: pack(base, records),
            thinned: Thinned::default(),
            events: Vec::new(),
            relay: RelayTimes::default(),
        }
    }

    #[test]
    fn records_land_on_the_page_clock_once_a_ping_measures_the_offset() {
        // The relay's clock runs 5 s ahead of the page's; the real network
        // takes 1 ms each way, the conditioner 40 ms each way.
        let mut t = RelayTrace::default();
        t.ping_sent(1, SimTime(100_000));
        let ping = rec(Direction::Up, 0, PacketKind::Ping, 5_101_000, 5_141_000);
        let pong = rec(Direction::Down, 0, PacketKind::Pong, 5_141_000, 5_181_000);
        t.receive(SimTime(150_000), &batch(0, &[ping]), 20);
        assert!(t.log().records().is_empty(), "no clock yet");
        t.pong_arrived(1, SimTime(182_000));
        t.receive(SimTime(250_000), &batch(1, &[pong]), 20);
        assert_eq!(
            t.clock(),
            Some(ClockSample {
                offset_us: 5_000_000,
                delay_us: 2_000
            })
        );
        let r = t.log().records();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].sent, SimTime(101_000));
        assert!(r[1].fate.delivered());
        assert_eq!(t.to_page(SimTime(5_200_000)), Some(SimTime(200_000)));
        // A lost batch shows as a gap in the numbers.
        t.receive(SimTime(450_000), &batch(3, &[]), 8);
        assert_eq!(t.counts(), (3, 1, 0, 48));
    }
}
