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
    #[arg(long, default_value_t = relay_server::Limits::default().max_connections_per_ip, env = "PLAYGROUND_MAX_CONNECTIONS_PER_IP")]
    max_connections_per_ip: usize,
    /// Most players in one shared room (`/ws?room=NAME`), bots included;
    /// one more is refused with a reason and close code 1013.
    #[arg(long, default_value_t = sim::room::config::DEFAULT_MAX_PLAYERS as u16, env = "PLAYGROUND_MAX_ROOM_PLAYERS",
          value_parser = clap::value_parser!(u16).range(1..=sim::room::config::MAX_ROOM_PLAYERS as i64))]
    max_room_players: u16,
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
    /// sessions: a load balancer's health-check interval.
    #[arg(long, env = "PLAYGROUND_DRAIN_DELAY_MS", default_value_t = 0)]
    drain_delay_ms: u64,
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
    let store = args
        .db
        .open()
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
    let limits = relay_server::Limits {
        max_connections_per_ip: args.max_connections_per_ip,
        max_room_players: args.max_room_players.into(),
        ..relay_server::Limits::default()
    };
    let deployment = Deployment {
        instance: args
            .instance
            .unwrap_or_else(|| format!("relay-{}", local.port())),
        public_url: args.public_url,
        trusted_proxies: args.trusted_proxy,
        drain_delay: Duration::from_millis(args.drain_delay_ms),
    };
    tracing::info!(instance = %deployment.instance, trusted_proxies = %deployment.trusted_proxies, "deployment");
    let state = relay_server::AppState::with_limits(args.dist, seed, limits)
        .with_store(store)
        .with_deployment(deployment);
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
