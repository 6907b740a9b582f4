//! # relay-server — serves the playground and hosts its authority
//!
//! One HTTP listener: `GET /ws` upgrades to a WebSocket whose connection
//! gets its own [`sim::ServerHost`] (link conditioner both ways + the
//! authoritative character + a bot proxy), ticking on its own task — or,
//! with `?room=NAME`, a seat in the shared room NAME, one authoritative
//! [`sim::endpoints::room::RoomHost`] per room on its own task (`GET /api/rooms`
//! lists them);
//! `/api/scenarios` stores and returns saved scenarios (SQLite or
//! PostgreSQL) and `/s/{id}` opens one in the page; a room's recording
//! is kept in the same store (`POST /api/rooms/{name}/recording`) and
//! served by `/api/room-recordings/{id}` (a CMC room's) or
//! `/api/match-recordings/{id}` (a rollback room's match); `/healthz` and
//! `/metrics` are for whatever runs and watches the relay; everything else
//! is the built page from the dist folder.
//!
//! Several relays can run behind nginx (`deploy/nginx.conf`), which pins
//! each room (`/ws?room=<id>`, [`room`]) to one of them; they share a
//! PostgreSQL database: the scenario store and the registry of live rooms
//! (`homes`), which keeps each shared room on one relay at a time while
//! relays come and go. Every response names the relay that answered
//! (`X-Relay-Instance`).
//!
//! The relay only moves bytes and reads the clock: every decision lives in
//! `sim`, the same code the page's local mode and the tests run.
//!
//! ## Layout
//! | module | holds |
//! |---|---|
//! | `lib.rs` | [`AppState`], [`app`]: the router |
//! | `listen` | accepting connections: HTTP/1.1, the header timeout, the cap on half-sent requests |
//! | `ws` | `/ws`: the upgrade's checks, the per-connection task, players passed on to a room's home |
//! | `session` | one connection's protocol rules, sans IO |
//! | `heartbeat` | the WebSocket Ping every 20 s and the peer found dead |
//! | `origin` | which pages may open sockets and post to the API (403 for the others) |
//! | `api` | the scenario API and share links; saved room recordings by id |
//! | `http_errors` | 405 and 414 as the API's JSON errors, for every path |
//! | `store` | the scenario store: one trait, SQLite and PostgreSQL |
//! | `homes` | the registry of live rooms: each shared room's home relay, leases, hand-offs |
//! | `room` | room ids in `/ws?room=<id>`, what the proxy routes on |
//! | `rooms` | shared rooms: the registry, each room's task, players' seats, checkpoints, `/api/rooms` |
//! | `proxy` | the client's address, from `X-Forwarded-For` behind a trusted proxy |
//! | `deployment` | [`Deployment`]: instance name, public URL, trusted proxies, allowed origins, internal address, drain delay |
//! | `health` | `/healthz`: starting, ready, draining |
//! | `metrics` | `/metrics`: Prometheus counters, gauges and the poll histogram |
//! | `limits` | [`Limits`]: per-connection budgets, strikes, 1008 closes; what one address may hold |
//! | `addr_cap` | the cap on sessions (and half-sent requests) per client address |
//! | `page_headers` | Content-Security-Policy and `nosniff` |
//! | `static_files` | the page's files: precompressed `.br`/`.gz` by `Accept-Encoding`, cache headers |
//! | `shutdown` | graceful shutdown: 1001 closes, session drain |
//! | `resume` | dropped sessions kept 10 s for a reconnect |
//! | `token` | a resume token's SHA-256, what the relay keeps of it |
//! | `trace` | the relay's processing times added to a page's packet trace |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod addr_cap;
pub mod api;
mod deployment;
mod health;
mod heartbeat;
mod homes;
mod http_errors;
mod limits;
mod listen;
mod metrics;
pub mod origin;
mod page_headers;
pub mod proxy;
pub mod resume;
pub mod room;
pub mod rooms;
mod session;
pub mod shutdown;
mod static_files;
pub mod store;
mod token;
mod trace;
mod ws;

