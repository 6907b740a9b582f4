//! `scripts/cluster.sh` (issue #27): started in the background on ports
//! and folders of a test's own, with the relay found under
//! `CARGO_TARGET_DIR`; a relay added (nginx reloaded), one removed, and
//! everything stopped with `scripts/cluster.sh stop`. Needs nginx and
//! PostgreSQL: `scripts/test.sh` runs this with `--ignored`.

mod common;

use common::cluster::{free_port, repo_root};
use common::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `scripts/cluster.sh args…` with the test's settings in `env`.
fn cluster_sh(env: &[(&str, String)], args: &[&str]) -> Command {
    let mut c = Command::new("bash");
    c.arg(repo_root().join("scripts/cluster.sh"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .env_remove("RELAY_BIN")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    c
}

/// Stops the cluster when dropped, so that a failing test leaves nothing
/// running.
struct Stop(Vec<(&'static str, String)>);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = cluster_sh(&self.0, &["stop"]).status();
    }
}

/// Whether something listens on 127.0.0.1:`port`.
fn listening(port: u16) -> bool {
    std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
}

/// Waits up to `secs` for `cond`.
async fn until(secs: u64, what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "{what} after {secs} s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The relays nginx reaches round robin: polled until `want` and only
/// they answer 12 requests in a row (a reload takes a moment), for up to
/// 10 s.
async fn answering(nginx: &str, want: &[&str]) -> BTreeSet<String> {
    let want: BTreeSet<String> = want.iter().map(|s| (*s).to_owned()).collect();
    let start = Instant::now();
    loop {
        let mut seen = BTreeSet::new();
        for _ in 0..12 {
            let a = http(nginx, "GET /healthz", "", b"").await.unwrap();
            assert_eq!(a.status, 200, "{}", a.text());
            seen.insert(a.header("x-relay-instance").unwrap().to_owned());
        }
        if seen == want || start.elapsed() > Duration::from_secs(10) {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn the_cluster_script_takes_ports_and_folders_adds_and_removes_relays_and_stops() {
    let root = std::env::temp_dir().join(format!("np-cluster-sh-{}", backend::unique()));
    // The relay where CARGO_TARGET_DIR says a release build is.
    let target = root.join("target");
    std::fs::create_dir_all(target.join("release")).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_relay-server"),
        target.join("release/relay-server"),
    )
    .unwrap();
    let dist = root.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<title>playground</title>").unwrap();
    let _ = Command::new("chmod").arg("755").arg(&root).status();
    let (nginx_port, r1, r2, r3, pg) = (
        free_port(),
        free_port(),
        free_port(),
        free_port(),
        free_port(),
    );
    let env = [
        ("BUILD", "0".to_owned()),
        ("CARGO_TARGET_DIR", target.display().to_string()),
        ("DIST", dist.display().to_string()),
        ("STATE_DIR", root.join("state").display().to_string()),
        ("NGINX_PORT", nginx_port.to_string()),
        ("RELAY_PORTS", format!("{r1} {r2}")),
        ("PG_PORT", pg.to_string()),
    ];
    let nginx = format!("127.0.0.1:{nginx_port}");
    let mut foreground = cluster_sh(&env, &[]).spawn().unwrap();
    let _stop = Stop(env.to_vec());
    until(90, "nginx on its port", || listening(nginx_port)).await;
    until(10, "the relays on theirs", || {
        listening(r1) && listening(r2)
    })
    .await;
    let two = answering(&nginx, &["relay-1", "relay-2"]).await;
    assert_eq!(
        two,
        BTreeSet::from(["relay-1".to_owned(), "relay-2".to_owned()])
    );

    let mut add_env = env.to_vec();
    add_env.push(("RELAY_PORT", r3.to_string()));
    assert!(cluster_sh(&add_env, &["add"]).status().unwrap().success());
    assert!(listening(r3));
    let three = answering(&nginx, &["relay-1", "relay-2", "relay-3"]).await;
    assert_eq!(three.len(), 3, "{three:?}");

    assert!(cluster_sh(&env, &["remove", "relay-1"])
        .status()
        .unwrap()
        .success());
    assert!(!listening(r1), "relay-1 still listens");
    let after = answering(&nginx, &["relay-2", "relay-3"]).await;
    assert_eq!(
        after,
        BTreeSet::from(["relay-2".to_owned(), "relay-3".to_owned()])
    );

    assert!(cluster_sh(&env, &["stop"]).status().unwrap().success());
    let started = Instant::now();
    while foreground.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the foreground script runs on"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for port in [nginx_port, r2, r3, pg] {
        assert!(!listening(port), "port {port} still open after stop");
    }
    assert!(!Path::new(&root.join("state/pids/cluster")).exists());
    let _ = std::fs::remove_dir_all(&root);
}
