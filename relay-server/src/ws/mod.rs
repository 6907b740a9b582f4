//! One WebSocket connection's I/O: the upgrade, its checks and where the
//! session runs — here ([`run`]: the `select!` loop that feeds the sans-IO
//! [`crate::session::Session`]) or, for a shared room whose home is
//! another relay, passed on there ([`forward`]).
//!
//! Every way the relay ends a connection sends a Close frame with its code
//! and reason (RFC 6455 §7.4.1): too many bad frames, a flood or a silent
//! seat 1008, a message over the socket's size limit 1009, shutdown or a
//! peer that stopped answering Pings 1001, a room that moved to another
//! relay 1012, a full room 1013 (a seat over the address's share 1008),
//! and a client's own Close is echoed. A client that does not read is
//! dropped after the send timeout.
//!
//! | module | holds |
//! |---|---|
//! | here | `GET /ws`: draining, `Origin`, the per-address cap, the room's home |
//! | `run` | a session's socket task |
//! | `forward` | a player passed on to the room's home relay |
//! | `socket` | the socket layer's sizes, close codes, sending with a deadline, closing |

mod forward;
mod run;
mod socket;

use crate::addr_cap::Permit;
use crate::homes::Place;
use crate::metrics::Refusal;
use crate::proxy::ClientAddr;
use crate::room::{RoomId, RoomModel, RoomQuery};
use crate::AppState;
use axum::extract::{ConnectInfo, State, WebSocketUpgrade};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use tracing::info;

/// Response header of a room's upgrade naming the relay the room lives on
/// (this one, or the one the player was passed on to).
pub const HOME_HEADER: HeaderName = HeaderName::from_static("x-relay-room-home");

/// `GET /ws[?room=<id>]`: refused with 503 while the relay drains, with
/// 400 for a malformed room ([`RoomQuery`]), with 403 for a page of
/// another site ([`crate::origin`]), with 429 when the client's address
/// ([`ClientAddr`]) already has [`crate::Limits::max_connections_per_ip`]
/// sessions open, with 409 when the room's home is changing hands. The
/// upgrade echoes the room (`X-Relay-Room`) and, for a shared room, names
/// its home (`X-Relay-Room-Home`).
pub(crate) async fn upgrade(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    ClientAddr(client): ClientAddr,
    RoomQuery(room, model): RoomQuery,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let metrics = &state.inner.metrics;
    if state.inner.health.is_draining() {
        metrics.refused(Refusal::Draining);
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "relay draining: connect again",
        )
            .into_response();
    }
    let deployment = &state.inner.deployment;
    if let Err(crate::origin::Foreign(origin)) = crate::origin::check(
        headers.get(header::ORIGIN),
        headers.get(header::HOST),
        deployment.public_url.as_deref(),
        &deployment.allowed_origins,
    ) {
        metrics.refused(Refusal::Origin);
        let reason = format!(
            "pages from {origin} may not open sockets to this relay (its own origin and \
             --allowed-origin only)"
        );
        return (StatusCode::FORBIDDEN, reason).into_response();
    }
    let Some(permit) = state.inner.addr_cap.try_acquire(client) else {
        metrics.refused(Refusal::AddressCap);
        let refused = state.inner.refused.fetch_add(1, Ordering::Relaxed) + 1;
        // Logged at 1, 2, 4, 8, …: an attacker retrying cannot flood the log.
        if refused.is_power_of_two() {
            info!(%client, refused, "connection refused: per-address cap reached");
        }
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many connections from this address",
        )
            .into_response();
    };
    let place = match room.as_ref().filter(|r| r.is_shared()) {
        Some(room) => crate::homes::place(&state, room, model, &headers).await,
        None => Place::Here,
    };
    match (place, room) {
        (Place::Forward(home), Some(room)) => {
            let origin = forward::Origin {
                peer,
                client,
                headers,
                room,
                model,
                home,
                permit,
            };
            forward::upgrade(state, ws, origin).await
        }
        (Place::Here | Place::Forward(_), room) => here(state, ws, permit, client, room, model),
        (unavailable_now, _) => unavailable(&state, unavailable_now),
    }
}

/// The session played on this relay.
fn here(
    state: AppState,
    ws: WebSocketUpgrade,
    permit: Permit,
    client: IpAddr,
    room: Option<RoomId>,
    model: Option<RoomModel>,
) -> Response {
    let sessions = state.inner.shutdown.sessions.clone();
    let instance = state.inner.deployment.instance.clone();
    let echo = room.clone();
    let response = socket::configured(ws).on_upgrade(move |socket| {
        sessions.track_future(async move {
            let _permit = permit;
            run::run(socket, state, client, room, model).await;
        })
    });
    answered(response, echo.as_ref(), &instance)
}

/// An upgrade's response with the room echoed and, for a shared room, its
/// home named.
fn answered(mut response: Response, room: Option<&RoomId>, home: &str) -> Response {
    if room.is_some_and(RoomId::is_shared) {
        if let Ok(v) = HeaderValue::from_str(home) {
            response.headers_mut().insert(HOME_HEADER, v);
        }
    }
    RoomId::echo(room, response)
}

/// 409 (with `Retry-After: 1`) for a room whose home is changing hands,
/// with its reason. Not 503: nginx takes a relay answering 503 out of its
/// list for `fail_timeout` (`deploy/nginx.conf`), and this relay is well —
/// another would answer the same.
fn unavailable(state: &AppState, place: Place) -> Response {
    let reason = match place {
        Place::Unavailable(reason) => reason,
        _ => "the room's relay is changing: connect again".to_owned(),
    };
    state.inner.metrics.refused(Refusal::RoomMoving);
    (StatusCode::CONFLICT, [(header::RETRY_AFTER, "1")], reason).into_response()
}
