//! One WebSocket connection: decode → budget ([`Gate`]) → [`ServerHost`]
//! → encode, with the host polled whenever a frame arrives and whenever it
//! next has work (delayed packets due, proxy or observer updates, a held
//! settings message). Bad frames get an Error with a reason; too many of
//! them, or a flood, close the socket with 1008; shutdown closes it with
//! 1001; a client that does not read is dropped after the send timeout.

use crate::limits::{Admit, Gate, Kind, Limits, Violation};
use crate::metrics::{Metrics, Refusal, SessionMetrics};
use crate::proxy::ClientAddr;
use crate::resume;
use crate::room::{RoomId, RoomQuery};
use crate::AppState;
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::{State, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::{FutureExt, SinkExt};
use sim::host::HostError;
use sim::net::codec::{self, MAX_FRAME_LEN};
use sim::net::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::ServerHost;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tracing::{debug, info, warn};

/// Largest WebSocket message accepted by the socket layer, bytes: room for
/// one over-long frame so that [`codec::decode`] can reject it with a
/// reason instead of the socket closing silently.
const SOCKET_MAX_MESSAGE: usize = 4 * MAX_FRAME_LEN;

/// The socket layer's read buffer, bytes. tungstenite zero-fills its whole
/// read buffer (128 KiB by default) before *every* read, including the
/// reads that find nothing: with the default that `memset` was 52–60 % of
/// the relay's CPU and kept 128 KiB resident per connection (issue #6 load
/// test: 137 → 9 KiB per idle session, relay CPU halved). Frames here are
/// ≤ [`MAX_FRAME_LEN`] bytes; a longer message still gets its full length
/// reserved once its header is read.
const SOCKET_READ_BUFFER: usize = 512;

/// Bytes the socket layer gathers before it writes on its own (tungstenite
/// `write_buffer_size`): more than one poll's frames, so that everything a
/// [`ServerHost::poll`] returns — a net update's proxy update and observer
/// snapshot, an Ack with them — leaves in one `write` at the flush.
const SOCKET_WRITE_BUFFER: usize = 4 * MAX_FRAME_LEN;

/// Most bytes the socket layer buffers for a client that is not reading
/// before a send fails (tungstenite `max_write_buffer_size`): 16 observer
/// snapshots. The send timeout ([`Limits::send_timeout`]) catches a client
/// whose kernel buffer is full.
const SOCKET_MAX_WRITE_BUFFER: usize = 16 * MAX_FRAME_LEN;

/// Close code 1001 "going away" (RFC 6455 §7.4.1): the relay is shutting
/// down.
const CLOSE_GOING_AWAY: u16 = 1001;
/// Close code 1008 "policy violation" (RFC 6455 §7.4.1): too many bad or
/// over-budget frames.
const CLOSE_POLICY: u16 = 1008;

/// Longest the task sleeps between host polls: how often a quiet session
/// (nothing scheduled until its client sends, see
/// [`sim::host::QUIET_CLIENT_MS`]) wakes; a busy one wakes sooner.
const MAX_IDLE: Duration = Duration::from_secs(1);

/// `GET /ws[?room=<id>]`: refused with 503 while the relay drains, with
/// 400 for a malformed room ([`RoomQuery`]), with 429 when the client's
/// address ([`ClientAddr`]) already has [`Limits::max_connections_per_ip`]
/// sessions open. The upgrade echoes the room (`X-Relay-Room`).
pub(crate) async fn upgrade(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    RoomQuery(room): RoomQuery,
    ws: WebSocketUpgrade,
) -> Response {
    if state.inner.health.is_draining() {
        state.inner.metrics.refused(Refusal::Draining);
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "relay draining: connect again",
        )
            .into_response();
    }
    let Some(permit) = state.inner.addr_cap.try_acquire(peer) else {
        state.inner.metrics.refused(Refusal::AddressCap);
        let refused = state.inner.refused.fetch_add(1, Ordering::Relaxed) + 1;
        // Logged at 1, 2, 4, 8, …: an attacker retrying cannot flood the log.
        if refused.is_power_of_two() {
            info!(peer = %peer, refused, "connection refused: per-address cap reached");
        }
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many connections from this address",
        )
            .into_response();
    };
    let limits = state.inner.limits;
    let sessions = state.inner.shutdown.sessions.clone();
    let echo = room.clone();
    let response = ws
        .max_message_size(SOCKET_MAX_MESSAGE)
        .max_frame_size(SOCKET_MAX_MESSAGE)
        .read_buffer_size(SOCKET_READ_BUFFER)
        .write_buffer_size(SOCKET_WRITE_BUFFER)
        .max_write_buffer_size(SOCKET_MAX_WRITE_BUFFER)
        .on_upgrade(move |socket| {
            sessions.track_future(async move {
                let _permit = permit;
                run(socket, state, limits, room).await;
            })
        });
    RoomId::echo(echo.as_ref(), response)
}

