//! Measuring the link from its ends, not from its settings: RTT from
//! ping/pong (smoothed, p50, p99, jitter) and observed loss each way over
//! the last [`WINDOW`] probes.
//!
//! ## How loss is measured
//! The client numbers its Pings 1, 2, 3, … The server keeps a
//! [`SeqWindow`] of the Ping ids it received and returns it in every Pong
//! (like a QUIC/ENet ack bitfield). The client keeps its own window of the
//! ids whose Pong came back. Then, over the 64 ids up to the newest the
//! server has seen:
//! - **uplink loss** = ids the server did not receive / ids sent;
//! - **downlink loss** = ids the server received (so it sent a Pong) whose
//!   Pong never arrived / Pongs sent.
//!
//! Earlier Pongs travel ahead of later ones, so by the time a Pong arrives
//! every earlier one has arrived or is lost (reordering can only make a
//! Pong early, never late).

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Probes per loss window (the "last 64 packets each way").
pub const WINDOW: u32 = 64;
/// RTT samples kept for the percentiles: 10 s of Pings at 10 Hz.
pub const RTT_SAMPLES: usize = 100;
/// Weight of a new sample in the smoothed RTT (RFC 6298 §2, α = 1/8).
const RTT_ALPHA: f64 = 0.125;
/// Gain of the jitter estimate (RFC 3550 §6.4.1 / A.8, 1/16).
const JITTER_GAIN: f64 = 1.0 / 16.0;

/// Which of the last 64 sequence numbers (ids ≥ 1) arrived: bit `i` of
/// `mask` is id `latest − i`. `latest` 0 means none yet. Ids compare by
/// wrapping difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SeqWindow {
    /// The highest id received (0: none).
    pub latest: u32,
    /// Arrivals of `latest`, `latest − 1`, … `latest − 63`.
    pub mask: u64,
}

impl SeqWindow {
    /// Records that `id` arrived (again is fine; 0 and ids 64 or more
    /// behind are ignored).
    pub fn record(&mut self, id: u32) {
        if id == 0 {
            return;
        }
        if self.latest == 0 {
            *self = SeqWindow {
                latest: id,
                mask: 1,
            };
            return;
        }
        let ahead = id.wrapping_sub(self.latest) as i32;
        if ahead > 0 {
            self.mask = if ahead >= 64 { 0 } else { self.mask << ahead };
            self.mask |= 1;
            self.latest = id;
        } else if -ahead < 64 {
            self.mask |= 1 << -ahead;
        }
    }

    /// The arrivals re-aligned so that bit `i` is id `end − i`.
    pub fn mask_ending_at(&self, end: u32) -> u64 {
        if self.latest == 0 {
            return 0;
        }
        let d = end.wrapping_sub(self.latest) as i32;
        match d {
            0 => self.mask,
            1..=63 => self.mask << d,
            -63..=-1 => self.mask >> -d,
            _ => 0,
        }
    }
}

/// The ids `end − 63 ..= end` that exist (ids start at 1) and are not
/// before `first`, as a mask aligned like [`SeqWindow::mask_ending_at`].
fn span(end: u32, first: u32) -> u64 {
    let all = match end {
        0 => 0,
        1..=63 => (1u64 << end) - 1,
        _ => u64::MAX,
    };
    match end.wrapping_sub(first) as i32 {
        k if k < 0 => 0,
        k if k >= 63 => all,
        k => all & ((1u64 << (k + 1)) - 1),
    }
}

/// Probes lost of probes sent, one direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LossCount {
    /// Probes that did not arrive.
    pub lost: u32,
    /// Probes sent (that could have arrived).
    pub sent: u32,
}

impl LossCount {
    /// `lost / sent`, `0.0..=1.0`; `None` with nothing sent.
    pub fn rate(&self) -> Option<f64> {
        (self.sent > 0).then(|| f64::from(self.lost) / f64::from(self.sent))
    }

    /// The 95 % Wilson score interval of the loss rate, `(low, high)` in
    /// `0.0..=1.0` (sound at small counts and at 0 %, unlike the normal
    /// approximation); `None` with nothing sent.
    pub fn wilson_95(&self) -> Option<(f64, f64)> {
        let n = f64::from(self.sent);
        let p = self.rate()?;
        let z = 1.959_963_984_540_054_f64;
        let z2 = z * z;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        Some(((centre - half).max(0.0), (centre + half).min(1.0)))
    }

    /// This count plus `other`.
    pub fn plus(self, other: LossCount) -> LossCount {
        LossCount {
            lost: self.lost + other.lost,
            sent: self.sent + other.sent,
        }
    }
}

/// Observed loss each way from the server's window of received Pings and
/// the client's window of received Pongs, counting only probes from id
/// `first` on (1: all); `None` before any report.
pub fn observed_loss(
    server_received: SeqWindow,
    pongs: SeqWindow,
    first: u32,
) -> (Option<LossCount>, Option<LossCount>) {
    let end = server_received.latest;
    let sent = span(end, first);
    if sent == 0 {
        return (None, None);
    }
    let received = server_received.mask & sent;
    let up = LossCount {
        lost: sent.count_ones() - received.count_ones(),
        sent: sent.count_ones(),
    };
    let back = pongs.mask_ending_at(end);
    let down = (received != 0).then(|| LossCount {
        lost: (received & !back).count_ones(),
        sent: received.count_ones(),
    });
    (Some(up), down)
}

