//! One WebSocket connection: decode → [`ServerHost`] → encode, with the
//! host polled whenever a frame arrives and whenever it next has work
//! (delayed packets due, proxy or observer updates).

use crate::AppState;
use axum::extract::ws::{Message, WebSocket};
use axum::extract::{State, WebSocketUpgrade};
use axum::response::Response;
use sim::net::codec::{self, MAX_FRAME_LEN};
use sim::net::protocol::ServerMsg;
use sim::ServerHost;
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

/// Longest the task sleeps between host polls even when idle.
const MAX_IDLE: Duration = Duration::from_millis(50);

/// `GET /ws`.
pub(crate) async fn upgrade(State(state): State<AppState>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(SOCKET_MAX_MESSAGE)
        .max_frame_size(SOCKET_MAX_MESSAGE)
        .read_buffer_size(SOCKET_READ_BUFFER)
        .on_upgrade(move |socket| run(socket, state))
}

async fn run(mut socket: WebSocket, state: AppState) {
    let n = state.inner.connections.fetch_add(1, Ordering::Relaxed);
    let seed = state.inner.seed_base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut host = ServerHost::new(seed, state.now());
    info!(connection = n, seed, "client connected");
    let mut rejected = 0u64;
    'session: loop {
        let wake = host.next_wakeup();
        let now = state.now();
        let sleep = Duration::from_micros(wake.micros_since(now)).min(MAX_IDLE);
        tokio::select! {
            msg = socket.recv() => {
                let msg = match msg {
                    Some(Ok(msg)) => msg,
                    Some(Err(e)) => {
                        info!(connection = n, error = %e, "socket error");
                        break;
                    }
                    None => break,
                };
                let now = state.now();
                match msg {
                    Message::Binary(bytes) => {
                        if let Err(e) = host.receive_frame(now, &bytes) {
                            rejected += 1;
                            // The first one per connection at info, the rest
                            // at debug: a hostile client cannot flood the log.
                            if rejected == 1 {
                                info!(connection = n, error = %e, "frame rejected (further rejections logged at debug)");
                            } else {
                                debug!(connection = n, error = %e, "frame rejected");
                            }
                        }
                    }
                    Message::Text(_) => {
                        rejected += 1;
                        let reason = "text frames are not supported: send binary postcard frames".to_string();
                        if socket.send(Message::Binary(codec::encode(&ServerMsg::Error { reason }).into())).await.is_err() {
                            break;
                        }
                    }
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => {}
                }
            }
            () = tokio::time::sleep(sleep) => {}
        }
        for frame in host.poll(state.now()) {
            if let Err(e) = socket.send(Message::Binary(frame.into())).await {
                debug!(connection = n, error = %e, "send failed");
                break 'session;
            }
        }
    }
    let c = host.player().counters();
    info!(
        connection = n,
        moves = c.moves_simulated,
        acks = c.acks_sent,
        adjustments = c.adjustments_sent,
        rejected,
        "client disconnected"
    );
}
