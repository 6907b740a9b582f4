//! Helpers shared by the relay's socket tests: a relay on port 0 and a
//! tokio-tungstenite client. (Each test binary uses a subset.)
#![allow(dead_code)]

pub mod backend;
pub mod cluster;
pub mod room_player;

use futures_util::{SinkExt, StreamExt};
use sim::cmc::wire::{NetPosition, NetworkMove, ServerMove};
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::{MoveInput, TimeStamp, Vec2};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// The client side of a test connection.
pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Serves a relay with default limits, no page and an in-memory store on
/// a free loopback port, until the returned [`Served`] is stopped or
/// dropped.
pub async fn start() -> Served {
    Served::start(relay_server::AppState::new("/nonexistent", 1)).await
}

/// Connects a client to `relay`'s `/ws`.
pub async fn connect(relay: &Served) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(relay.ws_url(""))
        .await
        .unwrap();
    ws
}

/// A ServerMove frame of the `ts / 16`-th packet: one move ending at
/// client time `ts` ms with input `direction`, reporting `at` (cm).
pub fn server_move(ts: u32, direction: Vec2, at: Vec2) -> Vec<u8> {
    codec::encode(&ClientMsg::ServerMove(ServerMove::new(
        ts / 16,
        NetworkMove {
            time_stamp: TimeStamp(ts),
            input: MoveInput::from_direction(direction, false),
        },
        NetPosition::quantize(at),
    )))
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

/// A relay served in-process until [`Served::stop`] (the shutdown signal)
/// or until it is dropped.
pub struct Served {
    /// Its address.
    pub addr: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    /// Ends when `serve` returns.
    pub served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Served {
    /// Serves `state` on a free loopback port.
    pub async fn start(state: relay_server::AppState) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(relay_server::serve(listener, state, async {
            let _ = stopped.await;
        }));
        Served {
            addr,
            stop: Some(stop),
            served,
        }
    }

    /// Gives the shutdown signal (as SIGTERM would).
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Its `ws://…/ws` URL with `query` (without `?`; empty for none).
    pub fn ws_url(&self, query: &str) -> String {
        let q = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        format!("ws://{}/ws{q}", self.addr)
    }
}

/// An HTTP answer: status, headers (names lower-case), body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The first header named `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.text()))
    }
}

/// `GET /api/rooms`'s `rooms` array, as JSON.
pub async fn rooms_listed(relay: &Served) -> serde_json::Value {
    http(&relay.addr.to_string(), "GET /api/rooms", "", b"")
        .await
        .unwrap()
        .json()["rooms"]
        .take()
}

/// One HTTP/1.1 request with `Connection: close` (`head` is `"GET /path"`;
/// `extra` more header lines, each ending in `\r\n`).
pub async fn http(addr: &str, head: &str, extra: &str, body: &[u8]) -> std::io::Result<Answer> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await?;
    let req = format!(
        "{head} HTTP/1.1\r\nHost: {addr}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(req.as_bytes()).await?;
    s.write_all(body).await?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await?;
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of head"))?;
    let head = String::from_utf8_lossy(&out[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status in {head:?}")))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect::<Vec<_>>();
    let mut body = out[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"))
    {
        body = dechunk(&body);
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// A chunked body, joined.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&raw[..eol])
                .split(';')
                .next()
                .unwrap_or("0")
                .trim(),
            16,
        )
        .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&raw[start..(start + size).min(raw.len())]);
        raw = &raw[(start + size + 2).min(raw.len())..];
    }
    out
}

/// A WebSocket handshake to `url` with extra request headers, from the
/// local address `from` (any of 127.0.0.0/8 on Linux) if given: the
/// socket, or the HTTP status of a refused upgrade.
pub async fn ws_connect(
    url: &str,
    headers: &[(&str, &str)],
    from: Option<std::net::IpAddr>,
) -> Result<
    (
        Ws,
        tokio_tungstenite::tungstenite::handshake::client::Response,
    ),
    u16,
> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.into_client_request().unwrap();
    for (name, value) in headers {
        req.headers_mut().append(
            axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    let host = req.uri().authority().unwrap().as_str().to_owned();
    let target: std::net::SocketAddr = tokio::net::lookup_host(&host)
        .await
        .unwrap()
        .next()
        .unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    if let Some(from) = from {
        socket.bind(std::net::SocketAddr::new(from, 0)).unwrap();
    }
    let stream = socket.connect(target).await.unwrap();
    stream.set_nodelay(true).unwrap();
    match tokio_tungstenite::client_async(req, tokio_tungstenite::MaybeTlsStream::Plain(stream))
        .await
    {
        Ok(ok) => Ok(ok),
        Err(tokio_tungstenite::tungstenite::Error::Http(res)) => Err(res.status().as_u16()),
        Err(e) => panic!("handshake with {url}: {e}"),
    }
}

/// The value of header `name` in a handshake response.
pub fn header<'a>(
    res: &'a tokio_tungstenite::tungstenite::handshake::client::Response,
    name: &str,
) -> &'a str {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} in {:?}", res.headers()))
}

/// Sending a frame that is no message (an unknown version byte).
#[allow(async_fn_in_trait)]
pub trait Garbage {
    /// Sends `[42]`.
    async fn send_garbage(&mut self);
}

impl Garbage for Ws {
    async fn send_garbage(&mut self) {
        self.send(Message::Binary(vec![42u8].into())).await.unwrap();
    }
}