pub use deployment::{Deployment, DeploymentError, INSTANCE_HEADER};
pub use health::Readiness;
pub use limits::{Limits, Rate};
pub use ws::HOME_HEADER;

use axum::http::header;
use axum::routing::{get, post};
use axum::Router;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower_http::set_header::SetResponseHeaderLayer;
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
    store: Arc<dyn store::ScenarioStore>,
    /// Instance name, public URL, trusted proxies, drain delay.
    deployment: Deployment,
    /// Starting, ready or draining (`/healthz`).
    health: health::Health,
    /// The Prometheus metrics (`/metrics`).
    metrics: Arc<metrics::Metrics>,
    /// What each connection may send, and how many per address.
    limits: Limits,
    /// Open sessions per client address.
    addr_cap: Arc<addr_cap::AddrCap>,
    /// Each client address's budget of scenario saves.
    saves: limits::AddrBuckets,
    /// Upgrades refused by the per-address cap (for rate-limited logging).
    refused: AtomicU64,
    /// The page's Content-Security-Policy.
    csp: page_headers::Csp,
    /// The shutdown signal and the open sessions.
    shutdown: shutdown::Shutdown,
    /// Dropped sessions waiting for a reconnect.
    resume: resume::ResumeStore,
    /// The shared rooms.
    rooms: Arc<rooms::Rooms>,
    /// The registry of live rooms shared with the other relays (a
    /// PostgreSQL store); `None`: this relay alone.
    homes: Option<Arc<homes::Homes>>,
}

impl AppState {
    /// State serving the page from `dist`, with conditioner seeds derived
    /// from `seed_base` and a connection counter, scenarios kept in memory
    /// (use [`AppState::with_store`] for a file or PostgreSQL),
    /// [`Limits::default`] (see [`AppState::with_limits`]) and
    /// [`Deployment::default`] (see [`AppState::with_deployment`]).
    pub fn new(dist: impl Into<PathBuf>, seed_base: u64) -> AppState {
        AppState::with_limits(dist, seed_base, Limits::default())
    }

    /// Like [`AppState::new`], with `limits` in force.
    ///
    /// # Panics
    /// If SQLite cannot open an in-memory database (out of memory).
    pub fn with_limits(dist: impl Into<PathBuf>, seed_base: u64, limits: Limits) -> AppState {
        let dist = dist.into();
        let store = store::SqliteStore::in_memory().expect("SQLite in memory");
        let deployment = Deployment::default();
        let epoch = Instant::now();
        let shutdown = shutdown::Shutdown::default();
        let rooms = rooms::Rooms::new(&limits, seed_base, epoch, shutdown.token.clone());
        AppState {
            inner: Arc::new(Inner {
                csp: page_headers::Csp::new(&dist),
                dist,
                epoch,
                seed_base,
                connections: AtomicU64::new(0),
                store: Arc::new(store),
                metrics: Arc::new(metrics::Metrics::new(&deployment.instance)),
                deployment,
                health: health::Health::default(),
                limits,
                addr_cap: Arc::new(addr_cap::AddrCap::new(limits.max_connections_per_ip)),
                saves: limits::AddrBuckets::new(limits.saves),
                refused: AtomicU64::new(0),
                shutdown,
                resume: resume::ResumeStore::default(),
                rooms: Arc::new(rooms),
                homes: None,
            }),
        }
    }

    /// This state with scenarios kept in `store` instead.
    ///
    /// # Panics
    /// If the state was cloned already (call it right after [`AppState::new`]).
    pub fn with_store(mut self, store: Arc<dyn store::ScenarioStore>) -> AppState {
        Arc::get_mut(&mut self.inner)
            .expect("with_store before the state is shared")
            .store = store;
        self
    }

