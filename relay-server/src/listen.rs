//! Accepting connections (issue #27: slowloris): the router served over
//! HTTP/1.1 by hyper, each connection with
//!
//! - a header-read timeout ([`crate::Limits::header_timeout`], hyper's own
//!   timer): a request head — the first, and each next one on a kept-alive
//!   connection, idle time included — must arrive within it, else the
//!   connection is closed;
//! - a cap per TCP peer address on connections whose first request head has
//!   not arrived ([`crate::Limits::max_handshakes_per_ip`]): one more is
//!   answered with a one-line 429 (if the socket takes it at once) and
//!   closed. A trusted proxy (`--trusted-proxy`) is not capped: behind
//!   nginx every connection is nginx's, and nginx has its own timeouts;
//! - `TCP_NODELAY` and a bounded send buffer ([`crate::Limits::socket_send_buffer`]);
//! - hyper's own empty 414 and 431 (a request head it cannot take) written
//!   as the API's `{"error"}` answers (`crate::http_errors`).
//!
//! Refusals and header timeouts are counted (`relay_connections_refused_total`,
//! `relay_header_timeouts_total`). When `signal` completes, the listener
//! closes and every connection finishes its request (a WebSocket, once
//! upgraded, is the session's: [`crate::shutdown`]). This is axum's own
//! `serve` loop with those three added; HTTP/2 (cleartext, which browsers
//! do not speak) is left out.

use crate::addr_cap::AddrCap;
use crate::AppState;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::Service;
use tracing::{debug, info};

/// What an over-cap connection is told before it is closed.
const REFUSAL: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\n\
Content-Length: 46\r\nConnection: close\r\n\r\ntoo many half-sent requests from this address\n";

/// Serves `router` on `listener` until `signal` completes, then waits for
/// the connections' requests to finish.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    state: AppState,
    signal: impl Future<Output = ()>,
) {
    let limits = state.inner.limits;
    let handshakes = Arc::new(AddrCap::new(limits.max_handshakes_per_ip));
    // Dropped when the listener closes: every connection then shuts down
    // gracefully.
    let (stop_tx, _) = watch::channel(());
    // Held by every connection: all closed when every clone is dropped.
    let (done_tx, done_rx) = watch::channel(());
    let mut refused: u64 = 0;
    tokio::pin!(signal);
    loop {
        let (tcp, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: try again soon
                    // (as axum does), never end the server for it.
                    debug!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut signal => break,
        };
        tune(&tcp, limits.socket_send_buffer);
        let trusted = state.inner.deployment.trusted_proxies.trusts(remote.ip());
        let permit = if trusted {
            None
        } else {
            match handshakes.try_acquire(remote.ip()) {
                Some(p) => Some(p),
                None => {
                    state.inner.metrics.connection_refused();
                    refused += 1;
                    // Logged at 1, 2, 4, 8, …: an attacker cannot flood the log.
                    if refused.is_power_of_two() {
                        info!(peer = %remote.ip(), refused, "connection refused: too many half-sent requests from this address");
                    }
                    let _ = tcp.try_write(REFUSAL);
                    continue;
                }
            }
        };
        // Given back when the first request head has arrived.
        let pending = Arc::new(Mutex::new(permit));
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
            drop(
                pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take(),
            );
            req.extensions_mut().insert(ConnectInfo(remote));
            router.clone().call(req.map(Body::new))
        });
        let mut stop = stop_tx.subscribe();
        let done = done_rx.clone();
        let metrics = state.inner.metrics.clone();
        let io = crate::http_errors::ParseErrors::new(tcp, state.inner.deployment.instance.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let conn = builder
                .serve_connection(TokioIo::new(io), service)
                .with_upgrades();
            tokio::pin!(conn);
            let mut stopping = false;
            loop {
                tokio::select! {
                    served = conn.as_mut() => {
                        if let Err(e) = served {
                            if e.is_timeout() {
                                metrics.header_timeout();
                            }
                            debug!(error = %e, "connection ended");
                        }
                        break;
                    }
                    _ = stop.changed(), if !stopping => {
                        stopping = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
            }
            drop(done);
        });
    }
    drop(listener);
    drop(stop_tx);
    drop(done_rx);
    done_tx.closed().await;
}

/// `TCP_NODELAY` and a bounded send buffer on an accepted connection:
/// moves, acks and pongs are tiny and frequent, and Nagle's algorithm with
/// the peer's delayed ACK would hold them back by up to 40 ms — adding to
/// the very latency the playground measures; and a client that stops
/// reading is seen (and dropped) within seconds, not minutes.
fn tune(tcp: &TcpStream, send_buffer: usize) {
    if let Err(e) = tcp.set_nodelay(true) {
        debug!(error = %e, "could not set TCP_NODELAY");
    }
    if let Err(e) = socket2::SockRef::from(tcp).set_send_buffer_size(send_buffer) {
        debug!(error = %e, "could not set SO_SNDBUF");
    }
}
