//! A session's socket task: the `select!` loop that feeds the sans-IO
//! [`Session`] with frames and time, whenever a frame arrives and whenever
//! it (or the heartbeat) next has work, and writes what it returns.

use super::socket::{
    close, read_error_close, send_all, send_messages, SendFailed, CLOSE_GOING_AWAY, CLOSE_POLICY,
};
use crate::heartbeat::{Beat, Heartbeat};
use crate::limits::{Limits, Violation};
use crate::metrics::Ended;
use crate::resume;
use crate::room::{RoomId, RoomModel};
use crate::rooms::{CLOSE_ROOM_FULL, CLOSE_ROOM_MODEL, CLOSE_ROOM_MOVED};
use crate::session::{Place, RoomOut, Session};
use crate::AppState;
use axum::extract::ws::{Message, WebSocket};
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tracing::{info, warn};

/// Longest the task sleeps between host polls: how often a quiet session
/// (nothing scheduled until its client sends, see
/// [`sim::endpoints::link::QUIET_CLIENT_MS`]) wakes; a busy one wakes sooner.
const MAX_IDLE: Duration = Duration::from_secs(1);

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
    /// The shared room refused a seat (1013 full, 1008 the address's
    /// share): which of the two, and why.
    Refused(Ended, String),
    /// Nothing arrived within the heartbeat's timeout of a Ping (1001).
    Unresponsive(String),
    /// The seat stayed silent after joining (1008).
    Silent(String),
    /// The room left this relay (1012).
    Moved(String),
}

impl From<SendFailed> for End {
    fn from(f: SendFailed) -> End {
        match f {
            SendFailed::Broken => End::Client,
            SendFailed::TimedOut => End::SlowReader,
        }
    }
}

/// Runs the session of a socket from `client` to `room` (if any) until it
/// ends, then keeps what a dropped client may come back for.
pub(super) async fn run(
    mut socket: WebSocket,
    state: AppState,
    client: IpAddr,
    room: Option<RoomId>,
    model: Option<RoomModel>,
) {
    let limits: Limits = state.inner.limits;
    let n = state.inner.connections.fetch_add(1, Ordering::Relaxed);
    let seed = state.inner.seed_base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let token = match resume::new_token() {
        Ok(t) => Some(t),
        Err(e) => {
            warn!(connection = n, error = %e, "no OS randomness: this session cannot be resumed");
            None
        }
    };
    let place = Place {
        room: room.as_ref(),
        model,
        rooms: &state.inner.rooms,
        client,
    };
    let mut session = Session::new(
        n,
        seed,
        limits,
        token,
        state.now(),
        &state.inner.metrics,
        place,
    );
    let room = room.as_ref().map_or("", RoomId::as_str);
    info!(connection = n, seed, room, "client connected");
    let mut heartbeat = Heartbeat::new(
        limits.heartbeat_interval,
        limits.heartbeat_timeout,
        state.now(),
    );
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
    let send_timeout = limits.send_timeout;
    let end = loop {
        let latest = tokio::time::Instant::now() + MAX_IDLE;
        let wanted = [session.next_wakeup(), Some(heartbeat.next_due())]
            .into_iter()
            .flatten()
            .min()
            .map_or(latest, |wake| state.instant_at(wake).min(latest));
        if armed != Some(wanted) {
            armed = Some(wanted);
            timer.as_mut().reset(wanted);
        }
        let woke_for = wanted;
        tokio::select! {
            msg = socket.recv() => {
                let msg = match msg {
                    Some(Ok(msg)) => msg,
                    Some(Err(e)) => match read_error_close(e) {
                        Some((code, reason)) => {
                            close(&mut socket, code, &reason, send_timeout).await;
                            break End::TooBig(reason);
                        }
                        None => break End::Client,
                    },
                    None => break End::Client,
                };
                heartbeat.heard();
                let now = state.now();
                let verdict = match msg {
                    Message::Binary(bytes) => {
                        session.receive_binary(now, &bytes, &state.inner.resume)
                    }
                    Message::Text(_) => session.receive_text(now),
                    Message::Close(_) => {
                        // The socket layer queued the echo of the client's
                        // Close (RFC 6455 §5.5.1): send it.
                        let _ = tokio::time::timeout(send_timeout, futures_util::SinkExt::flush(&mut socket)).await;
                        break End::Closed;
                    }
                    Message::Ping(_) | Message::Pong(_) => Ok(()),
                };
                if let Err(Violation(reason)) = verdict {
                    break violation(&mut socket, &mut session, &state, reason).await;
                }
            }
            out = session.room_out() => {
                let Some(out) = out else {
                    close(&mut socket, CLOSE_GOING_AWAY, "room closed: relay shutting down", send_timeout).await;
                    break End::Shutdown;
                };
                match session.take_room_out(state.now(), out) {
                    Ok(RoomOut::Frames(frames)) => {
                        if let Err(failed) = send_polled(&mut socket, &mut session, frames, send_timeout).await {
                            break failed.into();
                        }
                    }
                    Ok(RoomOut::Refused { frame, code, reason }) => {
                        let _ = send_all(&mut socket, vec![frame], send_timeout).await;
                        close(&mut socket, code, &reason, send_timeout).await;
                        let why = match code {
                            CLOSE_ROOM_FULL => Ended::RoomFull,
                            CLOSE_ROOM_MODEL => Ended::RoomModel,
                            _ => Ended::AddressCap,
                        };
                        break End::Refused(why, reason);
                    }
                    Ok(RoomOut::Moved(reason)) => {
                        close(&mut socket, CLOSE_ROOM_MOVED, &reason, send_timeout).await;
                        break End::Moved(reason);
                    }
                    Err(Violation(reason)) => {
                        break violation(&mut socket, &mut session, &state, reason).await;
                    }
                }
            }
            () = &mut cancelled => {
                close(&mut socket, CLOSE_GOING_AWAY, "relay shutting down", send_timeout).await;
                break End::Shutdown;
            }
            () = &mut timer => {
                armed = None;
                session.timer_fired(tokio::time::Instant::now().saturating_duration_since(woke_for));
            }
        }
        let now = state.now();
        match heartbeat.poll(now) {
            Some(Beat::Ping) => {
                let ping = Message::Ping(Vec::new().into());
                if let Err(failed) = send_messages(&mut socket, [ping], send_timeout).await {
                    break failed.into();
                }
            }
            Some(Beat::Dead) => {
                let reason = format!(
                    "no answer to the relay's pings within {} s",
                    limits.heartbeat_timeout.as_secs_f64()
                );
                close(&mut socket, CLOSE_GOING_AWAY, &reason, send_timeout).await;
                break End::Unresponsive(reason);
            }
            None => {}
        }
        if let Some(reason) = session.silent_seat(now) {
            close(&mut socket, CLOSE_POLICY, &reason, send_timeout).await;
            break End::Silent(reason);
        }
        let frames = session.poll(now);
        if let Err(failed) = send_polled(&mut socket, &mut session, frames, send_timeout).await {
            break failed.into();
        }
    };
    finish(session, end, &state, n);
}