    /// This state deployed as `deployment` says (its metrics start again
    /// at zero under the new instance name).
    ///
    /// # Panics
    /// If the state was cloned already (call it right after [`AppState::new`]).
    pub fn with_deployment(mut self, deployment: Deployment) -> AppState {
        let inner =
            Arc::get_mut(&mut self.inner).expect("with_deployment before the state is shared");
        inner.metrics = Arc::new(metrics::Metrics::new(&deployment.instance));
        inner.deployment = deployment;
        self
    }

    /// This state with its shared rooms registered in the PostgreSQL
    /// database at `url` (already migrated by its [`store::PgStore`]), so
    /// that each room has one home among the relays sharing it
    /// (`crate::homes`); calls bounded by `deadline`. Call it after
    /// [`AppState::with_deployment`]: the registry names this relay by its
    /// instance and internal address.
    ///
    /// # Errors
    /// [`store::StoreError::Location`] without an internal address (the
    /// other relays could not reach this one); another
    /// [`store::StoreError`] if the database cannot be reached.
    ///
    /// # Panics
    /// If the state was cloned already (call it right after
    /// [`AppState::new`]).
    pub async fn with_room_registry(
        mut self,
        url: &str,
        deadline: Duration,
    ) -> Result<AppState, store::StoreError> {
        let inner =
            Arc::get_mut(&mut self.inner).expect("with_room_registry before the state is shared");
        let d = &inner.deployment;
        let me = d.internal_addr.ok_or_else(|| {
            store::StoreError::Location(
                "a relay listening on all interfaces needs --internal-addr (where the other \
                 relays reach it) to share rooms through PostgreSQL"
                    .into(),
            )
        })?;
        let homes = homes::Homes::open(
            url,
            me.to_string(),
            d.instance.clone(),
            d.room_lease,
            inner.limits.empty_room_lifetime,
            deadline,
        )
        .await?;
        inner.homes = Some(Arc::new(homes));
        Ok(self)
    }

    /// The scenario store.
    pub fn store(&self) -> &Arc<dyn store::ScenarioStore> {
        &self.inner.store
    }

    /// Starting, ready or draining, as `/healthz` answers.
    pub fn readiness(&self) -> Readiness {
        self.inner.health.get()
    }

    fn dist(&self) -> &std::path::Path {
        &self.inner.dist
    }

    /// Cancelled when the relay closes its sessions (the signal given to
    /// [`serve`] completed and the drain delay passed). Anything that must
    /// finish cleanly — the scenario store — can wait on it; by the time
    /// [`serve`] returns every WebSocket session has closed (or
    /// [`shutdown::DRAIN_TIMEOUT`] passed).
    pub fn shutdown_token(&self) -> tokio_util::sync::CancellationToken {
        self.inner.shutdown.token.clone()
    }

    /// Microseconds since the relay started, as the hosts' clock.
    fn now(&self) -> sim::SimTime {
        sim::SimTime(u64::try_from(self.inner.epoch.elapsed().as_micros()).unwrap_or(u64::MAX))
    }

    /// The instant at which the hosts' clock reads `t`.
    fn instant_at(&self, t: sim::SimTime) -> tokio::time::Instant {
        tokio::time::Instant::from_std(self.inner.epoch + Duration::from_micros(t.0))
    }
}

/// A multi-threaded tokio runtime with `threads` worker threads (at least
/// one). With one worker it still beat tokio's single-threaded scheduler
/// on the load test's ack latency (p99 2.7–4.3 against 5.6–6.1 ms at 1000
/// sessions, three paired runs).
///
/// # Errors
/// If the runtime cannot be built (no OS threads or epoll).
pub fn runtime(threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
}

