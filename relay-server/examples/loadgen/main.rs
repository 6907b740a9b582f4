//! Relay load generator (issue #6): starts the release relay as a child
//! process on a loopback port, opens N WebSocket sessions that are the
//! page's client end (`sim::ClientEndpoint`, bot-driven at 60 Hz: its
//! ServerMoves, Pings every `sim::endpoints::link::PING_INTERVAL_MS`, Hello and
//! link settings at 0 ms / 0 % loss), and records for each N:
//!
//! * acks per second received, moves per second sent;
//! * the relay's CPU (% of one core, from `/proc/<pid>/stat`) and resident
//!   memory (`VmRSS`), idle and under load, and memory per idle session;
//! * the latency the relay adds: time from sending a ServerMove to
//!   receiving the Ack for it (and Ping → Pong), p50 / p99 / p99.9 / max.
//!   With the conditioner at 0 ms every microsecond of it is the relay's
//!   (plus loopback and this generator's own scheduling on the same
//!   2 cores: an upper bound).
//!
//! With `--trace-overhead` each N also runs against a fresh relay with
//! every session asking for its packet trace (issue 23), as the page
//! does: the relay's CPU with the trace on over the CPU with it off is the
//! trace's overhead (budget ≤ 1.15×), beside the trace's bytes per second
//! per session.
//!
//! Beside each relay run, the same sessions run against the **transport
//! floor** ([`floor`]: a bare tokio-tungstenite server that only answers
//! Hello, each ServerMove with an Ack and each Ping with a Pong), and the
//! relay's CPU and p99 are reported as ratios to the floor's — ratios
//! survive a noisy machine, absolute figures do not (`--no-floor` skips
//! it).
//!
//! With `--via-nginx` the sessions go through nginx (the shipped
//! `deploy/nginx.conf`) to three relays, each session in a room of its own
//! (a private one, `?room=p-load-<n>`, as a page draws), and the CPU of nginx and of the relays together is
//! recorded; pinned, the relays and nginx share CPU 0.
//!
//! A fresh relay per run; `--repeat K` runs each N K times and judges it
//! by the median p99. On two or more cores the relay runs pinned to CPU 0
//! with one worker thread and this generator (one thread) on CPU 1 (both
//! with `taskset`; `--no-pin` to let the kernel place them): unpinned, the
//! two processes' threads preempt each other for whole scheduler slices,
//! which shows up as milliseconds in the p99. Bounded: at most 5000
//! sessions, 60 s of measurement per run, and a hard deadline for the
//! whole run after which everything stops; the relay child is killed on
//! exit.
//!
//! ```sh
//! cargo build --release -p relay-server
//! cargo run --release -p relay-server --example loadgen -- \
//!     --sessions 500,750,1000 --repeat 3 --duration 10 --out bench-results/loadgen.json
//! ```

#[path = "../common/mod.rs"]
mod common;
mod floor;
mod placement;
mod session;
mod target;

use placement::{pin_self, probe, probe_cpus, Placement};
use session::{session, Phase, SessionStats, FRAME};
use target::{ClusterSpec, Target};

