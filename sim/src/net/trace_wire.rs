//! The packet trace on the wire (issue 23): what the relay tells a page
//! its link did. The page asks with a [`TraceRequest`]; the host answers
//! every [`TraceRequest::interval_ms`] with a [`TraceBatch`] of the
//! packets its conditioners decided since the last one — the same
//! [`PacketRecord`]s a local run keeps ([`super::trace`]) — packed as
//! small deltas ([`PackedRecord`]), plus the relay's own processing times
//! ([`RelayTimes`], measured by the relay: `sim` has no clock) and events
//! (`E`: the control messages the host acted on, a room's shots).
//!
//! ## A packet in a few bytes
//! Each record is postcard varints, every number relative to the record
//! before it in the batch:
//!
//! | field | holds | typical |
//! |---|---|---|
//! | `head` | direction, kind, fate | 1 B (2 B lost, dropped, resent or held) |
//! | `skip` | packets of that direction left out since the previous one (the batch's first: its index) | 1 B |
//! | `sent` | µs since the previous record was sent | 1–3 B |
//! | `detail` | the naming number (time stamp, tick, id) minus the previous of its kind | 1–2 B |
//! | `bytes` | size on the wire | 1 B |
//! | `transit` | delivered: its send-to-arrival time minus the previous one's in its direction | 1–3 B |
//! | `also` | ServerMove: pending and old move; rollback Ack: missed and late; verdict, ammo | 1 B when absent |
//!
//! Batches stand alone (the first record of each kind and direction is
//! written in full), so a lost connection or a thinned stretch never
//! corrupts the next one. A batch holds at most [`MAX_BATCH_RECORDS`]
//! records and [`MAX_BATCH_EVENTS`] events: the worst case fits one frame
//! ([`crate::net::codec::MAX_FRAME_LEN`], pinned by a test).

use super::conditioner::Fate;
use super::trace::{Direction, PacketKind, PacketRecord};
use crate::foundation::control::{check, SettingsError};
use crate::foundation::time::SimTime;
use serde::{Deserialize, Serialize};

/// The trace's own format number, in every request: a page built for
/// another format is told so instead of misreading batches.
pub const TRACE_FORMAT: u8 = 2;
/// The page's batch interval, ms (10 batches/s: the live timeline draws
/// at 20 Hz).
pub const DEFAULT_INTERVAL_MS: u16 = 100;
/// Batch intervals a request may ask for, ms.
pub const INTERVAL_RANGE_MS: (u16, u16) = (50, 1000);
/// The page's trace budget, bytes/s: ten times a single-player session's
/// trace (~1.2 kB/s, `docs/performance.md`), room to spare for a room.
pub const DEFAULT_BUDGET_BYTES_PER_S: u32 = 16_000;
/// Budgets a request may ask for, bytes/s.
pub const BUDGET_RANGE_BYTES_PER_S: (u32, u32) = (1_000, 64_000);
/// Records in one batch at most.
pub const MAX_BATCH_RECORDS: usize = 36;
/// Events in one batch at most.
pub const MAX_BATCH_EVENTS: usize = 4;
/// The largest event a batch may carry, bytes (the protocol's events are
/// pinned under it by a test).
pub const MAX_EVENT_LEN: usize = 96;

/// The page asks for (or stops) its connection's packet trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRequest {
    /// [`TRACE_FORMAT`] of the page's build.
    pub format: u8,
    /// Time between batches, ms, within [`INTERVAL_RANGE_MS`]; 0 stops
    /// the trace.
    pub interval_ms: u16,
    /// Most trace bytes per second the page wants, within
    /// [`BUDGET_RANGE_BYTES_PER_S`]; beyond it the trace is thinned
    /// ([`rank`]).
    pub budget_bytes_per_s: u32,
}

impl Default for TraceRequest {
    /// What the page asks for: a batch every 100 ms, 16 kB/s at most.
    fn default() -> Self {
        TraceRequest {
            format: TRACE_FORMAT,
            interval_ms: DEFAULT_INTERVAL_MS,
            budget_bytes_per_s: DEFAULT_BUDGET_BYTES_PER_S,
        }
    }
}

