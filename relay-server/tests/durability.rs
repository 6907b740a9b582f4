//! Durability of the scenario store: the relay is killed (SIGKILL, no
//! shutdown) in the middle of a burst of saves; after a restart on the same
//! database every save that was answered 201 is there. On each backend:
//! `…::sqlite`, and `…::postgres` with `--ignored`.

mod common;

use common::backend::Backend;

use sim::protocol::Setup;
use sim::scenario::codec;
use sim::{Scenario, ScenarioRun, Vec2};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Starts the relay binary on a free port with `--db db`; returns it and
/// its address.
fn start(db: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_relay-server"))
        .args([
            "--addr",
            "127.0.0.1:0",
            "--dist",
            "/nonexistent",
            "--seed",
            "1",
            // A burst of saves from one address is the point here, not
            // the budget of saves per address.
            "--save-burst",
            "100000",
        ])
        .arg("--db")
        .arg(db)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Logs share stdout with the "listening on" line; drain it all.
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.split("listening on http://").nth(1).map(str::to_owned))
        .expect("the relay announces its address")
        .trim_end_matches('/')
        .to_owned();
    std::thread::spawn(move || lines.for_each(drop));
    (child, addr)
}

/// One HTTP/1.1 request with `Connection: close`; returns status and body.
async fn http(addr: &str, head: &str, body: &[u8]) -> std::io::Result<(u16, String)> {
    let mut s = tokio::net::TcpStream::connect(addr).await?;
    let req = format!(
        "{head} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(req.as_bytes()).await?;
    s.write_all(body).await?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await?;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status in {text:?}")))?;
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
    Ok((status, body))
}

fn scenario() -> Scenario {
    let mut run = ScenarioRun::record("durable", 3, Setup::default());
    for _ in 0..120 {
        run.step_live(1.0 / 60.0, Vec2::new(1.0, 0.0), false, false);
    }
    run.stop_recording();
    run.scenario().clone()
}

on_both_stores!(every_acknowledged_save_survives_a_kill);

async fn every_acknowledged_save_survives_a_kill(backend: &Backend) {
    let dir = std::env::temp_dir().join(format!(
        "np-durable-{}-{}",
        std::process::id(),
        backend.name()
    ));
    let db = backend.db_arg(&dir);
    let (mut relay, addr) = start(&db);
    let base = Arc::new(scenario());
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let failed = Arc::new(Mutex::new(0usize));
    // 8 writers posting back to back until the relay dies. Each save has
    // a name of its own: the store keeps equal bytes once (200, not 201),
    // and a new row is what has to survive the kill.
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let (addr, base) = (addr.clone(), base.clone());
            let (acknowledged, failed) = (acknowledged.clone(), failed.clone());
            tokio::spawn(async move {
                for i in 0..200 {
                    let mut scenario = (*base).clone();
                    scenario.name = format!("durable-{w}-{i}");
                    let body = codec::encode(&scenario);
                    match http(&addr, "POST /api/scenarios", &body).await {
                        Ok((201, json)) => {
                            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
                            acknowledged
                                .lock()
                                .unwrap()
                                .push(v["id"].as_str().unwrap().to_owned());
                        }
                        _ => *failed.lock().unwrap() += 1,
                    }
                }
            })
        })
        .collect();
    while acknowledged.lock().unwrap().len() < 100 {
        assert!(
            !writers.iter().all(|w| w.is_finished()),
            "the writers finished with {} saves acknowledged (201) of 1600",
            acknowledged.lock().unwrap().len()
        );
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    relay.kill().unwrap(); // SIGKILL: no shutdown, no flush
    relay.wait().unwrap();
    for w in writers {
        w.await.unwrap();
    }
    let ids = acknowledged.lock().unwrap().clone();
    assert!(*failed.lock().unwrap() > 0, "the kill came after the burst");

    let (mut relay, addr) = start(&db);
    let mut missing = Vec::new();
    for id in &ids {
        let (status, _) = http(&addr, &format!("GET /api/scenarios/{id}"), b"")
            .await
            .unwrap();
        if status != 200 {
            missing.push(id.clone());
        }
    }
    relay.kill().unwrap();
    relay.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged saves lost: {missing:?}",
        missing.len(),
        ids.len()
    );
    println!(
        "{} acknowledged saves, all present after SIGKILL + restart",
        ids.len()
    );
}