/// How a session ended, for the summary line.
#[derive(Debug)]
enum End {
    /// The client closed or the socket failed.
    Client,
    /// Closed by us for abuse (1008).
    Violation(String),
    /// The relay is shutting down (1001).
    Shutdown,
    /// A send did not complete within the send timeout.
    SlowReader,
}

/// Sends `frames` as binary messages with one flush — one `write` for
/// them all — within `timeout`.
async fn send_all(
    socket: &mut WebSocket,
    frames: Vec<Vec<u8>>,
    timeout: Duration,
) -> Result<(), End> {
    if frames.is_empty() {
        return Ok(());
    }
    let send = async {
        for frame in frames {
            socket.feed(Message::Binary(frame.into())).await?;
        }
        socket.flush().await
    };
    let mut send = std::pin::pin!(send);
    // Almost always the kernel takes the bytes at once: no timer for that.
    let sent = match (&mut send).now_or_never() {
        Some(sent) => sent,
        None => match tokio::time::timeout(timeout, send).await {
            Ok(sent) => sent,
            Err(_) => return Err(End::SlowReader),
        },
    };
    sent.map_err(|_| End::Client)
}

async fn close(socket: &mut WebSocket, code: u16, reason: &str, timeout: Duration) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = tokio::time::timeout(timeout, socket.send(Message::Close(Some(frame)))).await;
}

