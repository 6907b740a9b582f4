//! Transports: the relay over a WebSocket, or the same `sim` host inside
//! the page (local mode, no server needed). Both only move frames; the
//! [`sim::ClientEndpoint`] decides what they mean.

use sim::{ServerHost, SimTime};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BinaryType, MessageEvent, WebSocket};

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
}

/// Where frames go.
pub enum Transport {
    /// The relay, over `ws(s)://<host>/ws`.
    Remote {
        /// The socket.
        socket: WebSocket,
        /// Frames received by the `onmessage` callback, and the closed flag.
        shared: Rc<RefCell<Shared>>,
        /// Frames queued while the socket is still connecting.
        pending: Vec<Vec<u8>>,
    },
    /// The host runs in this page.
    Local(Box<ServerHost>),
}

impl Transport {
    /// Opens a socket to the page's own origin at `/ws`.
    pub fn connect() -> Option<Transport> {
        let loc = web_sys::window()?.location();
        let scheme = if loc.protocol().ok()? == "https:" {
            "wss"
        } else {
            "ws"
        };
        let url = format!("{scheme}://{}/ws", loc.host().ok()?);
        let socket = WebSocket::new(&url).ok()?;
        socket.set_binary_type(BinaryType::Arraybuffer);
        let shared = Rc::new(RefCell::new(Shared::default()));
        let s = shared.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let bytes = js_sys::Uint8Array::new(&e.data()).to_vec();
            s.borrow_mut().inbox.push_back((crate::app::now(), bytes));
        });
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        let s = shared.clone();
        let on_close = Closure::<dyn FnMut()>::new(move || s.borrow_mut().closed = true);
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        socket.set_onerror(Some(on_close.as_ref().unchecked_ref()));
        on_close.forget();
        Some(Transport::Remote {
            socket,
            shared,
            pending: Vec::new(),
        })
    }

    /// A host inside the page, seeded with `seed`.
    pub fn local(seed: u64, now: SimTime) -> Transport {
        Transport::Local(Box::new(ServerHost::new(seed, now)))
    }

    /// Current state.
    pub fn state(&self) -> LinkState {
        match self {
            Transport::Remote { socket, shared, .. } => {
                if shared.borrow().closed {
                    LinkState::Closed
                } else if socket.ready_state() == WebSocket::OPEN {
                    LinkState::Open
                } else {
                    LinkState::Connecting
                }
            }
            Transport::Local(_) => LinkState::Open,
        }
    }

    /// Sends frames (queued until a connecting socket opens).
    pub fn send(&mut self, now: SimTime, frames: Vec<Vec<u8>>) {
        match self {
            Transport::Remote {
                socket, pending, ..
            } => {
                pending.extend(frames);
                if socket.ready_state() == WebSocket::OPEN {
                    for f in pending.drain(..) {
                        let _ = socket.send_with_u8_array(&f);
                    }
                }
            }
            Transport::Local(host) => {
                for f in frames {
                    // A rejection is answered by the host with an Error frame.
                    let _ = host.receive_frame(now, &f);
                }
            }
        }
    }

    /// Frames that arrived (remote) or are due (local) by `now`, each with
    /// its arrival time.
    pub fn receive(&mut self, now: SimTime) -> Vec<(SimTime, Vec<u8>)> {
        match self {
            Transport::Remote { shared, .. } => shared.borrow_mut().inbox.drain(..).collect(),
            Transport::Local(host) => host.poll_until(now),
        }
    }
}
