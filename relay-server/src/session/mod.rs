//! One connection's protocol rules, sans IO (the quinn-proto half of
//! `ws/`): decode → budget ([`Gate`]) → the authority, the
//! Resume → Hello rewrite, the [`ServerMsg::SessionToken`] that follows
//! every Welcome (or a room's seat), and the one path every rejected frame
//! takes (logged without flooding the log, answered with an Error saying
//! why, charged a strike). `ws/` only moves bytes and time in and out.
//!
//! The authority is a private [`ServerHost`] of the session's own, or a
//! seat in a shared room ([`crate::rooms`]) whose task answers over a
//! channel ([`Session::room_out`]): the budgets, strikes and close codes
//! are the session's either way, so one bad client never disturbs
//! another.
//!
//! When the page asks for its packet trace (issue 23), the session adds
//! its own processing times to each batch ([`crate::trace`]) and tells
//! the host when the page reads slowly, so the trace thins instead of
//! queueing.

mod log;
mod room;

use crate::limits::{Admit, Gate, Limits, Violation};
use crate::metrics::{Metrics, SessionMetrics};
use crate::resume::{self, Resumable, ResumeStore};
use crate::room::{RoomId, RoomModel};
use crate::rooms::{Out, Rooms, Seat};
use crate::token::TokenHash;
use crate::trace::TraceTimes;
use log::RejectLog;
use sim::endpoints::host::HostError;
use sim::net::codec;
use sim::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::room::RoomClientMsg;
use sim::{ServerHost, SimTime};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::info;

/// The reason sent (as an Error) for a text frame.
pub(crate) const TEXT_FRAME_REASON: &str =
    "text frames are not supported: send binary postcard frames";

/// Who answers the session's client.
enum Authority {
    /// A private session: its own host.
    Private(Box<ServerHost>),
    /// A shared room.
    Shared(Shared),
}

/// A session in a shared room.
struct Shared {
    room: RoomId,
    /// The model asked for: a new room runs it, an existing one must.
    model: Option<RoomModel>,
    rooms: Arc<Rooms>,
    /// The client's address (its seats in the room are capped).
    client: IpAddr,
    /// `None` until the client's Join (a spectator's Watch, or Resume).
    seat: Option<Seat>,
    /// The room's frames for this player (from the Join on).
    out: Option<mpsc::Receiver<Out>>,
    /// Frames the session answers itself (errors), sent with the next poll.
    own: Vec<Vec<u8>>,
    /// When the Join (or the Resume) came, until the client's next frame:
    /// a seat silent for [`Limits::silent_seat_grace`] after it is closed.
    silent_since: Option<SimTime>,
}

/// Where a session is: its room, if any, the relay's rooms and the
/// client's address.
pub(crate) struct Place<'a> {
    /// The room named in the upgrade.
    pub(crate) room: Option<&'a RoomId>,
    /// The model the upgrade asked the room to run (`&model=`).
    pub(crate) model: Option<RoomModel>,
    /// This relay's shared rooms.
    pub(crate) rooms: &'a Arc<Rooms>,
    /// The client's address.
    pub(crate) client: IpAddr,
}

/// What a session's seat in a room brought, for `ws/`.
#[derive(Debug)]
pub(crate) enum RoomOut {
    /// Frames to send.
    Frames(Vec<Vec<u8>>),
    /// Send `frame` and close with `code` and `reason`.
    Refused {
        /// The room's Refused message.
        frame: Vec<u8>,
        /// The close code.
        code: u16,
        /// The close reason.
        reason: String,
    },
    /// The room is no longer here: close with
    /// [`crate::rooms::CLOSE_ROOM_MOVED`] and this reason.
    Moved(String),
}

/// One connection's server side: the authority, its budgets, its resume
/// token.
pub(crate) struct Session {
    authority: Authority,
    gate: Gate,
    log: RejectLog,
    /// Frames in and out, poll times.
    metrics: SessionMetrics,
    /// This connection's resume token (`None` without OS randomness).
    token: Option<ResumeToken>,
    /// Send the token after the next poll (a Welcome just went out, or a
    /// room seated the player).
    announce: bool,
    /// A Welcome went out (or a seat was taken): the session is worth
    /// keeping on a drop.
    greeted: bool,
    /// How long a seat may stay silent after joining.
    silent_seat_grace: std::time::Duration,
    /// The relay's processing times for the page's trace.
    trace: TraceTimes,
    /// How late the timer fired for the next poll, if it did.
    late: Option<Duration>,
    /// The page's last write had to wait (its trace thins meanwhile).
    congested: bool,
}

