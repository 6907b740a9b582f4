//! One connection's protocol rules, sans IO (the quinn-proto half of
//! `ws.rs`): decode → budget ([`Gate`]) → the authority, the
//! Resume → Hello rewrite, the [`ServerMsg::SessionToken`] that follows
//! every Welcome (or a room's seat), and the one path every rejected frame
//! takes (logged without flooding the log, answered with an Error saying
//! why, charged a strike). `ws.rs` only moves bytes and time in and out.
//!
//! The authority is a private [`ServerHost`] of the session's own, or a
//! seat in a shared room ([`crate::rooms`]) whose task answers over a
//! channel ([`Session::room_out`]): the budgets, strikes and close codes
//! are the session's either way, so one bad client never disturbs
//! another.

use crate::limits::{Admit, Gate, Kind, Limits, Violation};
use crate::metrics::{Metrics, SessionMetrics};
use crate::resume::{self, Resumable, ResumeStore};
use crate::room::RoomId;
use crate::rooms::{Out, Rooms, Seat};
use sim::host::HostError;
use sim::net::codec;
use sim::net::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::room::RoomClientMsg;
use sim::{ServerHost, SimTime};
use std::sync::Arc;
use tokio::sync::mpsc;
use tracing::{debug, info};

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
    rooms: Arc<Rooms>,
    /// `None` until the client's Join (or Resume).
    seat: Option<Seat>,
    /// The room's frames for this player.
    out: Option<mpsc::Receiver<Out>>,
    /// Frames the session answers itself (errors), sent with the next poll.
    own: Vec<Vec<u8>>,
}

/// What a session's seat in a room brought, for `ws.rs`.
#[derive(Debug)]
pub(crate) enum RoomOut {
    /// Frames to send.
    Frames(Vec<Vec<u8>>),
    /// Send `frame` and close with [`crate::rooms::CLOSE_ROOM_FULL`] and
    /// `reason`.
    Refused {
        /// The room's Refused message.
        frame: Vec<u8>,
        /// The close reason.
        reason: String,
    },
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
}

