//! What the load generator drives: one relay, three relays behind nginx
//! running the shipped `deploy/nginx.conf` (ports replaced, each session
//! in a room of its own so that the rooms spread over the relays), or the
//! transport floor ([`crate::floor`]).

use crate::common::Relay;
use crate::floor::Floor;
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Relays behind nginx (the shipped file lists three).
pub const CLUSTER_RELAYS: usize = 3;

/// nginx as a child process, with its own folder for pid and temp files.
pub struct Nginx {
    child: Child,
    dir: PathBuf,
    /// `127.0.0.1:<port>`.
    pub addr: String,
}

impl Nginx {
    /// Starts `bin` with `conf` rewritten to listen on a free port and
    /// proxy to `relays`; pinned to `cpu` if given.
    pub fn start(
        bin: &Path,
        conf: &Path,
        relays: &[&str],
        cpu: Option<usize>,
    ) -> anyhow::Result<Nginx> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let addr = format!("127.0.0.1:{port}");
        let mut text =
            std::fs::read_to_string(conf).with_context(|| format!("reading {}", conf.display()))?;
        text = text.replace("listen 127.0.0.1:8080;", &format!("listen {addr};"));
        for (i, relay) in relays.iter().enumerate() {
            let shipped = format!("server 127.0.0.1:{} ", 8081 + i);
            if !text.contains(&shipped) {
                bail!("{} does not list {shipped}", conf.display());
            }
            text = text.replace(&shipped, &format!("server {relay} "));
        }
        let dir = std::env::temp_dir().join(format!("np-loadgen-nginx-{port}"));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("nginx.conf"), text)?;
        let mut command = match cpu {
            Some(cpu) => {
                let mut c = Command::new("taskset");
                c.args(["-c", &cpu.to_string()]).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        let child = command
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .args(["-e", "stderr", "-g", "daemon off; error_log stderr crit;"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {} (apt-get install nginx)", bin.display()))?;
        let nginx = Nginx { child, dir, addr };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(&nginx.addr).is_err() {
            if Instant::now() > deadline {
                bail!("nginx did not start on {}", nginx.addr);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(nginx)
    }

    /// The master and its workers.
    pub fn pids(&self) -> Vec<u32> {
        let master = self.child.id();
        let children = std::fs::read_to_string(format!("/proc/{master}/task/{master}/children"))
            .unwrap_or_default();
        std::iter::once(master)
            .chain(children.split_whitespace().filter_map(|p| p.parse().ok()))
            .collect()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM to the master stops the workers too.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && !matches!(self.child.try_wait(), Ok(Some(_))) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One relay, relays behind nginx, or the floor.
pub enum Target {
    /// Sessions connect to the relay itself.
    Single(Relay),
    /// Sessions connect to the bare WebSocket server.
    Floor(Floor),
    /// Sessions connect to nginx, `?room=p-load-<session>` (private).
    Cluster {
        /// The relays.
        relays: Vec<Relay>,
        /// The proxy.
        nginx: Nginx,
    },
}

/// How to start a cluster target.
pub struct ClusterSpec<'a> {
    /// nginx's binary.
    pub nginx: &'a Path,
    /// The configuration to rewrite (`deploy/nginx.conf`).
    pub conf: &'a Path,
}

impl Target {
    /// A fresh target: one relay, or with `cluster` three relays and nginx
    /// — every process on `cpu` if given.
    pub fn start(
        relay: &Path,
        cpu: Option<usize>,
        threads: Option<u16>,
        cluster: Option<&ClusterSpec<'_>>,
    ) -> anyhow::Result<Target> {
        let Some(spec) = cluster else {
            return Ok(Target::Single(Relay::start_on(
                relay,
                1,
                cpu,
                threads,
                &[],
            )?));
        };
        let relays = (0..CLUSTER_RELAYS)
            .map(|i| {
                let extra = [
                    "--instance".to_owned(),
                    format!("relay-{}", i + 1),
                    "--trusted-proxy".into(),
                    "127.0.0.1".into(),
                ];
                Relay::start_on(relay, 1 + i as u64, cpu, threads, &extra)
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let addrs: Vec<&str> = relays.iter().map(|r| r.addr.as_str()).collect();
        let nginx = Nginx::start(spec.nginx, spec.conf, &addrs, cpu)?;
        Ok(Target::Cluster { relays, nginx })
    }

    /// The transport floor, on `cpu` if given.
    pub fn floor(cpu: Option<usize>) -> anyhow::Result<Target> {
        Ok(Target::Floor(Floor::start(cpu)?))
    }

    /// What it is, for the results: `relay`, `floor` or `nginx+relays`.
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Single(_) => "relay",
            Target::Floor(_) => "floor",
            Target::Cluster { .. } => "nginx+relays",
        }
    }

    /// The URL session `id` connects to.
    pub fn url(&self, id: usize) -> String {
        match self {
            Target::Single(relay) => relay.url.clone(),
            Target::Floor(floor) => floor.url.clone(),
            Target::Cluster { nginx, .. } => format!("ws://{}/ws?room=p-load-{id}", nginx.addr),
        }
    }

    /// The relays' process ids.
    pub fn relay_pids(&self) -> Vec<u32> {
        match self {
            Target::Single(relay) => vec![relay.pid()],
            Target::Floor(floor) => vec![floor.pid()],
            Target::Cluster { relays, .. } => relays.iter().map(Relay::pid).collect(),
        }
    }

    /// nginx's process ids (none for a single relay).
    pub fn proxy_pids(&self) -> Vec<u32> {
        match self {
            Target::Single(_) | Target::Floor(_) => Vec::new(),
            Target::Cluster { nginx, .. } => nginx.pids(),
        }
    }

    /// The relays' resident memory together, KiB.
    pub fn rss_kib(&self) -> u64 {
        match self {
            Target::Single(relay) => relay.rss_kib().unwrap_or(0),
            Target::Floor(floor) => floor.rss_kib(),
            Target::Cluster { relays, .. } => relays.iter().map(|r| r.rss_kib().unwrap_or(0)).sum(),
        }
    }
}
