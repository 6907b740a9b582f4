//! A rollback room's connection ([`MatchRun`], issue 22): the socket to
//! `/ws?room=NAME&model=rollback`, the page's `sim` rollback predictor
//! playing this player's seat of the relay's match (`Room(Join)`, then
//! the match's Start, then `Inputs` up and Acks and States down, as
//! against the bot), Pings for the round trip, and the last rebase with
//! the remote players whose mispredicted input caused it, the rebases
//! remote input caused (for the lanes), and the relay's trace of this
//! page's link (asked for with the greeting). A spectator (`&watch=1`,
//! issue 22) sends `Room(Watch)` instead and keeps the newest View: no
//! seat, no input, no prediction.
//!
//! ```text
//! receive: Start ─► seat · Ack, State ─► predictor · Pong ─► RTT, trace clock ·
//!          Trace ─► trace · Watch, View ─► Watched (the newest) · Seats ─►
//!          the newest (every seat's numbers) · Refused ─► Lost
//! frame(dt, stick, buttons): predictor.frame ─► Inputs ─► socket;
//!          once a second a SeatReport (RTT, input delay, dilation);
//!          a new rebase ─► Replay (who caused it: RemoteCounters grew),
//!          kept in rebases when remote input caused it;
//!          a spectator's: Pings only
//! ```
//!
//! A dropped socket is not a leave: the relay keeps the seat for its
//! resume grace period (10 s; the match holds the seat's last input, then
//! the empty one, `001_…` §5.1) and the page reconnects with the
//! session's token (reference `003_…` §六 断线重连). The relay answers the
//! Resume as a Join: the match's Start again, same seat and ids, the
//! world as it stands — the predictor starts over from it (a spectator
//! gets its Watch). Past the grace period the page leaves the room.

use super::match_rules::{caused_by, newer_seats, newer_view};
use crate::net::{Connection, LinkState, Transport, Watch};
use sim::endpoints::resume::ResumeTicket;
use sim::endpoints::trace::RelayTrace;
use sim::foundation::world::World;
use sim::net::codec;
use sim::net::trace_wire::TraceRequest;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::rollback::arena::Arena;
use sim::rollback::wire::{RollbackServerMsg, SeatsMsg, ViewMsg};
use sim::rollback::{RemoteCounters, RollbackConfig, RollbackPredictor, RollbackRecord, Snapshot};
use sim::room::{RoomClientMsg, RoomServerMsg};
use sim::{NetSettings, SimTime, Vec2 as SimVec2};
use std::collections::VecDeque;

/// How often a Ping goes up, µs.
const PING_EVERY_US: u64 = 250_000;
/// How often a player reports its own numbers, µs (issue 22).
const REPORT_EVERY_US: u64 = 1_000_000;

/// Rebases caused by remote input kept for the lanes and their list (the
/// newest; at the 4–8 a minute of a 150 ms match, minutes of them).
pub const REBASES_KEPT: usize = 32;

/// A rebase some remote player's mispredicted input caused, for the
/// lanes: when the page applied it.
#[derive(Debug, Clone)]
pub struct Rebase {
    /// Page time it was applied.
    pub at: SimTime,
    /// What it discarded and re-simulated, and who caused it.
    pub replay: Replay,
}

/// The last rebase the page applied, and who caused it.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The discarded, restored and re-simulated ticks.
    pub record: RollbackRecord<Snapshot>,
    /// The remote players (seats) whose mispredicted input it corrected.
    pub caused_by: Vec<usize>,
}

/// What a spectator has of the match (issue 22).
pub struct Watched {
    /// The match's arena (its size and blocks), from the Watch.
    pub world: World,
    /// The newest View: the server's world and who sits where.
    pub view: ViewMsg,
    /// Views kept so far.
    pub views: u64,
}

/// What happened to the match's connection this frame.
pub enum MatchLink {
    /// The match's Start arrived: the page has its seat (a spectator: its
    /// Watch).
    Seated,
    /// The socket dropped: trying again (attempt number, from 1, and the
    /// close reason or nothing).
    Reconnecting(u32, String),
    /// The seat (a spectator: the watch) was taken back after a drop.
    Reconnected,
    /// Leave the room, with what to tell the user.
    Lost(String),
    /// The relay refused a message; the match goes on.
    ServerError(String),
}

