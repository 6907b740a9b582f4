//! [`ClientTape`]: the client half of a relay run, recorded as it is fed —
//! every frame's input with its clock, every frame received with its
//! arrival time, every setting — so that the page's own end can be played
//! again to any frame, bit for bit (issue 23). The relay's half cannot be
//! re-simulated from here (the host's polls are the relay's); what the
//! relay did comes in the packet trace the tape carries with the rest
//! ([`crate::endpoints::trace`]).
//!
//! The tape keeps the last [`TAPE_WINDOW_US`] of run: older events are
//! played into its start (the endpoint as it stood where the tape now
//! begins), one frame's worth each live frame, so keeping it costs one
//! more client frame per frame, never a pause.

use crate::endpoints::client::ClientEndpoint;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::net::trace_wire::TraceRequest;
use crate::protocol::{Setting, Setup};
use std::collections::VecDeque;

/// How much run a tape keeps, µs (a minute).
pub const TAPE_WINDOW_US: u64 = 60_000_000;

/// One thing fed to the client end.
#[derive(Debug, Clone, PartialEq)]
pub enum TapeEvent {
    /// A render frame ([`ClientEndpoint::frame`]).
    Frame {
        /// Its clock.
        now: SimTime,
        /// Its length, s.
        dt: f64,
        /// The stick.
        direction: Vec2,
        /// Dash pressed.
        dash: bool,
        /// Fire held.
        fire: bool,
    },
    /// A frame from the server, arrived at `at`.
    Receive {
        /// Arrival, this end's clock.
        at: SimTime,
        /// The bytes.
        frame: Vec<u8>,
    },
    /// A setting applied ([`ClientEndpoint::apply`]).
    Apply(Setting),
    /// The trace asked for ([`ClientEndpoint::request_trace`]).
    Trace(TraceRequest),
    /// The trails cleared ([`ClientEndpoint::clear_trails`]).
    ClearTrails,
    /// A resume frame made for a new socket
    /// ([`ClientEndpoint::resume_frame`]): the end waits for its Welcome.
    Resume,
}

impl TapeEvent {
    /// Feeds the event to `endpoint`.
    pub fn apply_to(&self, endpoint: &mut ClientEndpoint) {
        match self {
            TapeEvent::Frame {
                now,
                dt,
                direction,
                dash,
                fire,
            } => {
                // What it sends went out on the live run.
                let _ = endpoint.frame(*now, *dt, *direction, *dash, *fire);
            }
            TapeEvent::Receive { at, frame } => {
                let _ = endpoint.receive_frame(*at, frame);
            }
            TapeEvent::Apply(s) => endpoint.apply(*s),
            TapeEvent::Trace(r) => endpoint.request_trace(*r),
            TapeEvent::ClearTrails => endpoint.clear_trails(),
            TapeEvent::Resume => {
                let _ = endpoint.resume_frame();
            }
        }
    }

    fn frame_time(&self) -> Option<SimTime> {
        match self {
            TapeEvent::Frame { now, .. } => Some(*now),
            _ => None,
        }
    }
}

/// The client half of a relay run (see the module doc).
#[derive(Debug, Clone)]
pub struct ClientTape {
    start: ClientEndpoint,
    /// The page's settings where the tape begins.
    setup: Setup,
    events: VecDeque<TapeEvent>,
    /// Frame events in `events`.
    frames: usize,
}

impl ClientTape {
    /// A tape that starts from `endpoint` as it stands, under the page's
    /// `setup`.
    pub fn new(endpoint: &ClientEndpoint, setup: Setup) -> ClientTape {
        ClientTape {
            start: endpoint.clone(),
            setup,
            events: VecDeque::new(),
            frames: 0,
        }
    }

    /// Records `event`, as it is fed to the live endpoint.
    pub fn record(&mut self, event: TapeEvent) {
        if let Some(now) = event.frame_time() {
            self.frames += 1;
            self.trim(now);
        }
        self.events.push_back(event);
    }

    /// Plays the events older than the window into the start, up to and
    /// including one frame.
    fn trim(&mut self, now: SimTime) {
        let Some(first) = self.events.iter().find_map(TapeEvent::frame_time) else {
            return;
        };
        if now.micros_since(first) <= TAPE_WINDOW_US {
            return;
        }
        while let Some(e) = self.events.pop_front() {
            e.apply_to(&mut self.start);
            if let TapeEvent::Apply(s) = e {
                self.setup = self.setup.with(s);
            }
            if e.frame_time().is_some() {
                self.frames -= 1;
                return;
            }
        }
    }

    /// The endpoint where the tape begins.
    pub fn start(&self) -> &ClientEndpoint {
        &self.start
    }

    /// The page's settings where the tape begins.
    pub fn setup(&self) -> Setup {
        self.setup
    }

