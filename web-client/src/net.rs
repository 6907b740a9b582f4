//! The transport to the relay: a WebSocket that only moves frames; the
//! [`sim::ClientEndpoint`] (or a room's endpoint) decides what they mean.
//! (Local mode needs no transport: the page runs a [`sim::ScenarioRun`].)
//! A [`Connection`] keeps one socket's session through drops: it reopens
//! the socket within the relay's grace period and resumes
//! ([`crate::reconnect`] decides when), for the single-player driver and
//! for a shared room alike.

use crate::reconnect::{on_closed, Backoff, Step};
use sim::SimTime;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};

/// The close code of a room that refused the page for being full (1013
/// "try again later"): no point reconnecting.
pub const ROOM_FULL: u16 = 1013;

/// Connection state as shown in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// Waiting for the socket to open.
    Connecting,
    /// Open.
    Open,
    /// Closed or failed.
    Closed,
}

/// State the socket callbacks write and the loop reads.
#[derive(Default)]
pub struct Shared {
    /// Frames with their arrival time, so that measured RTT does not
    /// depend on the frame rate.
    inbox: VecDeque<(SimTime, Vec<u8>)>,
    closed: bool,
    /// The close frame's code and reason, when the relay sent one.
    close: Option<(u16, String)>,
}

/// The room of this page's private session: `p-` and 24 hex digits (96
/// bits from the browser's CSPRNG), drawn once and kept for the page's
/// life. A proxy in front of several relays pins a room to one of them
/// (`deploy/nginx.conf`), so every reconnect reaches the relay that kept
/// the session for its resume.
fn private_room() -> String {
    thread_local! {
        static ROOM: String = {
            let mut bytes = [0u8; 12];
            let drawn = web_sys::window()
                .and_then(|w| w.crypto().ok())
                .is_some_and(|c| c.get_random_values_with_u8_array(&mut bytes).is_ok());
            if !drawn {
                // No Web Crypto (never in a browser that runs wasm):
                // still distinct per page, if guessable.
                for b in &mut bytes {
                    *b = (js_sys::Math::random() * 256.0) as u8;
                }
            }
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            format!("p-{hex}")
        };
    }
    ROOM.with(String::clone)
}

/// The relay, over `ws(s)://<host>/ws?room=<this page's room>`.
pub struct Transport {
    /// The socket.
    socket: WebSocket,
    /// Frames received by the `onmessage` callback, and the closed flag.
    shared: Rc<RefCell<Shared>>,
    /// Frames queued while the socket is still connecting.
    pending: Vec<Vec<u8>>,
}

impl Transport {
    /// Opens a socket to the page's own origin at `/ws`, in this page's
    /// private room.
    pub fn connect() -> Option<Transport> {
        Transport::connect_to(&private_room())
    }

    /// Opens a socket to the page's own origin at `/ws?room=<room>` (a
    /// shared room's name, checked by the caller).
    pub fn connect_to(room: &str) -> Option<Transport> {
        Transport::connect_query(&format!("room={room}"))
    }

    /// Opens a socket to `/ws?room=<room>&model=rollback`: a shared
    /// room's rollback match (issue 22; the name checked by the caller).
    pub fn connect_rollback(room: &str) -> Option<Transport> {
        Transport::connect_query(&format!("room={room}&model=rollback"))
    }

    /// Opens a socket to the page's own origin at `/ws?<query>`.
    fn connect_query(query: &str) -> Option<Transport> {
        let loc = web_sys::window()?.location();
        let scheme = if loc.protocol().ok()? == "https:" {
            "wss"
        } else {
            "ws"
        };
        let url = format!("{scheme}://{}/ws?{query}", loc.host().ok()?);
        let socket = WebSocket::new(&url).ok()?;
        socket.set_binary_type(BinaryType::Arraybuffer);
        let shared = Rc::new(RefCell::new(Shared::default()));
        let s = shared.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let bytes = js_sys::Uint8Array::new(&e.data()).to_vec();
            s.borrow_mut().inbox.push_back((crate::clock::now(), bytes));
        });
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        let s = shared.clone();
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
            let mut s = s.borrow_mut();
            s.closed = true;
            // 1005: no status in the frame; 1006: no close frame at all.
            if !matches!(e.code(), 1005 | 1006) {
                s.close = Some((e.code(), e.reason()));
            }
        });
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        on_close.forget();
        let s = shared.clone();
        let on_error = Closure::<dyn FnMut()>::new(move || s.borrow_mut().closed = true);
        socket.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
        Some(Transport {
            socket,
            shared,
            pending: Vec::new(),
        })
    }

    /// Closes the socket (normal closure).
    pub fn close(&self) {
        let _ = self.socket.close();
    }

    /// Current state.
    pub fn state(&self) -> LinkState {
        if self.shared.borrow().closed {
            LinkState::Closed
        } else if self.socket.ready_state() == WebSocket::OPEN {
            LinkState::Open
        } else {
            LinkState::Connecting
        }
    }

    /// The relay's close code and reason, once it closed the connection
    /// with a Close frame (1001 shutdown, 1008 policy, 1009 too big, …).
    pub fn close_reason(&self) -> Option<(u16, String)> {
        self.shared.borrow().close.clone()
    }

    /// Sends frames (queued until a connecting socket opens).
    pub fn send(&mut self, frames: Vec<Vec<u8>>) {
        self.pending.extend(frames);
        if self.socket.ready_state() == WebSocket::OPEN {
            for f in self.pending.drain(..) {
                let _ = self.socket.send_with_u8_array(&f);
            }
        }
    }

    /// Frames that arrived since the last call, each with its arrival time.
    pub fn receive(&mut self) -> Vec<(SimTime, Vec<u8>)> {
        self.shared.borrow_mut().inbox.drain(..).collect()
    }
}

