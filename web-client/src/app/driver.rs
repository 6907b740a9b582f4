//! Who runs the authority ([`Driver`]): the relay over a WebSocket on the
//! page clock, or the host in the page on a run's virtual clock. The
//! remote side also keeps the connection: frames in, frames out, and when
//! the socket drops, reconnecting within the relay's grace period
//! ([`crate::reconnect`]) or giving up.

use crate::clock::local_seed;
use crate::net::{LinkState, Transport};
use crate::reconnect::{on_closed, Backoff, Step};
use sim::metrics::Metrics;
use sim::scenario::{Setting, Setup};
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
    transport: Transport,
    /// The client end.
    pub endpoint: ClientEndpoint,
    ever_open: bool,
    /// Set while reconnecting after the connection dropped.
    reconnect: Option<Backoff>,
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
        Some(Driver::Remote(Box::new(Remote {
            transport: Transport::connect()?,
            endpoint: ClientEndpoint::with_setup(local_seed(), setup),
            ever_open: false,
            reconnect: None,
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
    /// from now on, for the live packet timeline (the relay's packets are
    /// out of the page's sight).
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
            Driver::Remote(r) => r.endpoint.apply(s),
            Driver::Local(run) => run.change(s),
        }
    }

    /// Forgets the drawn trails.
    pub fn clear_trails(&mut self) {
        match self {
            Driver::Remote(r) => r.endpoint.clear_trails(),
            Driver::Local(run) => run.clear_trails(),
        }
    }

    /// Closes the relay connection, if any.
    pub fn close(&self) {
        if let Driver::Remote(r) = self {
            r.transport.close();
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
    /// The socket's state.
    pub fn link_state(&self) -> LinkState {
        self.transport.state()
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
        for (arrived, f) in self.transport.receive() {
            match self.endpoint.receive_frame(arrived, &f) {
                Ok(ClientEvent::Welcomed) if self.reconnect.is_some() => {
                    self.reconnect = None;
                    self.endpoint.set_net_settings(setup.net);
                    self.endpoint.set_server_rules(setup.rules);
                    events.push(LinkEvent::Reconnected);
                }
                Ok(ClientEvent::ResumeRefused(reason)) => {
                    web_sys::console::warn_1(&format!("{reason}: new session").into());
                    self.reconnect = None;
                    self.endpoint = ClientEndpoint::with_setup(local_seed(), setup);
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
        // While reconnecting, moves are lost like packets (the SavedMoves
        // keep them; the server corrects the client when it is back).
        // Sending nothing still flushes the Resume queued on the socket.
        self.transport.send(if self.reconnect.is_none() {
            out
        } else {
            Vec::new()
        });
    }

    /// Tracks the socket: reconnects within the relay's grace period.
    pub fn watch(&mut self, t: SimTime, events: &mut Vec<LinkEvent>) {
        match self.transport.state() {
            LinkState::Open if !self.ever_open => {
                self.ever_open = true;
                events.push(LinkEvent::Opened);
            }
            LinkState::Closed => {
                let closed_by = self
                    .transport
                    .close_reason()
                    .map(|(code, reason)| format!(" (closed {code}: {reason})"))
                    .unwrap_or_default();
                let grace = self.endpoint.resume_grace().filter(|_| self.ever_open);
                let step = on_closed(&mut self.reconnect, grace, t);
                match step {
                    Step::Wait => {}
                    Step::Attempt(n) => {
                        if let Some(mut fresh) = Transport::connect() {
                            // The socket is still connecting: Resume waits
                            // in its queue.
                            if let Some(resume) = self.endpoint.resume_frame() {
                                fresh.send(vec![resume]);
                            }
                            self.transport = fresh;
                        }
                        events.push(LinkEvent::Reconnecting(n, closed_by));
                    }
                    Step::GiveUp => events.push(LinkEvent::Lost {
                        was_open: self.ever_open,
                        closed_by,
                    }),
                }
            }
            _ => {}
        }
    }
}