    /// The events, oldest first.
    pub fn events(&self) -> &VecDeque<TapeEvent> {
        &self.events
    }

    /// Frames on the tape.
    pub fn frames(&self) -> usize {
        self.frames
    }
}

/// A tape played back: the endpoint after some of its frames.
#[derive(Debug, Clone)]
pub struct TapeRun {
    endpoint: ClientEndpoint,
    /// Without the inspector's records: trace requests are not taken up.
    plain: bool,
    /// Events applied.
    next: usize,
    /// Frames played.
    frames: usize,
    /// The clock of the last frame played (the start's: 0).
    now: SimTime,
}

impl TapeRun {
    /// `tape` played from its start with every record kept.
    pub fn of(tape: &ClientTape) -> TapeRun {
        TapeRun {
            endpoint: tape.start.clone(),
            plain: false,
            next: 0,
            frames: 0,
            now: SimTime::ZERO,
        }
    }

    /// `tape` played from its start without the inspector's records
    /// ([`ClientEndpoint::without_records`]): a checkpoint's copy is
    /// small, and it plays on exactly as [`TapeRun::of`].
    pub fn plain(tape: &ClientTape) -> TapeRun {
        TapeRun {
            endpoint: tape.start.without_records(),
            plain: true,
            ..TapeRun::of(tape)
        }
    }

    /// Plays the next frame of `tape` and the events before it; `false`
    /// at the end.
    pub fn step(&mut self, tape: &ClientTape) -> bool {
        while let Some(e) = tape.events.get(self.next) {
            if !(self.plain && matches!(e, TapeEvent::Trace(_))) {
                e.apply_to(&mut self.endpoint);
            }
            self.next += 1;
            if let Some(now) = e.frame_time() {
                self.frames += 1;
                self.now = now;
                return true;
            }
        }
        false
    }

    /// The client end after the frames played.
    pub fn endpoint(&self) -> &ClientEndpoint {
        &self.endpoint
    }

    /// The client end, for its read-out.
    pub fn endpoint_mut(&mut self) -> &mut ClientEndpoint {
        &mut self.endpoint
    }

    /// Frames played.
    pub fn frame_index(&self) -> usize {
        self.frames
    }

    /// The last frame's clock.
    pub fn now(&self) -> SimTime {
        self.now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoints::session::LocalSession;
    use crate::foundation::bot::Bot;
    use crate::net::settings::NetSettings;

    /// A page's client end fed by a host on one clock, taped.
    fn taped(seconds: u32, window_check: bool) -> (ClientEndpoint, ClientTape) {
        let mut s = LocalSession::new(4, NetSettings::symmetric(120, 10, 5));
        let mut tape = ClientTape::new(&s.endpoint, Setup::default());
        let mut bot = Bot::new();
        let mut now = SimTime::ZERO;
        for i in 0..seconds * 60 {
            now = now.plus_micros(16_667);
            for (at, f) in s.host.poll_until(now) {
                tape.record(TapeEvent::Receive {
                    at,
                    frame: f.clone(),
                });
                let _ = s.endpoint.receive_frame(at, &f);
            }
            if i == 30 {
                let change = Setting::Net(NetSettings::symmetric(200, 0, 5));
                tape.record(TapeEvent::Apply(change));
                s.endpoint.apply(change);
            }
            let (direction, dash) = bot.input(s.endpoint.position(), 1.0 / 60.0);
            let e = TapeEvent::Frame {
                now,
                dt: 1.0 / 60.0,
                direction,
                dash,
                fire: false,
            };
            tape.record(e.clone());
            for f in s.endpoint.frame(now, 1.0 / 60.0, direction, dash, false) {
                let _ = s.host.receive_frame(now, &f);
            }
            if window_check {
                assert!(tape.frames() <= 60 * 60 + 1);
            }
        }
        (s.endpoint, tape)
    }

    #[test]
    fn a_tape_plays_the_client_end_again_bit_for_bit() {
        let (live, tape) = taped(5, false);
        let (mut run, mut plain) = (TapeRun::of(&tape), TapeRun::plain(&tape));
        let mut frames = 0;
        while run.step(&tape) {
            assert!(plain.step(&tape));
            assert_eq!(run.endpoint().state_hash(), plain.endpoint().state_hash());
            frames += 1;
        }
        assert_eq!(frames, 300);
        assert_eq!(run.endpoint().state_hash(), live.state_hash());
        assert_eq!(
            run.endpoint().cmc().unwrap().counters(),
            live.cmc().unwrap().counters()
        );
    }

    #[test]
    fn a_tape_keeps_its_last_minute_and_still_ends_where_the_run_does() {
        let (live, tape) = taped(65, true);
        assert_eq!(tape.frames(), 60 * 60);
        let mut run = TapeRun::of(&tape);
        while run.step(&tape) {}
        assert_eq!(run.endpoint().state_hash(), live.state_hash());
    }
}
