//! Who runs the authority ([`Driver`]): the relay over a WebSocket on the
//! page clock, or the host in the page on a run's virtual clock. The
//! remote side also keeps the connection: frames in, frames out, and when
//! the socket drops, reconnecting within the relay's grace period
//! ([`crate::reconnect`]) or giving up. On the relay the page asks for
//! its packet trace (issue 23) and tapes everything its end is fed
//! ([`sim::scenario::tape`]), so that a pause can go back in it.

use crate::clock::local_seed;
use crate::net::{Connection, LinkState, Transport, Watch};
use sim::endpoints::metrics::Metrics;
use sim::net::trace_wire::TraceRequest;
use sim::protocol::{Setting, Setup};
use sim::scenario::tape::{ClientTape, TapeEvent};
use sim::{ClientEndpoint, ClientEvent, Scenario, ScenarioRun, SimTime, Vec2};

/// Packets (and client moves) an in-page run keeps for the live packet
/// timeline: ~130 packets/s at 60 Hz, so about a minute (~60 bytes each).
pub const LIVE_RECORDS: usize = 8192;

/// Who runs the authority.
pub enum Driver {
    /// The relay over a WebSocket, on the page clock.
    Remote(Box<Remote>),
    /// The host in the page, on the run's virtual clock.
    Local(Box<ScenarioRun>),
}

/// The relay connection and the client end talking over it.
pub struct Remote {
    link: Connection,
    /// The client end (fed only through [`Remote::feed`], which tapes).
    endpoint: ClientEndpoint,
    /// Everything the client end was fed, the last minute of it.
    tape: ClientTape,
}

/// What happened to the connection this frame, for the header.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkEvent {
    /// The socket opened for the first time.
    Opened,
    /// Resumed after a drop.
    Reconnected,
    /// The relay no longer knew the session: a new one started.
    NewSession,
    /// Trying again after a drop (attempt number, the close reason).
    Reconnecting(u32, String),
    /// No relay (any more): time for local mode.
    Lost {
        /// The connection had been open.
        was_open: bool,
        /// The close reason, e.g. ` (closed 1001: relay shutting down)`.
        closed_by: String,
    },
    /// The server rejected something.
    ServerError(String),
    /// A frame from the server did not decode.
    BadFrame(String),
}

impl Driver {
    /// A new relay connection with the controls' `setup`, if a socket can
    /// be opened.
    pub fn connect(setup: &Setup) -> Option<Driver> {
        let link = Connection::new(Transport::connect()?);
        let endpoint = Remote::endpoint_for(setup);
        Some(Driver::Remote(Box::new(Remote {
            link,
            tape: ClientTape::new(&endpoint, *setup),
            endpoint,
        })))
    }

    /// A live in-page run from `setup`.
    pub fn local(setup: Setup) -> Driver {
        Driver::Local(Box::new(ScenarioRun::play(Scenario::new(
            "live",
            local_seed(),
            setup,
        ))))
    }

    /// An in-page run keeps the last [`LIVE_RECORDS`] packets and moves
    /// from now on, for the live packet timeline (a relay run keeps them
    /// from its start: [`Remote::endpoint_for`]).
    pub fn keep_timeline(&mut self) {
        if let Driver::Local(run) = self {
            run.inspect(LIVE_RECORDS);
        }
    }

    /// The client end (for drawing and read-outs).
    pub fn endpoint(&self) -> &ClientEndpoint {
        match self {
            Driver::Remote(r) => &r.endpoint,
            Driver::Local(run) => run.endpoint(),
        }
    }

    /// The run's clock: the page's on the relay, the virtual one locally.
    pub fn now(&self, page_now: SimTime) -> SimTime {
        match self {
            Driver::Remote(_) => page_now,
            Driver::Local(run) => run.now(),
        }
    }

    /// The read-out on the run's clock.
    pub fn metrics(&mut self, page_now: SimTime) -> Metrics {
        match self {
            Driver::Remote(r) => r.endpoint.metrics(page_now),
            Driver::Local(run) => run.metrics(),
        }
    }

    /// Applies a setting (recorded while recording; during playback it
    /// takes over, see [`ScenarioRun::change`]).
    pub fn apply(&mut self, s: Setting) {
        match self {
            Driver::Remote(r) => r.feed(TapeEvent::Apply(s)),
            Driver::Local(run) => run.change(s),
        }
    }

    /// Forgets the drawn trails.
    pub fn clear_trails(&mut self) {
        match self {
            Driver::Remote(r) => r.feed(TapeEvent::ClearTrails),
            Driver::Local(run) => run.clear_trails(),
        }
    }

