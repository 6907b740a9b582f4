//! # relay-server — serves the playground and hosts its authority
//!
//! One HTTP listener: `GET /ws` upgrades to a WebSocket whose connection
//! gets its own [`sim::ServerHost`] (link conditioner both ways + the
//! authoritative character + a bot proxy), ticking on its own task;
//! everything else is the built page from the dist folder.
//!
//! The relay only moves bytes and reads the clock: every decision lives in
//! `sim`, the same code the page's local mode and the tests run.
//!
//! ## Layout
//! | module | holds |
//! |---|---|
//! | `lib.rs` | [`AppState`], [`app`]: the router |
//! | `ws` | the per-connection task |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ws;

use axum::routing::get;
use axum::Router;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;

/// Shared by every request.
#[derive(Debug, Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Folder with the built page (`index.html`, wasm, JS).
    dist: PathBuf,
    /// The relay's epoch: every host's `SimTime` counts from here.
    epoch: Instant,
    /// Base of the per-connection conditioner seeds.
    seed_base: u64,
    /// Connections so far (also varies each connection's seed).
    connections: AtomicU64,
}

impl AppState {
    /// State serving the page from `dist`, with conditioner seeds derived
    /// from `seed_base` and a connection counter.
    pub fn new(dist: impl Into<PathBuf>, seed_base: u64) -> AppState {
        AppState {
            inner: Arc::new(Inner {
                dist: dist.into(),
                epoch: Instant::now(),
                seed_base,
                connections: AtomicU64::new(0),
            }),
        }
    }

    /// Microseconds since the relay started, as the hosts' clock.
    fn now(&self) -> sim::SimTime {
        sim::SimTime(u64::try_from(self.inner.epoch.elapsed().as_micros()).unwrap_or(u64::MAX))
    }
}

/// Serves [`app`] on `listener` until `shutdown` completes, with
/// `TCP_NODELAY` on every connection: moves, acks and pongs are tiny and
/// frequent, and Nagle's algorithm with the peer's delayed ACK would hold
/// them back by up to 40 ms — adding to the very latency the playground
/// measures.
///
/// # Errors
/// The listener's I/O error, if serving stops on one.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
    });
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown)
        .await
}

/// The relay's router: `/ws` (WebSocket), `/healthz`, and the page from the
/// dist folder for every other path (`index.html` for `/`).
pub fn app(state: AppState) -> Router {
    let dist = state.inner.dist.clone();
    let pages = ServeDir::new(&dist).not_found_service(ServeFile::new(dist.join("index.html")));
    Router::new()
        .route("/ws", get(ws::upgrade))
        .route("/healthz", get(|| async { "ok" }))
        .fallback_service(pages)
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
