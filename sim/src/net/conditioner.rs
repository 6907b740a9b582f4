//! The link conditioner: one direction of a link with latency, jitter,
//! independent and bursty loss, duplication, reordering, lag spikes and a
//! bandwidth cap, driven by a named seeded PRNG and a clock passed in.
//!
//! It mirrors UE's `Net PktLag / PktLagVariance / PktLoss / PktDup /
//! PktOrder` (reference `003_…` §六 "模拟网络延迟和丢包") and goes further:
//! Gilbert–Elliott bursts ([`super::gilbert_elliott`]), a serialization
//! queue behind a bandwidth cap, and lag spikes.
//!
//! ## What happens to a packet
//! ```text
//! send(now, bytes, item)
//!   5 draws: burst-state, loss, jitter, duplicate, reorder
//!   lost?  (good state: `loss`; bad state: `burst.loss_in_bad`) ─► dropped
//!   bandwidth cap: waits for the link, then takes bytes / cap to leave;
//!                  more than MAX_QUEUE_DELAY_MS of queue ─► dropped
//!   delivery = left the link + latency ± jitter (+ spike extra)
//!   reordered? (netem `reorder`) ─► delivered as it leaves the link,
//!                                   overtaking queued packets
//!   otherwise  ─► never before an earlier in-order packet (FIFO)
//!   duplicated? ─► a copy is delivered right behind it
//! ```
//!
//! With the reliable-ordered transport ([`super::transport`], TCP) a
//! packet the loss roll says lost is delivered one retransmission timeout
//! later instead, every in-order packet after it waits behind it, and
//! there are no copies and no overtaking; the five draws are the same.
//!
//! ## Determinism
//! Every packet takes exactly five `u32` draws from the conditioner's own
//! PCG-32 stream, whatever the settings, so the fate of packet *n* depends
//! only on the seed, *n*, the settings in force and the send times — never
//! on how earlier packets were treated. The same seed and the same sequence
//! of `send` calls give the same fate for every packet natively and in wasm
//! (integer time, `f64` compared against a fixed `u32 → [0, 1)` mapping);
//! [`fate_fingerprint`] hashes such a sequence so both can be compared.

use super::gilbert_elliott::{BurstState, GilbertElliott};
use super::transport::Transport;
use crate::foundation::hash::unit;
use crate::foundation::time::SimTime;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;
use std::collections::VecDeque;

/// Impairments of one direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConditions {
    /// One-way latency, ms (UE `PktLag`).
    pub latency_ms: u32,
    /// Each packet's latency is `latency_ms` ± up to this, ms, uniform (UE
    /// `PktLagVariance`). Does not reorder: see [`LinkConditions::reorder`].
    pub jitter_ms: u32,
    /// Independent loss, `0.0..=1.0` (UE `PktLoss`); with bursts on, the
    /// loss rate of the good state.
    pub loss: f64,
    /// Bursty loss; [`GilbertElliott::OFF`] for none.
    pub burst: GilbertElliott,
    /// Probability that a packet is delivered twice, `0.0..=1.0` (UE
    /// `PktDup`, netem `duplicate`).
    pub duplicate: f64,
    /// Probability that a packet skips the latency and overtakes the
    /// packets in flight, `0.0..=1.0` (netem `reorder`; UE `PktOrder`
    /// shuffles instead). 0: packets arrive in the order sent.
    pub reorder: f64,
    /// Bandwidth cap, bytes/s; 0 for none. Packets queue behind each other
    /// at this rate (netem `rate`).
    pub bandwidth_bytes_per_s: u32,
}

impl LinkConditions {
    /// A perfect link: no latency, jitter, loss, duplication, reordering or
    /// cap.
    pub const PERFECT: LinkConditions = LinkConditions {
        latency_ms: 0,
        jitter_ms: 0,
        loss: 0.0,
        burst: GilbertElliott::OFF,
        duplicate: 0.0,
        reorder: 0.0,
        bandwidth_bytes_per_s: 0,
    };
}