impl Session {
    /// A session for connection number `connection` in `room`: a private
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
        room: (Option<&RoomId>, &Arc<Rooms>),
    ) -> Session {
        let authority = match room {
            (Some(id), rooms) if id.is_shared() => Authority::Shared(Shared {
                room: id.clone(),
                rooms: rooms.clone(),
                seat: None,
                out: None,
                own: Vec::new(),
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
        match &mut self.authority {
            Authority::Private(host) => {
                if msg == ClientMsg::Hello {
                    self.announce = true;
                    self.greeted = true;
                }
                match host.receive_msg(now, bytes.len(), msg) {
                    Ok(()) => Ok(()),
                    // The host has already queued the Error for the client.
                    Err(e) => {
                        self.log.rejected(&e);
                        self.gate.strike(now)
                    }
                }
            }
            Authority::Shared(shared) => {
                if shared.seat.is_none() && msg == ClientMsg::Room(RoomClientMsg::Join) {
                    let (seat, out) = shared.rooms.join(&shared.room, self.log.metrics());
                    shared.seat = Some(seat);
                    shared.out = Some(out);
                }
                match &shared.seat {
                    Some(seat) => {
                        seat.send(bytes.len(), msg);
                        Ok(())
                    }
                    None => self.reject(
                        now,
                        &"this connection is in a shared room: send Room(Join) first",
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
                seat.rebind(tx);
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

    /// The room's next word for this player; pending for ever in a private
    /// session or before a seat. `None` when the room has ended (the relay
    /// is shutting down).
    pub(crate) async fn room_out(&mut self) -> Option<Out> {
        match &mut self.authority {
            Authority::Shared(Shared { out: Some(rx), .. }) => rx.recv().await,
            _ => std::future::pending().await,
        }
    }

    /// Takes what the room sent at `now`.
    ///
    /// # Errors
    /// A [`Violation`] when the room refused one message too many (1008).
    pub(crate) fn take_room_out(&mut self, now: SimTime, out: Out) -> Result<RoomOut, Violation> {
        match out {
            Out::Seated => {
                self.announce = true;
                self.greeted = true;
                Ok(RoomOut::Frames(self.poll(now)))
            }
            Out::Frames(frames) => {
                self.metrics.sent(&frames);
                Ok(RoomOut::Frames(frames))
            }
            // The room queued the Error for the client already.
            Out::Rejected(reason) => {
                self.log.rejected(&reason);
                self.gate.strike(now)?;
                Ok(RoomOut::Frames(Vec::new()))
            }
            Out::Refused { frame, reason } => {
                if let Authority::Shared(shared) = &mut self.authority {
                    // Never seated: nothing to keep.
                    shared.seat = None;
                }
                Ok(RoomOut::Refused { frame, reason })
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
        let (mut frames, polled) = match &mut self.authority {
            Authority::Private(host) => (host.poll(now), true),
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

    /// The earliest time [`Session::poll`] has work, if any before the
    /// client (or the room) sends again.
    pub(crate) fn next_wakeup(&self) -> Option<SimTime> {
        let host = match &self.authority {
            Authority::Private(host) => host.next_wakeup(),
            Authority::Shared(_) => None,
        };
        [host, self.gate.next_release()].into_iter().flatten().min()
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

    /// Logs the disconnect line with the session's totals (those of the
    /// model in force at the end; a room player's are the room's).
    pub(crate) fn log_end(&self, ended_by: &str) {
        let (model, totals) = match &self.authority {
            Authority::Private(host) => {
                let totals = match (host.cmc(), host.rollback()) {
                    (Some(c), _) => {
                        let c = c.counters();
                        format!(
                            "{} moves, {} acks, {} adjustments",
                            c.moves_simulated, c.acks_sent, c.adjustments_sent
                        )
                    }
                    (None, Some(r)) => {
                        let c = r.client_inputs();
                        format!(
                            "{} inputs, {} missed, {} late",
                            c.received,
                            c.missed(),
                            c.late
                        )
                    }
                    (None, None) => String::new(),
                };
                (host.model().name(), totals)
            }
            Authority::Shared(shared) => ("room", format!("room {}", shared.room)),
        };
        let g = self.gate.totals();
        info!(
            connection = self.log.connection,
            model,
            totals,
            rejected = self.log.count,
            dropped_moves = g.dropped_moves,
            dropped_inputs = g.dropped_inputs,
            dropped_pings = g.dropped_pings,
            dropped_room = g.dropped_room,
            dropped_control = g.dropped_control,
            coalesced_settings = g.coalesced,
            ended_by,
            "client disconnected"
        );
    }
}

/// Rejection logging that an attack cannot flood: the first rejection and
/// the first drop per connection at info, the rest at debug; the totals go
/// in the disconnect line. Each is counted in the metrics too.
struct RejectLog {
    connection: u64,
    count: u64,
    dropped: u64,
    metrics: Arc<Metrics>,
}

impl RejectLog {
    fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    fn rejected(&mut self, reason: &dyn std::fmt::Display) {
        self.metrics.rejected();
        self.count += 1;
        if self.count == 1 {
            info!(connection = self.connection, reason = %reason, "frame rejected (further rejections logged at debug)");
        } else {
            debug!(connection = self.connection, reason = %reason, "frame rejected");
        }
    }

    fn dropped(&mut self, kind: Kind) {
        self.metrics.dropped(kind);
        self.dropped += 1;
        if self.dropped == 1 {
            info!(
                connection = self.connection,
                ?kind,
                "frame over the rate limit dropped (further drops logged at debug)"
            );
        } else {
            debug!(
                connection = self.connection,
                ?kind,
                "frame over the rate limit dropped"
            );
        }
    }
}