use anyhow::{bail, Context};
use clap::Parser;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Hard caps, whatever the flags say.
const MAX_SESSIONS: usize = 5000;
const MAX_MEASURE_SECS: u64 = 60;
#[derive(Debug, Parser)]
#[command(about = "Load generator for relay-server (loopback only, bounded, stops by itself)")]
struct Args {
    /// The relay binary to start (release build).
    #[arg(long, default_value = "target/release/relay-server")]
    relay: PathBuf,
    /// Session counts to run, each against a fresh relay, in order.
    #[arg(long, value_delimiter = ',', default_value = "100,250,500,1000")]
    sessions: Vec<usize>,
    /// Seconds of measurement per N (after the warm-up).
    #[arg(long, default_value_t = 10)]
    duration: u64,
    /// Seconds of load before measuring.
    #[arg(long, default_value_t = 3)]
    warmup: u64,
    /// Seconds the sessions sit idle (connected, no moves) before the idle
    /// memory is read.
    #[arg(long, default_value_t = 2)]
    idle: u64,
    /// Budget for the p99 latency the relay adds, ms.
    #[arg(long, default_value_t = 2.0)]
    p99_budget_ms: f64,
    /// After the list, bisect between the largest N within budget and the
    /// smallest N over it this many times (0 = no bisection).
    #[arg(long, default_value_t = 0)]
    bisect: u32,
    /// Stop the list at the first N over budget.
    #[arg(long)]
    stop_over_budget: bool,
    /// Worker threads of this generator's runtime.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Runs per N (each against a fresh relay); N is judged by the median
    /// of its runs' p99, as absolute times drift on a shared machine.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Do not pin: by default, on a machine with two or more cores, the
    /// relay runs on CPU 0 (`taskset`) with one worker thread and this
    /// generator on CPU 1, so that neither preempts the other and the relay
    /// is measured on one core of its own.
    #[arg(long)]
    no_pin: bool,
    /// The relay's `--threads` (default: 1 when pinned, else the relay's
    /// own default of one per core).
    #[arg(long)]
    relay_threads: Option<u16>,
    /// Hard deadline for the whole run, s.
    #[arg(long, default_value_t = 600)]
    deadline: u64,
    /// Three relays behind nginx instead of one relay (see the crate doc).
    #[arg(long)]
    via_nginx: bool,
    /// nginx's binary, for --via-nginx.
    #[arg(long, default_value = "/usr/sbin/nginx")]
    nginx: PathBuf,
    /// The nginx configuration to run (ports replaced), for --via-nginx.
    #[arg(long, default_value = "deploy/nginx.conf")]
    nginx_conf: PathBuf,
    /// Write the results as JSON here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seconds of the machine stall probe on each CPU before the runs
    /// (0 = none): a thread that only reads the clock, pinned to the CPU,
    /// records every gap over 0.5 ms — time the CPU was taken from it.
    #[arg(long, default_value_t = 5)]
    stall_probe: u64,
    /// Internal: be one stall probe for this many seconds and print its
    /// JSON (the generator runs itself this way, pinned with `taskset`).
    #[arg(long, hide = true)]
    probe_for: Option<u64>,
    /// Do not run the transport floor beside the relay.
    #[arg(long)]
    no_floor: bool,
    /// Also run each N with every session asking for its packet trace.
    #[arg(long)]
    trace_overhead: bool,
    /// Internal: be the transport floor until killed (the generator runs
    /// itself this way, pinned with `taskset`).
    #[arg(long, hide = true)]
    serve_floor: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let Some(secs) = args.probe_for {
        println!("{}", probe(secs));
        return Ok(());
    }
    if args.serve_floor {
        return floor::serve();
    }
    let placement = Placement::new(args.no_pin, args.relay_threads);
    let stalls = match (
        args.stall_probe,
        placement.relay_cpu,
        placement.generator_cpu,
    ) {
        (0, ..) => Vec::new(),
        (secs, Some(relay), Some(generator)) => {
            eprintln!("loadgen: probing CPUs {relay} and {generator} for stalls ({secs} s)");
            probe_cpus(&[relay, generator], secs)?
        }
        _ => Vec::new(),
    };
    for s in &stalls {
        eprintln!("loadgen: stall probe {s}");
    }
    if let Some(cpu) = placement.generator_cpu {
        pin_self(cpu)?;
    }
    let rt = relay_server::runtime(args.threads)?;
    let deadline = Duration::from_secs(args.deadline);
    let results = rt.block_on(async {
        match tokio::time::timeout(deadline, run_all(&args, &placement)).await {
            Ok(r) => r,
            Err(_) => bail!(
                "loadgen: hard deadline of {} s reached, stopping",
                args.deadline
            ),
        }
    })?;
    let json = format!(
        "{{\"via_nginx\":{},\"relays\":{},\"machine_cores\":{},\"generator_threads\":{},\"placement\":{},\"machine_stalls\":[{}],\"repeat\":{},\"p99_budget_ms\":{},\"largest_n_within_budget\":{},\"by_sessions\":[{}],\"runs\":[{}]}}",
        args.via_nginx,
        if args.via_nginx { target::CLUSTER_RELAYS } else { 1 },
        placement.cores,
        args.threads,
        placement.json(),
        stalls.join(","),
        args.repeat,
        args.p99_budget_ms,
        largest_within(&results, args.p99_budget_ms).map_or("null".into(), |n| n.to_string()),
        session_counts(&results)
            .into_iter()
            .map(|n| {
                let p99s: Vec<String> = results
                    .iter()
                    .filter(|r| r.sessions == n && is_relay(r))
                    .map(|r| format!("{:.3}", r.ack_p99_ms))
                    .collect();
                let (relay, floor) = (median_of(&results, n, RELAY), median_of(&results, n, FLOOR));
                let traced = median_of(&results, n, TRACED);
                let trace_bytes = results
                    .iter()
                    .filter(|r| r.sessions == n && r.target == TRACED && r.ok())
                    .map(|r| r.trace_bytes_per_s_per_session)
                    .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
                format!(
                    "{{\"sessions\":{n},\"ack_p99_ms_median\":{:.3},\"ack_p99_ms_runs\":[{}],\"floor_ack_p99_ms_median\":{},\"cpu_ratio_to_floor\":{},\"p99_ratio_to_floor\":{},\"trace_cpu_ratio\":{},\"trace_p99_ms_median\":{},\"trace_bytes_per_s_per_session\":{}}}",
                    median_p99(&results, n),
                    p99s.join(","),
                    json_num(floor.map(|f| f.1)),
                    json_num(relay.zip(floor).map(|(r, f)| r.0 / f.0)),
                    json_num(relay.zip(floor).map(|(r, f)| r.1 / f.1)),
                    json_num(traced.zip(relay).map(|(t, r)| t.0 / r.0)),
                    json_num(traced.map(|t| t.1)),
                    json_num(trace_bytes),
                )
            })
            .collect::<Vec<_>>()
            .join(","),
        results.iter().map(RunResult::json).collect::<Vec<_>>().join(",")
    );
    if let Some(out) = &args.out {
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).ok();
        }
        std::fs::write(out, format!("{json}\n"))
            .with_context(|| format!("writing {}", out.display()))?;
        eprintln!("loadgen: wrote {}", out.display());
    }
    println!("{json}");
    Ok(())
}

