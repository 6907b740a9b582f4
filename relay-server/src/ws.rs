//! One WebSocket connection's I/O: the upgrade and the `select!` loop
//! that feeds the sans-IO [`Session`] with frames and time, whenever a
//! frame arrives and whenever it next has work, and writes what it returns.
//! Every way the relay ends a connection sends a Close frame with its code
//! and reason (RFC 6455 §7.4.1): too many bad frames or a flood 1008, a
//! message over the socket's size limit 1009, shutdown 1001, and a
//! client's own Close is echoed; a full room refuses with 1013. A client
//! that does not read is dropped after the send timeout. In a shared room
//! the loop also carries the room's frames for this player
//! ([`Session::room_out`]).

use crate::limits::{Limits, Violation};
use crate::metrics::Refusal;
use crate::proxy::ClientAddr;
use crate::resume;
use crate::room::{RoomId, RoomQuery};
use crate::rooms::CLOSE_ROOM_FULL;
use crate::session::{RoomOut, Session};
use crate::AppState;
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::{State, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::{FutureExt, SinkExt};
use sim::net::codec::MAX_FRAME_LEN;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tracing::{info, warn};

/// Largest WebSocket message accepted by the socket layer, bytes: room for
/// one over-long frame so that [`sim::net::codec::decode`] can reject it with a
/// reason instead of the socket closing silently.
const SOCKET_MAX_MESSAGE: usize = 4 * MAX_FRAME_LEN;

/// The socket layer's read buffer, bytes: tungstenite zero-fills its whole
/// read buffer before *every* read, including the reads that find nothing,
/// so it is sized for the frames here (≤ [`MAX_FRAME_LEN`] bytes, most
/// under 30), not for tungstenite's 128 KiB default; a longer message still
/// gets its full length reserved once its header is read. (What the
/// default cost is in the README's Performance section.)
const SOCKET_READ_BUFFER: usize = 512;

/// Bytes the socket layer gathers before it writes on its own (tungstenite
/// `write_buffer_size`): more than one poll's frames, so that everything a
/// [`sim::ServerHost::poll`] returns — a net update's proxy update and observer
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
/// Close code 1009 "message too big" (RFC 6455 §7.4.1): a message over
/// [`SOCKET_MAX_MESSAGE`].
const CLOSE_TOO_BIG: u16 = 1009;

/// Longest the relay waits, after sending its Close frame, for the
/// client's (RFC 6455 §7.1.1: the server closes the TCP connection after
/// the closing handshake).
const CLOSE_LINGER: Duration = Duration::from_secs(1);

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
    /// The socket failed or ended without a close handshake.
    Client,
    /// The client closed (a Close frame): it said goodbye.
    Closed,
    /// Closed by us for abuse (1008).
    Violation(String),
    /// Closed by us for a message over the socket's limit (1009).
    TooBig(String),
    /// The relay is shutting down (1001).
    Shutdown,
    /// A send did not complete within the send timeout.
    SlowReader,
    /// The shared room was full (1013).
    RoomFull(String),
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

/// Ends the connection the RFC 6455 way: our Close frame with its code
/// and reason, then the client's Close is awaited (frames before it are
/// read and dropped) for at most [`CLOSE_LINGER`]. Reading until then
/// keeps unread bytes out of the kernel's buffer, so that closing the TCP
/// socket does not reset it under the client before it has read ours.
/// When the socket layer has stopped reading (a message over its size
/// limit), the wait is a plain linger for the same reason.
async fn close(socket: &mut WebSocket, code: u16, reason: &str, timeout: Duration) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    if tokio::time::timeout(timeout, socket.send(Message::Close(Some(frame))))
        .await
        .is_err()
    {
        return;
    }
    let drain = async {
        loop {
            match socket.recv().await {
                Some(Ok(Message::Close(_))) | Some(Err(_)) => return,
                Some(Ok(_)) => {}
                None => std::future::pending::<()>().await,
            }
        }
    };
    let _ = tokio::time::timeout(CLOSE_LINGER, drain).await;
}

/// The close code and reason for a socket-layer read error: 1009 for a
/// message over [`SOCKET_MAX_MESSAGE`], else none (the connection is
/// broken: there is no one to tell).
fn read_error_close(error: axum::Error) -> Option<(u16, String)> {
    match error.into_inner().downcast::<tungstenite::Error>() {
        Ok(e) => match *e {
            tungstenite::Error::Capacity(c) => Some((
                CLOSE_TOO_BIG,
                format!("message too big ({c}); the limit is {SOCKET_MAX_MESSAGE} bytes"),
            )),
            _ => None,
        },
        Err(_) => None,
    }
}

