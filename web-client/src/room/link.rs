//! A shared room's connection ([`RoomRun`]): the socket to
//! `/ws?room=NAME`, the room's client end, reconnecting within the relay's
//! grace period with the seat's resume token, and the state the room's
//! frame and view keep (trail, shot cursor, timeline, camera), and what it
//! borrows of the page while it lasts ([`super::page`]).

use super::page::{BorrowedPage, OFF_IN_A_ROOM, ROOM_SLOTS};
use super::rules::ShotCursor;
use crate::canvas::camera::FollowCamera;
use crate::clock::local_seed;
use crate::net::{Connection, LinkState, Transport, Watch};
use crate::panels::chrome::PanelChrome;
use crate::timeline::samples::Timeline;
use sim::endpoints::room::{RoomEndpoint, RoomEvent};
use sim::protocol::Setting;
use sim::room::PlayerSettings;
use sim::{SimTime, Vec2 as SimVec2};
use std::collections::VecDeque;
use web_sys::Document;

/// The page in a shared room: the socket and the room's client end.
pub struct RoomRun {
    /// The room's name.
    pub name: String,
    pub(super) link: Connection,
    /// The room's client end.
    pub endpoint: RoomEndpoint,
    /// Where you were drawn, oldest first.
    pub(super) trail: VecDeque<SimVec2>,
    /// Which shot the Replayed panel shows.
    pub cursor: ShotCursor,
    pub(super) timeline: Timeline,
    pub(super) camera: FollowCamera,
    /// This player's room switches as last sent.
    pub(super) sent: Option<PlayerSettings>,
    /// The room's `MaxRecordTime` (ms): as the room last said, and as
    /// this page last sent or showed it (a value sent is not undone while
    /// its answer is on the way).
    pub(super) record_time: (u16, u16),
    /// When the newest ammo jump the timeline has marked happened.
    pub(super) last_jump: Option<SimTime>,
    pub(super) next_readouts: SimTime,
    /// The link settings measured since, and since when.
    pub(super) measured: Option<(sim::NetSettings, SimTime)>,
    /// What the room borrowed of the page, restored on leaving.
    pub(super) borrowed: BorrowedPage,
    /// The span the packet lanes hold to be clicked in, page clock µs
    /// (`None`: they follow the last 10 s).
    pub hold: Option<(u64, u64)>,
    /// The items the list and the lanes show, as last drawn: a click's
    /// place is read against these (`crate::room::lanes::ItemKey`).
    pub listed: Vec<crate::room::lanes::ItemKey>,
    /// The item whose story is open.
    pub open: Option<crate::room::lanes::ItemKey>,
}

/// `e` with the packet trace of its link asked for (the page opts in,
/// issue 23).
fn traced(mut e: RoomEndpoint) -> RoomEndpoint {
    e.request_trace(sim::net::trace_wire::TraceRequest::default());
    e
}

/// What happened to the room's connection this frame.
pub enum RoomLink {
    /// The room took this page in.
    Joined,
    /// The seat resumed after a drop.
    Reconnected,
    /// The relay no longer knew the seat: a new one was taken.
    NewSeat,
    /// Trying again after a drop (attempt number, the close reason).
    Reconnecting(u32, String),
    /// Leave the room, with what to tell the user.
    Lost(String),
    /// The room refused something (a bot in a full room, a shot too old).
    ServerError(String),
}

impl RoomRun {
    /// A connection to room `name` (checked), if a socket can be opened.
    pub fn connect(name: &str) -> Option<RoomRun> {
        Some(RoomRun {
            name: name.to_owned(),
            link: Connection::new(Transport::connect_to(name)?),
            endpoint: traced(RoomEndpoint::new(local_seed())),
            trail: VecDeque::new(),
            cursor: ShotCursor::default(),
            timeline: Timeline::default(),
            camera: FollowCamera::default(),
            sent: None,
            record_time: (0, 0),
            last_jump: None,
            next_readouts: SimTime::ZERO,
            measured: None,
            borrowed: Default::default(),
            hold: None,
            listed: Vec::new(),
            open: None,
        })
    }