    /// Closes the relay connection, if any.
    pub fn close(&self) {
        if let Driver::Remote(r) = self {
            r.link.close();
        }
    }

    /// The in-page run, if any.
    pub fn run_mut(&mut self) -> Option<&mut ScenarioRun> {
        match self {
            Driver::Local(run) => Some(run),
            Driver::Remote(_) => None,
        }
    }

    /// The in-page run, if any.
    pub fn run(&self) -> Option<&ScenarioRun> {
        match self {
            Driver::Local(run) => Some(run),
            Driver::Remote(_) => None,
        }
    }
}

impl Remote {
    /// A relay run's client end: the controls' `setup`, the inspector's
    /// records kept, the packet trace asked for (the page opts in).
    fn endpoint_for(setup: &Setup) -> ClientEndpoint {
        let mut e = ClientEndpoint::with_setup(local_seed(), setup);
        e.inspect(LIVE_RECORDS);
        e.request_trace(TraceRequest::default());
        e
    }

    /// Feeds the client end, taped.
    fn feed(&mut self, event: TapeEvent) {
        event.apply_to(&mut self.endpoint);
        self.tape.record(event);
    }

    /// The client end.
    pub fn endpoint(&self) -> &ClientEndpoint {
        &self.endpoint
    }

    /// What the client end was fed, the last minute of it.
    pub fn tape(&self) -> &ClientTape {
        &self.tape
    }

    /// The socket's state.
    pub fn link_state(&self) -> LinkState {
        self.link.state()
    }

    /// One frame on the relay: frames in (UE's order: network input
    /// first, then the character ticks, replaying any correction just
    /// received, then the frame is drawn), the client's frame, frames out.
    /// `setup` is re-sent after a resume (the relay kept the settings of
    /// before the drop). `fire` is the rollback arena's action button.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        t: SimTime,
        dt: f64,
        dir: Vec2,
        dash: bool,
        fire: bool,
        setup: &Setup,
        events: &mut Vec<LinkEvent>,
    ) {
        for (arrived, f) in self.link.receive() {
            let event = self.endpoint.receive_frame(arrived, &f);
            self.tape.record(TapeEvent::Receive {
                at: arrived,
                frame: f,
            });
            match event {
                Ok(ClientEvent::Welcomed) if self.link.is_reconnecting() => {
                    self.link.stop_reconnecting();
                    self.feed(TapeEvent::Apply(Setting::Net(setup.net)));
                    self.feed(TapeEvent::Apply(Setting::Transport(setup.transport)));
                    self.feed(TapeEvent::Apply(Setting::Rules(setup.rules)));
                    events.push(LinkEvent::Reconnected);
                }
                Ok(ClientEvent::ResumeRefused(reason)) => {
                    web_sys::console::warn_1(&format!("{reason}: new session").into());
                    self.link.stop_reconnecting();
                    self.endpoint = Remote::endpoint_for(setup);
                    self.tape = ClientTape::new(&self.endpoint, *setup);
                    events.push(LinkEvent::NewSession);
                }
                Ok(ClientEvent::ServerError(reason)) => {
                    web_sys::console::warn_1(&format!("server rejected a frame: {reason}").into());
                    events.push(LinkEvent::ServerError(reason));
                }
                Ok(_) => {}
                Err(e) => {
                    web_sys::console::warn_1(&format!("bad frame from server: {e}").into());
                    events.push(LinkEvent::BadFrame(e.to_string()));
                }
            }
        }
        let out = self.endpoint.frame(t, dt, dir, dash, fire);
        self.tape.record(TapeEvent::Frame {
            now: t,
            dt,
            direction: dir,
            dash,
            fire,
        });
        self.link.send(out);
    }

    /// Tracks the socket: reconnects within the relay's grace period.
    pub fn watch(&mut self, t: SimTime, events: &mut Vec<LinkEvent>) {
        let grace = self.endpoint.resume_grace();
        let (endpoint, tape) = (&mut self.endpoint, &mut self.tape);
        let resume = || {
            tape.record(TapeEvent::Resume);
            endpoint.resume_frame()
        };
        let watched = self.link.watch(t, grace, resume, Transport::connect);
        if let Some(w) = watched {
            events.push(match w {
                Watch::Opened => LinkEvent::Opened,
                Watch::Reconnecting(n, closed_by) => LinkEvent::Reconnecting(n, closed_by),
                Watch::Lost {
                    was_open,
                    closed_by,
                } => LinkEvent::Lost {
                    was_open,
                    closed_by,
                },
            });
        }
    }
}
