//! The relay's end of a WebSocket: the socket layer's sizes, the close
//! codes, and sending with a deadline and closing the RFC 6455 way.

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::WebSocketUpgrade;
use futures_util::{FutureExt, SinkExt};
use sim::net::codec::MAX_FRAME_LEN;
use std::time::Duration;

/// Largest WebSocket message accepted by the socket layer, bytes: room for
/// one over-long frame so that [`sim::net::codec::decode`] can reject it with a
/// reason instead of the socket closing silently.
pub(super) const SOCKET_MAX_MESSAGE: usize = 4 * MAX_FRAME_LEN;

/// The socket layer's read buffer, bytes: tungstenite zero-fills its whole
/// read buffer before *every* read, including the reads that find nothing,
/// so it is sized for the frames here (≤ [`MAX_FRAME_LEN`] bytes, most
/// under 30), not for tungstenite's 128 KiB default; a longer message still
/// gets its full length reserved once its header is read. (What the
/// default cost is in docs/performance.md, "What limits, and what was fixed".)
const SOCKET_READ_BUFFER: usize = 512;

/// Bytes the socket layer gathers before it writes on its own (tungstenite
/// `write_buffer_size`): more than one poll's frames, so that everything a
/// [`sim::ServerHost::poll`] returns — a net update's proxy update and observer
/// snapshot, an Ack with them — leaves in one `write` at the flush.
const SOCKET_WRITE_BUFFER: usize = 4 * MAX_FRAME_LEN;

/// Most bytes the socket layer buffers for a client that is not reading
/// before a send fails (tungstenite `max_write_buffer_size`): 16 observer
/// snapshots. The send timeout ([`crate::Limits::send_timeout`]) catches a
/// client whose kernel buffer is full.
const SOCKET_MAX_WRITE_BUFFER: usize = 16 * MAX_FRAME_LEN;

/// Close code 1001 "going away" (RFC 6455 §7.4.1): the relay is shutting
/// down, or the peer stopped answering its Pings.
pub(super) const CLOSE_GOING_AWAY: u16 = 1001;
/// Close code 1008 "policy violation" (RFC 6455 §7.4.1): too many bad or
/// over-budget frames, a silent seat.
pub(super) const CLOSE_POLICY: u16 = 1008;
/// Close code 1009 "message too big" (RFC 6455 §7.4.1): a message over
/// [`SOCKET_MAX_MESSAGE`].
const CLOSE_TOO_BIG: u16 = 1009;

/// Longest the relay waits, after sending its Close frame, for the
/// client's (RFC 6455 §7.1.1: the server closes the TCP connection after
/// the closing handshake).
const CLOSE_LINGER: Duration = Duration::from_secs(1);

/// `ws` with the socket layer's sizes set.
pub(super) fn configured(ws: WebSocketUpgrade) -> WebSocketUpgrade {
    ws.max_message_size(SOCKET_MAX_MESSAGE)
        .max_frame_size(SOCKET_MAX_MESSAGE)
        .read_buffer_size(SOCKET_READ_BUFFER)
        .write_buffer_size(SOCKET_WRITE_BUFFER)
        .max_write_buffer_size(SOCKET_MAX_WRITE_BUFFER)
}

/// A send that did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SendFailed {
    /// The socket failed.
    Broken,
    /// It did not complete within the send timeout: the client is not
    /// reading.
    TimedOut,
}

/// Sends `messages` with one flush — one `write` for them all — within
/// `timeout`; `Ok(true)` if it had to wait for the socket (the client
/// reads slowly).
pub(super) async fn send_messages(
    socket: &mut WebSocket,
    messages: impl IntoIterator<Item = Message>,
    timeout: Duration,
) -> Result<bool, SendFailed> {
    let mut messages = messages.into_iter().peekable();
    if messages.peek().is_none() {
        return Ok(false);
    }
    let send = async {
        for m in messages {
            socket.feed(m).await?;
        }
        socket.flush().await
    };
    let mut send = std::pin::pin!(send);
    // Almost always the kernel takes the bytes at once: no timer for that.
    let (sent, waited) = match (&mut send).now_or_never() {
        Some(sent) => (sent, false),
        None => match tokio::time::timeout(timeout, send).await {
            Ok(sent) => (sent, true),
            Err(_) => return Err(SendFailed::TimedOut),
        },
    };
    sent.map(|()| waited).map_err(|_| SendFailed::Broken)
}

/// Sends `frames` as binary messages (see [`send_messages`]).
pub(super) async fn send_all(
    socket: &mut WebSocket,
    frames: Vec<Vec<u8>>,
    timeout: Duration,
) -> Result<bool, SendFailed> {
    send_messages(
        socket,
        frames.into_iter().map(|f| Message::Binary(f.into())),
        timeout,
    )
    .await
}

/// Ends the connection the RFC 6455 way: our Close frame with its code
/// and reason, then the client's Close is awaited (frames before it are
/// read and dropped) for at most [`CLOSE_LINGER`]. Reading until then
/// keeps unread bytes out of the kernel's buffer, so that closing the TCP
/// socket does not reset it under the client before it has read ours.
/// When the socket layer has stopped reading (a message over its size
/// limit), the wait is a plain linger for the same reason.
pub(super) async fn close(socket: &mut WebSocket, code: u16, reason: &str, timeout: Duration) {
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
pub(super) fn read_error_close(error: axum::Error) -> Option<(u16, String)> {
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
