//! The timeline's data ([`Timeline`]): one [`Sample`] per page frame on the
//! run's clock, kept for [`KEPT_US`] — the plots draw the last 10 s, the
//! CSV download holds all of it, the Predicted panel's inset the last
//! second of the mesh offset. Pure: tested natively.

use sim::endpoints::metrics::Metrics;
use sim::SimTime;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// A mesh offset growing by more than this in one frame is a snap, cm
/// (what [`Timeline::around_last_snap`] looks for on the page).
pub const SNAP_JUMP_CM: f32 = 1.0;
/// How long samples are kept, µs (the CSV's span).
pub const KEPT_US: u64 = 60_000_000;
/// Shown before a snap by [`Timeline::around_last_snap`], s.
pub const SNAP_BEFORE_S: f32 = 0.1;
/// Shown after a snap by [`Timeline::around_last_snap`], s: UE's smoothing
/// time is 0.1 s, exponential decay takes a few of those.
pub const SNAP_AFTER_S: f32 = 0.6;

/// One frame's values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The run's clock.
    pub t: SimTime,
    /// Predicted vs authoritative error for the newest move the server
    /// simulated, cm.
    pub error_cm: Option<f32>,
    /// The local character's mesh offset (drawn − collision position), cm.
    pub mesh_offset_cm: f32,
    /// The simulated proxy's mesh offset, cm.
    pub proxy_offset_cm: f32,
    /// The newest net update's extrapolation error, cm (the largest over a
    /// room's proxies; 0 before a second update,
    /// `sim::SimulatedProxy::extrapolation_error`).
    pub proxy_extrapolation_cm: f32,
    /// Unacknowledged SavedMoves.
    pub queue: u32,
    /// The newest RTT sample, ms.
    pub rtt_ms: Option<f32>,
    /// Adjustments received over the last second.
    pub adjustments_per_s: f32,
    /// Uplink packets dropped since the previous sample.
    pub dropped_up: u32,
    /// Downlink packets dropped since the previous sample.
    pub dropped_down: u32,
    /// An Adjustment arrived since the previous sample.
    pub adjustment: bool,
    /// A conditioner was in a loss burst.
    pub burst: bool,
    /// A lag spike was on.
    pub spike: bool,
    /// The rollback model ran (the strips show its analogues).
    pub rollback: bool,
    /// Rollback: the client's input buffer at the server, ticks.
    pub input_buffer: Option<f32>,
    /// In a room: the rounds the ammo counter shows.
    pub ammo: Option<u16>,
    /// In a room: a server update moved the counter since the previous
    /// sample, by this many rounds (a visible jump; 0 for none).
    pub ammo_jump: i32,
}

/// What the page measures besides the [`Metrics`], per frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Offsets {
    /// The local character's mesh offset, cm.
    pub mesh_cm: f32,
    /// The simulated proxy's mesh offset, cm.
    pub proxy_cm: f32,
    /// The newest net update's extrapolation error, cm (the largest over a
    /// room's proxies).
    pub proxy_extrapolation_cm: f32,
    /// In a room: the rounds the ammo counter shows.
    pub ammo: Option<u16>,
    /// In a room: the jump a server update made in the counter this frame,
    /// rounds (0 for none).
    pub ammo_jump: i32,
}

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    samples: VecDeque<Sample>,
    last_adjustments: u64,
    adjustment_times: VecDeque<SimTime>,
    /// Drop totals (uplink, downlink) at the previous sample.
    last_dropped: (u64, u64),
}

impl Timeline {
    /// Forgets everything (a new run starts its counters at 0).
    pub fn clear(&mut self) {
        *self = Timeline::default();
    }

    /// Records this frame's read-out at `now` (the run's clock).
    pub fn record(&mut self, now: SimTime, m: &Metrics, offsets: Offsets) {
        if self.samples.back().is_some_and(|s| s.t == now) {
            return; // a paused run: nothing new
        }
        let new_adjustments = m.adjustments.saturating_sub(self.last_adjustments);
        self.last_adjustments = m.adjustments;
        for _ in 0..new_adjustments {
            self.adjustment_times.push_back(now);
        }
        while let Some(&t) = self.adjustment_times.front() {
            if now.micros_since(t) < 1_000_000 {
                break;
            }
            self.adjustment_times.pop_front();
        }
        let l = m.link;
        let dropped = (
            u64::from(l.up.lost) + u64::from(l.up.overflowed),
            u64::from(l.down.lost) + u64::from(l.down.overflowed),
        );
        let (up, down) = (
            dropped.0.saturating_sub(self.last_dropped.0),
            dropped.1.saturating_sub(self.last_dropped.1),
        );
        self.last_dropped = dropped;
        self.samples.push_back(Sample {
            t: now,
            error_cm: m.pos_error_cm,
            mesh_offset_cm: offsets.mesh_cm,
            proxy_offset_cm: offsets.proxy_cm,
            proxy_extrapolation_cm: offsets.proxy_extrapolation_cm,
            queue: m.queue_len as u32,
            rtt_ms: m.rtt_last_ms.map(|r| r as f32),
            adjustments_per_s: self.adjustment_times.len() as f32,
            dropped_up: up as u32,
            dropped_down: down as u32,
            adjustment: new_adjustments > 0,
            burst: l.up.in_burst || l.down.in_burst,
            spike: l.up.in_spike || l.down.in_spike,
            rollback: m.rollback.is_some(),
            input_buffer: m.rollback.and_then(|r| r.input_buffer).map(|b| b as f32),
            ammo: offsets.ammo,
            ammo_jump: offsets.ammo_jump,
        });
        while let Some(s) = self.samples.front() {
            if now.micros_since(s.t) <= KEPT_US {
                break;
            }
            self.samples.pop_front();
        }
    }

