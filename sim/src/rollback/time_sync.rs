//! Keeping the client ahead of the server by about RTT/2 plus a small
//! input buffer, so that each input reaches the server just before the
//! server needs it.
//!
//! The server reports the input buffer in every Ack (newest input tick −
//! tick processed). The client smooths it and dilates its own tick rate by
//! at most ±10 % to bring it to the target — UE Network Prediction's
//! `np.TimeDilation` and Unity NfE's command-slack adjustment do the same.
//! An error too large for dilation to remove within a second or so (an RTT
//! slider jump), or any sizeable error at start-up, is removed at once: the
//! client runs the missing ticks now or waits out the surplus, then ignores
//! Acks that still describe inputs sent before the jump.

use super::tick::Tick;

/// Most the tick rate is sped up or slowed down, as a fraction (±10 %).
pub const MAX_DILATION: f64 = 0.10;
/// Dilation per tick of smoothed buffer error (5 ticks off → the full
/// 10 %): a time constant of 50 ticks, long beside the feedback delay of
/// one RTT, so the loop does not oscillate.
const GAIN_PER_TICK: f64 = 0.02;
/// Weight of a new buffer sample in the moving average (about the last 10
/// Acks).
const SMOOTHING: f64 = 0.1;
/// A smoothed error of this many ticks or more is removed at once (beyond
/// what the full ±10 % removes in a second or so).
pub const JUMP_TICKS: f64 = 6.0;
/// The first measurement (start-up, or after a jump) jumps from this many
/// ticks of error: until then the client's lead is a guess.
pub const FIRST_JUMP_TICKS: f64 = 2.0;

/// The client's clock controller.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSync {
    target: f64,
    smoothed: Option<f64>,
    /// Acks about inputs older than this predate the last jump.
    ignore_before: Option<Tick>,
    jumps: u64,
}

impl TimeSync {
    /// A controller aiming at `target` ticks of input buffer.
    pub fn new(target: u8) -> TimeSync {
        TimeSync {
            target: f64::from(target),
            smoothed: None,
            ignore_before: None,
            jumps: 0,
        }
    }

    /// Changes the target buffer, ticks.
    pub fn set_target(&mut self, target: u8) {
        self.target = f64::from(target);
    }

    /// Takes one Ack's buffer depth (ticks) about inputs up to
    /// `newest_input`. Returns a jump in ticks to apply now (positive: run
    /// that many ticks more; negative: wait that many) when the error is
    /// too large to dilate away; the caller then calls
    /// [`TimeSync::jumped`].
    pub fn on_ack(&mut self, newest_input: Tick, buffer: i32) -> Option<i32> {
        if self.ignore_before.is_some_and(|t| t.is_after(newest_input)) {
            return None;
        }
        self.ignore_before = None;
        let b = f64::from(buffer);
        let (s, threshold) = match self.smoothed {
            Some(s) => (s + SMOOTHING * (b - s), JUMP_TICKS),
            None => (b, FIRST_JUMP_TICKS),
        };
        self.smoothed = Some(s);
        let error = s - self.target;
        (error.abs() >= threshold).then(|| -error.round() as i32)
    }

    /// Records that a jump was applied and the client's next input is for
    /// `next_input`: the average restarts from the first Ack that saw it.
    pub fn jumped(&mut self, next_input: Tick) {
        self.jumps += 1;
        self.smoothed = None;
        self.ignore_before = Some(next_input);
    }

    /// The factor on the client's tick rate, `0.9..=1.1` (`time-dilation`).
    pub fn dilation(&self) -> f64 {
        let error = self.smoothed.map_or(0.0, |s| s - self.target);
        1.0 - (error * GAIN_PER_TICK).clamp(-MAX_DILATION, MAX_DILATION)
    }

    /// The smoothed input buffer, ticks (`input-buffer`), once measured.
    pub fn buffer(&self) -> Option<f64> {
        self.smoothed
    }

    /// Jumps made so far.
    pub fn jumps(&self) -> u64 {
        self.jumps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_little_buffer_speeds_up_and_too_much_slows_down() {
        let mut ts = TimeSync::new(2);
        assert_eq!(ts.dilation(), 1.0);
        assert_eq!(ts.on_ack(Tick(10), 1), None);
        assert!((ts.dilation() - 1.02).abs() < 1e-12);
        // A surplus of 5 ticks, averaged in without a jump: the full −10 %.
        for _ in 0..200 {
            assert_eq!(ts.on_ack(Tick(10), 7), None);
        }
        assert!((ts.dilation() - 0.9).abs() < 1e-9, "{}", ts.dilation());
        assert_eq!(ts.jumps(), 0);
    }

    #[test]
    fn a_large_error_jumps_once_then_waits_for_fresh_acks() {
        let mut ts = TimeSync::new(2);
        assert_eq!(ts.on_ack(Tick(100), -5), Some(7), "first Ack: from 2 ticks");
        ts.jumped(Tick(108));
        assert_eq!(ts.on_ack(Tick(104), -5), None, "predates the jump");
        assert_eq!(ts.buffer(), None);
        assert_eq!(ts.on_ack(Tick(108), 2), None);
        assert_eq!(ts.buffer(), Some(2.0));
        assert_eq!(ts.jumps(), 1);
    }
}