/// A number for the JSON, `null` when absent or not finite.
fn json_num(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or("null".into(), |v| format!("{v:.3}"))
}

/// What a run ran against: the floor, the relay(s) with the trace on, or
/// (anything else) the relay(s).
const FLOOR: &str = "floor";
/// A relay whose sessions ask for their trace.
const TRACED: &str = "relay+trace";
/// A relay or relays without trace.
const RELAY: &str = "relay";

/// Whether run `r` was against the relay(s), trace off (what the budget
/// judges).
fn is_relay(r: &RunResult) -> bool {
    r.target != FLOOR && r.target != TRACED
}

/// Median CPU % and median p99 (ms) of the runs with `n` sessions against
/// `target`: [`FLOOR`], [`TRACED`] or [`RELAY`] (the relay or relays).
fn median_of(results: &[RunResult], n: usize, target: &str) -> Option<(f64, f64)> {
    let runs: Vec<&RunResult> = results
        .iter()
        .filter(|r| r.sessions == n && r.ok())
        .filter(|r| {
            if target == RELAY {
                is_relay(r)
            } else {
                r.target == target
            }
        })
        .collect();
    if runs.is_empty() {
        return None;
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Some((
        median(
            runs.iter()
                .map(|r| r.relay_cpu_pct + r.proxy_cpu_pct)
                .collect(),
        ),
        median(runs.iter().map(|r| r.ack_p99_ms).collect()),
    ))
}

/// The session counts run, ascending, once each.
fn session_counts(results: &[RunResult]) -> Vec<usize> {
    let mut ns: Vec<usize> = results.iter().map(|r| r.sessions).collect();
    ns.sort_unstable();
    ns.dedup();
    ns
}

/// Median over the runs with `n` sessions of their p99 added latency, ms
/// (infinite if any run failed to connect every session).
fn median_p99(results: &[RunResult], n: usize) -> f64 {
    let mut p99: Vec<f64> = results
        .iter()
        .filter(|r| r.sessions == n && is_relay(r))
        .map(|r| if r.ok() { r.ack_p99_ms } else { f64::INFINITY })
        .collect();
    if p99.is_empty() {
        return f64::INFINITY;
    }
    p99.sort_by(f64::total_cmp);
    p99[p99.len() / 2]
}

fn within(results: &[RunResult], n: usize, budget: f64) -> bool {
    median_p99(results, n) <= budget
}

fn largest_within(results: &[RunResult], budget: f64) -> Option<usize> {
    session_counts(results)
        .into_iter()
        .filter(|&n| within(results, n, budget))
        .max()
}

/// Runs `n` sessions `repeat` times, each against a fresh relay and then
/// (unless `--no-floor` or `--via-nginx`) a fresh transport floor.
async fn run_n(
    args: &Args,
    placement: &Placement,
    n: usize,
    results: &mut Vec<RunResult>,
) -> anyhow::Result<()> {
    let spec = ClusterSpec {
        nginx: &args.nginx,
        conf: &args.nginx_conf,
    };
    for _ in 0..args.repeat.clamp(1, 9) {
        let relay = Target::start(
            &args.relay,
            placement.relay_cpu,
            placement.relay_threads,
            args.via_nginx.then_some(&spec),
        )?;
        let r = run_one(args, relay, n, false).await?;
        eprintln!("{}", r.summary());
        results.push(r);
        if args.trace_overhead {
            let relay = Target::start(
                &args.relay,
                placement.relay_cpu,
                placement.relay_threads,
                args.via_nginx.then_some(&spec),
            )?;
            let r = run_one(args, relay, n, true).await?;
            eprintln!("{}", r.summary());
            results.push(r);
        }
        if !(args.no_floor || args.via_nginx) {
            let r = run_one(args, Target::floor(placement.relay_cpu)?, n, false).await?;
            eprintln!("{}", r.summary());
            results.push(r);
        }
    }
    Ok(())
}

async fn run_all(args: &Args, placement: &Placement) -> anyhow::Result<Vec<RunResult>> {
    let mut results: Vec<RunResult> = Vec::new();
    for &n in &args.sessions {
        let n = n.clamp(1, MAX_SESSIONS);
        run_n(args, placement, n, &mut results).await?;
        if !within(&results, n, args.p99_budget_ms) && args.stop_over_budget {
            break;
        }
    }
    for _ in 0..args.bisect {
        let Some(lo) = largest_within(&results, args.p99_budget_ms) else {
            break;
        };
        let Some(hi) = session_counts(&results)
            .into_iter()
            .filter(|&n| n > lo && !within(&results, n, args.p99_budget_ms))
            .min()
        else {
            break;
        };
        let mid = (lo + hi) / 2;
        if hi - lo < 50 || results.iter().any(|r| r.sessions == mid) {
            break;
        }
        run_n(args, placement, mid, &mut results).await?;
    }
    results.sort_by_key(|r| r.sessions);
    Ok(results)
}

/// CPU time of processes together, s.
fn cpu_of(pids: &[u32]) -> f64 {
    pids.iter().map(|p| cpu_secs(&p.to_string())).sum()
}

/// CPU time (user + system) of a process, s.
fn cpu_secs(pid: &str) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces): state is #3.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime = field 14, stime = 15 (1-based); here index 11, 12. USER_HZ = 100.
    (ticks(11) + ticks(12)) / 100.0
}

