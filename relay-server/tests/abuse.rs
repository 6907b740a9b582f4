//! The cheap denials of service closed (issue #27), over real sockets on
//! port 0: another site's page cannot open sockets (403); one address
//! holds at most two seats of a room, and a seat that sends nothing after
//! joining is closed and freed; a thousand half-sent requests from one
//! address are refused beyond the cap and each closed after the header
//! timeout.

mod common;

use common::*;
use futures_util::StreamExt;
use relay_server::origin::AllowedOrigins;
use relay_server::{AppState, Deployment, Limits};
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::room::{RoomClientMsg, RoomServerMsg};
use std::net::IpAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

/// The value of `name` (with its labels) in a relay's `/metrics`.
async fn metric(relay: &Served, name: &str) -> f64 {
    let text = http(&relay.addr.to_string(), "GET /metrics", "", b"")
        .await
        .unwrap()
        .text();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

#[tokio::test]
async fn a_foreign_origin_gets_403_and_the_pages_own_and_an_allow_listed_one_get_101() {
    let state = AppState::new("/nonexistent", 1).with_deployment(Deployment {
        allowed_origins: AllowedOrigins::parse("https://teach.example.edu").unwrap(),
        ..Deployment::default()
    });
    let relay = Served::start(state).await;
    let url = relay.ws_url("room=lobby");
    let upgrade = |origin: &'static str| {
        let url = url.clone();
        async move {
            match ws_connect(&url, &[("origin", origin)], None).await {
                Ok((ws, res)) => {
                    drop(ws);
                    res.status().as_u16()
                }
                Err(status) => status,
            }
        }
    };
    // The page the relay serves: its origin is the address it was sent to.
    let own: &'static str = Box::leak(format!("http://{}", relay.addr).into_boxed_str());
    assert_eq!(upgrade(own).await, 101);
    assert_eq!(upgrade("https://teach.example.edu").await, 101);
    assert_eq!(upgrade("https://evil.example").await, 403);
    assert_eq!(upgrade("null").await, 403);
    assert_eq!(
        upgrade("http://127.0.0.1:1").await,
        403,
        "another port is another site"
    );
    // No Origin: no browser page.
    assert!(ws_connect(&url, &[], None).await.is_ok());
    // The refusal says why.
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.as_str().into_client_request().unwrap();
    req.headers_mut()
        .insert("origin", "https://evil.example".parse().unwrap());
    let Err(tokio_tungstenite::tungstenite::Error::Http(refused)) =
        tokio_tungstenite::connect_async(req).await
    else {
        panic!("not refused");
    };
    assert_eq!(refused.status(), 403);
    assert_eq!(
        String::from_utf8_lossy(refused.body().as_deref().unwrap_or_default()),
        "pages from https://evil.example may not open sockets to this relay (its own origin and --allowed-origin only)"
    );
    assert_eq!(
        metric(&relay, "relay_upgrades_refused_total{reason=\"origin\"}").await,
        4.0
    );
}

/// Opens `/ws?room=<room>` from `from` and sends Join.
async fn join_from(relay: &Served, room: &str, from: IpAddr) -> Ws {
    let (mut ws, _) = ws_connect(&relay.ws_url(&format!("room={room}")), &[], Some(from))
        .await
        .unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    ws
}

/// What a socket got within `secs`: a seat (Joined), a refusal (Refused's
/// reason), and the close frame.
#[derive(Debug, Default)]
struct Outcome {
    joined: bool,
    refused: Option<String>,
    close: Option<(u16, String)>,
}

async fn outcome(ws: &mut Ws, secs: f64) -> Outcome {
    let mut o = Outcome::default();
    let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(secs);
    while let Ok(Some(Ok(msg))) = tokio::time::timeout_at(deadline, ws.next()).await {
        match msg {
            Message::Binary(b) => match codec::decode::<ServerMsg>(&b) {
                Ok(ServerMsg::Room(RoomServerMsg::Joined { .. })) => o.joined = true,
                Ok(ServerMsg::Room(RoomServerMsg::Refused { reason })) => o.refused = Some(reason),
                _ => {}
            },
            Message::Close(f) => {
                o.close = f.map(|f| (u16::from(f.code), f.reason.to_string()));
                break;
            }
            _ => {}
        }
    }
    o
}

