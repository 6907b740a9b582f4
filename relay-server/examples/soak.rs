//! Relay soak (issue #7 "bounded memory"): starts the release relay as a
//! child process on a loopback port, connects N clients that behave like
//! the page (a bot-driven `sim::ClientEndpoint`: one frame per 60 Hz tick,
//! ServerMoves, a Ping every `PING_INTERVAL_MS`) with the link conditioner at the
//! given RTT and loss, and samples the relay's resident memory (`VmRSS`
//! from `/proc/<pid>/status`) every `--sample` seconds into a CSV.
//!
//! With `--max-growth-kib`, it fails (exit 1) when the RSS at the end is
//! more than that above the first sample taken after the warm-up — the
//! check `scripts/test.sh` runs for 60 s. `scripts/soak.sh` runs the long
//! version (default 30 min). Loopback only; every client stops at the
//! deadline and the relay child is killed on exit.
//!
//! ```sh
//! cargo build --release -p relay-server
//! cargo run --release -p relay-server --example soak -- --duration 1800 --csv soak.csv
//! ```

mod common;

use common::Relay;

use anyhow::bail;
use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use sim::{Bot, ClientEndpoint, NetSettings, SimTime};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// One client frame (60 Hz, as the page).
const FRAME: Duration = Duration::from_micros(16_667);

#[derive(Debug, Parser)]
#[command(about = "Relay soak: N page-like clients under loss, relay RSS sampled to a CSV")]
struct Args {
    /// The relay binary to start (release build).
    #[arg(long, default_value = "target/release/relay-server")]
    relay: PathBuf,
    /// Clients, at most 500.
    #[arg(long, default_value_t = 50)]
    clients: usize,
    /// Packet loss each way, percent (`0..=50`).
    #[arg(long, default_value_t = 20)]
    loss: u8,
    /// Round-trip latency added by the conditioner, ms (`0..=1000`).
    #[arg(long, default_value_t = 100)]
    rtt: u16,
    /// Length of the run, s (at most 24 h).
    #[arg(long, default_value_t = 1800)]
    duration: u64,
    /// Seconds between RSS samples.
    #[arg(long, default_value_t = 10)]
    sample: u64,
    /// Seconds before the baseline sample (connections, warm-up).
    #[arg(long, default_value_t = 10)]
    warmup: u64,
    /// Write `elapsed_s,rss_kib,frames_received,frames_sent` rows here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Fail if the RSS at the end exceeds the baseline by more than this.
    #[arg(long)]
    max_growth_kib: Option<u64>,
}

#[derive(Debug, Default)]
struct Counters {
    frames_received: AtomicU64,
    frames_sent: AtomicU64,
    failed: AtomicU64,
}

/// One page-like client until `until`.
async fn client(id: usize, url: String, settings: NetSettings, until: Instant, c: Arc<Counters>) {
    let config = WebSocketConfig::default().read_buffer_size(4096);
    let Ok((ws, _)) = tokio_tungstenite::connect_async_with_config(&url, Some(config), true).await
    else {
        c.failed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let (mut tx, mut rx) = ws.split();
    let mut endpoint = ClientEndpoint::with_seed(id as u64);
    endpoint.set_net_settings(settings);
    let mut bot = Bot::new().starting_at(id % 8);
    let epoch = Instant::now();
    let now = || SimTime(epoch.elapsed().as_micros() as u64);
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last = now();
    while Instant::now() < until {
        tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Binary(b))) => {
                    c.frames_received.fetch_add(1, Ordering::Relaxed);
                    let _ = endpoint.receive_frame(now(), &b);
                }
                Some(Ok(_)) => {}
                _ => {
                    c.failed.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            },
            _ = tick.tick() => {
                let t = now();
                let dt = t.micros_since(last) as f64 / 1e6;
                last = t;
                let (dir, dash) = bot.input(endpoint.position(), dt as f32);
                for frame in endpoint.frame(t, dt, dir, dash, false) {
                    c.frames_sent.fetch_add(1, Ordering::Relaxed);
                    if tx.send(Message::Binary(frame.into())).await.is_err() {
                        c.failed.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                }
            }
        }
    }
    let _ = tx.send(Message::Close(None)).await;
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.clients == 0 || args.clients > 500 {
        bail!("--clients must be 1..=500");
    }
    let duration = Duration::from_secs(args.duration.min(24 * 3600));
    let settings = NetSettings::symmetric(args.rtt, 0, args.loss);
    settings.validate()?;
    let relay = Relay::start_on(&args.relay, 7, None, None, &[])?;
    let rt = relay_server::runtime(1)?;
    let counters = Arc::new(Counters::default());
    let started = Instant::now();
    let until = started + duration;
    let mut csv = match &args.csv {
        Some(p) => {
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).ok();
            }
            let mut f = std::fs::File::create(p)?;
            writeln!(f, "elapsed_s,rss_kib,frames_received,frames_sent")?;
            Some(f)
        }
        None => None,
    };
    let mut samples: Vec<(u64, u64)> = Vec::new();
    rt.block_on(async {
        let tasks: Vec<_> = (0..args.clients)
            .map(|i| {
                tokio::spawn(client(
                    i,
                    relay.url.clone(),
                    settings,
                    until,
                    Arc::clone(&counters),
                ))
            })
            .collect();
        let mut next = started + Duration::from_secs(args.warmup.min(args.duration));
        while next <= until {
            tokio::time::sleep_until(next.into()).await;
            let elapsed = started.elapsed().as_secs();
            let rss = relay.rss_kib()?;
            let frames = counters.frames_received.load(Ordering::Relaxed);
            let sent = counters.frames_sent.load(Ordering::Relaxed);
            println!(
                "{elapsed:>6} s  relay RSS {rss} KiB  frames received {frames}  frames sent {sent}"
            );
            if let Some(f) = csv.as_mut() {
                writeln!(f, "{elapsed},{rss},{frames},{sent}")?;
            }
            samples.push((elapsed, rss));
            next += Duration::from_secs(args.sample.max(1));
        }
        for t in tasks {
            let _ = t.await;
        }
        anyhow::Ok(())
    })?;
    let failed = counters.failed.load(Ordering::Relaxed);
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        bail!("no samples (duration shorter than the warm-up?)");
    };
    let peak = samples.iter().map(|s| s.1).max().unwrap_or(0);
    let growth = last.1.saturating_sub(first.1);
    println!(
        "soak: {} clients, {} % loss, RTT {} ms, {} s: relay RSS {} KiB at {} s → {} KiB at {} s (peak {} KiB, growth {} KiB); {} client failures",
        args.clients, args.loss, args.rtt, args.duration, first.1, first.0, last.1, last.0, peak, growth, failed
    );
    if failed > 0 {
        bail!("{failed} clients failed");
    }
    if let Some(max) = args.max_growth_kib {
        if growth > max {
            bail!("relay RSS grew by {growth} KiB, more than the {max} KiB allowed");
        }
    }
    Ok(())
}