#[derive(Debug, Default)]
struct RunResult {
    /// What ran: `relay`, `floor` or `nginx+relays`.
    target: &'static str,
    sessions: usize,
    connected: usize,
    connect_s: f64,
    measure_s: f64,
    rss_base: u64,
    rss_idle: u64,
    rss_load: u64,
    relay_cpu_idle_pct: f64,
    relay_cpu_pct: f64,
    proxy_cpu_idle_pct: f64,
    proxy_cpu_pct: f64,
    generator_cpu_pct: f64,
    moves_per_s: f64,
    acks_per_s: f64,
    frames_in_per_s: f64,
    adjustments: u64,
    errors: u64,
    ack_samples: usize,
    ack_p50_ms: f64,
    ack_p99_ms: f64,
    ack_p999_ms: f64,
    ack_max_ms: f64,
    pong_p50_ms: f64,
    pong_p99_ms: f64,
    /// Packet trace received per session per second, bytes.
    trace_bytes_per_s_per_session: f64,
}

impl RunResult {
    fn ok(&self) -> bool {
        self.connected == self.sessions && self.ack_samples > 0
    }

    fn idle_kib_per_session(&self) -> f64 {
        self.rss_idle.saturating_sub(self.rss_base) as f64 / 1024.0 / self.connected.max(1) as f64
    }

    fn load_kib_per_session(&self) -> f64 {
        self.rss_load.saturating_sub(self.rss_base) as f64 / 1024.0 / self.connected.max(1) as f64
    }

