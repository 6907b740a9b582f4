//! The client's address and room at the upgrade: `X-Forwarded-For` counts
//! only from a trusted proxy (the per-address cap cannot be dodged without
//! one, and counts the real clients behind one), rooms are echoed, and a
//! malformed room is refused.

mod common;

use common::*;
use relay_server::{AppState, Deployment, Limits};

fn capped(max: usize, trusted: &str) -> AppState {
    let limits = Limits {
        max_connections_per_ip: max,
        ..Limits::default()
    };
    AppState::with_limits("/nonexistent", 1, limits).with_deployment(Deployment {
        instance: "relay-x".into(),
        trusted_proxies: trusted.parse().unwrap(),
        ..Deployment::default()
    })
}

async fn status(url: &str, xff: Option<&str>) -> u16 {
    let headers: Vec<(&str, &str)> = xff.map(|v| ("x-forwarded-for", v)).into_iter().collect();
    match ws_connect(url, &headers, None).await {
        Ok((ws, res)) => {
            // Keep the session open for the rest of the test.
            std::mem::forget(ws);
            res.status().as_u16()
        }
        Err(status) => status,
    }
}

#[tokio::test]
async fn without_a_trusted_proxy_a_forged_forwarded_for_does_not_dodge_the_cap() {
    let relay = Served::start(capped(2, "")).await;
    let url = relay.ws_url("");
    assert_eq!(status(&url, Some("10.0.0.1")).await, 101);
    assert_eq!(status(&url, Some("10.0.0.2")).await, 101);
    // Every connection is 127.0.0.1's, whatever the header says.
    assert_eq!(status(&url, Some("10.0.0.3")).await, 429);
    assert_eq!(status(&url, None).await, 429);
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_cap_counts_the_forwarded_clients() {
    // The test client plays the proxy: 127.0.0.1 is trusted.
    let relay = Served::start(capped(2, "127.0.0.1")).await;
    let url = relay.ws_url("");
    assert_eq!(status(&url, Some("198.51.100.1")).await, 101);
    // What the client claimed, then what the proxy saw: the latter counts.
    assert_eq!(status(&url, Some("6.6.6.6, 198.51.100.1")).await, 101);
    assert_eq!(status(&url, Some("198.51.100.1")).await, 429);
    assert_eq!(status(&url, Some("7.7.7.7, 198.51.100.1")).await, 429);
    assert_eq!(status(&url, Some("198.51.100.2")).await, 101);
    // No header from the proxy: the proxy's own address.
    assert_eq!(status(&url, None).await, 101);
}

#[tokio::test]
async fn rooms_are_echoed_and_malformed_rooms_refused() {
    let relay = Served::start(capped(16, "")).await;
    let (_ws, res) = ws_connect(&relay.ws_url("room=p-3f9a_Z"), &[], None)
        .await
        .unwrap();
    assert_eq!(header(&res, "x-relay-room"), "p-3f9a_Z");
    assert_eq!(header(&res, "x-relay-instance"), "relay-x");
    let (_ws, res) = ws_connect(&relay.ws_url(""), &[], None).await.unwrap();
    assert!(res.headers().get("x-relay-room").is_none());
    for bad in [
        "room=a%20b",
        "room=",
        "room=a&Room=b",
        &format!("room={}", "r".repeat(65)),
    ] {
        assert_eq!(
            ws_connect(&relay.ws_url(bad), &[], None).await.err(),
            Some(400),
            "{bad}"
        );
    }
    let answer = http(&relay.addr.to_string(), "GET /ws?room=a.b", "", b"")
        .await
        .unwrap();
    assert_eq!(answer.status, 400);
    assert_eq!(
        answer.json()["error"],
        "a room id is made of A–Z, a–z, 0–9, - and _ only"
    );
    let metrics = http(&relay.addr.to_string(), "GET /metrics", "", b"")
        .await
        .unwrap()
        .text();
    assert!(
        metrics.contains("relay_upgrades_refused_total{reason=\"bad_room\"} 5"),
        "{metrics}"
    );
}