/// Counters of what the conditioner did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConditionerStats {
    /// Packets handed to `send`.
    pub sent: u64,
    /// Packets dropped by simulated loss (independent or burst).
    pub lost: u64,
    /// Of those, dropped while the burst chain was in its bad state.
    pub lost_in_burst: u64,
    /// Packets dropped because the queue was full (in flight or behind the
    /// bandwidth cap).
    pub overflowed: u64,
    /// Extra copies made by duplication.
    pub duplicated: u64,
    /// Packets sent ahead of the queue by reordering.
    pub reordered: u64,
    /// Packets (copies included) handed out by `poll`.
    pub delivered: u64,
    /// Reliable-ordered transport: packets whose loss roll said lost,
    /// sent again one retransmission timeout later.
    pub resent: u64,
    /// Reliable-ordered transport: packets that arrived later than their
    /// own latency because an earlier one was being resent (head-of-line
    /// blocking).
    pub held: u64,
    /// The delay those held packets waited behind the resend, µs in all.
    pub held_us: u64,
}

/// Most packets held in flight; more are dropped and counted. At 60
/// packets/s and the maximum 1000 ms one-way latency about 60 are in flight.
pub const MAX_IN_FLIGHT: usize = 1024;

/// Longest wait behind the bandwidth cap, ms; a packet that would wait
/// longer is dropped (a router's tail drop), so a cap below the offered
/// rate makes loss instead of unbounded delay.
pub const MAX_QUEUE_DELAY_MS: u64 = 1000;

/// A lag spike: packets sent in `[start, end)` get `extra_us` more latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LagSpike {
    start: SimTime,
    end: SimTime,
    extra_us: u64,
}

/// What a conditioner did with one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// It arrives at `at`; `duplicate`: a copy arrives right behind it;
    /// `overtook`: it skipped the queue (reordering); `resent`, `held`:
    /// the reliable-ordered transport ([`super::transport`]) sent it again
    /// after the RTO, or it waited behind such a packet.
    Delivered {
        /// Arrival time.
        at: SimTime,
        /// A copy arrives too.
        duplicate: bool,
        /// It overtook the packets in flight.
        overtook: bool,
        /// Reliable-ordered: its loss roll said lost, so it arrives one
        /// retransmission timeout late.
        resent: bool,
        /// Reliable-ordered: it arrives later than its own latency,
        /// waiting behind a resent packet (head-of-line blocking).
        held: bool,
    },
    /// Lost on the way; `in_burst`: inside a Gilbert–Elliott burst.
    Lost {
        /// Lost in a burst rather than independently.
        in_burst: bool,
    },
    /// Dropped by a full queue or the bandwidth cap's queue limit.
    Overflowed,
}

impl Fate {
    /// `true` if it arrives.
    pub fn delivered(&self) -> bool {
        matches!(self, Fate::Delivered { .. })
    }
}

/// One direction of a conditioned link carrying items of type `T`.
#[derive(Debug, Clone)]
pub struct LinkConditioner<T> {
    conditions: LinkConditions,
    rng: Pcg32,
    burst: BurstState,
    spike: Option<LagSpike>,
    /// Delivery time of the newest in-order packet: no in-order packet is
    /// delivered before it.
    last_in_order: SimTime,
    /// When the bandwidth-capped link is free to start the next packet.
    link_free: SimTime,
    /// Packets in flight, sorted by delivery time (stable: equal times in
    /// send order).
    queue: VecDeque<(SimTime, T)>,
    stats: ConditionerStats,
    /// Packet indices (send order, from 0) delivered even if their loss
    /// roll says lost: a what-if fork of a recorded run.
    rescued: Vec<u64>,
    /// Datagrams or reliable and ordered.
    transport: Transport,
    /// `last_in_order` is a resent packet's delivery, or that of one held
    /// behind it: a packet waiting for it is head-of-line blocked.
    behind_resend: bool,
}

impl<T: Clone> LinkConditioner<T> {
    /// A conditioner with its own PCG-32 stream seeded from `seed`.
    pub fn new(conditions: LinkConditions, seed: u64) -> Self {
        LinkConditioner {
            conditions,
            rng: Pcg32::seed_from_u64(seed),
            burst: BurstState::default(),
            spike: None,
            last_in_order: SimTime::ZERO,
            link_free: SimTime::ZERO,
            queue: VecDeque::new(),
            stats: ConditionerStats::default(),
            rescued: Vec::new(),
            transport: Transport::Datagram,
            behind_resend: false,
        }
    }

    /// Changes how packets sent from now on are carried
    /// ([`super::transport`]); packets in flight keep their delivery time.
    pub fn set_transport(&mut self, transport: Transport) {
        self.transport = transport;
    }