    fn summary(&self) -> String {
        format!(
            "loadgen: {:<12} N={:5} connected={:5} acks/s={:8.0} moves/s={:8.0} relay cpu={:5.1}% (idle {:4.1}%) nginx cpu={:5.1}% (idle {:4.1}%) gen cpu={:5.1}% rss idle={:.1} MiB ({:.1} KiB/session) load={:.1} MiB | ack latency p50={:.3} p99={:.3} p99.9={:.3} max={:.3} ms | pong p50={:.3} p99={:.3} ms | trace {:.0} B/s per session | adjustments={} errors={}",
            self.target,
            self.sessions,
            self.connected,
            self.acks_per_s,
            self.moves_per_s,
            self.relay_cpu_pct,
            self.relay_cpu_idle_pct,
            self.proxy_cpu_pct,
            self.proxy_cpu_idle_pct,
            self.generator_cpu_pct,
            self.rss_idle as f64 / 1048576.0,
            self.idle_kib_per_session(),
            self.rss_load as f64 / 1048576.0,
            self.ack_p50_ms,
            self.ack_p99_ms,
            self.ack_p999_ms,
            self.ack_max_ms,
            self.pong_p50_ms,
            self.pong_p99_ms,
            self.trace_bytes_per_s_per_session,
            self.adjustments,
            self.errors,
        )
    }

    fn json(&self) -> String {
        format!(
            "{{\"target\":\"{}\",\"sessions\":{},\"connected\":{},\"connect_s\":{:.2},\"measure_s\":{:.2},\"relay_rss_base_bytes\":{},\"relay_rss_idle_bytes\":{},\"relay_rss_load_bytes\":{},\"idle_kib_per_session\":{:.2},\"load_kib_per_session\":{:.2},\"relay_cpu_idle_pct\":{:.1},\"relay_cpu_pct\":{:.1},\"proxy_cpu_idle_pct\":{:.1},\"proxy_cpu_pct\":{:.1},\"generator_cpu_pct\":{:.1},\"moves_per_s\":{:.0},\"acks_per_s\":{:.0},\"frames_in_per_s\":{:.0},\"adjustments\":{},\"errors\":{},\"ack_samples\":{},\"ack_p50_ms\":{:.3},\"ack_p99_ms\":{:.3},\"ack_p999_ms\":{:.3},\"ack_max_ms\":{:.3},\"pong_p50_ms\":{:.3},\"pong_p99_ms\":{:.3},\"trace_bytes_per_s_per_session\":{:.0}}}",
            self.target,
            self.sessions,
            self.connected,
            self.connect_s,
            self.measure_s,
            self.rss_base,
            self.rss_idle,
            self.rss_load,
            self.idle_kib_per_session(),
            self.load_kib_per_session(),
            self.relay_cpu_idle_pct,
            self.relay_cpu_pct,
            self.proxy_cpu_idle_pct,
            self.proxy_cpu_pct,
            self.generator_cpu_pct,
            self.moves_per_s,
            self.acks_per_s,
            self.frames_in_per_s,
            self.adjustments,
            self.errors,
            self.ack_samples,
            self.ack_p50_ms,
            self.ack_p99_ms,
            self.ack_p999_ms,
            self.ack_max_ms,
            self.pong_p50_ms,
            self.pong_p99_ms,
            self.trace_bytes_per_s_per_session,
        )
    }
}

/// `q`-quantile of sorted µs samples, in ms.
fn quantile_ms(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}