impl TraceRequest {
    /// Stops the trace.
    pub const OFF: TraceRequest = TraceRequest {
        format: TRACE_FORMAT,
        interval_ms: 0,
        budget_bytes_per_s: DEFAULT_BUDGET_BYTES_PER_S,
    };

    /// Whether it asks for a trace.
    pub fn is_on(&self) -> bool {
        self.interval_ms != 0
    }

    /// Checks the request.
    ///
    /// # Errors
    /// [`SettingsError`] naming `trace format` (not [`TRACE_FORMAT`]),
    /// `trace interval (ms)` or `trace budget (bytes/s)` out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let f = u32::from(TRACE_FORMAT);
        check("trace format", u32::from(self.format), f..=f)?;
        if !self.is_on() {
            return Ok(());
        }
        let (lo, hi) = INTERVAL_RANGE_MS;
        check(
            "trace interval (ms)",
            u32::from(self.interval_ms),
            u32::from(lo)..=u32::from(hi),
        )?;
        let (lo, hi) = BUDGET_RANGE_BYTES_PER_S;
        check("trace budget (bytes/s)", self.budget_bytes_per_s, lo..=hi)
    }
}

/// What the first batch after a request says of the host: with every
/// uplink packet's receive time (its record's `sent`) and the control
/// messages it acted on (the protocol's events), what a re-simulation of
/// the host needs besides the times it was polled at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceStart {
    /// The host's seed: its conditioners and rolls draw from it.
    pub seed: u64,
    /// When the host was made, on the relay's clock.
    pub made: SimTime,
}

/// Durations of one kind of work the relay did, µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Timing {
    /// How many.
    pub count: u32,
    /// Their sum, µs (saturating).
    pub total_us: u32,
    /// The longest, µs.
    pub max_us: u32,
}

impl Timing {
    /// Adds one duration of `us` µs.
    pub fn record(&mut self, us: u64) {
        let us = u32::try_from(us).unwrap_or(u32::MAX);
        self.count = self.count.saturating_add(1);
        self.total_us = self.total_us.saturating_add(us);
        self.max_us = self.max_us.max(us);
    }

    /// Adds `other`'s durations.
    pub fn merge(&mut self, other: &Timing) {
        self.count = self.count.saturating_add(other.count);
        self.total_us = self.total_us.saturating_add(other.total_us);
        self.max_us = self.max_us.max(other.max_us);
    }

    /// The mean, ms (`None` with none).
    pub fn mean_ms(&self) -> Option<f64> {
        (self.count > 0).then(|| f64::from(self.total_us) / f64::from(self.count) / 1000.0)
    }
}

/// The relay's own processing, measured by its driver over a batch's
/// interval: what a packet waits in the relay besides the conditioner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RelayTimes {
    /// A frame read from the socket until the host has taken it (decode,
    /// budget, host).
    pub receive: Timing,
    /// How late a host poll ran after the wake-up the host asked for
    /// (the timer and the scheduler).
    pub late: Timing,
    /// A host poll: simulate, answer, encode.
    pub poll: Timing,
    /// The frames of a poll until the socket took them.
    pub write: Timing,
}

impl RelayTimes {
    /// Adds `other`'s durations.
    pub fn merge(&mut self, other: &RelayTimes) {
        self.receive.merge(&other.receive);
        self.late.merge(&other.late);
        self.poll.merge(&other.poll);
        self.write.merge(&other.write);
    }

    /// Receive → simulate → reply: the means of the four added, ms
    /// (`None` before anything was measured).
    pub fn processing_ms(&self) -> Option<f64> {
        let parts = [self.receive, self.late, self.poll, self.write];
        parts
            .iter()
            .any(|t| t.count > 0)
            .then(|| parts.iter().filter_map(Timing::mean_ms).sum())
    }
}

