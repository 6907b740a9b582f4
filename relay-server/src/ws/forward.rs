//! A player passed on to the room's home relay (`crate::homes`): this
//! relay opens a WebSocket to the home's internal address with the
//! player's own `Host`, `Origin` and `X-Forwarded-For` (this relay
//! appended, as a proxy does: the home must trust the relays'
//! addresses, `--trusted-proxy`) and `X-Relay-Forwarded-By`, and only then
//! answers the player: a refusal by the home (403, 429) is the player's
//! answer, a draining home's 503 a 409 "the room is moving". Then it carries frames both ways until either side
//! ends.
//!
//! ```text
//! player ◄─ heartbeat ─► this relay ◄─ the home's heartbeat ─► home relay (the session)
//!   Binary, Text, Close: passed on as they are, either way
//!   the player vanishes ─► the home's socket dropped without a Close (seat kept for a resume)
//!   the home vanishes  ─► the player's socket dropped (the page reconnects)
//!   the home refuses connections ─► it is gone: the room is taken over here (homes::take_over)
//! ```
//!
//! Budgets, strikes and the session's rules are the home's; this relay
//! holds the player's slot of the per-address cap and the socket's size
//! limits like any session.

use super::socket::{self, close, send_messages, CLOSE_GOING_AWAY};
use crate::addr_cap::Permit;
use crate::heartbeat::{Beat, Heartbeat};
use crate::homes::{Home, Place, FORWARDED_HEADER};
use crate::metrics::Ended;
use crate::room::{RoomId, RoomModel};
use crate::AppState;
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::WebSocketUpgrade;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame as TCloseFrame;
use tokio_tungstenite::tungstenite::Message as TMessage;
use tracing::{info, warn};

/// The socket to the home relay.
type Upstream = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// Longest the connection to the home relay (TCP and WebSocket handshake)
/// may take: relays are on one network.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The player's request, as this relay received it.
pub(super) struct Origin {
    /// The TCP peer (the proxy in front, or the player).
    pub(super) peer: SocketAddr,
    /// The player's address.
    pub(super) client: IpAddr,
    /// The upgrade's headers.
    pub(super) headers: HeaderMap,
    /// The room.
    pub(super) room: RoomId,
    /// The model asked for (`&model=`), passed on to the home.
    pub(super) model: Option<RoomModel>,
    /// The room's home.
    pub(super) home: Home,
    /// The player's slot of the per-address cap here.
    pub(super) permit: Permit,
}

/// Why the home could not be reached.
enum Unreachable {
    /// It answered the upgrade with this status and body.
    Refused(StatusCode, String),
    /// Nothing listens at its address: it is gone.
    Gone,
    /// Anything else (a timeout, a reset).
    Other(String),
}

/// Connects to the home and answers the player: the upgrade, the home's
/// refusal, or — the home gone — the room taken over and played here.
pub(super) async fn upgrade(state: AppState, ws: WebSocketUpgrade, o: Origin) -> Response {
    match connect(&state, &o).await {
        Ok((upstream, home_instance)) => {
            state.inner.metrics.forwarded();
            info!(room = %o.room, client = %o.client, home = %home_instance, "player passed on to the room's home");
            let sessions = state.inner.shutdown.sessions.clone();
            let (permit, room) = (o.permit, o.room.clone());
            let response = socket::configured(ws).on_upgrade(move |player| {
                sessions.track_future(async move {
                    let _permit = permit;
                    pipe(player, upstream, &state).await;
                })
            });
            super::answered(response, Some(&room), &home_instance)
        }
        // The home draining: its room is about to move (not this relay's
        // 503, which would take it out of nginx's list).
        Err(Unreachable::Refused(StatusCode::SERVICE_UNAVAILABLE, body)) => {
            super::unavailable(&state, Place::Unavailable(body))
        }
        Err(Unreachable::Refused(status, body)) => (status, body).into_response(),
        Err(Unreachable::Gone) => {
            match crate::homes::take_over(&state, &o.room, o.model, &o.home).await {
                Place::Here => super::here(state, ws, o.permit, o.client, Some(o.room), o.model),
                other => super::unavailable(&state, other),
            }
        }
        Err(Unreachable::Other(why)) => {
            warn!(room = %o.room, home = %o.home.instance, %why, "room's home unreachable");
            super::unavailable(
                &state,
                Place::Unavailable(format!(
                    "room {}: its relay ({}) does not answer: connect again",
                    o.room, o.home.instance
                )),
            )
        }
    }
}

