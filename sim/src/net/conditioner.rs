//! The link conditioner: latency, jitter and loss for one direction of a
//! link, driven by a named seeded PRNG and a clock passed in (UE's
//! `Net PktLag / PktLagVariance / PktLoss`, reference `003_…` §六).
//!
//! The same seed and the same sequence of `send` calls give the same fate
//! for every packet, natively and in wasm. Packets leave in the order they
//! were sent: jitter alone never reorders (a later packet is held until the
//! earlier one has gone), as on a real single-path link.

use crate::time::SimTime;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;
use std::collections::VecDeque;

/// Impairments of one direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConditions {
    /// One-way latency, ms.
    pub latency_ms: u32,
    /// Each packet's latency is `latency_ms` ± up to this, ms (uniform).
    pub jitter_ms: u32,
    /// Probability that a packet is dropped, `0.0..=1.0`.
    pub loss: f64,
}

impl LinkConditions {
    /// A perfect link: no latency, jitter or loss.
    pub const PERFECT: LinkConditions = LinkConditions {
        latency_ms: 0,
        jitter_ms: 0,
        loss: 0.0,
    };
}

/// Counters of what the conditioner did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConditionerStats {
    /// Packets handed to `send`.
    pub sent: u64,
    /// Packets dropped by simulated loss.
    pub lost: u64,
    /// Packets dropped because the queue was full.
    pub overflowed: u64,
    /// Packets handed out by `poll`.
    pub delivered: u64,
}

/// Most packets held in flight; more are dropped and counted. At 60
/// packets/s and the maximum 500 ms one-way latency about 30 are in flight.
pub const MAX_IN_FLIGHT: usize = 1024;

/// One direction of a conditioned link carrying items of type `T`.
#[derive(Debug, Clone)]
pub struct LinkConditioner<T> {
    conditions: LinkConditions,
    rng: Pcg32,
    queue: VecDeque<(SimTime, T)>,
    stats: ConditionerStats,
}

impl<T> LinkConditioner<T> {
    /// A conditioner with its own PCG-32 stream seeded from `seed`.
    pub fn new(conditions: LinkConditions, seed: u64) -> Self {
        LinkConditioner {
            conditions,
            rng: Pcg32::seed_from_u64(seed),
            queue: VecDeque::new(),
            stats: ConditionerStats::default(),
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

    /// Offers a packet at `now`; returns `false` if it was dropped. Exactly
    /// two PRNG draws per packet (loss, jitter), so fates do not depend on
    /// the settings of earlier packets' draws.
    pub fn send(&mut self, now: SimTime, item: T) -> bool {
        self.stats.sent += 1;
        let loss_roll = unit(self.rng.next_u32());
        let jitter_roll = unit(self.rng.next_u32());
        if loss_roll < self.conditions.loss {
            self.stats.lost += 1;
            return false;
        }
        if self.queue.len() >= MAX_IN_FLIGHT {
            self.stats.overflowed += 1;
            return false;
        }
        let jitter = i64::from(self.conditions.jitter_ms) * 1000;
        let offset = ((jitter_roll * 2.0 - 1.0) * jitter as f64) as i64;
        let delay_us = (i64::from(self.conditions.latency_ms) * 1000 + offset).max(0) as u64;
        let mut at = now.plus_micros(delay_us);
        if let Some(&(last, _)) = self.queue.back() {
            at = at.max(last);
        }
        self.queue.push_back((at, item));
        true
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

/// Maps a `u32` to `[0, 1)`.
fn unit(r: u32) -> f64 {
    f64::from(r) / 4_294_967_296.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_delays_by_exactly_the_one_way_time() {
        let mut c = LinkConditioner::new(
            LinkConditions {
                latency_ms: 50,
                ..LinkConditions::PERFECT
            },
            1,
        );
        assert!(c.send(SimTime::from_millis(10), 'a'));
        assert_eq!(c.poll(SimTime::from_millis(59)), None);
        assert_eq!(c.next_delivery(), Some(SimTime::from_millis(60)));
        assert_eq!(c.poll(SimTime::from_millis(60)), Some('a'));
    }

    #[test]
    fn loss_10_percent_over_100k_packets_is_10_percent() {
        let mut c = LinkConditioner::new(
            LinkConditions {
                loss: 0.10,
                ..LinkConditions::PERFECT
            },
            42,
        );
        for i in 0..100_000u64 {
            c.send(SimTime(i), ());
        }
        let rate = c.stats().lost as f64 / 100_000.0;
        assert!((rate - 0.10).abs() < 0.01, "observed {rate}");
    }

    #[test]
    fn jitter_stays_in_bounds_and_never_reorders() {
        let mut c = LinkConditioner::new(
            LinkConditions {
                latency_ms: 40,
                jitter_ms: 20,
                loss: 0.0,
            },
            7,
        );
        let mut out = Vec::new();
        for i in 0..1000u64 {
            let now = SimTime::from_millis(i * 16);
            c.send(now, (i, now));
            while let Some(x) = c.poll(now) {
                out.push((x, now));
            }
        }
        let end = SimTime::from_millis(1000 * 16 + 100);
        let mut t = SimTime::from_millis(1000 * 16);
        while t <= end {
            while let Some(x) = c.poll(t) {
                out.push((x, t));
            }
            t = t.plus_millis(1);
        }
        assert_eq!(out.len(), 1000);
        for (k, ((i, sent), _)) in out.iter().enumerate() {
            assert_eq!(*i, k as u64, "reordered");
            let _ = sent;
        }
        // Delivery times: never earlier than 20 ms after sending.
        let mut c2 = LinkConditioner::new(
            LinkConditions {
                latency_ms: 40,
                jitter_ms: 20,
                loss: 0.0,
            },
            7,
        );
        for i in 0..1000u64 {
            c2.send(SimTime::from_millis(i * 100), ());
            let at = c2.next_delivery().unwrap();
            let d = at.micros_since(SimTime::from_millis(i * 100));
            assert!((20_000..=60_000).contains(&d), "delay {d}");
            c2.poll(at);
        }
    }

    #[test]
    fn same_seed_same_fates() {
        let fates = |seed| {
            let mut c = LinkConditioner::new(
                LinkConditions {
                    latency_ms: 30,
                    jitter_ms: 10,
                    loss: 0.3,
                },
                seed,
            );
            (0..500u64)
                .map(|i| (c.send(SimTime::from_millis(i), i), c.next_delivery()))
                .collect::<Vec<_>>()
        };
        assert_eq!(fates(5), fates(5));
        assert_ne!(fates(5), fates(6));
    }
}