#[tokio::test]
async fn a_third_seat_from_one_address_is_refused_with_its_reason_and_others_still_join() {
    let relay = start().await;
    let me = IpAddr::from([127, 3, 0, 1]);
    let mut a = join_from(&relay, "lobby", me).await;
    let mut b = join_from(&relay, "lobby", me).await;
    assert!(outcome(&mut a, 0.5).await.joined);
    assert!(outcome(&mut b, 0.5).await.joined);
    let mut third = join_from(&relay, "lobby", me).await;
    let o = outcome(&mut third, 3.0).await;
    let reason = "room lobby: this address holds 2 seats of the room already";
    assert_eq!(o.refused.as_deref(), Some(reason));
    assert_eq!(o.close, Some((1008, reason.to_owned())));
    // Another address joins; so does this one in another room.
    let mut other = join_from(&relay, "lobby", IpAddr::from([127, 3, 0, 2])).await;
    assert!(outcome(&mut other, 0.5).await.joined);
    let mut elsewhere = join_from(&relay, "other-room", me).await;
    assert!(outcome(&mut elsewhere, 0.5).await.joined);
    // A seat given back frees the address's share.
    a.close(None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = join_from(&relay, "lobby", me).await;
    assert!(outcome(&mut again, 0.5).await.joined);
    assert_eq!(
        metric(&relay, "relay_seats_refused_total{reason=\"address_cap\"}").await,
        1.0
    );
}

/// Issue #27: "16 silent sockets from one address fill any named room".
#[tokio::test]
async fn sixteen_silent_sockets_from_one_address_hold_two_seats_and_only_for_the_grace() {
    let limits = Limits {
        silent_seat_grace: Duration::from_millis(700),
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, limits)).await;
    let attacker = IpAddr::from([127, 4, 0, 1]);
    let mut silent = Vec::new();
    for _ in 0..16 {
        silent.push(join_from(&relay, "lobby", attacker).await);
    }
    // A player who talks, as a page does.
    let mut player = join_from(&relay, "lobby", IpAddr::from([127, 4, 0, 2])).await;
    let started = Instant::now();
    let talk = tokio::spawn(async move {
        let mut seen = Outcome::default();
        for id in 0..20 {
            send(&mut player, &ClientMsg::Ping { id }).await;
            let o = outcome(&mut player, 0.1).await;
            seen.joined |= o.joined;
            seen.close = seen.close.or(o.close);
        }
        seen
    });
    let mut seated = 0;
    let mut refused = 0;
    for ws in &mut silent {
        let o = outcome(ws, 2.0).await;
        match (o.joined, o.close) {
            (true, Some((1008, reason))) => {
                assert_eq!(
                    reason,
                    "silent seat: nothing sent within 0.7 s of taking it"
                );
                seated += 1;
            }
            (false, Some((1008, reason))) if reason.contains("holds 2 seats") => refused += 1,
            other => panic!("a silent socket ended as {other:?}"),
        }
    }
    let silent_closed_after = started.elapsed();
    assert_eq!((seated, refused), (2, 14));
    assert!(
        silent_closed_after < Duration::from_secs(2),
        "{silent_closed_after:?}"
    );
    let talked = talk.await.unwrap();
    assert!(talked.joined && talked.close.is_none(), "{talked:?}");
    // The silent seats were freed at once (not kept for a resume).
    let rooms = rooms_listed(&relay).await;
    assert_eq!(rooms[0]["players"], 1);
    assert_eq!(
        metric(&relay, "relay_sessions_ended_total{reason=\"silent_seat\"}").await,
        2.0
    );
}