    /// How packets are carried.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// Delivers the packet sent `index`-th (from 0) even if its loss roll
    /// says lost, and on time: without a lag spike's extra latency and
    /// without waiting behind packets a spike holds (it does not hold the
    /// later ones either). Its jitter and everything the PRNG decides for
    /// every other packet stay as they were (the five draws per packet are
    /// made anyway), so a run with one packet rescued differs from the
    /// original by that packet alone.
    pub fn rescue(&mut self, index: u64) {
        if !self.rescued.contains(&index) {
            self.rescued.push(index);
        }
    }

    /// Changes the impairments for packets sent from now on; packets
    /// already in flight keep their delivery time.
    pub fn set_conditions(&mut self, conditions: LinkConditions) {
        self.conditions = conditions;
    }

    /// Current impairments.
    pub fn conditions(&self) -> LinkConditions {
        self.conditions
    }

    /// Starts a lag spike: packets sent from `now` for `duration_ms` get
    /// `extra_ms` more latency (replacing any spike in progress). In-order
    /// packets sent after it still wait for the delayed ones, as behind a
    /// stalled router queue.
    pub fn start_lag_spike(&mut self, now: SimTime, extra_ms: u32, duration_ms: u32) {
        self.spike = Some(LagSpike {
            start: now,
            end: now.plus_millis(u64::from(duration_ms)),
            extra_us: u64::from(extra_ms) * 1000,
        });
    }

    /// `true` while a lag spike applies to packets sent at `now`.
    pub fn in_lag_spike(&self, now: SimTime) -> bool {
        self.spike.is_some_and(|s| s.start <= now && now < s.end)
    }

    /// `true` while the burst chain is in its bad state.
    pub fn in_burst(&self) -> bool {
        self.burst.is_bad()
    }

    /// Offers a packet of `bytes` bytes at `now`; returns `false` if it was
    /// dropped. Exactly five PRNG draws per packet (see the module doc).
    pub fn send(&mut self, now: SimTime, bytes: usize, item: T) -> bool {
        self.send_fate(now, bytes, item).delivered()
    }

    /// [`LinkConditioner::send`], returning the packet's [`Fate`].
    pub fn send_fate(&mut self, now: SimTime, bytes: usize, item: T) -> Fate {
        let index = self.stats.sent;
        self.stats.sent += 1;
        let c = self.conditions;
        let burst_roll = unit(self.rng.next_u32());
        let loss_roll = unit(self.rng.next_u32());
        let jitter_roll = unit(self.rng.next_u32());
        let duplicate_roll = unit(self.rng.next_u32());
        let reorder_roll = unit(self.rng.next_u32());

        let bad = self.burst.step(&c.burst, burst_roll);
        let loss = if bad { c.burst.loss_in_bad } else { c.loss };
        let lost = loss_roll < loss && !self.rescued.contains(&index);
        let mut resend_us = 0;
        let (mut duplicate_roll, mut reorder_roll) = (duplicate_roll, reorder_roll);
        if let Transport::ReliableOrdered { rto_ms } = self.transport {
            // TCP: a lost packet is sent again after the RTO, the receiver
            // drops copies, nothing overtakes.
            if lost {
                self.stats.resent += 1;
                resend_us = u64::from(rto_ms) * 1000;
            }
            (duplicate_roll, reorder_roll) = (1.0, 1.0);
        }
        if lost && resend_us == 0 {
            self.stats.lost += 1;
            if bad {
                self.stats.lost_in_burst += 1;
            }
            return Fate::Lost { in_burst: bad };
        }
        let copies = if duplicate_roll < c.duplicate { 2 } else { 1 };
        if self.queue.len() + copies > MAX_IN_FLIGHT {
            self.stats.overflowed += 1;
            return Fate::Overflowed;
        }
        // The bandwidth cap: the packet (and its copy) leave the sender one
        // after the other at the capped rate.
        let mut departs = now;
        if c.bandwidth_bytes_per_s > 0 {
            let start = self.link_free.max(now);
            let wire_bytes = (bytes * copies) as u64;
            let cap = u64::from(c.bandwidth_bytes_per_s);
            let tx_us = (wire_bytes * 1_000_000).div_ceil(cap);
            departs = start.plus_micros(tx_us);
            if departs.micros_since(now) > MAX_QUEUE_DELAY_MS * 1000 {
                self.stats.overflowed += 1;
                return Fate::Overflowed;
            }
            self.link_free = departs;
        }
        let overtook = reorder_roll < c.reorder;
        let rescued = self.rescued.contains(&index);
        let mut held = false;
        let at = if overtook {
            self.stats.reordered += 1;
            departs
        } else {
            let jitter = i64::from(c.jitter_ms) * 1000;
            let offset = ((jitter_roll * 2.0 - 1.0) * jitter as f64) as i64;
            let mut latency_us = i64::from(c.latency_ms) * 1000 + offset;
            if let Some(s) = self
                .spike
                .filter(|s| s.start <= now && now < s.end && !rescued)
            {
                latency_us += s.extra_us as i64;
            }
            let own = departs.plus_micros(latency_us.max(0) as u64 + resend_us);
            if rescued {
                // Delivered on time: it neither waits nor holds anything.
                own
            } else {
                let at = own.max(self.last_in_order);
                if at > own && self.behind_resend {
                    held = true;
                    self.stats.held += 1;
                    self.stats.held_us += at.micros_since(own);
                } else {
                    self.behind_resend = resend_us > 0;
                }
                self.last_in_order = at;
                at
            }
        };
        if copies == 2 {
            self.stats.duplicated += 1;
            self.insert(at, item.clone());
        }
        self.insert(at, item);
        Fate::Delivered {
            at,
            duplicate: copies == 2,
            overtook,
            resent: resend_us > 0,
            held,
        }
    }