    /// The samples of the last `span_us` before the newest, oldest first.
    pub fn last(&self, span_us: u64) -> impl Iterator<Item = &Sample> {
        let now = self.samples.back().map(|s| s.t);
        self.samples
            .iter()
            .filter(move |s| now.is_some_and(|n| n.micros_since(s.t) <= span_us))
    }

    /// The largest of `f` over the last second's samples (0 with none):
    /// the Metrics card's "max 1 s" read-outs.
    pub fn peak(&self, f: fn(&Sample) -> f32) -> f32 {
        self.last(1_000_000).map(f).fold(0.0, f32::max)
    }

    /// The newest sample.
    pub fn newest(&self) -> Option<&Sample> {
        self.samples.back()
    }

    /// The local character's mesh offset around its last snap — the
    /// newest frame where the offset grew by more than `jump_cm` — from
    /// [`SNAP_BEFORE_S`] before to [`SNAP_AFTER_S`] after: `(s since the
    /// snap, cm)`, oldest first. How each smoothing mode decays is seen
    /// here whenever the last correction happened.
    pub fn around_last_snap(&self, jump_cm: f32) -> Option<Vec<(f32, f32)>> {
        let snap = self
            .samples
            .iter()
            .zip(self.samples.iter().skip(1))
            .rev()
            .find(|(a, b)| b.mesh_offset_cm > a.mesh_offset_cm + jump_cm)
            .map(|(_, b)| b.t)?;
        Some(
            self.samples
                .iter()
                .map(|s| {
                    let since = if s.t >= snap {
                        s.t.secs_since(snap)
                    } else {
                        -snap.secs_since(s.t)
                    };
                    (since as f32, s.mesh_offset_cm)
                })
                .filter(|&(since, _)| (-SNAP_BEFORE_S..=SNAP_AFTER_S).contains(&since))
                .collect(),
        )
    }

    /// Every kept sample as CSV: a header line, then one row per frame,
    /// time in seconds of the run's clock, empty cells for values not
    /// measured yet.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "t_s,position_error_cm,mesh_offset_cm,proxy_offset_cm,saved_moves,rtt_ms,\
             adjustments_per_s,dropped_up,dropped_down,adjustment,loss_burst,lag_spike,\
             model,input_buffer_ticks,ammo,ammo_jump\n",
        );
        let opt =
            |v: Option<f32>, digits: usize| v.map_or(String::new(), |v| format!("{v:.digits$}"));
        for s in &self.samples {
            let _ = writeln!(
                out,
                "{:.4},{},{:.2},{:.2},{},{},{},{},{},{},{},{},{},{},{},{}",
                s.t.secs_since(SimTime::ZERO),
                opt(s.error_cm, 2),
                s.mesh_offset_cm,
                s.proxy_offset_cm,
                s.queue,
                opt(s.rtt_ms, 1),
                s.adjustments_per_s,
                s.dropped_up,
                s.dropped_down,
                u8::from(s.adjustment),
                u8::from(s.burst),
                u8::from(s.spike),
                if s.rollback { "rollback" } else { "cmc" },
                opt(s.input_buffer, 2),
                s.ammo.map_or(String::new(), |a| a.to_string()),
                s.ammo_jump,
            );
        }
        out
    }
}

/// Events per second over the last second, from a running total (frames
/// drawn, ServerMoves sent), on any clock.
#[derive(Debug, Clone, Default)]
pub struct PerSecond {
    samples: VecDeque<(SimTime, u64)>,
}

impl PerSecond {
    /// Records the running `total` at `now`; returns the rate over the
    /// second before `now` (`None` until half a second is covered).
    pub fn record(&mut self, now: SimTime, total: u64) -> Option<f64> {
        if self.samples.back().is_some_and(|&(t, _)| t == now) {
            return self.rate();
        }
        if self
            .samples
            .back()
            .is_some_and(|&(t, n)| now < t || total < n)
        {
            self.samples.clear(); // a new run
        }
        self.samples.push_back((now, total));
        while self.samples.len() > 2 && now.micros_since(self.samples[1].0) >= 1_000_000 {
            self.samples.pop_front();
        }
        self.rate()
    }