async fn run(mut socket: WebSocket, state: AppState, limits: Limits, room: Option<RoomId>) {
    let n = state.inner.connections.fetch_add(1, Ordering::Relaxed);
    let seed = state.inner.seed_base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let token = match resume::new_token() {
        Ok(t) => Some(t),
        Err(e) => {
            warn!(connection = n, error = %e, "no OS randomness: this session cannot be resumed");
            None
        }
    };
    let mut session = Session::new(
        n,
        seed,
        limits,
        token,
        state.now(),
        &state.inner.metrics,
        (room.as_ref(), &state.inner.rooms),
    );
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
        let wanted = session
            .next_wakeup()
            .map_or(latest, |wake| state.instant_at(wake).min(latest));
        if armed != Some(wanted) {
            armed = Some(wanted);
            timer.as_mut().reset(wanted);
        }
        tokio::select! {
            msg = socket.recv() => {
                let msg = match msg {
                    Some(Ok(msg)) => msg,
                    Some(Err(e)) => match read_error_close(e) {
                        Some((code, reason)) => {
                            close(&mut socket, code, &reason, limits.send_timeout).await;
                            break End::TooBig(reason);
                        }
                        None => break End::Client,
                    },
                    None => break End::Client,
                };
                let now = state.now();
                let verdict = match msg {
                    Message::Binary(bytes) => {
                        session.receive_binary(now, &bytes, &state.inner.resume)
                    }
                    Message::Text(_) => session.receive_text(now),
                    Message::Close(_) => {
                        // The socket layer queued the echo of the client's
                        // Close (RFC 6455 §5.5.1): send it.
                        let _ = tokio::time::timeout(limits.send_timeout, socket.flush()).await;
                        break End::Closed;
                    }
                    Message::Ping(_) | Message::Pong(_) => Ok(()),
                };
                if let Err(Violation(reason)) = verdict {
                    // Say why first (the close reason is limited to 123 bytes).
                    session.send_error(reason.clone());
                    let frames = session.poll(state.now());
                    let _ = send_all(&mut socket, frames, limits.send_timeout).await;
                    close(&mut socket, CLOSE_POLICY, "policy violation: see the last Error message", limits.send_timeout).await;
                    break End::Violation(reason);
                }
            }
            out = session.room_out() => {
                let Some(out) = out else {
                    close(&mut socket, CLOSE_GOING_AWAY, "room closed: relay shutting down", limits.send_timeout).await;
                    break End::Shutdown;
                };
                match session.take_room_out(state.now(), out) {
                    Ok(RoomOut::Frames(frames)) => {
                        if let Err(end) = send_all(&mut socket, frames, limits.send_timeout).await {
                            break end;
                        }
                    }
                    Ok(RoomOut::Refused { frame, reason }) => {
                        let _ = send_all(&mut socket, vec![frame], limits.send_timeout).await;
                        close(&mut socket, CLOSE_ROOM_FULL, &reason, limits.send_timeout).await;
                        break End::RoomFull(reason);
                    }
                    Err(Violation(reason)) => {
                        session.send_error(reason.clone());
                        let frames = session.poll(state.now());
                        let _ = send_all(&mut socket, frames, limits.send_timeout).await;
                        close(&mut socket, CLOSE_POLICY, "policy violation: see the last Error message", limits.send_timeout).await;
                        break End::Violation(reason);
                    }
                }
            }
            () = &mut cancelled => {
                close(&mut socket, CLOSE_GOING_AWAY, "relay shutting down", limits.send_timeout).await;
                break End::Shutdown;
            }
            () = &mut timer => armed = None,
        }
        let frames = session.poll(state.now());
        if let Err(end) = send_all(&mut socket, frames, limits.send_timeout).await {
            break end;
        }
    };
    let ended_by = match &end {
        End::Client => "client",
        End::Closed => "client closed",
        End::Violation(r) | End::TooBig(r) | End::RoomFull(r) => r.as_str(),
        End::Shutdown => "shutdown",
        End::SlowReader => "slow reader: send timed out",
    };
    session.log_end(ended_by);
    // A client that dropped (not one thrown out, not a shutdown) may come
    // back: keep its session for the grace period. A room player who closed
    // the socket has left the room (a page closed or leaving the room); a
    // private session is kept either way.
    let keep = match end {
        End::Client | End::SlowReader => true,
        End::Closed => !session.is_shared(),
        _ => false,
    };
    if keep {
        if let Some((token, kept)) = session.into_resumable() {
            state
                .inner
                .resume
                .park(token, kept, n, std::time::Instant::now());
            info!(
                connection = n,
                grace_s = resume::GRACE.as_secs(),
                "session kept for a reconnect"
            );
            // A room seat not taken back leaves the room when its grace
            // period ends, whether or not anyone else reconnects.
            tokio::spawn(async move {
                tokio::time::sleep(resume::GRACE).await;
                state.inner.resume.sweep(std::time::Instant::now());
            });
        }
    }
}