/// The page in a rollback room: the socket and the rollback client.
pub struct MatchRun {
    /// The room's name.
    pub name: String,
    link: Connection,
    /// The relay's resume token for this connection, once sent.
    resume: ResumeTicket,
    /// The client's half of the match.
    pub predictor: RollbackPredictor,
    /// This page's seat, once the Start came.
    pub seat: Option<usize>,
    /// The page watches (`&watch=1`): it sent Watch, not Join.
    pub watch: bool,
    /// A spectator's match, once the Watch came.
    pub watched: Option<Watched>,
    /// The newest round trip of a Ping, ms.
    pub rtt_ms: Option<f64>,
    /// The newest Seats (every seat's numbers) and when it arrived, µs
    /// of page time.
    pub seats: Option<(u64, SeatsMsg)>,
    next_report: SimTime,
    pings: VecDeque<(u32, SimTime)>,
    next_ping: (u32, SimTime),
    /// The link settings last sent.
    sent_net: Option<NetSettings>,
    /// The rebase the Replayed panel shows: the last one applied, or the
    /// one picked in the lanes ([`MatchRun::pinned`]).
    pub replay: Option<Replay>,
    /// The rebases remote input caused, oldest first (at most
    /// [`REBASES_KEPT`]).
    pub rebases: VecDeque<Rebase>,
    /// The rebase picked in the lanes (its time): the Replayed panel holds
    /// it until Fit or Close.
    pub pinned: Option<SimTime>,
    /// The span the lanes hold instead of following, µs (a press in them).
    pub hold: Option<(u64, u64)>,
    /// The relay's trace of this page's link (asked for with the
    /// greeting), on the page's clock.
    pub trace: RelayTrace,
    /// Rebases applied so far (a new one replaces [`MatchRun::replay`]).
    rebases_seen: u64,
    /// What the match borrowed of the page, restored on leaving.
    pub(super) borrowed: super::page::BorrowedPage,
    /// The model selector's value before the match.
    pub(super) saved_model: Option<String>,
}

impl MatchRun {
    /// A connection to rollback room `name` (checked) with the page's
    /// rollback settings, if a socket can be opened; its first frame is
    /// `Room(Join)`, or with `watch` a spectator's `Room(Watch)`.
    pub fn connect(name: &str, config: RollbackConfig, watch: bool) -> Option<MatchRun> {
        let mut link = Connection::new(Transport::connect_rollback(name)?);
        let greeting = if watch {
            RoomClientMsg::Watch
        } else {
            RoomClientMsg::Join
        };
        link.send(vec![
            codec::encode(&ClientMsg::Room(greeting)),
            codec::encode(&ClientMsg::Trace(TraceRequest::default())),
        ]);
        Some(MatchRun {
            name: name.to_owned(),
            link,
            resume: ResumeTicket::default(),
            predictor: RollbackPredictor::new(config).ok()?,
            seat: None,
            watch,
            watched: None,
            rtt_ms: None,
            seats: None,
            next_report: SimTime::ZERO,
            pings: VecDeque::new(),
            next_ping: (1, SimTime::ZERO),
            sent_net: None,
            replay: None,
            rebases: VecDeque::new(),
            pinned: None,
            hold: None,
            trace: RelayTrace::default(),
            rebases_seen: 0,
            borrowed: Default::default(),
            saved_model: None,
        })
    }

    /// Closes the socket (Leave, or the room ended).
    pub fn close(&self) {
        self.link.close();
    }

    /// Sends this player's link settings when they changed (their own
    /// conditioners at the relay).
    pub fn set_net_settings(&mut self, s: NetSettings) {
        if self.sent_net != Some(s) {
            self.sent_net = Some(s);
            self.link
                .send(vec![codec::encode(&ClientMsg::SetNetSettings(s))]);
        }
    }