    fn rate(&self) -> Option<f64> {
        let (&(t0, n0), &(t1, n1)) = (self.samples.front()?, self.samples.back()?);
        let span = t1.secs_since(t0);
        (span >= 0.5).then(|| (n1 - n0) as f64 / span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(adjustments: u64, queue: usize) -> Metrics {
        Metrics {
            adjustments,
            queue_len: queue,
            pos_error_cm: Some(3.25),
            ..Metrics::default()
        }
    }

    #[test]
    fn samples_count_adjustments_per_second_and_mark_the_frame_they_arrived() {
        let mut t = Timeline::default();
        for i in 0..120u64 {
            let adj = i / 30; // one every half second
            t.record(
                SimTime::from_millis(i * 1000 / 60),
                &metrics(adj, 3),
                Offsets::default(),
            );
        }
        let s = t.newest().unwrap();
        assert_eq!(s.adjustments_per_s, 2.0);
        assert_eq!(t.last(u64::MAX).filter(|s| s.adjustment).count(), 3);
        assert_eq!(t.last(1_000_000).count(), 61);
    }

    #[test]
    fn a_paused_run_adds_no_samples_and_old_ones_expire() {
        let mut t = Timeline::default();
        t.record(SimTime::from_millis(5), &metrics(0, 1), Offsets::default());
        t.record(SimTime::from_millis(5), &metrics(0, 1), Offsets::default());
        assert_eq!(t.last(u64::MAX).count(), 1);
        t.record(
            SimTime::from_secs_f64(70.0),
            &metrics(0, 1),
            Offsets::default(),
        );
        assert_eq!(t.last(u64::MAX).count(), 1, "older than 60 s is dropped");
    }

    #[test]
    fn the_csv_has_a_header_and_one_row_per_sample() {
        let mut t = Timeline::default();
        let o = Offsets {
            mesh_cm: 12.5,
            ..Offsets::default()
        };
        t.record(SimTime::from_millis(1500), &metrics(1, 4), o);
        let csv = t.csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("t_s,position_error_cm,mesh_offset_cm"));
        assert_eq!(lines[1], "1.5000,3.25,12.50,0.00,4,,1,0,0,1,0,0,cmc,,,0");
        // In the rollback model the queue column holds the ticks ahead and
        // the buffer its own column.
        let m = Metrics {
            rollback: Some(sim::rollback::RollbackMetrics {
                input_buffer: Some(2.25),
                ..Default::default()
            }),
            ..metrics(1, 9)
        };
        t.record(SimTime::from_millis(1600), &m, o);
        assert!(
            t.csv().ends_with(",9,,1,0,0,0,0,0,rollback,2.25,,0\n"),
            "{}",
            t.csv()
        );
        // In a room: the ammo shown and a jump.
        let o = Offsets {
            ammo: Some(9),
            ammo_jump: 1,
            ..Offsets::default()
        };
        t.record(SimTime::from_millis(1700), &metrics(1, 4), o);
        assert!(t.csv().ends_with(",cmc,,9,1\n"), "{}", t.csv());
    }

    #[test]
    fn the_window_around_the_last_snap_starts_just_before_the_jump() {
        let mut t = Timeline::default();
        let offsets = [
            0.0, 0.0, 0.0, 24.0, 12.0, 6.0, 3.0, 0.0, 0.0, 0.0, 9.0, 4.5, 0.0,
        ];
        for (i, cm) in offsets.iter().enumerate() {
            let o = Offsets {
                mesh_cm: *cm,
                ..Offsets::default()
            };
            t.record(SimTime::from_millis(i as u64 * 50), &metrics(0, 0), o);
        }
        let w = t.around_last_snap(1.0).unwrap();
        // The last jump is at 500 ms (0 → 9 cm): from 400 ms to the end.
        assert_eq!(w.first(), Some(&(-0.1, 0.0)));
        assert_eq!(w[2], (0.0, 9.0));
        assert_eq!(w.len(), 5, "{w:?}");
        assert_eq!(Timeline::default().around_last_snap(1.0), None);
    }

    #[test]
    fn per_second_counts_the_last_second() {
        let mut r = PerSecond::default();
        let mut rate = None;
        for i in 0..=90u64 {
            // 30 frames a second, a move every frame.
            rate = r.record(SimTime::from_millis(i * 1000 / 30), i);
        }
        assert!((rate.unwrap() - 30.0).abs() < 0.6, "{rate:?}");
        assert_eq!(PerSecond::default().record(SimTime::ZERO, 5), None);
    }
}
