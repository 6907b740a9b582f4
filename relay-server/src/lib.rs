//! # relay-server — serves the playground and hosts its authority
//!
//! One HTTP listener: `GET /ws` upgrades to a WebSocket whose connection
//! gets its own [`sim::ServerHost`] (link conditioner both ways + the
//! authoritative character + a bot proxy), ticking on its own task;
//! `/api/scenarios` stores and returns saved scenarios (SQLite) and
//! `/s/{id}` opens one in the page; everything else is the built page from
//! the dist folder.
//!
//! The relay only moves bytes and reads the clock: every decision lives in
//! `sim`, the same code the page's local mode and the tests run.
//!
//! ## Layout
//! | module | holds |
//! |---|---|
//! | `lib.rs` | [`AppState`], [`app`]: the router |
//! | `ws` | the per-connection task |
//! | `api` | the scenario API and share links |
//! | `store` | the SQLite scenario store |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod api;
pub mod store;
mod ws;

use axum::routing::{get, post};
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
    /// Saved scenarios.
    store: Arc<store::ScenarioStore>,
}

impl AppState {
    /// State serving the page from `dist`, with conditioner seeds derived
    /// from `seed_base` and a connection counter, and scenarios kept in
    /// memory (use [`AppState::with_store`] for a file).
    ///
    /// # Panics
    /// If SQLite cannot open an in-memory database (out of memory).
    pub fn new(dist: impl Into<PathBuf>, seed_base: u64) -> AppState {
        let store = store::ScenarioStore::in_memory().expect("SQLite in memory");
        AppState {
            inner: Arc::new(Inner {
                dist: dist.into(),
                epoch: Instant::now(),
                seed_base,
                connections: AtomicU64::new(0),
                store: Arc::new(store),
            }),
        }
    }

    /// This state with scenarios kept in `store` instead.
    ///
    /// # Panics
    /// If the state was cloned already (call it right after [`AppState::new`]).
    pub fn with_store(mut self, store: store::ScenarioStore) -> AppState {
        Arc::get_mut(&mut self.inner)
            .expect("with_store before the state is shared")
            .store = Arc::new(store);
        self
    }

    /// The scenario store.
    pub fn store(&self) -> &Arc<store::ScenarioStore> {
        &self.inner.store
    }

    fn dist(&self) -> &std::path::Path {
        &self.inner.dist
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

/// The relay's router: `/ws` (WebSocket), `/healthz`, the scenario API
/// and share links ([`api`]), and the page from the dist folder for every
/// other path (`index.html` for `/`).
pub fn app(state: AppState) -> Router {
    let dist = state.inner.dist.clone();
    let pages = ServeDir::new(&dist).not_found_service(ServeFile::new(dist.join("index.html")));
    Router::new()
        .route("/ws", get(ws::upgrade))
        .route("/healthz", get(|| async { "ok" }))
        .route("/api/scenarios", post(api::create))
        .route("/api/scenarios/{id}", get(api::fetch))
        .route("/s/{id}", get(api::share_page))
        .fallback_service(pages)
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
