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
        RelayProc::start_at("127.0.0.1:0", instance, db, dist, extra)
    }

    /// [`RelayProc::start`] on `addr` (a relay restarted where it was).
    pub fn start_at(
        addr: &str,
        instance: &str,
        db: &str,
        dist: &std::path::Path,
        extra: &[&str],
    ) -> RelayProc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_relay-server"))
            .args([
                "--addr",
                addr,
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
    /// Applied to the rendered configuration (a test's own timeouts).
    edit: fn(String) -> String,
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The shipped configuration listening on `listen` in front of `relays`,
/// as `scripts/cluster.sh nginx-conf` renders it.
pub fn rendered_config(listen: &str, relays: &[&str]) -> String {
    let out = Command::new("bash")
        .arg(repo_root().join("scripts/cluster.sh"))
        .arg("nginx-conf")
        .arg(listen)
        .args(relays)
        .output()
        .expect("running scripts/cluster.sh nginx-conf");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conf = String::from_utf8(out.stdout).unwrap();
    assert!(conf.contains(&format!("listen {listen};")), "{conf}");
    for relay in relays {
        assert!(conf.contains(&format!("server {relay} ")), "{conf}");
    }
    assert!(!conf.contains("server 127.0.0.1:808"), "{conf}");
    conf
}

impl Nginx {
    /// Starts nginx in front of `relays`.
    pub fn start(relays: &[&str]) -> Nginx {
        Nginx::start_edited(relays, |c| c)
    }

    /// Starts nginx in front of `relays`, its configuration changed by
    /// `edit`.
    pub fn start_edited(relays: &[&str], edit: fn(String) -> String) -> Nginx {
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let conf = edit(rendered_config(&addr, relays));
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
        Nginx {
            child,
            dir,
            addr,
            edit,
        }
    }

    /// Puts `relays` in nginx's list and reloads it (SIGHUP: new workers
    /// take new connections, the old ones keep theirs).
    pub fn reload(&self, relays: &[&str]) {
        let conf = (self.edit)(rendered_config(&self.addr, relays));
        std::fs::write(self.dir.join("nginx.conf"), conf).unwrap();
        signal(self.child.id(), "HUP");
        // The new workers are up within a moment.
        std::thread::sleep(Duration::from_millis(500));
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

/// Relays sharing a fresh PostgreSQL database, nginx in front.
pub struct Cluster {
    /// The relays, `relay-a`, `relay-b`, `relay-c`, ….
    pub relays: Vec<RelayProc>,
    /// The proxy.
    pub nginx: Nginx,
    db: Option<TestDb>,
    /// The page's folder.
    pub dist: PathBuf,
}

/// The name of the `i`-th relay: `relay-a`, `relay-b`, ….
pub fn relay_name(i: usize) -> String {
    format!("relay-{}", char::from(b'a' + i as u8))
}

impl Cluster {
    /// Starts three relays; every relay gets `extra` flags.
    pub async fn start(extra: &[&str]) -> Cluster {
        Cluster::start_n(3, extra, |c| c).await
    }

    /// Starts `n` relays with `extra` flags, nginx's configuration changed
    /// by `edit`.
    pub async fn start_n(n: usize, extra: &[&str], edit: fn(String) -> String) -> Cluster {
        let db = TestDb::create().await;
        let dist =
            std::env::temp_dir().join(format!("np-cluster-dist-{}", super::backend::unique()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("index.html"), "<title>playground</title>").unwrap();
        let relays: Vec<RelayProc> = (0..n)
            .map(|i| RelayProc::start(&relay_name(i), &db.url, &dist, extra))
            .collect();
        let addrs: Vec<&str> = relays.iter().map(|r| r.addr.as_str()).collect();
        let nginx = Nginx::start_edited(&addrs, edit);
        Cluster {
            relays,
            nginx,
            db: Some(db),
            dist,
        }
    }

    /// The shared database's URL.
    pub fn db_url(&self) -> String {
        self.db.as_ref().map(|d| d.url.clone()).unwrap_or_default()
    }

    /// The relays' addresses, in order.
    pub fn addrs(&self) -> Vec<String> {
        self.relays.iter().map(|r| r.addr.clone()).collect()
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