    fn insert(&mut self, at: SimTime, item: T) {
        let pos = self.queue.partition_point(|&(t, _)| t <= at);
        self.queue.insert(pos, (at, item));
    }

    /// The next packet due at or before `now`, if any.
    pub fn poll(&mut self, now: SimTime) -> Option<T> {
        match self.queue.front() {
            Some(&(at, _)) if at <= now => {
                self.stats.delivered += 1;
                self.queue.pop_front().map(|(_, item)| item)
            }
            _ => None,
        }
    }

    /// When the next packet is due, if one is in flight.
    pub fn next_delivery(&self) -> Option<SimTime> {
        self.queue.front().map(|&(at, _)| at)
    }

    /// Packets in flight.
    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }

    /// Counters so far.
    pub fn stats(&self) -> ConditionerStats {
        self.stats
    }
}

/// The impairments the native-vs-wasm fingerprint check uses: every
/// mechanism on at once (50 ± 20 ms, 5 % loss, Gilbert–Elliott 1 % / 25 % /
/// 50 %, 2 % duplicates, 2 % reordering, a 4000 B/s cap).
pub const FINGERPRINT_CONDITIONS: LinkConditions = LinkConditions {
    latency_ms: 50,
    jitter_ms: 20,
    loss: 0.05,
    burst: GilbertElliott {
        enter_bad: 0.01,
        leave_bad: 0.25,
        loss_in_bad: 0.5,
    },
    duplicate: 0.02,
    reorder: 0.02,
    bandwidth_bytes_per_s: 4000,
};

/// A hash of the fates of `packets` packets of 40 bytes sent every 16 ms
/// through a conditioner seeded with `seed`: for each delivery, which
/// packet and when (µs); for each drop, which packet. Natively and in wasm
/// the same arguments must give the same value (`web-client`'s
/// `fate_fingerprint` export; `sim/tests/conditioner.rs` pins it).
pub fn fate_fingerprint(seed: u64, conditions: LinkConditions, packets: u32) -> u64 {
    let mut c = LinkConditioner::new(conditions, seed);
    let mut h = crate::foundation::hash::Fnv64::new();
    let mut mix = |v: u64| {
        h.u64(v);
    };
    let mut now = SimTime::ZERO;
    for i in 0..packets {
        now = SimTime::from_millis(u64::from(i) * 16);
        if !c.send(now, 40, i) {
            mix(u64::from(i) | 1 << 63);
        }
        while let Some(p) = c.poll(now) {
            mix(u64::from(p));
            mix(now.0);
        }
    }
    while let Some(at) = c.next_delivery() {
        now = now.max(at);
        while let Some(p) = c.poll(now) {
            mix(u64::from(p));
            mix(now.0);
        }
    }
    h.finish()
}

#[cfg(test)]
mod tests;
