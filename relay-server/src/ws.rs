//! One WebSocket connection: decode → budget ([`Gate`]) → [`ServerHost`]
//! → encode, with the host polled whenever a frame arrives and whenever it
//! next has work (delayed packets due, proxy or observer updates, a held
//! settings message). Bad frames get an Error with a reason; too many of
//! them, or a flood, close the socket with 1008; shutdown closes it with
//! 1001; a client that does not read is dropped after the send timeout.

use crate::limits::{Admit, Gate, Kind, Limits, Violation};
use crate::AppState;
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::{ConnectInfo, State, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sim::host::HostError;
use sim::net::codec::{self, MAX_FRAME_LEN};
use sim::net::protocol::ClientMsg;
use sim::ServerHost;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tracing::{debug, info};

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
const SOCKET_READ_BUFFER: usize = 4096;

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

/// Longest the task sleeps between host polls even when idle.
const MAX_IDLE: Duration = Duration::from_millis(50);

/// `GET /ws`: refused with 429 when the client's address already has
/// [`Limits::max_connections_per_ip`] sessions open.
pub(crate) async fn upgrade(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    ws: WebSocketUpgrade,
) -> Response {
    let Some(permit) = state.inner.addr_cap.try_acquire(peer.ip()) else {
        let refused = state.inner.refused.fetch_add(1, Ordering::Relaxed) + 1;
        // Logged at 1, 2, 4, 8, …: an attacker retrying cannot flood the log.
        if refused.is_power_of_two() {
            info!(peer = %peer.ip(), refused, "connection refused: per-address cap reached");
        }
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many connections from this address",
        )
            .into_response();
    };
    let limits = state.inner.limits;
    let sessions = state.inner.shutdown.sessions.clone();
    ws.max_message_size(SOCKET_MAX_MESSAGE)
        .max_frame_size(SOCKET_MAX_MESSAGE)
        .read_buffer_size(SOCKET_READ_BUFFER)
        // Each send is flushed anyway: no write batching, so the cap below
        // is a cap on a backlog only.
        .write_buffer_size(0)
        .max_write_buffer_size(SOCKET_MAX_WRITE_BUFFER)
        .on_upgrade(move |socket| {
            sessions.track_future(async move {
                let _permit = permit;
                run(socket, state, limits).await;
            })
        })
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

/// Sends `msg` within `timeout`.
async fn send(socket: &mut WebSocket, msg: Message, timeout: Duration) -> Result<(), End> {
    match tokio::time::timeout(timeout, socket.send(msg)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(End::Client),
        Err(_) => Err(End::SlowReader),
    }
}

async fn close(socket: &mut WebSocket, code: u16, reason: &str, timeout: Duration) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = send(socket, Message::Close(Some(frame)), timeout).await;
}

async fn run(mut socket: WebSocket, state: AppState, limits: Limits) {
    let n = state.inner.connections.fetch_add(1, Ordering::Relaxed);
    let seed = state.inner.seed_base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut host = ServerHost::new(seed, state.now());
    let mut gate = Gate::new(limits, state.now());
    let shutdown = state.inner.shutdown.token.clone();
    info!(connection = n, seed, "client connected");
    let mut log = RejectLog::new(n);
    let end = 'session: loop {
        let wake = [Some(host.next_wakeup()), gate.next_release()]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or_else(|| host.next_wakeup());
        let now = state.now();
        let sleep = Duration::from_micros(wake.micros_since(now)).min(MAX_IDLE);
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
                    Message::Binary(bytes) => receive(&mut host, &mut gate, &mut log, now, &bytes),
                    Message::Text(_) => {
                        let reason = "text frames are not supported: send binary postcard frames";
                        log.rejected(&reason);
                        host.send_error(reason.to_string());
                        gate.strike(now)
                    }
                    Message::Close(_) => break End::Client,
                    Message::Ping(_) | Message::Pong(_) => Ok(()),
                };
                if let Err(Violation(reason)) = verdict {
                    // Say why first (the close reason is limited to 123 bytes).
                    host.send_error(reason.clone());
                    for frame in host.poll(state.now()) {
                        if send(&mut socket, Message::Binary(frame.into()), limits.send_timeout).await.is_err() {
                            break;
                        }
                    }
                    close(&mut socket, CLOSE_POLICY, "policy violation: see the last Error message", limits.send_timeout).await;
                    break End::Violation(reason);
                }
            }
            () = shutdown.cancelled() => {
                close(&mut socket, CLOSE_GOING_AWAY, "relay shutting down", limits.send_timeout).await;
                break End::Shutdown;
            }
            () = tokio::time::sleep(sleep) => {}
        }
        let now = state.now();
        while let Some(msg) = gate.release(now) {
            if let Err(e) = host.receive_msg(now, msg) {
                log.rejected(&e);
            }
        }
        for frame in host.poll(now) {
            if let Err(end) = send(
                &mut socket,
                Message::Binary(frame.into()),
                limits.send_timeout,
            )
            .await
            {
                break 'session end;
            }
        }
    };
    let c = host.player().counters();
    let g = gate.totals();
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
        rejected = log.count,
        dropped_moves = g.dropped_moves,
        dropped_pings = g.dropped_pings,
        dropped_control = g.dropped_control,
        coalesced_settings = g.coalesced,
        ended_by = reason,
        "client disconnected"
    );
}

/// One binary frame: decode, charge its budget, hand it to the host.
fn receive(
    host: &mut ServerHost,
    gate: &mut Gate,
    log: &mut RejectLog,
    now: sim::SimTime,
    bytes: &[u8],
) -> Result<(), Violation> {
    let msg = match codec::decode::<ClientMsg>(bytes) {
        Ok(msg) => msg,
        Err(e) => {
            let e = HostError::from(e);
            log.rejected(&e);
            host.send_error(e.to_string());
            return gate.strike(now);
        }
    };
    match gate.admit(now, msg)? {
        Admit::Pass(msg) => match host.receive_msg(now, msg) {
            Ok(()) => Ok(()),
            Err(e) => {
                log.rejected(&e);
                gate.strike(now)
            }
        },
        Admit::Held => Ok(()),
        Admit::Dropped(kind) => {
            log.dropped(kind);
            Ok(())
        }
    }
}

/// Rejection logging that an attack cannot flood: the first rejection and
/// the first drop per connection at info, the rest at debug; the totals go
/// in the disconnect line.
struct RejectLog {
    connection: u64,
    count: u64,
    dropped: u64,
}

impl RejectLog {
    fn new(connection: u64) -> RejectLog {
        RejectLog {
            connection,
            count: 0,
            dropped: 0,
        }
    }

    fn rejected(&mut self, reason: &dyn std::fmt::Display) {
        self.count += 1;
        if self.count == 1 {
            info!(connection = self.connection, reason = %reason, "frame rejected (further rejections logged at debug)");
        } else {
            debug!(connection = self.connection, reason = %reason, "frame rejected");
        }
    }

    fn dropped(&mut self, kind: Kind) {
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
