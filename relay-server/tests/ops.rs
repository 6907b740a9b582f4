//! What runs and watches the relay sees: `/healthz` through its life
//! (ready while serving, 503 while draining, new sessions refused while the
//! old ones go on), and `/metrics` parsed by a Prometheus text parser with
//! counters that follow the traffic.

mod common;

use common::*;
use futures_util::StreamExt;
use relay_server::{AppState, Deployment, Readiness};
use sim::protocol::Setup;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::scenario::codec;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

fn deployed(instance: &str, drain_ms: u64) -> AppState {
    AppState::new("/nonexistent", 1).with_deployment(Deployment {
        instance: instance.into(),
        drain_delay: Duration::from_millis(drain_ms),
        ..Deployment::default()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_is_ready_while_serving_and_not_ready_while_draining() {
    let state = deployed("relay-h", 800);
    assert_eq!(state.readiness(), Readiness::Starting);
    let mut relay = Served::start(state.clone()).await;
    let addr = relay.addr.to_string();
    let ready = http(&addr, "GET /healthz", "", b"").await.unwrap();
    assert_eq!(ready.status, 200, "{}", ready.text());
    let body = ready.json();
    assert_eq!(
        (
            body["status"].as_str(),
            body["instance"].as_str(),
            body["store"].as_str()
        ),
        (Some("ready"), Some("relay-h"), Some("sqlite"))
    );
    assert_eq!(ready.header("x-relay-instance"), Some("relay-h"));

    let (mut old, _) = ws_connect(&relay.ws_url(""), &[], None).await.unwrap();
    send(&mut old, &ClientMsg::Hello).await;
    drain(&mut old, 100).await;
    assert_eq!(
        http(&addr, "GET /healthz", "", b"").await.unwrap().json()["sessions"],
        1
    );

    // SIGTERM: draining for 800 ms, then the sessions are closed.
    relay.stop();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let draining = http(&addr, "GET /healthz", "", b"").await.unwrap();
    assert_eq!(draining.status, 503);
    assert_eq!(draining.json()["status"], "draining");
    assert_eq!(state.readiness(), Readiness::Draining);
    // No new players…
    assert_eq!(
        ws_connect(&relay.ws_url(""), &[], None).await.err(),
        Some(503)
    );
    // …while the old one still plays.
    send(&mut old, &ClientMsg::Ping { id: 1 }).await;
    let during = drain(&mut old, 300).await;
    assert!(
        during
            .iter()
            .any(|m| matches!(m, ServerMsg::Pong { id: 1, .. })),
        "{during:?}"
    );
    // Then 1001 and `serve` returns.
    let close = tokio::time::timeout(Duration::from_secs(3), async {
        loop {
            match old.next().await {
                Some(Ok(Message::Close(f))) => break f.map(|f| u16::from(f.code)),
                Some(Ok(_)) => {}
                _ => break None,
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(close, Some(1001));
    tokio::time::timeout(Duration::from_secs(5), relay.served)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

/// The sample `name{labels}` in a scrape, 0 if absent.
fn sample(scrape: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name)
        .filter(|s| labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            prometheus_parse::Value::Histogram(ref h) => h.last().map_or(0.0, |b| b.count),
            prometheus_parse::Value::Summary(_) => 0.0,
        })
        .sum()
}

async fn scrape(addr: &str) -> prometheus_parse::Scrape {
    let answer = http(addr, "GET /metrics", "", b"").await.unwrap();
    assert_eq!(answer.status, 200);
    assert!(answer
        .header("content-type")
        .unwrap()
        .starts_with("text/plain; version=0.0.4"));
    let lines = answer
        .text()
        .lines()
        .map(|l| Ok(l.to_owned()))
        .collect::<Vec<_>>();
    prometheus_parse::Scrape::parse(lines.into_iter()).expect("the Prometheus text format")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_parse_and_their_counters_follow_the_traffic() {
    let relay = Served::start(deployed("relay-m", 0)).await;
    let addr = relay.addr.to_string();
    let before = scrape(&addr).await;
    assert_eq!(
        sample(&before, "relay_info", &[("instance", "relay-m")]),
        1.0
    );
    assert_eq!(sample(&before, "relay_sessions", &[]), 0.0);
    assert_eq!(sample(&before, "relay_frames_in_total", &[]), 0.0);

    let (mut ws, _) = ws_connect(&relay.ws_url("room=p-m1"), &[], None)
        .await
        .unwrap();
    send(&mut ws, &ClientMsg::Hello).await;
    let mut pongs = 0;
    for id in 1..=6u32 {
        send(&mut ws, &ClientMsg::Ping { id }).await;
        pongs += drain(&mut ws, 250)
            .await
            .iter()
            .filter(|m| matches!(m, ServerMsg::Pong { .. }))
            .count();
    }
    ws.send_garbage().await;
    pongs += drain(&mut ws, 300)
        .await
        .iter()
        .filter(|m| matches!(m, ServerMsg::Pong { .. }))
        .count();
    // While the session is open (its counts reach the shared metrics at
    // least once a second).
    let open = scrape(&addr).await;
    assert_eq!(sample(&open, "relay_sessions", &[]), 1.0);
    assert_eq!(sample(&open, "relay_rooms", &[]), 1.0);
    assert!(sample(&open, "relay_frames_in_total", &[("kind", "ping")]) >= 1.0);
    assert!(sample(&open, "relay_frames_out_total", &[("kind", "observer")]) >= 1.0);

    ws.close(None).await.unwrap();
    drop(ws);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    let after = loop {
        let s = scrape(&addr).await;
        if sample(&s, "relay_sessions", &[]) == 0.0 || tokio::time::Instant::now() > deadline {
            break s;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(sample(&after, "relay_sessions", &[]), 0.0);
    assert_eq!(sample(&after, "relay_rooms", &[]), 0.0);
    assert_eq!(
        sample(&after, "relay_frames_in_total", &[("kind", "hello")]),
        1.0
    );
    assert_eq!(
        sample(&after, "relay_frames_in_total", &[("kind", "ping")]),
        6.0
    );
    assert_eq!(
        sample(&after, "relay_frames_in_total", &[("kind", "other")]),
        1.0
    );
    assert_eq!(sample(&after, "relay_frames_rejected_total", &[]), 1.0);
    assert_eq!(
        sample(&after, "relay_frames_out_total", &[("kind", "welcome")]),
        1.0
    );
    assert_eq!(
        sample(
            &after,
            "relay_frames_out_total",
            &[("kind", "session_token")]
        ),
        1.0
    );
    assert_eq!(
        sample(&after, "relay_frames_out_total", &[("kind", "error")]),
        1.0
    );
    assert_eq!(
        sample(&after, "relay_frames_out_total", &[("kind", "pong")]),
        pongs as f64
    );
    assert_eq!(pongs, 6);
    assert!(
        sample(&after, "relay_host_poll_seconds", &[]) >= 8.0,
        "a poll per frame at least"
    );

    // Saves: one created, one rejected.
    let mut run = sim::ScenarioRun::record("m", 1, Setup::default());
    for _ in 0..30 {
        run.step_live(1.0 / 60.0, sim::Vec2::new(1.0, 0.0), false, false);
    }
    run.stop_recording();
    let good = codec::encode(run.scenario());
    let ct = "Content-Type: application/octet-stream\r\n";
    assert_eq!(
        http(&addr, "POST /api/scenarios", ct, &good)
            .await
            .unwrap()
            .status,
        201
    );
    assert_eq!(
        http(&addr, "POST /api/scenarios", ct, b"\x09")
            .await
            .unwrap()
            .status,
        400
    );
    let saves = scrape(&addr).await;
    assert_eq!(
        sample(
            &saves,
            "relay_scenario_saves_total",
            &[("result", "created")]
        ),
        1.0
    );
    assert_eq!(
        sample(
            &saves,
            "relay_scenario_saves_total",
            &[("result", "rejected")]
        ),
        1.0
    );
    assert_eq!(
        sample(
            &saves,
            "relay_scenario_saves_total",
            &[("result", "failed")]
        ),
        0.0
    );
}
