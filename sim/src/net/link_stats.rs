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

/// The ids `end − 63 ..= end` that exist (ids start at 1).
fn span(end: u32) -> u64 {
    match end {
        0 => 0,
        1..=63 => (1u64 << end) - 1,
        _ => u64::MAX,
    }
}

/// Observed loss each way from the server's window of received Pings and
/// the client's window of received Pongs, `0.0..=1.0`; `None` before any
/// report.
pub fn observed_loss(server_received: SeqWindow, pongs: SeqWindow) -> (Option<f64>, Option<f64>) {
    let end = server_received.latest;
    let sent = span(end);
    if sent == 0 {
        return (None, None);
    }
    let received = server_received.mask & sent;
    let up = 1.0 - f64::from(received.count_ones()) / f64::from(sent.count_ones());
    let back = pongs.mask_ending_at(end);
    let down = if received == 0 {
        None
    } else {
        Some(f64::from((received & !back).count_ones()) / f64::from(received.count_ones()))
    };
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
        let (up, down) = observed_loss(server, pongs);
        // Ping 100 was lost, so the window is ids 36..=99: 6 Pings lost
        // (40, 50, …, 90); of the 58 answered, the multiples of 4 that are
        // not multiples of 10 lost their Pong.
        assert!((up.unwrap() - 6.0 / 64.0).abs() < 1e-12);
        let lost_down = (36..=99).filter(|i| i % 10 != 0 && i % 4 == 0).count();
        assert!((down.unwrap() - lost_down as f64 / 58.0).abs() < 1e-12);
        assert_eq!(
            observed_loss(SeqWindow::default(), pongs),
            (None, None),
            "no report yet"
        );
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