/// Issue #27: "1 000 half-sent requests from one address: refused beyond
/// the cap, and each closed after the header timeout" — at the defaults
/// (32, 10 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_half_sent_requests_from_one_address_are_refused_beyond_the_cap_and_timed_out() {
    let limits = Limits::default();
    let relay = start().await;
    let attacker = IpAddr::from([127, 5, 0, 1]);
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..1000 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(std::net::SocketAddr::new(attacker, 0)).unwrap();
        let mut s = socket.connect(relay.addr).await.unwrap();
        let opened = Instant::now();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .await
            .unwrap();
        // A refused one is answered and closed at once; a held one waits.
        let mut buf = Vec::new();
        match tokio::time::timeout(Duration::from_millis(200), s.read_to_end(&mut buf)).await {
            Ok(_) => {
                let text = String::from_utf8_lossy(&buf);
                assert!(text.starts_with("HTTP/1.1 429"), "{text}");
                assert!(text.ends_with("too many half-sent requests from this address\n"));
                refused += 1;
            }
            Err(_) => held.push((s, opened)),
        }
    }
    println!(
        "1000 half-sent requests: {} held, {refused} refused",
        held.len()
    );
    assert_eq!(held.len(), limits.max_handshakes_per_ip);
    assert_eq!(refused, 1000 - limits.max_handshakes_per_ip);
    // Another address is served meanwhile.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(std::net::SocketAddr::new(IpAddr::from([127, 5, 0, 2]), 0))
        .unwrap();
    let mut other = socket.connect(relay.addr).await.unwrap();
    other
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    other.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Each held one is closed by the header timeout, not before.
    for (mut s, opened) in held {
        let mut buf = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(15), s.read_to_end(&mut buf)).await;
        let after = opened.elapsed();
        assert!(
            after >= limits.header_timeout - Duration::from_millis(50)
                && after < limits.header_timeout + Duration::from_secs(3),
            "closed after {after:?}"
        );
    }
    assert_eq!(
        metric(&relay, "relay_connections_refused_total").await,
        (1000 - limits.max_handshakes_per_ip) as f64
    );
    assert_eq!(
        metric(&relay, "relay_header_timeouts_total").await,
        limits.max_handshakes_per_ip as f64
    );
}

/// A 1 s scenario as the page saves it (compact bytes).
fn scenario_bytes() -> Vec<u8> {
    use sim::{Bot, ScenarioRun};
    let mut run = ScenarioRun::record("origin", 3, sim::protocol::Setup::default());
    let mut bot = Bot::new();
    for _ in 0..60 {
        let (dir, dash) = bot.input(run.endpoint().position(), 1.0 / 60.0);
        run.step_live(1.0 / 60.0, dir, dash, false);
    }
    run.stop_recording();
    sim::scenario::codec::encode(run.scenario())
}