    /// Asks the room for a server-driven bot in a free seat (a full
    /// match refuses it with its reason).
    pub fn add_bot(&mut self) {
        self.link
            .send(vec![codec::encode(&ClientMsg::Room(RoomClientMsg::AddBot))]);
    }

    /// Tracks the socket at page time `t`: after a drop, reconnects with
    /// the resume token while the relay's grace period lasts, and gives up
    /// after it. A close with a reason (a full match, another model) is
    /// final.
    pub fn keep_link(&mut self, t: SimTime, out: &mut Vec<MatchLink>) {
        if self.link.state() == LinkState::Closed && !self.link.is_reconnecting() {
            if let Some((_, reason)) = self.link.close_reason().filter(|(c, _)| *c != 1001) {
                if !reason.is_empty() {
                    out.push(MatchLink::Lost(reason));
                    return;
                }
            }
        }
        let (resume, name) = (&mut self.resume, &self.name);
        let watched = self.link.watch(
            t,
            resume.grace(),
            || resume.frame(),
            || Transport::connect_rollback(name),
        );
        match watched {
            Some(Watch::Reconnecting(n, why)) => out.push(MatchLink::Reconnecting(n, why)),
            Some(lost @ Watch::Lost { .. }) => {
                out.extend(lost.lost_reason().map(MatchLink::Lost));
            }
            Some(Watch::Opened) | None => {}
        }
    }

    /// The seat (or watch) is back after a drop: reconnecting is over.
    fn greeted(&mut self, out: &mut Vec<MatchLink>) {
        if self.resume.greeted() || self.link.is_reconnecting() {
            self.link.stop_reconnecting();
            out.push(MatchLink::Reconnected);
        } else {
            out.push(MatchLink::Seated);
        }
    }

    /// Frames in (network input first), then what happened.
    pub fn receive(&mut self, out: &mut Vec<MatchLink>) {
        for (arrived, frame) in self.link.receive() {
            match codec::decode::<ServerMsg>(&frame) {
                Ok(ServerMsg::Rollback(RollbackServerMsg::Watch(view))) if self.watch => {
                    let players = view.snapshot.players.len();
                    let Some(arena) = Arena::with_players(view.tick_rate, players) else {
                        out.push(MatchLink::Lost(format!("a match of {players} players")));
                        return;
                    };
                    self.watched = Some(Watched {
                        world: arena.world().clone(),
                        view,
                        views: 0,
                    });
                    self.greeted(out);
                }
                Ok(ServerMsg::Rollback(RollbackServerMsg::View(view))) => {
                    if let Some(w) = &mut self.watched {
                        if newer_view(Some(&w.view), &view) {
                            w.view = view;
                            w.views += 1;
                        }
                    }
                }
                Ok(ServerMsg::Rollback(RollbackServerMsg::Seats(s))) => {
                    if newer_seats(self.seats.as_ref().map(|k| &k.1), &s) {
                        self.seats = Some((arrived.0, s));
                    }
                }
                Ok(ServerMsg::Rollback(m)) => {
                    if let RollbackServerMsg::Start(s) = &m {
                        self.seat = Some(usize::from(s.ids.player));
                        self.replay = None;
                        self.rebases_seen = 0;
                        self.greeted(out);
                    }
                    // A refused message is counted by the predictor.
                    let _ = self.predictor.receive(m);
                }
                Ok(ServerMsg::Pong { id, .. }) => {
                    while let Some(&(sent_id, sent)) = self.pings.front() {
                        if sent_id > id {
                            break;
                        }
                        self.pings.pop_front();
                        if sent_id == id {
                            let us = arrived.0.saturating_sub(sent.0);
                            self.rtt_ms = Some(us as f64 / 1000.0);
                            self.trace.pong_arrived(id, arrived);
                        }
                    }
                }
                Ok(ServerMsg::Room(RoomServerMsg::Refused { reason })) => {
                    out.push(MatchLink::Lost(reason));
                }
                Ok(ServerMsg::Trace(batch)) => self.trace.receive(arrived, &batch, frame.len()),
                Ok(ServerMsg::SessionToken { token, grace_ms }) => {
                    self.resume.offered(token, grace_ms);
                }
                // The relay no longer holds the seat: the match is lost.
                Ok(ServerMsg::Error { reason }) if self.resume.refused() => {
                    out.push(MatchLink::Lost(format!("the seat was not kept: {reason}")));
                }
                Ok(ServerMsg::Error { reason }) => out.push(MatchLink::ServerError(reason)),
                Ok(_) => {}
                Err(e) => out.push(MatchLink::ServerError(format!("bad frame: {e}"))),
            }
        }
    }