/// Sends a poll's `frames` and tells `session` how the write went (its
/// page's trace thins while the client reads slowly).
async fn send_polled(
    socket: &mut WebSocket,
    session: &mut Session,
    frames: Vec<Vec<u8>>,
    timeout: Duration,
) -> Result<(), SendFailed> {
    if frames.is_empty() {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let waited = send_all(socket, frames, timeout).await?;
    session.wrote(started.elapsed(), waited);
    Ok(())
}

/// Says why (an Error first: the close reason is limited to 123 bytes)
/// and closes with 1008.
async fn violation(
    socket: &mut WebSocket,
    session: &mut Session,
    state: &AppState,
    reason: String,
) -> End {
    let timeout = state.inner.limits.send_timeout;
    session.send_error(reason.clone());
    let frames = session.poll(state.now());
    let _ = send_all(socket, frames, timeout).await;
    close(
        socket,
        CLOSE_POLICY,
        "policy violation: see the last Error message",
        timeout,
    )
    .await;
    End::Violation(reason)
}

/// Logs the end and keeps a session a dropped client may come back for.
fn finish(session: Session, end: End, state: &AppState, n: u64) {
    let (ended_by, counted) = match &end {
        End::Client => ("client", Ended::Client),
        End::Closed => ("client closed", Ended::ClientClosed),
        End::Violation(r) => (r.as_str(), Ended::Violation),
        End::TooBig(r) => (r.as_str(), Ended::TooBig),
        End::Refused(why, r) => (r.as_str(), *why),
        End::Unresponsive(r) => (r.as_str(), Ended::Heartbeat),
        End::Silent(r) => (r.as_str(), Ended::SilentSeat),
        End::Moved(r) => (r.as_str(), Ended::RoomMoved),
        End::Shutdown => ("shutdown", Ended::Shutdown),
        End::SlowReader => ("slow reader: send timed out", Ended::SlowReader),
    };
    state.inner.metrics.ended(counted);
    session.log_end(ended_by);
    // A client that dropped (not one thrown out, not a shutdown) may come
    // back: keep its session for the grace period. A room player who closed
    // the socket has left the room (a page closed or leaving the room); a
    // private session is kept either way.
    let keep = match end {
        End::Client | End::SlowReader | End::Unresponsive(_) => true,
        End::Closed => !session.is_shared(),
        _ => false,
    };
    if !keep {
        return;
    }
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
        resume::sweep_later(state.clone());
    }
}