/// The operator's trial: a form or `fetch` on another site spent its
/// visitors' saves. A POST whose `Origin` is another site's is refused
/// before its body is read or its save charged; the relay's own page, an
/// allow-listed site and a client without `Origin` save as before.
#[tokio::test]
async fn a_save_posted_by_another_sites_page_gets_403_and_spends_nothing() {
    let one_save = Limits {
        saves: relay_server::Rate {
            per_second: 1.0 / 600.0,
            burst: 1.0,
        },
        ..Limits::default()
    };
    let state = AppState::with_limits("/nonexistent", 1, one_save).with_deployment(Deployment {
        allowed_origins: AllowedOrigins::parse("https://teach.example.edu").unwrap(),
        ..Deployment::default()
    });
    let relay = Served::start(state.clone()).await;
    let addr = relay.addr.to_string();
    let scenario = scenario_bytes();
    let save = |origin: Option<&str>, from: &str| {
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        let extra = format!("{origin}Content-Type: application/octet-stream\r\n");
        let (addr, scenario, path) = (addr.clone(), scenario.clone(), from.to_owned());
        async move {
            http(&addr, &format!("POST {path}"), &extra, &scenario)
                .await
                .unwrap()
        }
    };
    for origin in [
        "https://evil.example",
        "null",
        "http://127.0.0.1:1",
        "https://teach.example.edu.evil.example",
    ] {
        for path in ["/api/scenarios", "/api/rooms/lobby/recording"] {
            let refused = save(Some(origin), path).await;
            assert_eq!(refused.status, 403, "{origin} {path}: {}", refused.text());
            assert_eq!(
                refused.json(),
                serde_json::json!({
                    "error": format!(
                        "pages from {origin} may not POST to this relay's API (its own origin \
                         and --allowed-origin only)"
                    )
                })
            );
        }
    }
    assert_eq!(state.store().count().await.unwrap(), 0);
    for (series, n) in [
        ("relay_scenario_saves_total{result=\"origin\"}", 4.0),
        ("relay_room_recording_saves_total{result=\"origin\"}", 4.0),
        ("relay_scenario_saves_total{result=\"rate_limited\"}", 0.0),
    ] {
        assert_eq!(metric(&relay, series).await, n, "{series}");
    }
    // The budget of one save is whole: the relay's own page spends it.
    let own = format!("http://{}", relay.addr);
    let saved = save(Some(&own), "/api/scenarios").await;
    assert_eq!(saved.status, 201, "{}", saved.text());
    assert_eq!(save(None, "/api/scenarios").await.status, 200, "no Origin");
    let listed = save(Some("https://teach.example.edu"), "/api/scenarios").await;
    assert_eq!(listed.status, 200, "{}", listed.text());
    // GETs are not checked: a page of any site may read a saved item.
    let id = saved.json()["id"].as_str().unwrap().to_owned();
    let got = http(
        &addr,
        &format!("GET /api/scenarios/{id}"),
        "Origin: https://evil.example\r\n",
        b"",
    )
    .await
    .unwrap();
    assert_eq!(got.status, 200);
}

/// Over a real socket: a URI past the relay's 8 KiB, past hyper's own
/// 65 534 bytes (refused by hyper before any route), and a request head
/// past hyper's buffer, each answered in the API's JSON shape.
#[tokio::test]
async fn an_over_long_uri_gets_a_json_414_even_past_hypers_own_limit() {
    let relay = Served::start(AppState::new("/nonexistent", 1)).await;
    let raw = |target_len: usize| {
        let addr = relay.addr;
        async move {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            let target = format!("/api/rooms?x={}", "a".repeat(target_len - 13));
            let req = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
            // hyper may answer and close before it has read it all.
            let _ = s.write_all(req.as_bytes()).await;
            let mut out = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await;
            let text = String::from_utf8_lossy(&out).into_owned();
            let (head, body) = text.split_once("\r\n\r\n").expect("a whole answer");
            let body = body
                .split("\r\n")
                .find(|l| l.starts_with('{'))
                .unwrap_or(body)
                .to_owned();
            (head.to_owned(), body)
        }
    };
    for (len, status, reason) in [
        (
            9_000,
            "HTTP/1.1 414 URI Too Long",
            "the request URI is 9000 bytes, over the limit of 8192 bytes".to_owned(),
        ),
        (
            70_000,
            "HTTP/1.1 414 URI Too Long",
            "the request URI is over the limit of 8192 bytes".to_owned(),
        ),
        (
            500_000,
            "HTTP/1.1 431 Request Header Fields Too Large",
            "the request head is too large (the relay reads at most ~400 KiB of it)".to_owned(),
        ),
    ] {
        let (head, body) = raw(len).await;
        assert!(head.starts_with(status), "{len}: {head}");
        let lower = head.to_ascii_lowercase();
        assert!(
            lower.contains("content-type: application/json"),
            "{len}: {head}"
        );
        assert!(lower.contains("x-relay-instance: relay"), "{len}: {head}");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(json, serde_json::json!({ "error": reason }), "{len}");
    }
    // The relay serves on.
    let ok = http(&relay.addr.to_string(), "GET /api/rooms", "", b"")
        .await
        .unwrap();
    assert_eq!(ok.status, 200);
}