/// How much a record matters, for thinning: a slow page loses the lowest
/// rank first, oldest first within a rank.
///
/// | rank | records |
/// |---|---|
/// | 0 probes | Ping, Pong, clock sync |
/// | 1 updates | net updates, ammo, anything else |
/// | 2 routine | moves, inputs, Acks, States, reloads that arrived |
/// | 3 named | every lost or dropped packet, Adjustments, shots and verdicts: what a story names |
pub fn rank(r: &PacketRecord) -> usize {
    if !r.fate.delivered() {
        return 3;
    }
    match r.kind {
        PacketKind::Ping | PacketKind::Pong | PacketKind::Clock => 0,
        PacketKind::Proxy | PacketKind::Ammo | PacketKind::Other => 1,
        PacketKind::ServerMove
        | PacketKind::Inputs
        | PacketKind::Ack
        | PacketKind::RollbackAck
        | PacketKind::State
        | PacketKind::Reload => 2,
        PacketKind::Adjustment | PacketKind::Shot | PacketKind::Verdict => 3,
    }
}

/// Records and events left out of the stream since the previous batch,
/// by [`rank`] (events count as named).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Thinned(pub [u32; 4]);

impl Thinned {
    /// One more of `rank` left out.
    pub fn count(&mut self, rank: usize) {
        let n = &mut self.0[rank.min(3)];
        *n = n.saturating_add(1);
    }

    /// All left out.
    pub fn total(&self) -> u64 {
        self.0.iter().map(|&n| u64::from(n)).sum()
    }

    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: &Thinned) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a = a.saturating_add(b);
        }
    }
}

/// One packet, packed (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackedRecord {
    /// Bits 0–3 the kind ([`PacketKind::code`]), bit 4 downlink, bits
    /// 5–9 the fate ([`fate_code`]); a varint, so one byte for a packet
    /// delivered on time (fate codes 0–3).
    pub head: u16,
    /// Packets of its direction between the previous record of that
    /// direction and this one (0: none left out); for the batch's first
    /// of its direction, its index.
    pub skip: u64,
    /// µs since the previous record's send (the first: since the batch's
    /// base).
    pub sent: u32,
    /// Its detail minus the previous detail of its kind (wrapping).
    pub detail: i32,
    /// Size on the wire, bytes.
    pub bytes: u16,
    /// Delivered: its transit (µs) minus the previous delivered transit of
    /// its direction; otherwise 0.
    pub transit: i32,
    /// The kind's two extra numbers, for the kinds that have them
    /// ([`PacketKind::has_also`]) unless both are 0.
    pub also: Option<[u32; 2]>,
}

/// One batch of the trace: the records and `E` events since the previous
/// one, and the relay's times over its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceBatch<E> {
    /// Batches since the request, from 0: a gap is a batch the page never
    /// got (it was dropped with a full send queue).
    pub seq: u32,
    /// The host, in the first batch after a request.
    pub start: Option<TraceStart>,
    /// The first record's send time, relay clock, µs.
    pub base_us: u64,
    /// The records, oldest first.
    pub packets: Vec<PackedRecord>,
    /// What was left out since the previous batch.
    pub thinned: Thinned,
    /// Events since the previous batch: the control messages the host
    /// acted on, the room's shots this page's player was part of.
    pub events: Vec<E>,
    /// The relay's own processing since the previous batch.
    pub relay: RelayTimes,
}

impl<E> TraceBatch<E> {
    /// The records, unpacked (relay clock).
    ///
    /// # Errors
    /// [`BadBatch`] when a record does not add up (a fate code out of
    /// range); nothing is returned then.
    pub fn records(&self) -> Result<Vec<PacketRecord>, BadBatch> {
        unpack(self.base_us, &self.packets)
    }
}

/// A batch whose records do not add up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("trace record {index}: fate code {code} is not one")]
pub struct BadBatch {
    /// The record's position in the batch.
    pub index: usize,
    /// Its fate code.
    pub code: u8,
}

