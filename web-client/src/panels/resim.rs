//! The wall time of re-simulation as the page sees it ([`ResimClock`]):
//! the page times each run frame with `performance.now()`, and a frame in
//! which the run re-simulated (its count of replayed moves or re-simulated
//! ticks grew) is one whose time is the re-simulation's cost plus the
//! frame's own work — the `resim-us` metric, and the A/B view's mean per
//! re-simulating frame. Pure: tested natively.
//!
//! The browser's timer steps in [`TIMER_STEP_US`], so a fast frame reads
//! 0 or one step: a mean is given only once [`MIN_SUMMED_US`] has been
//! summed over many frames (issue #28 item 4: a mean of a few frames read
//! "×0.00" in the A/B table).

/// The step of `performance.now()` in a page that is not cross-origin
/// isolated, µs (Chromium and Firefox coarsen it to 100 µs).
pub const TIMER_STEP_US: f64 = 100.0;

/// Time summed over re-simulating frames before a mean is given, µs: ten
/// timer steps, so the rounding of one frame's reading is at most a tenth
/// of the sum.
pub const MIN_SUMMED_US: f64 = 10.0 * TIMER_STEP_US;

/// See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ResimClock {
    /// Re-simulated steps counted at the previous frame.
    seen: u64,
    last_us: Option<f64>,
    total_us: f64,
    frames: u64,
}

impl ResimClock {
    /// One run frame took `elapsed_ms`; `resimulated` is the run's count
    /// of re-simulated steps after it. A count that went down (a new
    /// match, another model) starts the comparison again.
    pub fn record(&mut self, elapsed_ms: f64, resimulated: u64) {
        if resimulated > self.seen && elapsed_ms.is_finite() && elapsed_ms >= 0.0 {
            let us = elapsed_ms * 1000.0;
            self.last_us = Some(us);
            self.total_us += us;
            self.frames += 1;
        }
        self.seen = resimulated;
    }

    /// The last frame that re-simulated, µs.
    pub fn last_us(&self) -> Option<f64> {
        self.last_us
    }

    /// The mean over every frame that re-simulated, µs; `None` until
    /// [`MIN_SUMMED_US`] has been summed.
    pub fn mean_us(&self) -> Option<f64> {
        (self.frames > 0 && self.total_us >= MIN_SUMMED_US)
            .then(|| self.total_us / self.frames as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_frames_that_re_simulated_are_timed() {
        let mut c = ResimClock::default();
        c.record(0.5, 0);
        assert_eq!(c.last_us(), None);
        c.record(0.012, 11);
        c.record(0.3, 11);
        c.record(0.008, 20);
        assert_eq!(c.last_us(), Some(8.0));
        // 20 µs summed: under ten timer steps, no mean yet.
        assert_eq!(c.mean_us(), None);
        // Frames read 0 or one step (100 µs): 98 frames, 10 of them one
        // step, sum 1020 µs.
        for i in 0..98 {
            c.record(if i % 10 == 0 { 0.1 } else { 0.0 }, 21 + i);
        }
        let mean = c.mean_us().expect("1020 µs summed");
        assert!((mean - 10.2).abs() < 1e-9, "{mean}");
        // A new match: counting starts again, and the next growth counts.
        c.record(0.5, 0);
        c.record(0.004, 9);
        assert_eq!(c.last_us(), Some(4.0));
    }
}
