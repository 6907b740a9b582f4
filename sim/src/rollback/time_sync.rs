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
//!
//! A clock that drifts by more than dilation can take back (a page whose
//! clock runs 15 % slow) is caught up by jumps, again and again in the
//! same direction, and the server fills the ticks its late inputs miss by
//! hold-last: issue 22 asks for a visible warning, never a silent
//! degradation. Two such jumps in a row in one direction, within
//! [`DRIFT_WINDOW_TICKS`], are that warning ([`TimeSync::drifting`]); a
//! lag spike's jump there and back is not.

use super::tick::Tick;

/// Most the tick rate is sped up or slowed down, as a fraction (±10 %).
pub const MAX_DILATION: f64 = 0.10;
/// Dilation per tick of smoothed buffer error (5 ticks off → the full
/// 10 %): a time constant of 50 ticks, long beside the feedback delay of
/// one RTT, so the loop does not oscillate.
const GAIN_PER_TICK: f64 = 0.02;
/// Dilation added per Ack per tick of smoothed error, the controller's
/// integral part: a clock that runs 4 % slow needs a steady 4 % of
/// dilation, which the proportional part alone gives only while the
/// buffer stays 2 ticks short of its target (input arriving late); the
/// integral learns the clock's rate over Ti = `GAIN_PER_TICK` / this =
/// 200 Acks (3.3 s at 60 Hz, long beside the loop's one-RTT delay) and
/// brings the buffer back to the target.
const INTEGRAL_PER_ACK: f64 = GAIN_PER_TICK / 200.0;
/// Weight of a new buffer sample in the moving average (about the last 10
/// Acks).
const SMOOTHING: f64 = 0.1;
/// A smoothed error of this many ticks or more is removed at once (beyond
/// what the full ±10 % removes in a second or so).
pub const JUMP_TICKS: f64 = 6.0;
/// The first measurement (start-up, or after a jump) jumps from this many
/// ticks of error: until then the client's lead is a guess.
pub const FIRST_JUMP_TICKS: f64 = 2.0;

/// Two jumps of one direction at most this many ticks of input apart
/// mean the clock drifts beyond [`MAX_DILATION`]: 10 s at 60 Hz. The
/// warning goes once this long passes without such a jump.
pub const DRIFT_WINDOW_TICKS: u32 = 600;

/// The client's clock controller.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSync {
    target: f64,
    smoothed: Option<f64>,
    /// Acks about inputs older than this predate the last jump.
    ignore_before: Option<Tick>,
    jumps: u64,
    /// The integral part: the dilation the clock's own rate needs, as a
    /// fraction, within ±[`MAX_DILATION`]; kept across jumps (the clock's
    /// rate does not change with them).
    rate: f64,
    /// The last jump after the first measurement: the newest input tick
    /// its Ack described, and its sign.
    last_jump: Option<(Tick, i32)>,
    drifting: bool,
}

impl TimeSync {
    /// A controller aiming at `target` ticks of input buffer.
    pub fn new(target: u8) -> TimeSync {
        TimeSync {
            target: f64::from(target),
            smoothed: None,
            ignore_before: None,
            jumps: 0,
            rate: 0.0,
            last_jump: None,
            drifting: false,
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
        if threshold == JUMP_TICKS {
            self.rate = (self.rate + error * INTEGRAL_PER_ACK).clamp(-MAX_DILATION, MAX_DILATION);
        }
        let within = |(at, _): (Tick, i32)| {
            u32::try_from(newest_input.diff(at)).is_ok_and(|d| d <= DRIFT_WINDOW_TICKS)
        };
        if self.last_jump.is_some_and(|j| !within(j)) {
            self.drifting = false;
        }
        let jump = (error.abs() >= threshold).then(|| -error.round() as i32)?;
        if threshold == JUMP_TICKS {
            self.drifting = self
                .last_jump
                .is_some_and(|j| within(j) && j.1.signum() == jump.signum());
            self.last_jump = Some((newest_input, jump));
        }
        Some(jump)
    }

    /// The clock drifts beyond what dilation takes back: the last two
    /// jumps went the same way within [`DRIFT_WINDOW_TICKS`], and the
    /// latest is not older than that.
    pub fn drifting(&self) -> bool {
        self.drifting
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
        1.0 - (error * GAIN_PER_TICK + self.rate).clamp(-MAX_DILATION, MAX_DILATION)
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

    /// One Ack at the target (the last jump did its work), then `buffer`
    /// until the next jump, as Acks one tick apart from `*tick`; returns
    /// the jump.
    fn until_jump(ts: &mut TimeSync, tick: &mut u32, buffer: i32) -> i32 {
        *tick += 1;
        assert_eq!(ts.on_ack(Tick(*tick), 2), None);
        loop {
            *tick += 1;
            if let Some(j) = ts.on_ack(Tick(*tick), buffer) {
                ts.jumped(Tick(*tick));
                return j;
            }
        }
    }

    #[test]
    fn jumps_again_and_again_one_way_are_a_drift_and_a_spike_there_and_back_is_not() {
        let mut ts = TimeSync::new(2);
        let mut tick = 100;
        // The first measurement's jump is start-up, not drift.
        assert_eq!(ts.on_ack(Tick(tick), 9), Some(-7));
        ts.jumped(Tick(tick));
        assert!(until_jump(&mut ts, &mut tick, -6) > 0, "behind: run ahead");
        assert!(!ts.drifting(), "one steady-state jump");
        // A spike's way back goes the other way: still no drift.
        assert!(until_jump(&mut ts, &mut tick, 10) < 0, "ahead: wait");
        assert!(!ts.drifting(), "there and back");
        // Again the same way within 600 ticks: a drift.
        let before = tick;
        assert!(until_jump(&mut ts, &mut tick, 10) < 0);
        assert!(tick - before <= DRIFT_WINDOW_TICKS);
        assert!(ts.drifting());
        // 601 ticks of calm Acks at the target clear it.
        for _ in 0..=DRIFT_WINDOW_TICKS {
            tick += 1;
            assert_eq!(ts.on_ack(Tick(tick), 2), None);
        }
        assert!(!ts.drifting());
    }
}