impl Session {
    /// A session for connection number `connection` at `place`: a private
    /// one (no room, or a private `p-…` id) whose host's conditioners draw
    /// from `seed`, or a seat-to-be in the shared room; counted in
    /// `metrics`.
    pub(crate) fn new(
        connection: u64,
        seed: u64,
        limits: Limits,
        token: Option<ResumeToken>,
        now: SimTime,
        metrics: &Arc<Metrics>,
        place: Place<'_>,
    ) -> Session {
        let authority = match place.room {
            Some(id) if id.is_shared() => Authority::Shared(Shared {
                room: id.clone(),
                model: place.model,
                rooms: place.rooms.clone(),
                client: place.client,
                seat: None,
                out: None,
                own: Vec::new(),
                silent_since: None,
            }),
            _ => Authority::Private(Box::new(ServerHost::new(seed, now))),
        };
        let private = matches!(authority, Authority::Private(_));
        Session {
            authority,
            gate: Gate::new(limits, now),
            log: RejectLog {
                connection,
                count: 0,
                dropped: 0,
                metrics: metrics.clone(),
            },
            metrics: metrics.session(private),
            token,
            announce: false,
            greeted: false,
            silent_seat_grace: limits.silent_seat_grace,
            trace: TraceTimes::default(),
            late: None,
            congested: false,
        }
    }

    /// One binary frame at `now`: decode, charge its budget, hand it to the
    /// authority; a Resume takes over the session `resumes` keeps for it.
    ///
    /// # Errors
    /// A [`Violation`] when the connection is to be closed (1008).
    pub(crate) fn receive_binary(
        &mut self,
        now: SimTime,
        bytes: &[u8],
        resumes: &ResumeStore,
    ) -> Result<(), Violation> {
        self.metrics.frame_in(bytes);
        if let Authority::Shared(shared) = &mut self.authority {
            // Whatever it is, the player spoke.
            shared.silent_since = None;
        }
        let started = self.trace.on().then(Instant::now);
        let msg = match codec::decode::<ClientMsg>(bytes) {
            Ok(msg) => msg,
            Err(e) => return self.reject(now, &HostError::from(e)),
        };
        let msg = match self.gate.admit(now, msg)? {
            Admit::Pass(msg) => msg,
            Admit::Held => return Ok(()),
            Admit::Dropped(kind) => {
                self.log.dropped(kind);
                return Ok(());
            }
        };
        let msg = match msg {
            ClientMsg::Resume { token } => match self.resume(&token, resumes) {
                Some(greeting) => greeting,
                None => {
                    // Answered, not charged: a client retrying after a
                    // relay restart is not abusing anything.
                    let reason = format!(
                        "resume failed: no such session, or its {} s grace period is over",
                        resume::GRACE.as_secs()
                    );
                    self.log.rejected(&reason);
                    self.send_error(reason);
                    return Ok(());
                }
            },
            msg => msg,
        };
        self.trace.saw(&msg);
        let verdict = self.hand_over(now, bytes.len(), msg);
        if let Some(started) = started {
            self.trace.received(started);
        }
        verdict
    }

    /// Hands an admitted message from a frame of `len` bytes to the
    /// authority.
    fn hand_over(&mut self, now: SimTime, len: usize, msg: ClientMsg) -> Result<(), Violation> {
        match &mut self.authority {
            Authority::Private(host) => {
                if msg == ClientMsg::Hello {
                    self.announce = true;
                    self.greeted = true;
                }
                match host.receive_msg(now, len, msg) {
                    Ok(()) => Ok(()),
                    // The host has already queued the Error for the client.
                    Err(e) => {
                        self.log.rejected(&e);
                        self.gate.strike(now)
                    }
                }
            }
            Authority::Shared(shared) => {
                // A spectator's Watch takes a place like a Join (issue 22).
                let greeting = matches!(
                    msg,
                    ClientMsg::Room(RoomClientMsg::Join | RoomClientMsg::Watch)
                );
                if greeting {
                    shared.silent_since = Some(now);
                }
                if shared.seat.is_none() && greeting {
                    if shared.out.is_some() {
                        // Refused already: the close is on its way.
                        return Ok(());
                    }
                    let token = self.token.as_ref().map(TokenHash::of);
                    let metrics = self.log.metrics();
                    let watch = msg == ClientMsg::Room(RoomClientMsg::Watch);
                    let (seat, out) = shared.rooms.join(
                        &shared.room,
                        (shared.model, watch),
                        shared.client,
                        token,
                        metrics,
                    );
                    shared.out = Some(out);
                    shared.seat = seat;
                    if shared.seat.is_none() {
                        return Ok(());
                    }
                }
                match &shared.seat {
                    Some(seat) => {
                        seat.send(len, msg);
                        Ok(())
                    }
                    None => self.reject(
                        now,
                        &"this connection is in a shared room: send Room(Join) (or Room(Watch)) first",
                    ),
                }
            }
        }
    }

    /// A Resume: the parked session `token` names, if it is this
    /// connection's kind (a private host here, or a seat of this very
    /// room), and the message that greets its client again.
    fn resume(&mut self, token: &ResumeToken, resumes: &ResumeStore) -> Option<ClientMsg> {
        let fits = |parked: &Resumable| match (&self.authority, parked) {
            (Authority::Private(_), Resumable::Host(_)) => true,
            (Authority::Shared(shared), Resumable::Seat(seat)) => seat.room() == &shared.room,
            _ => false,
        };
        let (parked, old) = resumes.take(token, std::time::Instant::now(), fits)?;
        let greeting = match (&mut self.authority, parked) {
            (Authority::Private(host), Resumable::Host(parked)) => {
                *host = parked;
                ClientMsg::Hello
            }
            (Authority::Shared(shared), Resumable::Seat(seat)) => {
                let (tx, rx) = Rooms::out_channel();
                seat.rebind(tx, self.token.as_ref().map(TokenHash::of));
                shared.seat = Some(seat);
                shared.out = Some(rx);
                // The room answers with a Joined that the client takes as
                // its seat back.
                ClientMsg::Room(RoomClientMsg::Join)
            }
            // `fits` took only this session's kind.
            _ => return None,
        };
        info!(
            connection = self.log.connection,
            resumes = old,
            "session resumed"
        );
        Some(greeting)
    }