/// RTT samples: smoothed (RFC 6298), percentiles over the last
/// [`RTT_SAMPLES`], and jitter (RFC 3550's mean deviation, applied to
/// consecutive RTT samples).
#[derive(Debug, Clone, Default)]
pub struct RttStats {
    samples: VecDeque<f64>,
    smoothed: Option<f64>,
    jitter: Option<f64>,
    last: Option<f64>,
}

impl RttStats {
    /// Adds one RTT sample, ms.
    pub fn record(&mut self, rtt_ms: f64) {
        self.smoothed = Some(match self.smoothed {
            None => rtt_ms,
            Some(s) => s + RTT_ALPHA * (rtt_ms - s),
        });
        if let Some(last) = self.last {
            let d = (rtt_ms - last).abs();
            let j = self.jitter.unwrap_or(0.0);
            self.jitter = Some(j + JITTER_GAIN * (d - j));
        }
        self.last = Some(rtt_ms);
        if self.samples.len() >= RTT_SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back(rtt_ms);
    }

    /// Samples behind the percentiles (at most [`RTT_SAMPLES`]).
    pub fn samples(&self) -> usize {
        self.samples.len()
    }

    /// Smoothed RTT, ms.
    pub fn smoothed(&self) -> Option<f64> {
        self.smoothed
    }

    /// The newest sample, ms.
    pub fn last(&self) -> Option<f64> {
        self.last
    }

    /// Jitter, ms: the running mean of |RTTᵢ − RTTᵢ₋₁| with gain 1/16.
    pub fn jitter(&self) -> Option<f64> {
        self.jitter
    }

    /// The `q`-quantile (`0.0..=1.0`, nearest rank) of the kept samples.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.samples.is_empty() {
            return None;
        }
        let mut v: Vec<f64> = self.samples.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let rank = (q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize;
        Some(v[rank.clamp(1, v.len()) - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_records_and_realigns() {
        let mut w = SeqWindow::default();
        for id in [1, 2, 4, 5] {
            w.record(id);
        }
        w.record(4); // a duplicate changes nothing
        assert_eq!((w.latest, w.mask), (5, 0b11011));
        w.record(3); // late
        assert_eq!(w.mask, 0b11111);
        assert_eq!(w.mask_ending_at(7), 0b1111100);
        assert_eq!(w.mask_ending_at(4), 0b1111);
        w.record(200);
        assert_eq!((w.latest, w.mask), (200, 1));
    }

    #[test]
    fn loss_each_way_from_the_two_windows() {
        let mut server = SeqWindow::default();
        let mut pongs = SeqWindow::default();
        for id in 1..=100u32 {
            if id % 10 == 0 {
                continue; // Ping lost on the way up
            }
            server.record(id);
            if id % 4 != 0 {
                pongs.record(id); // Pong arrived
            }
        }
        let (up, down) = observed_loss(server, pongs, 1);
        // Ping 100 was lost, so the window is ids 36..=99: 6 Pings lost
        // (40, 50, …, 90); of the 58 answered, the multiples of 4 that are
        // not multiples of 10 lost their Pong.
        assert_eq!(up, Some(LossCount { lost: 6, sent: 64 }));
        let lost_down = (36..=99).filter(|i| i % 10 != 0 && i % 4 == 0).count();
        assert_eq!(
            down,
            Some(LossCount {
                lost: lost_down as u32,
                sent: 58
            })
        );
        assert_eq!(
            observed_loss(SeqWindow::default(), pongs, 1),
            (None, None),
            "no report yet"
        );
        // From id 91 on: 91..=99, of which 9 sent and 0 lost on the way up
        // (90 was the last multiple of 10); 92 and 96 lost their Pong.
        let (up, down) = observed_loss(server, pongs, 91);
        assert_eq!(up, Some(LossCount { lost: 0, sent: 9 }));
        assert_eq!(down, Some(LossCount { lost: 2, sent: 9 }));
        assert_eq!(observed_loss(server, pongs, 101), (None, None));
    }

    #[test]
    fn wilson_interval_is_tight_for_many_samples_and_wide_for_few() {
        let few = LossCount { lost: 1, sent: 10 }.wilson_95().unwrap();
        let many = LossCount {
            lost: 100,
            sent: 1000,
        }
        .wilson_95()
        .unwrap();
        assert!(
            (few.0 - 0.0179).abs() < 1e-3 && (few.1 - 0.4042).abs() < 1e-3,
            "{few:?}"
        );
        assert!(
            (many.0 - 0.0829).abs() < 1e-3 && (many.1 - 0.1202).abs() < 1e-3,
            "{many:?}"
        );
        let none = LossCount { lost: 0, sent: 20 }.wilson_95().unwrap();
        assert_eq!(none.0, 0.0);
        assert!(none.1 > 0.15, "0 of 20 does not prove 0 % ({none:?})");
        assert_eq!(LossCount::default().wilson_95(), None);
    }

    #[test]
    fn rtt_percentiles_and_jitter() {
        let mut r = RttStats::default();
        for i in 0..200 {
            r.record(if i % 2 == 0 { 100.0 } else { 120.0 });
        }
        assert_eq!(r.quantile(0.5), Some(100.0));
        assert_eq!(r.quantile(0.99), Some(120.0));
        assert!((r.jitter().unwrap() - 20.0).abs() < 0.01);
        assert!((r.smoothed().unwrap() - 110.0).abs() < 5.0);
    }
}
