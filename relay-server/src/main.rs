//! `relay-server` binary: parse flags, set up logs, serve.

use anyhow::Context;
use clap::Parser;
use relay_server::proxy::TrustedProxies;
use relay_server::store::Location;
use relay_server::Deployment;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tracing_subscriber::EnvFilter;

/// Netcode Playground relay: serves the built page and a WebSocket
/// endpoint (`/ws`) hosting the authoritative simulation per connection,
/// or per shared room (`/ws?room=NAME`).
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on (use port 0 for any free port).
    #[arg(long, default_value = "127.0.0.1:8080", env = "PLAYGROUND_ADDR")]
    addr: SocketAddr,
    /// Folder with the built page (trunk's output).
    #[arg(long, default_value = "dist", env = "PLAYGROUND_DIST")]
    dist: PathBuf,
    /// Base seed of the per-connection link conditioners (default: from the
    /// clock, so two runs differ; set it to reproduce packet fates).
    #[arg(long)]
    seed: Option<u64>,
    /// Scenario store: a SQLite file (created with its folder if missing)
    /// or a PostgreSQL URL, `postgres://user:password@host:port/database`
    /// (several relays sharing one store; migrations applied at start).
    #[arg(long, default_value = "data/scenarios.sqlite3", env = "PLAYGROUND_DB")]
    db: Location,
    /// Open WebSocket sessions allowed per client IP address (0 = no cap);
    /// a further one is refused with 429. Behind a reverse proxy, name it
    /// with --trusted-proxy so that the cap counts the clients, not the
    /// proxy.
    #[arg(long, default_value_t = defaults().max_connections_per_ip, env = "PLAYGROUND_MAX_CONNECTIONS_PER_IP")]
    max_connections_per_ip: usize,
    /// Most players in one shared room (`/ws?room=NAME`), bots included;
    /// one more is refused with a reason and close code 1013.
    #[arg(long, default_value_t = sim::room::config::DEFAULT_MAX_PLAYERS as u16, env = "PLAYGROUND_MAX_ROOM_PLAYERS",
          value_parser = clap::value_parser!(u16).range(1..=sim::room::config::MAX_ROOM_PLAYERS as i64))]
    max_room_players: u16,
    /// Most players in one rollback room (`/ws?room=NAME&model=rollback`),
    /// bots included; one more is refused with a reason and close code
    /// 1013.
    #[arg(long, default_value_t = sim::rollback::arena::MAX_PLAYERS as u16, env = "PLAYGROUND_MAX_ROLLBACK_PLAYERS",
          value_parser = clap::value_parser!(u16).range(sim::rollback::arena::MIN_PLAYERS as i64..=sim::rollback::arena::MAX_PLAYERS as i64))]
    max_rollback_players: u16,
    /// Inputs a new shared CMC room records at most (0: rooms are not
    /// recorded); served by GET /api/rooms/NAME/recording. At the limit
    /// the recording stops (the room plays on) and is served as the
    /// shorter room it holds. Measured: two players make ~155 inputs/s,
    /// ~19 B each encoded and ~130 B in memory: the default is ~1.9 MB
    /// encoded, ~13 MB held, ~11 minutes of a duel.
    #[arg(long, default_value_t = defaults().room_record_events, env = "PLAYGROUND_ROOM_RECORD_EVENTS")]
    room_record_events: usize,
    /// Ticks a new rollback room's match records at most (0: matches are
    /// not recorded; at most 36000, 10 minutes at 60 Hz); served by GET
    /// /api/rooms/NAME/recording. At the limit the recording stops (the
    /// match plays on). A tick of 2 players is ~25 B encoded, ~70 B held:
    /// the default is under 1 MB encoded, ~2.5 MB held.
    #[arg(long, default_value_t = defaults().match_record_ticks, env = "PLAYGROUND_MATCH_RECORD_TICKS")]
    match_record_ticks: usize,
    /// Worker threads running the sessions (default: one per core), on
    /// tokio's multi-threaded scheduler even for 1 (see
    /// `relay_server::runtime`); the load test pins the relay to one core
    /// with `--threads 1`.
    #[arg(long, env = "PLAYGROUND_THREADS", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// This relay's name, reported in every response's `X-Relay-Instance`
    /// header, in /healthz and in /metrics (default: relay-<port>).
    #[arg(long, env = "PLAYGROUND_INSTANCE", value_parser = Deployment::instance_name)]
    instance: Option<String>,
    /// Public base URL of share links the relay hands out, e.g.
    /// https://play.example.org (default: links relative to the request).
    #[arg(long, env = "PLAYGROUND_PUBLIC_URL", value_parser = Deployment::public_url)]
    public_url: Option<String>,
    /// Proxies whose X-Forwarded-For names the client, as addresses or
    /// networks, comma-separated (e.g. 127.0.0.1 for nginx on this
    /// machine). Default: none — the header is ignored, so clients cannot
    /// choose their address.
    #[arg(long, env = "PLAYGROUND_TRUSTED_PROXIES", default_value = "")]
    trusted_proxy: TrustedProxies,
    /// After SIGTERM, ms the relay keeps answering (/healthz 503, new
    /// sessions refused with 503, open ones going on) before it closes its
    /// sessions: a load balancer's health-check interval. Its shared rooms
    /// are handed to other relays at once (with a PostgreSQL store).
    #[arg(long, env = "PLAYGROUND_DRAIN_DELAY_MS", default_value_t = 0)]
    drain_delay_ms: u64,
    /// Origins (scheme://host[:port]) whose pages may open WebSockets to
    /// the relay and POST to its API (saves), besides its own
    /// (--public-url, or without one the address the request was sent
    /// to); comma-separated, and the flag may be repeated
    /// (--allowed-origin https://a.example --allow-origin https://b.example);
    /// `*` allows any. Any other page's socket or save is refused with 403.
    #[arg(long, visible_alias = "allow-origin", env = "PLAYGROUND_ALLOWED_ORIGINS",
          action = clap::ArgAction::Append, value_parser = relay_server::origin::AllowedOrigins::parse)]
    allowed_origin: Vec<relay_server::origin::AllowedOrigins>,
    /// Where the other relays reach this one (host:port), for players they
    /// pass on to the rooms this relay is the home of (with a PostgreSQL
    /// store). Default: the address it listens on, unless that is
    /// 0.0.0.0 or [::] (then this flag is needed).
    #[arg(long, env = "PLAYGROUND_INTERNAL_ADDR")]
    internal_addr: Option<SocketAddr>,
    /// How long a relay's claim on a shared room lasts unless renewed
    /// (renewed every third of it, with the room's checkpoint), ms.
    #[arg(long, env = "PLAYGROUND_ROOM_LEASE_MS", default_value_t = relay_server::Deployment::default().room_lease.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(300..))]
    room_lease_ms: u64,
    /// Longest a call to the scenario store or the room registry may take,
    /// ms; past it the call fails with a clear error (503).
    #[arg(long, env = "PLAYGROUND_DB_TIMEOUT_MS", default_value_t = relay_server::store::DEFAULT_DEADLINE.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    db_timeout_ms: u64,
    /// Seats one client address may hold in one shared room (0 = no cap).
    #[arg(long, env = "PLAYGROUND_MAX_SEATS_PER_ADDRESS", default_value_t = defaults().max_seats_per_address)]
    max_seats_per_address: usize,
    /// Ms a room seat may stay silent after joining before it is closed.
    #[arg(long, env = "PLAYGROUND_SILENT_SEAT_GRACE_MS", default_value_t = defaults().silent_seat_grace.as_millis() as u64)]
    silent_seat_grace_ms: u64,
    /// Saves (scenarios and room recordings) one client address may make
    /// at once…
    #[arg(long, env = "PLAYGROUND_SAVE_BURST", default_value_t = defaults().saves.burst as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    save_burst: u32,
    /// …and per minute after that.
    #[arg(long, env = "PLAYGROUND_SAVES_PER_MINUTE", default_value_t = defaults().saves.per_second * 60.0)]
    saves_per_minute: f64,
    /// Bytes all stored scenarios and room recordings may take together
    /// (0 = no cap); a save past it is refused with 507.
    #[arg(long, env = "PLAYGROUND_MAX_STORE_BYTES", default_value_t = defaults().max_store_bytes)]
    max_store_bytes: u64,
    /// Connections per address whose first request head has not arrived
    /// (0 = no cap); one more is closed at once. Trusted proxies are not
    /// capped.
    #[arg(long, env = "PLAYGROUND_MAX_HANDSHAKES_PER_IP", default_value_t = defaults().max_handshakes_per_ip)]
    max_handshakes_per_ip: usize,
    /// Ms a client may take to send a request head (or a save's body).
    #[arg(long, env = "PLAYGROUND_HEADER_TIMEOUT_MS", default_value_t = defaults().header_timeout.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_ms: u64,
    /// Ms between the relay's WebSocket Pings on each socket.
    #[arg(long, env = "PLAYGROUND_HEARTBEAT_INTERVAL_MS", default_value_t = defaults().heartbeat_interval.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    heartbeat_interval_ms: u64,
    /// Ms after a Ping within which something must arrive, else the socket
    /// is closed (and its session kept for the resume grace).
    #[arg(long, env = "PLAYGROUND_HEARTBEAT_TIMEOUT_MS", default_value_t = defaults().heartbeat_timeout.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    heartbeat_timeout_ms: u64,
}