    /// A text frame at `now`: refused with a reason and a strike.
    ///
    /// # Errors
    /// A [`Violation`] when the connection is to be closed (1008).
    pub(crate) fn receive_text(&mut self, now: SimTime) -> Result<(), Violation> {
        self.reject(now, &TEXT_FRAME_REASON)
    }

    /// The one path of a rejected frame: logged (first at info, the rest
    /// at debug), answered with an Error saying why, charged a strike.
    fn reject(&mut self, now: SimTime, reason: &dyn std::fmt::Display) -> Result<(), Violation> {
        self.log.rejected(reason);
        self.send_error(reason.to_string());
        self.gate.strike(now)
    }

    /// Queues a last Error for the client (why it is being closed).
    pub(crate) fn send_error(&mut self, reason: String) {
        match &mut self.authority {
            Authority::Private(host) => host.send_error(reason),
            Authority::Shared(shared) => {
                shared.own.push(codec::encode(&ServerMsg::Error { reason }))
            }
        }
    }

    /// Advances to `now` and returns the frames to send: control messages
    /// the budget held back are applied first, then a private host is
    /// polled (a room is polled by its own task); right after a Welcome
    /// or a seat comes this session's resume token.
    pub(crate) fn poll(&mut self, now: SimTime) -> Vec<Vec<u8>> {
        while let Some(msg) = self.gate.release(now) {
            // Held back by the control budget: settings only, which never
            // cross the uplink, so the frame size does not matter.
            match &mut self.authority {
                Authority::Private(host) => {
                    if let Err(e) = host.receive_msg(now, 0, msg) {
                        self.log.rejected(&e);
                    }
                }
                Authority::Shared(Shared {
                    seat: Some(seat), ..
                }) => seat.send(0, msg),
                Authority::Shared(_) => {}
            }
        }
        let started = self.metrics.poll_started();
        let late = self.late.take();
        let (mut frames, polled) = match &mut self.authority {
            Authority::Private(host) => {
                let mut frames = host.poll(now);
                self.trace.polled(started, late);
                self.trace.stamp(host.take_trace(), &mut frames);
                (frames, true)
            }
            Authority::Shared(shared) => (std::mem::take(&mut shared.own), false),
        };
        if std::mem::take(&mut self.announce) {
            if let Some(token) = self.token {
                frames.push(codec::encode(&ServerMsg::SessionToken {
                    token,
                    grace_ms: u32::try_from(resume::GRACE.as_millis()).unwrap_or(u32::MAX),
                }));
            }
        }
        if polled {
            self.metrics.polled(started, &frames);
        } else {
            self.metrics.sent(&frames);
        }
        frames
    }

    /// The timer fired `late` after the wake-up it was set for: the next
    /// poll ran that late (the trace's relay times say so).
    pub(crate) fn timer_fired(&mut self, late: Duration) {
        self.late = Some(late);
    }

    /// A write of frames took `took`; `waited`: it did not go at once (a
    /// slow reader), and the page's trace waits and thins until one does.
    pub(crate) fn wrote(&mut self, took: Duration, waited: bool) {
        self.trace.wrote(took);
        if waited == self.congested {
            return;
        }
        self.congested = waited;
        match &mut self.authority {
            Authority::Private(host) => host.trace_congested(waited),
            Authority::Shared(Shared {
                seat: Some(seat), ..
            }) => seat.trace_congested(waited),
            Authority::Shared(_) => {}
        }
    }

    /// The earliest time [`Session::poll`] has work, if any before the
    /// client (or the room) sends again.
    pub(crate) fn next_wakeup(&self) -> Option<SimTime> {
        let host = match &self.authority {
            Authority::Private(host) => host.next_wakeup(),
            Authority::Shared(_) => None,
        };
        [host, self.gate.next_release(), self.silent_until()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Whether the session is a seat in a shared room.
    pub(crate) fn is_shared(&self) -> bool {
        matches!(self.authority, Authority::Shared(_))
    }

    /// What to keep for a reconnect with its token, if this session was
    /// greeted (or seated) and has a token.
    pub(crate) fn into_resumable(self) -> Option<(ResumeToken, Resumable)> {
        let (Some(token), true) = (self.token, self.greeted) else {
            return None;
        };
        match self.authority {
            Authority::Private(host) => Some((token, Resumable::Host(host))),
            Authority::Shared(Shared {
                seat: Some(seat), ..
            }) => Some((token, Resumable::Seat(seat))),
            Authority::Shared(_) => None,
        }
    }
}