/// Runs `n` sessions against `relay` (a fresh target), each asking for
/// its packet trace if `trace`, and measures.
async fn run_one(args: &Args, relay: Target, n: usize, trace: bool) -> anyhow::Result<RunResult> {
    let measure = Duration::from_secs(args.duration.clamp(1, MAX_MEASURE_SECS));
    let (pids, proxy) = (relay.relay_pids(), relay.proxy_pids());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut r = RunResult {
        target: if trace { TRACED } else { relay.kind() },
        sessions: n,
        rss_base: relay.rss_kib() * 1024,
        ..Default::default()
    };

    let (phase_tx, phase_rx) = watch::channel(Phase::Idle);
    let connected = Arc::new(AtomicUsize::new(0));
    let t_connect = Instant::now();
    let mut tasks = Vec::with_capacity(n);
    // Open the sessions 50 at a time so the accept queue never overflows.
    let gate = Arc::new(tokio::sync::Semaphore::new(50));
    for id in 0..n {
        let (url, rx, connected, gate) = (
            relay.url(id),
            phase_rx.clone(),
            connected.clone(),
            gate.clone(),
        );
        // Spread the sessions' frame clocks over one frame.
        let offset = FRAME.mul_f64(id as f64 / n as f64);
        tasks.push(tokio::spawn(async move {
            session(id, url, rx, connected, gate, offset, trace).await
        }));
    }
    // Wait for every session to be welcomed (or 60 s).
    let wait_until = Instant::now() + Duration::from_secs(60);
    while connected.load(Ordering::Relaxed) < n && Instant::now() < wait_until {
        if tasks.iter().all(|t| t.is_finished()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    r.connected = connected.load(Ordering::Relaxed);
    r.connect_s = t_connect.elapsed().as_secs_f64();

    // Idle: connected, nothing sent.
    let (cpu0, proxy0) = (cpu_of(&pids), cpu_of(&proxy));
    let idle = Duration::from_secs(args.idle.max(1));
    tokio::time::sleep(idle).await;
    r.relay_cpu_idle_pct = (cpu_of(&pids) - cpu0) / idle.as_secs_f64() * 100.0;
    r.proxy_cpu_idle_pct = (cpu_of(&proxy) - proxy0) / idle.as_secs_f64() * 100.0;
    r.rss_idle = relay.rss_kib() * 1024;

    // Load: warm up, then measure.
    phase_tx.send_replace(Phase::Warmup);
    tokio::time::sleep(Duration::from_secs(args.warmup)).await;
    let (relay_cpu0, proxy_cpu0, gen_cpu0, t0) = (
        cpu_of(&pids),
        cpu_of(&proxy),
        cpu_secs("self"),
        Instant::now(),
    );
    phase_tx.send_replace(Phase::Measure);
    tokio::time::sleep(measure).await;
    phase_tx.send_replace(Phase::Stop);
    let secs = t0.elapsed().as_secs_f64();
    r.measure_s = secs;
    r.relay_cpu_pct = (cpu_of(&pids) - relay_cpu0) / secs * 100.0;
    r.proxy_cpu_pct = (cpu_of(&proxy) - proxy_cpu0) / secs * 100.0;
    r.generator_cpu_pct = (cpu_secs("self") - gen_cpu0) / secs * 100.0;
    r.rss_load = relay.rss_kib() * 1024;

    let mut all = SessionStats::default();
    for t in tasks {
        if let Ok(Ok(s)) = tokio::time::timeout(Duration::from_secs(10), t).await {
            all.moves_sent += s.moves_sent;
            all.acks += s.acks;
            all.adjustments += s.adjustments;
            all.frames_in += s.frames_in;
            all.bytes_in += s.bytes_in;
            all.bytes_out += s.bytes_out;
            all.errors += s.errors;
            all.trace_bytes += s.trace_bytes;
            all.ack_us.extend(s.ack_us);
            all.pong_us.extend(s.pong_us);
        } else {
            all.errors += 1;
        }
    }
    drop(relay);
    all.ack_us.sort_unstable();
    all.pong_us.sort_unstable();
    r.moves_per_s = all.moves_sent as f64 / secs;
    r.acks_per_s = all.acks as f64 / secs;
    r.frames_in_per_s = all.frames_in as f64 / secs;
    r.adjustments = all.adjustments;
    r.errors = all.errors;
    r.ack_samples = all.ack_us.len();
    r.ack_p50_ms = quantile_ms(&all.ack_us, 0.50);
    r.ack_p99_ms = quantile_ms(&all.ack_us, 0.99);
    r.ack_p999_ms = quantile_ms(&all.ack_us, 0.999);
    r.ack_max_ms = all
        .ack_us
        .last()
        .map_or(f64::NAN, |&v| f64::from(v) / 1000.0);
    r.pong_p50_ms = quantile_ms(&all.pong_us, 0.50);
    r.pong_p99_ms = quantile_ms(&all.pong_us, 0.99);
    r.trace_bytes_per_s_per_session = all.trace_bytes as f64 / secs / r.connected.max(1) as f64;
    // Let the kernel reap the closed sockets before the next N.
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(r)
}