    /// Runs this player's frame: the predictor's ticks with the stick and
    /// buttons, their input packets sent, a Ping when due, and the
    /// rebase it applied kept with who caused it. A spectator's frame
    /// sends Pings only.
    pub fn frame(&mut self, t: SimTime, dt: f64, dir: SimVec2, buttons: u16) {
        let before: Vec<RemoteCounters> = self.remote_counters().to_vec();
        let packets = if self.watch {
            Vec::new()
        } else {
            self.predictor.frame(dt, dir, buttons)
        };
        let mut frames: Vec<Vec<u8>> = packets
            .into_iter()
            .map(|p| codec::encode(&ClientMsg::Inputs(p)))
            .collect();
        if t >= self.next_ping.1 {
            let id = self.next_ping.0;
            frames.push(codec::encode(&ClientMsg::Ping { id }));
            self.trace.ping_sent(id, t);
            self.pings.push_back((id, t));
            if self.pings.len() > 64 {
                self.pings.pop_front();
            }
            self.next_ping = (id + 1, SimTime(t.0 + PING_EVERY_US));
        }
        if t >= self.next_report {
            if let Some(r) = self.predictor.seat_report(self.rtt_ms) {
                frames.push(codec::encode(&ClientMsg::SeatReport(r)));
                self.next_report = SimTime(t.0 + REPORT_EVERY_US);
            }
        }
        self.link.send(frames);
        let rebases = self.predictor.metrics().rebases;
        if rebases > self.rebases_seen {
            self.rebases_seen = rebases;
            let caused = caused_by(&before, self.remote_counters());
            if let Some(record) = self.predictor.last_rollback() {
                // Show the last rebase that some remote input caused, or
                // the first one (unless one is pinned); list the caused.
                if !caused.is_empty() || self.replay.is_none() {
                    let replay = Replay {
                        record: record.clone(),
                        caused_by: caused,
                    };
                    if !replay.caused_by.is_empty() {
                        if self.rebases.len() == REBASES_KEPT {
                            self.rebases.pop_front();
                        }
                        self.rebases.push_back(Rebase {
                            at: t,
                            replay: replay.clone(),
                        });
                    }
                    if self.pinned.is_none() {
                        self.replay = Some(replay);
                    }
                }
            }
        }
    }

    /// Shows rebase `index` of [`MatchRun::rebases`] in the Replayed
    /// panel until [`MatchRun::unpin`] (a click in the lanes or the list).
    pub fn pin(&mut self, index: usize) {
        if let Some(r) = self.rebases.get(index) {
            self.pinned = Some(r.at);
            self.replay = Some(r.replay.clone());
        }
    }

    /// The Replayed panel follows the newest rebase again.
    pub fn unpin(&mut self) {
        self.pinned = None;
        if let Some(r) = self.rebases.back() {
            self.replay = Some(r.replay.clone());
        }
    }

    /// The seats taken as the newest Seats has them (and this page's);
    /// every seat before one came ([`super::match_rules::seated_mask`]).
    pub fn seated(&self) -> u8 {
        let local = self.seat.unwrap_or(usize::MAX);
        super::match_rules::seated_mask(self.seats.as_ref().map(|k| &k.1), local)
    }

    /// Every player's counts (the local player's stay 0).
    pub fn remote_counters(&self) -> &[RemoteCounters] {
        self.predictor
            .client()
            .map_or(&[][..], |c| c.remote_counters())
    }

    /// The local player's predicted position, cm (for the bot).
    pub fn position(&self) -> SimVec2 {
        self.predictor
            .local_player()
            .map_or(SimVec2::ZERO, |p| p.position.to_cm())
    }
}
