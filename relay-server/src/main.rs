//! `relay-server` binary: parse flags, set up logs, serve.

use anyhow::Context;
use clap::Parser;
use std::net::SocketAddr;
use std::path::PathBuf;
use tracing_subscriber::EnvFilter;

/// Netcode Playground relay: serves the built page and a WebSocket
/// endpoint (`/ws`) hosting the authoritative simulation per connection.
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
    /// SQLite file of saved scenarios (created with its folder if missing).
    #[arg(long, default_value = "data/scenarios.sqlite3", env = "PLAYGROUND_DB")]
    db: PathBuf,
    /// Open WebSocket sessions allowed per client IP address (0 = no cap);
    /// a further one is refused with 429. Behind a reverse proxy all
    /// clients share the proxy's address: raise it there.
    #[arg(long, default_value_t = relay_server::Limits::default().max_connections_per_ip, env = "PLAYGROUND_MAX_CONNECTIONS_PER_IP")]
    max_connections_per_ip: usize,
    /// Worker threads running the sessions (default: one per core), on
    /// tokio's multi-threaded scheduler even for 1 (see
    /// `relay_server::runtime`); the load test pins the relay to one core
    /// with `--threads 1`.
    #[arg(long, env = "PLAYGROUND_THREADS", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
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
    let store = relay_server::store::ScenarioStore::open(&args.db)
        .with_context(|| format!("opening the scenario store {}", args.db.display()))?;
    tracing::info!(db = %args.db.display(), scenarios = store.count()?, "scenario store open");
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("binding {}", args.addr))?;
    let local = listener.local_addr()?;
    // The e2e test and scripts read this exact line to find the port.
    println!("relay-server listening on http://{local}/");
    tracing::info!(addr = %local, dist = %args.dist.display(), "serving");
    let limits = relay_server::Limits {
        max_connections_per_ip: args.max_connections_per_ip,
        ..relay_server::Limits::default()
    };
    let state = relay_server::AppState::with_limits(args.dist, seed, limits).with_store(store);
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