/// A fate's code, `0..=18`: delivered `0..=15` (+1 duplicated, +2
/// overtook, +4 resent, +8 held), 16 lost, 17 lost in a burst, 18 dropped
/// by a full queue. The arrival time of a delivered packet travels in
/// `transit`.
pub fn fate_code(fate: &Fate) -> u8 {
    match *fate {
        Fate::Delivered {
            duplicate,
            overtook,
            resent,
            held,
            ..
        } => {
            u8::from(duplicate)
                | u8::from(overtook) << 1
                | u8::from(resent) << 2
                | u8::from(held) << 3
        }
        Fate::Lost { in_burst: false } => LOST,
        Fate::Lost { in_burst: true } => LOST_IN_BURST,
        Fate::Overflowed => OVERFLOWED,
    }
}

/// [`fate_code`]s past the deliveries' `0..=15`.
const LOST: u8 = 16;
const LOST_IN_BURST: u8 = 17;
const OVERFLOWED: u8 = 18;

/// What packing remembers of the records before: the previous send, each
/// kind's previous detail, each direction's previous index and transit.
#[derive(Debug, Clone, Default)]
struct Deltas {
    sent: u64,
    detail: [u32; 16],
    index: [Option<u64>; 2],
    transit: [i64; 2],
}

fn dir(d: Direction) -> usize {
    usize::from(d == Direction::Down)
}

/// Packs `records` (sent times non-decreasing, as a link records them)
/// against `base_us`, the first one's send time.
pub fn pack(base_us: u64, records: &[PacketRecord]) -> Vec<PackedRecord> {
    let mut d = Deltas {
        sent: base_us,
        ..Deltas::default()
    };
    records
        .iter()
        .map(|r| {
            let (k, i) = (usize::from(r.kind.code()), dir(r.direction));
            let skip = match d.index[i] {
                Some(prev) => r.index.saturating_sub(prev + 1),
                None => r.index,
            };
            d.index[i] = Some(r.index);
            let sent = u32::try_from(r.sent.0.saturating_sub(d.sent)).unwrap_or(u32::MAX);
            d.sent = d.sent.saturating_add(u64::from(sent));
            let detail = r.detail.wrapping_sub(d.detail[k]) as i32;
            d.detail[k] = r.detail;
            let transit = match r.fate {
                Fate::Delivered { at, .. } => {
                    let t = i64::try_from(at.0.saturating_sub(r.sent.0)).unwrap_or(i64::MAX);
                    let delta = (t - d.transit[i]).clamp(i64::from(i32::MIN), i64::from(i32::MAX));
                    d.transit[i] += delta;
                    delta as i32
                }
                _ => 0,
            };
            PackedRecord {
                head: u16::from(r.kind.code())
                    | (i as u16) << 4
                    | u16::from(fate_code(&r.fate)) << 5,
                skip,
                sent,
                detail,
                bytes: u16::try_from(r.bytes).unwrap_or(u16::MAX),
                transit,
                also: (r.kind.has_also() && r.also != [0, 0]).then_some(r.also),
            }
        })
        .collect()
}

/// The records `packed` holds, against `base_us` (see [`pack`]).
///
/// # Errors
/// [`BadBatch`] for a fate code above 18.
pub fn unpack(base_us: u64, packed: &[PackedRecord]) -> Result<Vec<PacketRecord>, BadBatch> {
    let mut d = Deltas {
        sent: base_us,
        ..Deltas::default()
    };
    packed
        .iter()
        .enumerate()
        .map(|(n, p)| {
            let kind = PacketKind::from_code((p.head & 0x0f) as u8);
            let k = usize::from(kind.code());
            let i = usize::from(p.head >> 4 & 1);
            let index = match d.index[i] {
                Some(prev) => prev.saturating_add(1).saturating_add(p.skip),
                None => p.skip,
            };
            d.index[i] = Some(index);
            d.sent = d.sent.saturating_add(u64::from(p.sent));
            d.detail[k] = d.detail[k].wrapping_add(p.detail as u32);
            let sent = SimTime(d.sent);
            let code = u8::try_from(p.head >> 5).unwrap_or(u8::MAX);
            let fate = match code {
                0..LOST => {
                    d.transit[i] = d.transit[i].saturating_add(i64::from(p.transit));
                    Fate::Delivered {
                        at: sent.plus_micros(d.transit[i].max(0).unsigned_abs()),
                        duplicate: code & 1 != 0,
                        overtook: code & 2 != 0,
                        resent: code & 4 != 0,
                        held: code & 8 != 0,
                    }
                }
                LOST => Fate::Lost { in_burst: false },
                LOST_IN_BURST => Fate::Lost { in_burst: true },
                OVERFLOWED => Fate::Overflowed,
                code => return Err(BadBatch { index: n, code }),
            };
            Ok(PacketRecord {
                direction: if i == 1 {
                    Direction::Down
                } else {
                    Direction::Up
                },
                index,
                kind,
                detail: d.detail[k],
                also: p.also.unwrap_or_default(),
                bytes: u32::from(p.bytes),
                sent,
                fate,
            })
        })
        .collect()
}

