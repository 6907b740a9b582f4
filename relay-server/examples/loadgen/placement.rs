//! Where the load test runs: the relay and the generator pinned to their
//! own CPUs (`taskset`), and the stall probe that measures how much time
//! the machine takes away from a CPU by itself.

use anyhow::{bail, Context};
use std::time::{Duration, Instant};

/// Spins for `secs` reading the monotonic clock and returns, as JSON, the
/// gaps over 0.5 ms between consecutive readings: their count, how many
/// were over 2 ms, their total and the largest, ms.
pub fn probe(secs: u64) -> String {
    let start = Instant::now();
    let end = start + Duration::from_secs(secs.min(60));
    let mut last = start;
    let mut gaps: Vec<f64> = Vec::new();
    loop {
        let now = Instant::now();
        let gap = now - last;
        if gap > Duration::from_micros(500) {
            gaps.push(gap.as_secs_f64() * 1e3);
        }
        last = now;
        if now >= end {
            break;
        }
    }
    let total: f64 = gaps.iter().sum();
    let max = gaps.iter().copied().fold(0.0, f64::max);
    let over_2 = gaps.iter().filter(|&&g| g > 2.0).count();
    format!(
        "{{\"seconds\":{secs},\"gaps_over_0_5_ms\":{},\"gaps_over_2_ms\":{over_2},\"total_ms\":{total:.1},\"max_ms\":{max:.2}}}",
        gaps.len()
    )
}

/// Runs the stall probe on each of `cpus` at once (this binary, pinned
/// with `taskset`), each for `secs`; one JSON object per CPU.
pub fn probe_cpus(cpus: &[usize], secs: u64) -> anyhow::Result<Vec<String>> {
    let exe = std::env::current_exe()?;
    let children = cpus
        .iter()
        .map(|cpu| {
            std::process::Command::new("taskset")
                .args(["-c", &cpu.to_string()])
                .arg(&exe)
                .args(["--probe-for", &secs.to_string()])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .context("running taskset (util-linux) for the stall probe")
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    cpus.iter()
        .zip(children)
        .map(|(cpu, child)| {
            let out = child.wait_with_output()?;
            let json = String::from_utf8_lossy(&out.stdout).trim().to_string();
            Ok(format!("{{\"cpu\":{cpu},\"probe\":{json}}}"))
        })
        .collect()
}

/// Where the relay and this generator run.
#[derive(Debug, Clone)]
pub struct Placement {
    /// Cores this machine lets us use (before pinning).
    pub cores: usize,
    /// The relay's CPU (`taskset -c`), if pinned.
    pub relay_cpu: Option<usize>,
    /// This generator's CPU, if pinned.
    pub generator_cpu: Option<usize>,
    pub relay_threads: Option<u16>,
}

impl Placement {
    /// Pinned unless `no_pin` or the machine has one core; `relay_threads`
    /// as asked, else 1 when pinned.
    pub fn new(no_pin: bool, relay_threads: Option<u16>) -> Placement {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let pin = !no_pin && cores >= 2;
        Placement {
            cores,
            relay_cpu: pin.then_some(0),
            generator_cpu: pin.then_some(1),
            relay_threads: relay_threads.or(pin.then_some(1)),
        }
    }

    pub fn json(&self) -> String {
        let opt = |v: Option<usize>| v.map_or("null".into(), |v| v.to_string());
        format!(
            "{{\"relay_cpu\":{},\"generator_cpu\":{},\"relay_threads\":{}}}",
            opt(self.relay_cpu),
            opt(self.generator_cpu),
            opt(self.relay_threads.map(usize::from)),
        )
    }
}

/// Pins this process (its only thread so far: call before the runtime
/// starts, whose threads inherit it) to `cpu` with `taskset`.
pub fn pin_self(cpu: usize) -> anyhow::Result<()> {
    let status = std::process::Command::new("taskset")
        .args([
            "-p",
            "-c",
            &cpu.to_string(),
            &std::process::id().to_string(),
        ])
        .stdout(std::process::Stdio::null())
        .status()
        .context("running taskset (util-linux) to pin the generator; or pass --no-pin")?;
    if !status.success() {
        bail!("taskset could not pin the generator to CPU {cpu}; pass --no-pin");
    }
    Ok(())
}
