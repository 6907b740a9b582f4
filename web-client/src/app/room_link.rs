//! A shared room's connection ([`RoomRun`]): the socket to
//! `/ws?room=NAME`, the room's client end, reconnecting within the relay's
//! grace period with the seat's resume token, and the state the room's
//! view keeps (trail, shot cursor, timeline).

use crate::clock::local_seed;
use crate::net::{LinkState, Transport};
use crate::reconnect::{on_closed, Backoff, Step};
use crate::render::camera::FollowCamera;
use crate::room_rules::ShotCursor;
use crate::timeline::Timeline;
use sim::room::{PlayerSettings, RoomEndpoint, RoomEvent};
use sim::scenario::Setting;
use sim::{SimTime, Vec2 as SimVec2};
use std::collections::VecDeque;

/// The page in a shared room: the socket and the room's client end.
pub struct RoomRun {
    /// The room's name.
    pub name: String,
    pub(super) transport: Transport,
    /// The room's client end.
    pub endpoint: RoomEndpoint,
    pub(super) ever_open: bool,
    /// Set while reconnecting after the socket dropped.
    pub(super) reconnect: Option<Backoff>,
    /// Where you were drawn, oldest first.
    pub(super) trail: VecDeque<SimVec2>,
    pub(super) cursor: ShotCursor,
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
    /// The panel texts before the room, restored on leaving.
    pub(super) saved_texts: Vec<(&'static str, String)>,
    /// The run bar's buttons before the room (title, disabled), restored
    /// on leaving.
    pub(super) saved_run_bar: Vec<(&'static str, Option<String>, bool)>,
}

/// What happened to the room's connection this frame.
pub(super) enum RoomLink {
    Joined,
    Reconnected,
    NewSeat,
    Reconnecting(u32, String),
    /// Leave the room, with what to tell the user.
    Lost(String),
    ServerError(String),
}

impl RoomRun {
    /// A connection to room `name` (checked), if a socket can be opened.
    pub(super) fn connect(name: &str) -> Option<RoomRun> {
        Some(RoomRun {
            name: name.to_owned(),
            transport: Transport::connect_to(name)?,
            endpoint: RoomEndpoint::new(local_seed()),
            ever_open: false,
            reconnect: None,
            trail: VecDeque::new(),
            cursor: ShotCursor::default(),
            timeline: Timeline::default(),
            camera: FollowCamera::default(),
            sent: None,
            record_time: (0, 0),
            last_jump: None,
            next_readouts: SimTime::ZERO,
            measured: None,
            saved_texts: Vec::new(),
            saved_run_bar: Vec::new(),
        })
    }

    /// Applies a control change to this player's link and character.
    pub(super) fn apply(&mut self, s: Setting) {
        let e = &mut self.endpoint;
        match s {
            Setting::Net(n) => e.set_net_settings(n),
            Setting::Rules(r) => e.set_server_rules(r),
            Setting::Client(c) => e.set_client_config(c),
            Setting::Smoothing(m) => e.set_smoothing(m),
            Setting::LagSpike(spike) => e.start_lag_spike(spike),
            // A room runs the CMC model for everyone; a packet delivered by
            // a what-if fork (Deliver) names an in-page run's packet.
            Setting::Model(_) | Setting::Deliver { .. } => {}
        }
    }

    /// Frames in (UE's order: network input first), then what happened.
    pub(super) fn receive(&mut self, out: &mut Vec<RoomLink>) {
        for (arrived, f) in self.transport.receive() {
            match self.endpoint.receive_frame(arrived, &f) {
                Ok(RoomEvent::Joined(_)) if self.reconnect.take().is_some() => {
                    out.push(RoomLink::Reconnected);
                }
                Ok(RoomEvent::Joined(_)) => out.push(RoomLink::Joined),
                Ok(RoomEvent::Refused(reason)) => out.push(RoomLink::Lost(reason)),
                Ok(RoomEvent::ResumeRefused(reason)) => {
                    web_sys::console::warn_1(&format!("{reason}: joining afresh").into());
                    self.reconnect = None;
                    self.endpoint = RoomEndpoint::new(local_seed());
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
    pub(super) fn watch(&mut self, t: SimTime, out: &mut Vec<RoomLink>) {
        match self.transport.state() {
            LinkState::Open => self.ever_open = true,
            LinkState::Connecting => {}
            LinkState::Closed => {
                let closed = self.transport.close_reason();
                if let Some((crate::net::ROOM_FULL, reason)) = &closed {
                    out.push(RoomLink::Lost(reason.clone()));
                    return;
                }
                let why = closed
                    .map(|(code, reason)| format!(" (closed {code}: {reason})"))
                    .unwrap_or_default();
                let grace = self.endpoint.resume_grace().filter(|_| self.ever_open);
                let step = on_closed(&mut self.reconnect, grace, t);
                match step {
                    Step::Wait => {}
                    Step::Attempt(n) => {
                        if let Some(mut fresh) = Transport::connect_to(&self.name) {
                            if let Some(resume) = self.endpoint.resume_frame() {
                                fresh.send(vec![resume]);
                            }
                            self.transport = fresh;
                        }
                        out.push(RoomLink::Reconnecting(n, why));
                    }
                    Step::GiveUp => out.push(RoomLink::Lost(format!(
                        "{}{why}",
                        if self.ever_open {
                            "relay lost"
                        } else {
                            "no relay"
                        }
                    ))),
                }
            }
        }
    }
}