/// Serves [`app`] on `listener` until `shutdown` completes (see
/// `listen`: HTTP/1.1, the header timeout, the cap on half-sent requests
/// per address, `TCP_NODELAY`).
///
/// `/healthz` is ready from the start. When `shutdown` completes the relay
/// drains: with a room registry it hands every shared room to another
/// relay at once (`homes`: the players reconnect there and resume their
/// seats); for [`Deployment::drain_delay`] it still serves, but
/// `/healthz` answers 503 and new WebSocket sessions are refused (503);
/// then no new connections, [`AppState::shutdown_token`] is cancelled,
/// every WebSocket client gets a close frame (1001 going away), and this
/// returns once the sessions have ended (at most
/// [`shutdown::DRAIN_TIMEOUT`]). Use [`shutdown::signal`] for
/// SIGTERM/Ctrl-C.
///
/// # Errors
/// None today (accept errors are retried); kept for callers that treat
/// serving as fallible.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let token = state.shutdown_token();
    let draining = state.clone();
    state.inner.health.ready();
    homes::spawn(&state);
    let signal = async move {
        tokio::select! {
            () = shutdown => {}
            () = token.cancelled() => {}
        }
        draining.inner.health.drain();
        homes::hand_off_all(&draining).await;
        let delay = draining.inner.deployment.drain_delay;
        tracing::info!(
            delay_ms = delay.as_millis() as u64,
            "draining: /healthz answers 503 and new sessions are refused"
        );
        tokio::time::sleep(delay).await;
    };
    listen::serve(listener, app(state.clone()), state.clone(), signal).await;
    state.inner.shutdown.drain().await;
    Ok(())
}

/// The relay's router: `/ws` (WebSocket), `/healthz`, `/metrics`, the
/// scenario API and share links ([`api`]), and the page from the dist
/// folder for every other path (`static_files`: `index.html` for `/`,
/// precompressed variants by `Accept-Encoding`, cache headers by name;
/// paths that leave the folder, `..` and its percent-encodings included,
/// are refused).
/// A `POST` to `/api/…` from a page of another site is refused (403,
/// [`origin`]). A method a route does not take (405) and a URI over
/// 8 KiB (414) are answered `{"error"}` like the
/// API's other refusals.
/// Every response carries the page's Content-Security-Policy,
/// `X-Content-Type-Options: nosniff` and `X-Relay-Instance`.
///
/// `/ws`, `POST /api/scenarios` and `POST /api/rooms/{name}/recording`
/// need the peer address: serve with
/// `into_make_service_with_connect_info::<SocketAddr>()`, or as [`serve`]
/// does.
pub fn app(state: AppState) -> Router {
    let pages = static_files::service(&state.inner.dist);
    let csp_state = state.clone();
    let instance = header::HeaderValue::from_str(&state.inner.deployment.instance)
        .unwrap_or_else(|_| header::HeaderValue::from_static("relay"));
    let routes = Router::new()
        .route("/ws", get(ws::upgrade))
        .route("/healthz", get(health::handler))
        .route("/metrics", get(metrics::handler))
        .route("/api/rooms", get(rooms::list))
        .route(
            origin::ROOM_RECORDING_ROUTE,
            get(rooms::recording).post(rooms::save_recording),
        )
        .route("/api/room-recordings/{id}", get(api::fetch_room_recording))
        .route(
            "/api/match-recordings/{id}",
            get(api::fetch_match_recording),
        )
        .route(origin::SCENARIOS_ROUTE, post(api::create))
        .route("/api/scenarios/{id}", get(api::fetch))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            origin::api_posts,
        ))
        .route("/s/{id}", get(api::share_page))
        .fallback_service(pages)
        .with_state(state);
    // Around the whole router, not each route: a route's 405 gets its
    // `Allow` from the router, after the route's own layers.
    Router::new()
        .fallback_service(routes)
        .layer(axum::middleware::from_fn(http_errors::json_errors))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            move |_: &axum::response::Response| Some(csp_state.inner.csp.header()),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            header::HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            INSTANCE_HEADER,
            instance,
        ))
        .layer(TraceLayer::new_for_http())
}
