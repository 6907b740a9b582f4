//! Helpers shared by the relay's socket tests: a relay on port 0 and a
//! tokio-tungstenite client. (Each test binary uses a subset.)
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use sim::net::codec;
use sim::net::protocol::{ClientMsg, ServerMsg};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// The client side of a test connection.
pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Serves a relay (default limits, no page, in-memory store) on a free
/// loopback port until the test ends; returns its `ws://…/ws` URL.
pub async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = relay_server::AppState::new("/nonexistent", 1);
    tokio::spawn(relay_server::serve(listener, state, std::future::pending()));
    format!("ws://{addr}/ws")
}

/// Sends one message as a binary frame.
pub async fn send(ws: &mut Ws, msg: &ClientMsg) {
    ws.send(Message::Binary(codec::encode(msg).into()))
        .await
        .unwrap();
}

/// Reads frames for `ms` milliseconds and returns the decoded messages.
pub async fn drain(ws: &mut Ws, ms: u64) -> Vec<ServerMsg> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
    while let Ok(Some(Ok(msg))) = tokio::time::timeout_at(deadline, ws.next()).await {
        if let Message::Binary(b) = msg {
            out.push(codec::decode::<ServerMsg>(&b).expect("server frames decode"));
        }
    }
    out
}