    /// Closes the socket (Leave, or the room ended).
    pub fn close(&self) {
        self.link.close();
    }

    /// Applies a control change to this player's link and character; the
    /// read-outs are rewritten this frame.
    pub fn apply(&mut self, s: Setting) {
        self.next_readouts = SimTime::ZERO;
        let e = &mut self.endpoint;
        match s {
            Setting::Net(n) => e.set_net_settings(n),
            Setting::Rules(r) => e.set_server_rules(r),
            Setting::Client(c) => e.set_client_config(c),
            Setting::Smoothing(m) => e.set_smoothing(m),
            Setting::LagSpike(spike) => e.start_lag_spike(spike),
            Setting::Transport(t) => e.set_transport(t),
            // A room runs the CMC model for everyone; a packet delivered by
            // a what-if fork (Deliver) names an in-page run's packet.
            Setting::Model(_) | Setting::Deliver { .. } => {}
        }
    }

    /// Frames in (UE's order: network input first), then what happened.
    pub fn receive(&mut self, out: &mut Vec<RoomLink>) {
        for (arrived, f) in self.link.receive() {
            match self.endpoint.receive_frame(arrived, &f) {
                Ok(RoomEvent::Joined(_)) if self.link.is_reconnecting() => {
                    self.link.stop_reconnecting();
                    out.push(RoomLink::Reconnected);
                }
                Ok(RoomEvent::Joined(_)) => out.push(RoomLink::Joined),
                Ok(RoomEvent::Refused(reason)) => out.push(RoomLink::Lost(reason)),
                Ok(RoomEvent::ResumeRefused(reason)) => {
                    web_sys::console::warn_1(&format!("{reason}: joining afresh").into());
                    self.link.stop_reconnecting();
                    self.endpoint = traced(RoomEndpoint::new(local_seed()));
                    self.sent = None;
                    out.push(RoomLink::NewSeat);
                }
                Ok(RoomEvent::ServerError(reason)) => out.push(RoomLink::ServerError(reason)),
                Ok(RoomEvent::Applied) => {}
                Err(e) => out.push(RoomLink::ServerError(format!("bad frame from server: {e}"))),
            }
        }
    }

    /// Tracks the socket: reconnects within the relay's grace period
    /// (resuming the seat), gives up otherwise.
    pub fn watch(&mut self, t: SimTime, out: &mut Vec<RoomLink>) {
        if self.link.state() == LinkState::Closed {
            if let Some((crate::net::ROOM_FULL, reason)) = self.link.close_reason() {
                out.push(RoomLink::Lost(reason));
                return;
            }
        }
        let grace = self.endpoint.resume_grace();
        let (endpoint, name) = (&mut self.endpoint, &self.name);
        let watched = self.link.watch(
            t,
            grace,
            || endpoint.resume_frame(),
            || Transport::connect_to(name),
        );
        match watched {
            Some(Watch::Reconnecting(n, why)) => out.push(RoomLink::Reconnecting(n, why)),
            Some(lost @ Watch::Lost { .. }) => {
                out.extend(lost.lost_reason().map(RoomLink::Lost));
            }
            Some(Watch::Opened) | None => {}
        }
    }
}

impl RoomRun {
    /// Keeps the panel texts the room rewrites, turns off the controls
    /// that do nothing in a room (saying why) and puts the room in the
    /// address bar.
    pub fn borrow_page(&mut self, doc: &Document) {
        self.borrowed = BorrowedPage::take(doc, &ROOM_SLOTS, &OFF_IN_A_ROOM, &self.name, None);
    }

    /// Restores what [`RoomRun::borrow_page`] took.
    pub fn give_back_page(&self, doc: &Document, chrome: &PanelChrome) {
        self.borrowed.give_back(doc, chrome);
    }
}