/// A relay connection that outlives its socket: after a drop it opens a
/// new socket within the relay's grace period and resumes the session
/// (reference `003_…` §六 断线重连), and gives up after it.
pub struct Connection {
    transport: Transport,
    /// The socket has been open at least once (a relay that never
    /// answered offers no grace period).
    ever_open: bool,
    /// Set while reconnecting after the socket dropped.
    backoff: Option<Backoff>,
}

/// What a [`Connection`]'s socket did this frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watch {
    /// It opened for the first time.
    Opened,
    /// Trying again after a drop: attempt number (from 1), and the close
    /// reason (e.g. ` (closed 1001: relay shutting down)`, or empty).
    Reconnecting(u32, String),
    /// The grace period is over, or there was none: the session is lost.
    Lost {
        /// The socket had been open.
        was_open: bool,
        /// The close reason, as for [`Watch::Reconnecting`].
        closed_by: String,
    },
}

impl Watch {
    /// For [`Watch::Lost`], what to tell the user: `relay lost` (or `no
    /// relay`, if the socket never opened) and the close reason.
    pub fn lost_reason(&self) -> Option<String> {
        match self {
            Watch::Lost {
                was_open,
                closed_by,
            } => {
                let what = if *was_open { "relay lost" } else { "no relay" };
                Some(format!("{what}{closed_by}"))
            }
            _ => None,
        }
    }
}

impl Connection {
    /// A connection over a socket just opened.
    pub fn new(transport: Transport) -> Connection {
        Connection {
            transport,
            ever_open: false,
            backoff: None,
        }
    }

    /// The socket's state.
    pub fn state(&self) -> LinkState {
        self.transport.state()
    }

    /// The relay's close code and reason, once it sent a Close frame.
    pub fn close_reason(&self) -> Option<(u16, String)> {
        self.transport.close_reason()
    }

    /// Closes the socket (normal closure).
    pub fn close(&self) {
        self.transport.close();
    }

    /// Frames that arrived since the last call, each with its arrival time.
    pub fn receive(&mut self) -> Vec<(SimTime, Vec<u8>)> {
        self.transport.receive()
    }

    /// Sends `frames` — none while reconnecting: moves are lost like
    /// packets then (the endpoint keeps them and is corrected once back),
    /// and sending nothing still flushes the Resume queued on the new
    /// socket.
    pub fn send(&mut self, frames: Vec<Vec<u8>>) {
        self.transport.send(if self.backoff.is_none() {
            frames
        } else {
            Vec::new()
        });
    }

    /// `true` while reconnecting after a drop.
    pub fn is_reconnecting(&self) -> bool {
        self.backoff.is_some()
    }

    /// The relay took the session back, or refused it: no more attempts.
    pub fn stop_reconnecting(&mut self) {
        self.backoff = None;
    }

    /// Tracks the socket at `now`: once it is closed, reopens it with
    /// `reopen` while the relay's `grace` period lasts (the endpoint's,
    /// honoured only if the socket ever opened), queueing the `resume`
    /// frame on the new socket, and gives up after it.
    pub fn watch(
        &mut self,
        now: SimTime,
        grace: Option<Duration>,
        resume: impl FnOnce() -> Option<Vec<u8>>,
        reopen: impl FnOnce() -> Option<Transport>,
    ) -> Option<Watch> {
        match self.transport.state() {
            LinkState::Open => {
                let first = !self.ever_open;
                self.ever_open = true;
                first.then_some(Watch::Opened)
            }
            LinkState::Connecting => None,
            LinkState::Closed => {
                let closed_by = self
                    .transport
                    .close_reason()
                    .map(|(code, reason)| format!(" (closed {code}: {reason})"))
                    .unwrap_or_default();
                let grace = grace.filter(|_| self.ever_open);
                match on_closed(&mut self.backoff, grace, now) {
                    Step::Wait => None,
                    Step::Attempt(n) => {
                        if let Some(mut fresh) = reopen() {
                            // The socket is still connecting: Resume waits
                            // in its queue.
                            if let Some(frame) = resume() {
                                fresh.send(vec![frame]);
                            }
                            self.transport = fresh;
                        }
                        Some(Watch::Reconnecting(n, closed_by))
                    }
                    Step::GiveUp => Some(Watch::Lost {
                        was_open: self.ever_open,
                        closed_by,
                    }),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Watch;

    #[test]
    fn a_lost_link_says_whether_the_relay_ever_answered_and_why_it_closed() {
        let lost = |was_open| Watch::Lost {
            was_open,
            closed_by: " (closed 1001: relay shutting down)".to_owned(),
        };
        assert_eq!(
            lost(true).lost_reason().as_deref(),
            Some("relay lost (closed 1001: relay shutting down)")
        );
        assert_eq!(
            lost(false).lost_reason().as_deref(),
            Some("no relay (closed 1001: relay shutting down)")
        );
        assert_eq!(Watch::Reconnecting(1, String::new()).lost_reason(), None);
    }
}
