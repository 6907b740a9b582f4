//! The relay child process shared by the load generator and the soak:
//! started from its binary on a free loopback port, with no per-address
//! cap (every generated session comes from 127.0.0.1) and a scenario store
//! in a temporary folder; killed (and the folder removed) when dropped.

use anyhow::{bail, Context};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running relay.
pub struct Relay {
    child: Child,
    data: PathBuf,
    /// Its WebSocket URL, `ws://127.0.0.1:<port>/ws`.
    pub url: String,
    /// `127.0.0.1:<port>`.
    #[allow(dead_code)]
    pub addr: String,
}

impl Relay {
    /// Starts `bin` with conditioner seed `seed` and `extra` flags and
    /// waits for its "listening on" line; pinned to `cpu` with `taskset`
    /// (util-linux) if given, and with `--threads threads` if given.
    ///
    /// # Errors
    /// If the binary (or `taskset`, when pinning) does not start or never
    /// says where it listens.
    pub fn start_on(
        bin: &Path,
        seed: u64,
        cpu: Option<usize>,
        threads: Option<u16>,
        extra: &[String],
    ) -> anyhow::Result<Relay> {
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let data = std::env::temp_dir().join(format!("np-relay-{}-{n}", std::process::id()));
        let mut command = match cpu {
            Some(cpu) => {
                // taskset execs the relay: the child's pid is the relay's.
                let mut c = Command::new("taskset");
                c.args(["-c", &cpu.to_string()]).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        if let Some(threads) = threads {
            command.args(["--threads", &threads.to_string()]);
        }
        let mut child = command
            .args(["--addr", "127.0.0.1:0", "--dist", "/nonexistent"])
            .args(["--seed", &seed.to_string(), "--max-connections-per-ip", "0"])
            // Hundreds of clients from one address open their sockets at once.
            .args(["--max-handshakes-per-ip", "0"])
            .arg("--db")
            .arg(data.join("scenarios.sqlite3"))
            .args(extra)
            .env("RUST_LOG", "error")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| {
                format!(
                    "starting {} (build it: cargo build --release -p relay-server)",
                    bin.display()
                )
            })?;
        let stdout = child.stdout.take().context("relay stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let mut addr = None;
        for line in lines.by_ref().take(50) {
            let line = line?;
            if let Some(a) = line.split("listening on http://").nth(1) {
                addr = Some(a.trim().trim_end_matches('/').to_string());
                break;
            }
        }
        let Some(addr) = addr else {
            let _ = child.kill();
            bail!("the relay did not say where it listens");
        };
        // Keep draining its stdout so a log line never blocks it.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(Relay {
            child,
            data,
            url: format!("ws://{addr}/ws"),
            addr,
        })
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its resident memory now, KiB (`VmRSS`).
    ///
    /// # Errors
    /// If `/proc/<pid>/status` cannot be read.
    pub fn rss_kib(&self) -> anyhow::Result<u64> {
        rss_kib_of(self.pid())
    }
}

/// The resident memory of process `pid` now, KiB (`VmRSS`).
///
/// # Errors
/// If `/proc/<pid>/status` cannot be read.
pub fn rss_kib_of(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmRSS")
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}
