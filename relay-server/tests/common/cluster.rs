//! A local cluster for the tests: relay processes (the real binary), nginx
//! with the shipped `deploy/nginx.conf` (ports replaced) in front, and a
//! fresh PostgreSQL database they share (see [`super::backend`]). Needs
//! nginx and PostgreSQL: the tests using it are `#[ignore]`d, and
//! `scripts/test.sh` runs them with `--ignored`; run without them, they
//! fail and say why.

use super::backend::TestDb;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A relay process.
pub struct RelayProc {
    child: Child,
    /// `127.0.0.1:<port>`.
    pub addr: String,
    /// Its `--instance`.
    pub instance: String,
}

impl RelayProc {
    /// Starts the relay binary on a free port as `instance`, trusting
    /// nginx on 127.0.0.1, with `extra` flags.
    pub fn start(instance: &str, db: &str, dist: &std::path::Path, extra: &[&str]) -> RelayProc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_relay-server"))
            .args([
                "--addr",
                "127.0.0.1:0",
                "--seed",
                "1",
                "--trusted-proxy",
                "127.0.0.1",
            ])
            .args(["--instance", instance, "--db", db])
            .arg("--dist")
            .arg(dist)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let addr = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|l| l.split("listening on http://").nth(1).map(str::to_owned))
            .expect("the relay announces its address")
            .trim_end_matches('/')
            .to_owned();
        std::thread::spawn(move || lines.for_each(drop));
        RelayProc {
            child,
            addr,
            instance: instance.to_owned(),
        }
    }

    /// SIGKILL: a crash, no goodbye.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM: a graceful shutdown.
    pub fn terminate(&self) {
        signal(self.child.id(), "TERM");
    }

    /// Waits for the process to end (at most `within`); `true` if it did.
    pub fn wait_exit(&mut self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for RelayProc {
    fn drop(&mut self) {
        self.kill();
    }
}

fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .status();
}

/// nginx's binary, or a loud failure.
pub fn nginx_bin() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("nginx is not installed: run scripts/test.sh (it installs Debian's nginx)")
        })
}

/// A free loopback port (free when asked).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx running `deploy/nginx.conf` with its relays and port replaced.
pub struct Nginx {
    child: Child,
    dir: PathBuf,
    /// `127.0.0.1:<port>`.
    pub addr: String,
}

/// The shipped configuration.
pub fn shipped_config() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/nginx.conf");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

impl Nginx {
    /// Starts nginx in front of `relays` (exactly as many as the shipped
    /// file lists).
    pub fn start(relays: &[&str]) -> Nginx {
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let mut conf = shipped_config();
        assert!(conf.contains("listen 127.0.0.1:8080;"));
        conf = conf.replace("listen 127.0.0.1:8080;", &format!("listen {addr};"));
        for (i, relay) in relays.iter().enumerate() {
            let shipped = format!("server 127.0.0.1:{} ", 8081 + i);
            assert!(conf.contains(&shipped), "the shipped file lists {shipped}");
            conf = conf.replace(&shipped, &format!("server {relay} "));
        }
        assert!(
            !conf.contains("server 127.0.0.1:808"),
            "more relays in the shipped file"
        );
        let dir = std::env::temp_dir().join(format!("np-nginx-{port}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let child = Command::new(nginx_bin())
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .args(["-e", "stderr", "-g", "daemon off;"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting nginx");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "nginx did not start on {addr}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Nginx { child, dir, addr }
    }

    /// Its `ws://…/ws?room=<room>` URL.
    pub fn ws_url(&self, room: &str) -> String {
        format!("ws://{}/ws?room={room}", self.addr)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM to the master stops its workers too.
        signal(self.child.id(), "TERM");
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && !matches!(self.child.try_wait(), Ok(Some(_))) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Three relays sharing a fresh PostgreSQL database, nginx in front.
pub struct Cluster {
    /// The relays, `relay-a`, `relay-b`, `relay-c`.
    pub relays: Vec<RelayProc>,
    /// The proxy.
    pub nginx: Nginx,
    db: Option<TestDb>,
    dist: PathBuf,
}

impl Cluster {
    /// Starts it; every relay gets `extra` flags.
    pub async fn start(extra: &[&str]) -> Cluster {
        let db = TestDb::create().await;
        let dist =
            std::env::temp_dir().join(format!("np-cluster-dist-{}", super::backend::unique()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("index.html"), "<title>playground</title>").unwrap();
        let relays: Vec<RelayProc> = ["relay-a", "relay-b", "relay-c"]
            .iter()
            .map(|name| RelayProc::start(name, &db.url, &dist, extra))
            .collect();
        let addrs: Vec<&str> = relays.iter().map(|r| r.addr.as_str()).collect();
        let nginx = Nginx::start(&addrs);
        Cluster {
            relays,
            nginx,
            db: Some(db),
            dist,
        }
    }

    /// The relay named `instance`.
    pub fn relay(&mut self, instance: &str) -> &mut RelayProc {
        self.relays
            .iter_mut()
            .find(|r| r.instance == instance)
            .unwrap_or_else(|| panic!("no relay {instance}"))
    }

    /// Stops everything and drops the database.
    pub async fn finish(mut self) {
        self.relays.clear();
        let _ = std::fs::remove_dir_all(&self.dist);
        if let Some(db) = self.db.take() {
            db.drop_db().await;
        }
    }
}