/// Opens the socket to the home for the player's request: the socket and
/// the home's instance name.
async fn connect(state: &AppState, o: &Origin) -> Result<(Upstream, String), Unreachable> {
    let model = o.model.map_or(String::new(), |m| format!("&model={m}"));
    let url = format!("ws://{}/ws?room={}{model}", o.home.addr, o.room);
    let mut request = url
        .into_client_request()
        .map_err(|e| Unreachable::Other(e.to_string()))?;
    let headers = request.headers_mut();
    for name in [header::HOST, header::ORIGIN] {
        if let Some(v) = o.headers.get(&name) {
            headers.insert(name, v.clone());
        }
    }
    let forwarded: Vec<&str> = o
        .headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let chain = forwarded
        .into_iter()
        .chain(std::iter::once(o.peer.ip().to_string().as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    if let Ok(v) = HeaderValue::from_str(&chain) {
        headers.insert("x-forwarded-for", v);
    }
    if let Ok(v) = HeaderValue::from_str(&state.inner.deployment.instance) {
        headers.insert(FORWARDED_HEADER, v);
    }
    let attempt = async {
        let tcp = tokio::net::TcpStream::connect(&o.home.addr)
            .await
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::ConnectionRefused => Unreachable::Gone,
                _ => Unreachable::Other(e.to_string()),
            })?;
        let _ = tcp.set_nodelay(true);
        tokio_tungstenite::client_async(request, tcp)
            .await
            .map_err(|e| match e {
                tokio_tungstenite::tungstenite::Error::Http(res) => {
                    let status = StatusCode::from_u16(res.status().as_u16())
                        .unwrap_or(StatusCode::BAD_GATEWAY);
                    let body = res
                        .body()
                        .as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default();
                    Unreachable::Refused(status, body)
                }
                e => Unreachable::Other(e.to_string()),
            })
    };
    let (upstream, response) = tokio::time::timeout(CONNECT_TIMEOUT, attempt)
        .await
        .map_err(|_| Unreachable::Other("timed out".into()))??;
    let instance = response
        .headers()
        .get(crate::INSTANCE_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or(&o.home.instance)
        .to_owned();
    Ok((upstream, instance))
}

/// A Close frame from the home, for the player.
fn to_player(frame: Option<TCloseFrame>) -> Message {
    Message::Close(frame.map(|f| CloseFrame {
        code: u16::from(f.code),
        reason: f.reason.as_str().into(),
    }))
}

/// A player's message, for the home (`None`: not passed on).
fn to_home(msg: Message) -> Option<TMessage> {
    match msg {
        Message::Binary(b) => Some(TMessage::Binary(b)),
        Message::Text(t) => Some(TMessage::Text(t.as_str().into())),
        Message::Close(f) => Some(TMessage::Close(f.map(|f| TCloseFrame {
            code: CloseCode::from(f.code),
            reason: f.reason.as_str().into(),
        }))),
        // Each hop answers its own.
        Message::Ping(_) | Message::Pong(_) => None,
    }
}

/// Carries frames between the player and the home until either ends.
async fn pipe(mut player: WebSocket, mut home: Upstream, state: &AppState) {
    let limits = state.inner.limits;
    let mut heartbeat = Heartbeat::new(
        limits.heartbeat_interval,
        limits.heartbeat_timeout,
        state.now(),
    );
    let shutdown = state.shutdown_token();
    let timer = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(timer);
    loop {
        timer.as_mut().reset(state.instant_at(heartbeat.next_due()));
        tokio::select! {
            msg = player.recv() => {
                let Some(Ok(msg)) = msg else {
                    // Gone without a goodbye: the home keeps the seat.
                    return;
                };
                heartbeat.heard();
                let closing = matches!(msg, Message::Close(_));
                if let Some(msg) = to_home(msg) {
                    if home.send(msg).await.is_err() {
                        return;
                    }
                }
                if closing {
                    // The home's echo ends it below.
                    let _ = player.flush().await;
                }
            }
            msg = home.next() => match msg {
                Some(Ok(TMessage::Binary(b))) => {
                    let sent = send_messages(&mut player, [Message::Binary(b)], limits.send_timeout).await;
                    if sent.is_err() {
                        return;
                    }
                }
                Some(Ok(TMessage::Text(t))) => {
                    let text = Message::Text(t.as_str().into());
                    if send_messages(&mut player, [text], limits.send_timeout).await.is_err() {
                        return;
                    }
                }
                Some(Ok(TMessage::Close(f))) => {
                    let _ = send_messages(&mut player, [to_player(f)], limits.send_timeout).await;
                    let _ = home.close(None).await;
                    return;
                }
                Some(Ok(_)) => {}
                // The home is gone: so is the player's socket; the page
                // reconnects.
                Some(Err(_)) | None => return,
            },
            () = &mut timer => match heartbeat.poll(state.now()) {
                Some(Beat::Ping) => {
                    let ping = Message::Ping(Vec::new().into());
                    if send_messages(&mut player, [ping], limits.send_timeout).await.is_err() {
                        return;
                    }
                }
                Some(Beat::Dead) => {
                    state.inner.metrics.ended(Ended::Heartbeat);
                    close(&mut player, CLOSE_GOING_AWAY, "no answer to the relay's pings", limits.send_timeout).await;
                    return;
                }
                None => {}
            },
            () = shutdown.cancelled() => {
                close(&mut player, CLOSE_GOING_AWAY, "relay shutting down", limits.send_timeout).await;
                return;
            }
        }
    }
}
