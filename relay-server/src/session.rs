//! One connection's protocol rules, sans IO (the quinn-proto half of
//! `ws.rs`): decode → budget ([`Gate`]) → [`ServerHost`], the
//! Resume → Hello rewrite, the [`ServerMsg::SessionToken`] that follows
//! every Welcome, and the one path every rejected frame takes (logged
//! without flooding the log, answered with an Error saying why, charged a
//! strike). `ws.rs` only moves bytes and time in and out.

use crate::limits::{Admit, Gate, Kind, Limits, Violation};
use crate::metrics::{Metrics, SessionMetrics};
use crate::resume::{self, ResumeStore};
use sim::host::HostError;
use sim::net::codec;
use sim::net::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::{ServerHost, SimTime};
use std::sync::Arc;
use tracing::{debug, info};

/// The reason sent (as an Error) for a text frame.
pub(crate) const TEXT_FRAME_REASON: &str =
    "text frames are not supported: send binary postcard frames";

/// One connection's server side: the host, its budgets, its resume token.
pub(crate) struct Session {
    host: Box<ServerHost>,
    gate: Gate,
    log: RejectLog,
    /// Frames in and out, poll times.
    metrics: SessionMetrics,
    /// This connection's resume token (`None` without OS randomness).
    token: Option<ResumeToken>,
    /// Send the token after the next poll (a Welcome just went out).
    announce: bool,
    /// A Welcome went out: the session is worth keeping on a drop.
    greeted: bool,
}

impl Session {
    /// A session for connection number `connection`, whose host's
    /// conditioners draw from `seed`, counted in `metrics`.
    pub(crate) fn new(
        connection: u64,
        seed: u64,
        limits: Limits,
        token: Option<ResumeToken>,
        now: SimTime,
        metrics: &Arc<Metrics>,
    ) -> Session {
        Session {
            host: Box::new(ServerHost::new(seed, now)),
            gate: Gate::new(limits, now),
            log: RejectLog {
                connection,
                count: 0,
                dropped: 0,
                metrics: metrics.clone(),
            },
            metrics: metrics.session(),
            token,
            announce: false,
            greeted: false,
        }
    }

    /// One binary frame at `now`: decode, charge its budget, hand it to the
    /// host; a Resume takes over the session `resumes` keeps for it.
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
            ClientMsg::Resume { token } => {
                match resumes.take(&token, std::time::Instant::now()) {
                    Some((host, old)) => {
                        info!(
                            connection = self.log.connection,
                            resumes = old,
                            "session resumed"
                        );
                        self.host = host;
                    }
                    None => {
                        // Answered, not charged: a client retrying after a
                        // relay restart is not abusing anything.
                        let reason = format!(
                            "resume failed: no such session, or its {} s grace period is over",
                            resume::GRACE.as_secs()
                        );
                        self.log.rejected(&reason);
                        self.host.send_error(reason);
                        return Ok(());
                    }
                }
                // The resumed host greets its client again.
                ClientMsg::Hello
            }
            msg => msg,
        };
        if msg == ClientMsg::Hello {
            self.announce = true;
            self.greeted = true;
        }
        match self.host.receive_msg(now, bytes.len(), msg) {
            Ok(()) => Ok(()),
            // The host has already queued the Error for the client.
            Err(e) => {
                self.log.rejected(&e);
                self.gate.strike(now)
            }
        }
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
        self.host.send_error(reason.to_string());
        self.gate.strike(now)
    }

    /// Queues a last Error for the client (why it is being closed).
    pub(crate) fn send_error(&mut self, reason: String) {
        self.host.send_error(reason);
    }

    /// Advances to `now` and returns the frames to send: control messages
    /// the budget held back are applied first, then the host is polled;
    /// right after a Welcome comes this session's resume token.
    pub(crate) fn poll(&mut self, now: SimTime) -> Vec<Vec<u8>> {
        while let Some(msg) = self.gate.release(now) {
            // Held back by the control budget: settings only, which never
            // cross the uplink, so the frame size does not matter.
            if let Err(e) = self.host.receive_msg(now, 0, msg) {
                self.log.rejected(&e);
            }
        }
        let polled = self.metrics.poll_started();
        let mut frames = self.host.poll(now);
        if std::mem::take(&mut self.announce) {
            if let Some(token) = self.token {
                frames.push(codec::encode(&ServerMsg::SessionToken {
                    token,
                    grace_ms: u32::try_from(resume::GRACE.as_millis()).unwrap_or(u32::MAX),
                }));
            }
        }
        self.metrics.polled(polled, &frames);
        frames
    }

    /// The earliest time [`Session::poll`] has work, if any before the
    /// client sends again.
    pub(crate) fn next_wakeup(&self) -> Option<SimTime> {
        [self.host.next_wakeup(), self.gate.next_release()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The host and token to keep for a reconnect, if this session was
    /// greeted and has a token.
    pub(crate) fn into_resumable(self) -> Option<(ResumeToken, Box<ServerHost>)> {
        match (self.token, self.greeted) {
            (Some(token), true) => Some((token, self.host)),
            _ => None,
        }
    }

    /// Logs the disconnect line with the session's totals (those of the
    /// model in force at the end).
    pub(crate) fn log_end(&self, ended_by: &str) {
        let totals = match (self.host.cmc(), self.host.rollback()) {
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
        let g = self.gate.totals();
        info!(
            connection = self.log.connection,
            model = self.host.model().name(),
            totals,
            rejected = self.log.count,
            dropped_moves = g.dropped_moves,
            dropped_inputs = g.dropped_inputs,
            dropped_pings = g.dropped_pings,
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
