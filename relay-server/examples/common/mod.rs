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
}

impl Relay {
    /// Starts `bin` with conditioner seed `seed` and waits for its
    /// "listening on" line.
    ///
    /// # Errors
    /// If the binary does not start or never says where it listens.
    pub fn start(bin: &Path, seed: u64) -> anyhow::Result<Relay> {
        let data = std::env::temp_dir().join(format!("np-relay-{}", std::process::id()));
        let mut child = Command::new(bin)
            .args(["--addr", "127.0.0.1:0", "--dist", "/nonexistent"])
            .args(["--seed", &seed.to_string(), "--max-connections-per-ip", "0"])
            .arg("--db")
            .arg(data.join("scenarios.sqlite3"))
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
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .context("no VmRSS")
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}