/// The defaults of the limits' flags.
fn defaults() -> relay_server::Limits {
    relay_server::Limits::default()
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    relay_server::runtime(threads)?.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("info,tower_http=warn")),
        )
        .init();
    if !args.dist.join("index.html").is_file() {
        tracing::warn!(dist = %args.dist.display(), "no index.html in the dist folder: build the page first (trunk build --release)");
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
    });
    let db_timeout = Duration::from_millis(args.db_timeout_ms);
    let store = args
        .db
        .open(db_timeout)
        .await
        .with_context(|| format!("opening the scenario store {}", args.db))?;
    tracing::info!(db = %args.db, backend = store.backend(), scenarios = store.count().await?, "scenario store open");
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("binding {}", args.addr))?;
    let local = listener.local_addr()?;
    // The e2e test and scripts read this exact line to find the port.
    println!("relay-server listening on http://{local}/");
    tracing::info!(addr = %local, dist = %args.dist.display(), "serving");
    let ms = Duration::from_millis;
    let limits = relay_server::Limits {
        max_connections_per_ip: args.max_connections_per_ip,
        max_room_players: args.max_room_players.into(),
        max_rollback_players: args.max_rollback_players.into(),
        max_seats_per_address: args.max_seats_per_address,
        room_record_events: args.room_record_events,
        match_record_ticks: args.match_record_ticks,
        silent_seat_grace: ms(args.silent_seat_grace_ms),
        saves: relay_server::Rate {
            per_second: args.saves_per_minute / 60.0,
            burst: f64::from(args.save_burst),
        },
        max_store_bytes: args.max_store_bytes,
        max_handshakes_per_ip: args.max_handshakes_per_ip,
        header_timeout: ms(args.header_timeout_ms),
        heartbeat_interval: ms(args.heartbeat_interval_ms),
        heartbeat_timeout: ms(args.heartbeat_timeout_ms),
        ..defaults()
    };
    let internal_addr = match (args.internal_addr, local.ip().is_unspecified()) {
        (Some(addr), _) => Some(addr),
        (None, false) => Some(local),
        (None, true) => None,
    };
    let deployment = Deployment {
        instance: args
            .instance
            .unwrap_or_else(|| format!("relay-{}", local.port())),
        public_url: args.public_url,
        trusted_proxies: args.trusted_proxy,
        drain_delay: ms(args.drain_delay_ms),
        allowed_origins: args.allowed_origin.into_iter().fold(
            Default::default(),
            relay_server::origin::AllowedOrigins::merge,
        ),
        internal_addr,
        room_lease: ms(args.room_lease_ms),
    };
    tracing::info!(instance = %deployment.instance, trusted_proxies = %deployment.trusted_proxies, "deployment");
    let mut state = relay_server::AppState::with_limits(args.dist, seed, limits)
        .with_store(store)
        .with_deployment(deployment);
    if let Location::Postgres(url) = &args.db {
        state = state
            .with_room_registry(url, db_timeout)
            .await
            .context("opening the room registry")?;
    }
    let store = state.store().clone();
    relay_server::serve(listener, state, relay_server::shutdown::signal())
        .await
        .context("serving")?;
    // Every save was committed (synchronous = FULL) before its 201; closing
    // the last handle checkpoints the WAL into the database file.
    drop(store);
    tracing::info!("stopped");
    Ok(())
}