async fn run(mut socket: WebSocket, state: AppState, limits: Limits, room: Option<RoomId>) {
    let n = state.inner.connections.fetch_add(1, Ordering::Relaxed);
    let seed = state.inner.seed_base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut session = Session {
        host: Box::new(ServerHost::new(seed, state.now())),
        gate: Gate::new(limits, state.now()),
        log: RejectLog::new(n, state.inner.metrics.clone()),
        metrics: state.inner.metrics.session(),
        token: match resume::new_token() {
            Ok(t) => Some(t),
            Err(e) => {
                warn!(connection = n, error = %e, "no OS randomness: this session cannot be resumed");
                None
            }
        },
        announce: false,
        greeted: false,
    };
    let room = room.as_ref().map_or("", RoomId::as_str);
    info!(connection = n, seed, room, "client connected");
    // Made once, not per message: each `cancelled()` future registers with
    // the token's lock shared by every session, and each new `sleep` is a
    // timer insert; the timer is moved only when the wake-up changes.
    let shutdown = state.inner.shutdown.token.clone();
    let cancelled = shutdown.cancelled();
    tokio::pin!(cancelled);
    let timer = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(timer);
    // `None` once the timer has fired: it must be set again.
    let mut armed: Option<tokio::time::Instant> = None;
    let end = loop {
        let latest = tokio::time::Instant::now() + MAX_IDLE;
        let wanted = [session.host.next_wakeup(), session.gate.next_release()]
            .into_iter()
            .flatten()
            .min()
            .map_or(latest, |wake| state.instant_at(wake).min(latest));
        if armed != Some(wanted) {
            armed = Some(wanted);
            timer.as_mut().reset(wanted);
        }
        tokio::select! {
            msg = socket.recv() => {
                let msg = match msg {
                    Some(Ok(msg)) => msg,
                    Some(Err(e)) => {
                        info!(connection = n, error = %e, "socket error");
                        break End::Client;
                    }
                    None => break End::Client,
                };
                let now = state.now();
                let verdict = match msg {
                    Message::Binary(bytes) => {
                        session.metrics.frame_in(&bytes);
                        session.receive(&state, n, now, &bytes)
                    }
                    Message::Text(_) => {
                        let reason = "text frames are not supported: send binary postcard frames";
                        session.log.rejected(&reason);
                        session.host.send_error(reason.to_string());
                        session.gate.strike(now)
                    }
                    Message::Close(_) => break End::Client,
                    Message::Ping(_) | Message::Pong(_) => Ok(()),
                };
                if let Err(Violation(reason)) = verdict {
                    // Say why first (the close reason is limited to 123 bytes).
                    session.host.send_error(reason.clone());
                    let frames = session.host.poll(state.now());
                    let _ = send_all(&mut socket, frames, limits.send_timeout).await;
                    close(&mut socket, CLOSE_POLICY, "policy violation: see the last Error message", limits.send_timeout).await;
                    break End::Violation(reason);
                }
            }
            () = &mut cancelled => {
                close(&mut socket, CLOSE_GOING_AWAY, "relay shutting down", limits.send_timeout).await;
                break End::Shutdown;
            }
            () = &mut timer => armed = None,
        }
        let now = state.now();
        while let Some(msg) = session.gate.release(now) {
            // Held back by the control budget: settings only, which never
            // cross the uplink, so the frame size does not matter.
            if let Err(e) = session.host.receive_msg(now, 0, msg) {
                session.log.rejected(&e);
            }
        }
        let polled = session.metrics.poll_started();
        let mut frames = session.host.poll(now);
        if std::mem::take(&mut session.announce) {
            // After the Welcome that poll just produced.
            if let Some(token) = session.token {
                frames.push(codec::encode(&ServerMsg::SessionToken {
                    token,
                    grace_ms: u32::try_from(resume::GRACE.as_millis()).unwrap_or(u32::MAX),
                }));
            }
        }
        session.metrics.polled(polled, &frames);
        if let Err(end) = send_all(&mut socket, frames, limits.send_timeout).await {
            break end;
        }
    };
    let c = session.host.player().counters();
    let g = session.gate.totals();
    let reason = match &end {
        End::Client => "client",
        End::Violation(r) => r.as_str(),
        End::Shutdown => "shutdown",
        End::SlowReader => "slow reader: send timed out",
    };
    info!(
        connection = n,
        moves = c.moves_simulated,
        acks = c.acks_sent,
        adjustments = c.adjustments_sent,
        rejected = session.log.count,
        dropped_moves = g.dropped_moves,
        dropped_pings = g.dropped_pings,
        dropped_control = g.dropped_control,
        coalesced_settings = g.coalesced,
        ended_by = reason,
        "client disconnected"
    );
    // A client that dropped (not one thrown out, not a shutdown) may come
    // back: keep its session for the grace period.
    if let (End::Client | End::SlowReader, Some(token), true) =
        (&end, session.token, session.greeted)
    {
        state
            .inner
            .resume
            .park(token, session.host, n, std::time::Instant::now());
        info!(
            connection = n,
            grace_s = resume::GRACE.as_secs(),
            "session kept for a reconnect"
        );
    }
}

/// One connection's server side: the host, its budgets and its resume
/// token.
struct Session {
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
    /// One binary frame: decode, charge its budget, hand it to the host
    /// (a Resume is the relay's own business).
    ///
    /// # Errors
    /// A [`Violation`] when the socket is to be closed.
    fn receive(
        &mut self,
        state: &AppState,
        n: u64,
        now: sim::SimTime,
        bytes: &[u8],
    ) -> Result<(), Violation> {
        let msg = match codec::decode::<ClientMsg>(bytes) {
            Ok(msg) => msg,
            Err(e) => {
                let e = HostError::from(e);
                self.log.rejected(&e);
                self.host.send_error(e.to_string());
                return self.gate.strike(now);
            }
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
                match state.inner.resume.take(&token, std::time::Instant::now()) {
                    Some((host, old)) => {
                        info!(connection = n, resumes = old, "session resumed");
                        self.host = host;
                    }
                    None => {
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
            Err(e) => {
                self.log.rejected(&e);
                self.gate.strike(now)
            }
        }
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
    fn new(connection: u64, metrics: Arc<Metrics>) -> RejectLog {
        RejectLog {
            connection,
            count: 0,
            dropped: 0,
            metrics,
        }
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