/// The encoded size of one packed record, bytes (postcard's).
pub fn packed_len(p: &PackedRecord) -> usize {
    postcard::experimental::serialized_size(p).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn record(direction: Direction, index: u64, kind: PacketKind, sent_ms: u64) -> PacketRecord {
        PacketRecord {
            direction,
            index,
            kind,
            detail: (sent_ms as u32).wrapping_mul(7),
            also: if kind.has_also() { [3, 4] } else { [0, 0] },
            bytes: 16,
            sent: SimTime::from_millis(sent_ms),
            fate: Fate::Delivered {
                at: SimTime::from_millis(sent_ms + 50),
                duplicate: false,
                overtook: false,
                resent: false,
                held: false,
            },
        }
    }

    #[test]
    fn a_steady_server_move_packs_into_nine_bytes() {
        // 60 Hz moves, 16 ms time stamps, a steady 50 ms transit: the
        // send gap (16 667 µs) takes three bytes, everything else one; the
        // first is written in full.
        let records: Vec<PacketRecord> = (0..3)
            .map(|i| PacketRecord {
                detail: 1000 + 16 * i as u32,
                also: [0, 0],
                sent: SimTime(1_000_000 + i * 16_667),
                fate: Fate::Delivered {
                    at: SimTime(1_050_000 + i * 16_667),
                    duplicate: false,
                    overtook: false,
                    resent: false,
                    held: false,
                },
                ..record(Direction::Up, 40 + i, PacketKind::ServerMove, 0)
            })
            .collect();
        let packed = pack(1_000_000, &records);
        let sizes: Vec<usize> = packed.iter().map(packed_len).collect();
        assert_eq!(sizes, [10, 9, 9]);
        assert_eq!(unpack(1_000_000, &packed).unwrap(), records);
    }

    #[test]
    fn resent_and_held_packets_keep_their_marks_in_two_bytes_of_head() {
        let records: Vec<PacketRecord> = [(true, false), (false, true), (true, true)]
            .into_iter()
            .enumerate()
            .map(|(i, (resent, held))| PacketRecord {
                fate: Fate::Delivered {
                    at: SimTime::from_millis(300 + i as u64),
                    duplicate: false,
                    overtook: false,
                    resent,
                    held,
                },
                ..record(Direction::Down, i as u64, PacketKind::Ack, 50 + i as u64)
            })
            .collect();
        let packed = pack(50_000, &records);
        assert_eq!(
            packed.iter().map(|p| p.head >> 5).collect::<Vec<_>>(),
            [4, 8, 12]
        );
        assert!(packed
            .iter()
            .all(|p| postcard::to_allocvec(&p.head).unwrap().len() == 2));
        assert_eq!(unpack(50_000, &packed).unwrap(), records);
    }

    #[test]
    fn requests_out_of_range_name_the_field() {
        assert_eq!(TraceRequest::default().validate(), Ok(()));
        assert_eq!(TraceRequest::OFF.validate(), Ok(()));
        let forged = TraceRequest {
            format: 9,
            ..TraceRequest::default()
        };
        assert_eq!(
            forged.validate().unwrap_err().to_string(),
            "trace format = 9 is outside 2–2"
        );
        let greedy = TraceRequest {
            budget_bytes_per_s: 10_000_000,
            ..TraceRequest::default()
        };
        assert_eq!(
            greedy.validate().unwrap_err().to_string(),
            "trace budget (bytes/s) = 10000000 is outside 1000–64000"
        );
        let fast = TraceRequest {
            interval_ms: 1,
            ..TraceRequest::default()
        };
        assert!(fast.validate().is_err());
    }

    #[test]
    fn a_bad_fate_code_is_an_error_not_a_panic() {
        let mut p = pack(0, &[record(Direction::Down, 0, PacketKind::Ack, 5)]);
        p[0].head |= 19 << 5;
        assert_eq!(unpack(0, &p), Err(BadBatch { index: 0, code: 19 }));
    }

    #[test]
    fn the_worst_batch_fits_one_frame() {
        let worst = PackedRecord {
            head: u16::MAX,
            skip: u64::MAX,
            sent: u32::MAX,
            detail: i32::MIN,
            bytes: u16::MAX,
            transit: i32::MIN,
            also: Some([u32::MAX; 2]),
        };
        let t = Timing {
            count: u32::MAX,
            total_us: u32::MAX,
            max_us: u32::MAX,
        };
        // The largest event ([`crate::protocol`] pins its events under
        // it); here a stand-in of that size.
        let batch = TraceBatch {
            seq: u32::MAX,
            start: Some(TraceStart {
                seed: u64::MAX,
                made: SimTime(u64::MAX),
            }),
            base_us: u64::MAX,
            packets: vec![worst; MAX_BATCH_RECORDS],
            thinned: Thinned([u32::MAX; 4]),
            events: vec![vec![u8::MAX; MAX_EVENT_LEN - 1]; MAX_BATCH_EVENTS],
            relay: RelayTimes {
                receive: t,
                late: t,
                poll: t,
                write: t,
            },
        };
        let len = postcard::to_allocvec(&batch).unwrap().len();
        // + the frame's version byte and the message's two variant bytes.
        assert!(len + 3 <= crate::net::codec::MAX_FRAME_LEN, "{len} bytes");
    }

    proptest! {
        /// Invariant: any record sequence a link makes (sent times not
        /// decreasing, indices rising per direction) comes back unpacked
        /// exactly as it was packed.
        #[test]
        fn packing_round_trips(steps in proptest::collection::vec(
            (any::<bool>(), 0u64..3, 0u8..15, 0u64..40_000, any::<u32>(), 0u8..19, 0u64..900_000, any::<u32>()), 0..60)) {
            let mut sent = 5_000_000u64;
            let mut index = [0u64, 0u64];
            let records: Vec<PacketRecord> = steps.into_iter().map(|(down, skip, kind, gap, detail, fate, transit, also)| {
                let d = usize::from(down);
                index[d] += skip + 1;
                sent += gap;
                let kind = PacketKind::from_code(kind);
                let at = SimTime(sent + transit);
                PacketRecord {
                    direction: if down { Direction::Down } else { Direction::Up },
                    index: index[d],
                    kind,
                    detail,
                    also: if kind.has_also() { [also, also / 3] } else { [0, 0] },
                    bytes: also % 2048,
                    sent: SimTime(sent),
                    fate: match fate {
                        0..=15 => Fate::Delivered { at, duplicate: fate & 1 != 0, overtook: fate & 2 != 0, resent: fate & 4 != 0, held: fate & 8 != 0 },
                        16 => Fate::Lost { in_burst: false },
                        17 => Fate::Lost { in_burst: true },
                        _ => Fate::Overflowed,
                    },
                }
            }).collect();
            let base = records.first().map_or(0, |r| r.sent.0);
            prop_assert_eq!(unpack(base, &pack(base, &records)).unwrap(), records);
        }
    }
}
