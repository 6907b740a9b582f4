//! The playhead over a paused relay run ([`RelayScrub`], issue 23): the
//! page's own end played again from its tape to any frame
//! ([`sim::inspect::RelayInspection`]), on the page's clock. One branch:
//! a what-if fork re-runs the server, which stays on the relay. Pure over
//! `sim`: tested natively.

use sim::inspect::RelayInspection;
use sim::scenario::tape::{ClientTape, TapeRun};

/// A paused relay run and its client end at the playhead.
#[derive(Debug, Clone)]
pub struct RelayScrub {
    /// The inspection (corrections, trace, checkpoints).
    pub ins: RelayInspection,
    at: TapeRun,
    frames: usize,
}

impl RelayScrub {
    /// Inspects `tape` (two playbacks) with the playhead at its end.
    pub fn new(tape: ClientTape) -> RelayScrub {
        let ins = RelayInspection::of(tape);
        let frames = ins.marks().len();
        let at = ins.seek(frames);
        RelayScrub { ins, at, frames }
    }

    /// Frames played at the playhead, `0..=len()`.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Frames on the tape.
    pub fn len(&self) -> usize {
        self.ins.marks().len()
    }

    /// The page clock after `frames` frames, µs (the tape's first frame's
    /// for 0).
    pub fn time_after(&self, frames: usize) -> u64 {
        let marks = self.ins.marks();
        frames
            .checked_sub(1)
            .and_then(|i| marks.get(i))
            .or(marks.first())
            .map_or(0, |m| m.end.0)
    }

    /// The page clock at the playhead, µs.
    pub fn time_us(&self) -> u64 {
        self.time_after(self.frames)
    }

    /// The tape's span on the page clock, µs.
    pub fn extent(&self) -> (u64, u64) {
        (self.time_after(0), self.time_after(self.len()))
    }

    /// Moves the playhead after `frames` frames (clamped): a few frames on
    /// by playing them, anything else from a checkpoint.
    pub fn seek(&mut self, frames: usize) {
        self.frames = frames.min(self.len());
        let current = self.at.frame_index();
        if self.frames >= current && self.frames - current <= self.ins.checkpoint_every() {
            while self.at.frame_index() < self.frames && self.ins.step(&mut self.at) {}
        } else {
            self.at = self.ins.seek(self.frames);
        }
    }

    /// Moves the playhead to the frame playing at page time `t_us`.
    pub fn seek_time(&mut self, t_us: u64) {
        self.seek(self.ins.frames_at(sim::SimTime(t_us)));
    }

    /// Moves the playhead `delta` frames (negative: back).
    pub fn step(&mut self, delta: i64) {
        let frames = if delta < 0 {
            self.frames.saturating_sub(delta.unsigned_abs() as usize)
        } else {
            self.frames.saturating_add(delta as usize)
        };
        self.seek(frames);
    }

    /// The client end at the playhead.
    pub fn at(&self) -> &TapeRun {
        &self.at
    }

    /// The client end at the playhead, for its read-out.
    pub fn at_mut(&mut self) -> &mut TapeRun {
        &mut self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::net::codec;
    use sim::net::trace_wire::TraceRequest;
    use sim::protocol::{ServerMsg, Setup};
    use sim::scenario::tape::TapeEvent;
    use sim::{Bot, ClientEndpoint, NetSettings, ServerHost, SimTime};

    /// Ten seconds of a relay run's client end, taped, starting at page
    /// time 3 s.
    fn tape() -> (ClientTape, Vec<u64>) {
        let setup = Setup {
            net: NetSettings::symmetric(150, 10, 10),
            ..Setup::default()
        };
        let mut host = ServerHost::new(2, SimTime::ZERO);
        let mut e = ClientEndpoint::with_setup(2, &setup);
        e.request_trace(TraceRequest::default());
        let mut tape = ClientTape::new(&e, setup);
        let (mut bot, mut now, mut hashes) = (Bot::new(), SimTime::from_millis(3000), Vec::new());
        for _ in 0..600 {
            now = now.plus_micros(16_667);
            let mut frames = host.poll_until(now);
            for b in host.take_trace() {
                frames.push((now, codec::encode(&ServerMsg::Trace(Box::new(b)))));
            }
            for (at, frame) in frames {
                let _ = e.receive_frame(at, &frame);
                tape.record(TapeEvent::Receive { at, frame });
            }
            let (direction, dash) = bot.input(e.position(), 1.0 / 60.0);
            tape.record(TapeEvent::Frame {
                now,
                dt: 1.0 / 60.0,
                direction,
                dash,
                fire: false,
            });
            for f in e.frame(now, 1.0 / 60.0, direction, dash, false) {
                let _ = host.receive_frame(now, &f);
            }
            hashes.push(e.state_hash());
        }
        (tape, hashes)
    }

    #[test]
    fn the_playhead_goes_back_and_forth_through_the_pages_own_end() {
        let (tape, hashes) = tape();
        let mut s = RelayScrub::new(tape);
        assert_eq!((s.frames(), s.len()), (600, 600));
        assert_eq!(s.extent(), (3_016_667, 3_000_000 + 600 * 16_667));
        for (to, how) in [(120, "seek"), (121, "step"), (30, "back"), (599, "seek")] {
            if how == "step" {
                s.step(1);
            } else {
                s.seek(to);
            }
            assert_eq!(s.frames(), to);
            assert_eq!(
                s.at().endpoint().state_hash(),
                hashes[to - 1],
                "{how} to {to}"
            );
        }
        s.seek_time(3_000_000 + 100 * 16_667);
        assert_eq!(s.frames(), 100);
        // The trace at the end: the lanes' packets.
        assert!(s.ins.packets().unwrap().records().len() > 600);
    }
}
