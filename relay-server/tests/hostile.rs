//! The relay's defences over a real socket on port 0 (issue #7): frame
//! limits, 1008 on repeated abuse and floods, the per-address cap (429),
//! the static files' security headers and path confinement, and the
//! graceful shutdown's 1001.

mod common;

use common::*;

use futures_util::{SinkExt, StreamExt};
use relay_server::{AppState, Limits};
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::rollback::wire::{Ids, PackedInput};
use sim::rollback::{InputPacket, RollbackConfig, RollbackServerMsg, Tick};
use sim::{Model, Vec2};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;

/// Reads until the socket closes (or `secs` pass); returns the decoded
/// messages and the close frame's code and reason.
async fn read_until_close(ws: &mut Ws, secs: u64) -> (Vec<ServerMsg>, Option<(CloseCode, String)>) {
    let mut msgs = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, ws.next()).await {
        match m {
            Message::Binary(b) => msgs.push(codec::decode::<ServerMsg>(&b).unwrap()),
            Message::Close(Some(f)) => return (msgs, Some((f.code, f.reason.to_string()))),
            Message::Close(None) => return (msgs, None),
            _ => {}
        }
    }
    (msgs, None)
}

fn errors(msgs: &[ServerMsg]) -> Vec<&str> {
    msgs.iter()
        .filter_map(|m| match m {
            ServerMsg::Error { reason } => Some(reason.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn oversized_frames_are_refused_before_decoding() {
    let relay = start().await;
    let mut ws = connect(&relay).await;
    // Over the codec's 2048 bytes but within the socket's 8 KiB: an Error
    // with the reason, and the session goes on.
    ws.send(Message::Binary(vec![1u8; 3000].into()))
        .await
        .unwrap();
    ws.send(Message::Binary(
        codec::encode(&ClientMsg::Ping { id: 1 }).into(),
    ))
    .await
    .unwrap();
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
    while let Ok(Some(Ok(Message::Binary(b)))) = tokio::time::timeout_at(deadline, ws.next()).await
    {
        got.push(codec::decode::<ServerMsg>(&b).unwrap());
        if got
            .iter()
            .any(|m| matches!(m, ServerMsg::Pong { id: 1, .. }))
        {
            break;
        }
    }
    assert!(
        errors(&got)
            .iter()
            .any(|e| e.contains("3000 bytes exceeds the 2048-byte limit")),
        "{got:?}"
    );
    assert!(got
        .iter()
        .any(|m| matches!(m, ServerMsg::Pong { id: 1, .. })));
}

/// A message over the socket layer's 8 KiB limit — just over, or 2 MiB —
/// ends the connection with a Close frame 1009 "message too big" and a
/// reason; no close frame fails the test.
#[tokio::test]
async fn a_message_over_the_socket_limit_is_closed_with_1009() {
    let relay = start().await;
    for size in [9 * 1024, 100_000, 2 * 1024 * 1024] {
        let mut ws = connect(&relay).await;
        let _ = ws.send(Message::Binary(vec![1u8; size].into())).await;
        let (_, close) = read_until_close(&mut ws, 3).await;
        let (code, reason) = close.unwrap_or_else(|| panic!("no close frame after {size} B"));
        assert_eq!(code, CloseCode::Size, "{size} B");
        assert!(reason.contains("the limit is 8192 bytes"), "{reason}");
    }
}

/// RFC 6455 §5.5.1: the relay answers a client's Close with its own.
#[tokio::test]
async fn a_clients_close_is_echoed() {
    let relay = start().await;
    let mut ws = connect(&relay).await;
    ws.send(Message::Binary(codec::encode(&ClientMsg::Hello).into()))
        .await
        .unwrap();
    ws.close(Some(CloseFrame {
        code: CloseCode::Normal,
        reason: "bye".into(),
    }))
    .await
    .unwrap();
    let (_, close) = read_until_close(&mut ws, 3).await;
    assert_eq!(
        close.expect("the relay's Close frame"),
        (CloseCode::Normal, "bye".to_owned())
    );
}

#[tokio::test]
async fn repeated_garbage_closes_the_socket_with_1008_and_a_reason() {
    let relay = start().await;
    let mut ws = connect(&relay).await;
    for i in 0..25u8 {
        let frame = match i % 4 {
            0 => Message::Binary(vec![sim::protocol::PROTOCOL_VERSION, 0xff, 0xff].into()),
            1 => Message::Binary(vec![sim::protocol::PROTOCOL_VERSION + 1, 0].into()),
            2 => Message::Text("hello".into()),
            _ => {
                let mut f = codec::encode(&ClientMsg::Ping { id: 1 });
                f.push(0);
                Message::Binary(f.into())
            }
        };
        if ws.send(frame).await.is_err() {
            break;
        }
    }
    let (msgs, close) = read_until_close(&mut ws, 3).await;
    let errs = errors(&msgs);
    assert!(errs.iter().any(|e| e.contains("malformed")), "{errs:?}");
    assert!(
        errs.iter().any(|e| e.contains(&format!(
            "protocol version {}",
            sim::protocol::PROTOCOL_VERSION + 1
        ))),
        "{errs:?}"
    );
    assert!(errs.iter().any(|e| e.contains("text frames")), "{errs:?}");
    assert!(
        errs.iter().any(|e| e.contains("trailing bytes")),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.contains("too many bad frames: more than 20 within 10 s")),
        "{errs:?}"
    );
    let (code, reason) = close.expect("a close frame");
    assert_eq!(code, CloseCode::Policy);
    assert!(reason.contains("policy violation"), "{reason}");
}

/// Sends 2000 frames back to back and checks the relay drops them over
/// budget, then closes with 1008 and says why.
async fn assert_flood_is_closed(ws: &mut Ws, frame: impl Fn(u32) -> Vec<u8>) {
    for i in 0..2000u32 {
        if ws.feed(Message::Binary(frame(i).into())).await.is_err() {
            break;
        }
    }
    let _ = ws.flush().await;
    let (msgs, close) = read_until_close(ws, 3).await;
    assert!(
        errors(&msgs)
            .iter()
            .any(|e| e.contains("flooding: more than 600 frames over the rate limit")),
        "{:?}",
        errors(&msgs)
    );
    assert_eq!(close.expect("a close frame").0, CloseCode::Policy);
}

#[tokio::test]
async fn a_move_flood_is_dropped_then_closed_with_1008() {
    let relay = start().await;
    let mut ws = connect(&relay).await;
    assert_flood_is_closed(&mut ws, |i| server_move(i * 16, Vec2::ZERO, Vec2::ZERO)).await;
}

/// A rollback input packet for `ids` with `n` inputs, the newest at
/// `newest`.
fn inputs(ids: Ids, newest: u32, n: usize) -> Vec<u8> {
    codec::encode(&ClientMsg::Inputs(InputPacket {
        ids,
        newest: Tick(newest),
        inputs: vec![PackedInput::default(); n],
    }))
}

/// A connection in the rollback model, greeted, and its match's ids.
async fn rollback_client(relay: &Served) -> (Ws, Ids) {
    let mut ws = connect(relay).await;
    for m in [
        ClientMsg::Hello,
        ClientMsg::SetModel(Model::Rollback(RollbackConfig::default())),
    ] {
        ws.send(Message::Binary(codec::encode(&m).into()))
            .await
            .unwrap();
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while let Ok(Some(Ok(Message::Binary(b)))) = tokio::time::timeout_at(deadline, ws.next()).await
    {
        if let Ok(ServerMsg::Rollback(RollbackServerMsg::Start(s))) = codec::decode(&b) {
            return (ws, s.ids);
        }
    }
    panic!("no Start");
}

#[tokio::test]
async fn an_input_flood_is_dropped_then_closed_with_1008() {
    let relay = start().await;
    let (mut ws, ids) = rollback_client(&relay).await;
    assert_flood_is_closed(&mut ws, |i| inputs(ids, i, 4)).await;
}

#[tokio::test]
async fn absurd_rollback_ticks_are_counted_not_punished_and_oversized_packets_are_struck() {
    let relay = start().await;
    let (mut ws, ids) = rollback_client(&relay).await;
    // 100 packets at 100 /s with ticks far ahead, far behind, at the wrap
    // and for another match: within budget, ignored by the server.
    let foreign = Ids {
        match_id: ids.match_id + 7,
        ..ids
    };
    for i in 0..100u32 {
        let frame = match i % 4 {
            0 => inputs(ids, u32::MAX, 8),
            1 => inputs(ids, 1 << 31, 8),
            2 => inputs(ids, i.wrapping_sub(5000), 1),
            _ => inputs(foreign, i, 4),
        };
        ws.send(Message::Binary(frame.into())).await.unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    ws.send(Message::Binary(
        codec::encode(&ClientMsg::Ping { id: 1 }).into(),
    ))
    .await
    .unwrap();
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    while let Ok(Some(Ok(Message::Binary(b)))) = tokio::time::timeout_at(deadline, ws.next()).await
    {
        got.push(codec::decode::<ServerMsg>(&b).unwrap());
    }
    assert!(errors(&got).is_empty(), "{:?}", errors(&got));
    assert!(got
        .iter()
        .any(|m| matches!(m, ServerMsg::Pong { id: 1, .. })));
    // The server's view: nothing stored for the client, every packet
    // counted.
    let totals = got
        .iter()
        .rev()
        .find_map(|m| match m {
            ServerMsg::RollbackObserver(v) => Some(v.totals),
            _ => None,
        })
        .expect("observer views");
    assert_eq!(totals.received, 0, "{totals:?}");
    assert_eq!(totals.identity_rejected, 25, "{totals:?}");

    // More than 8 inputs in a packet is a bad frame: an Error with the
    // reason, a strike each, and the 21st within 10 s closes.
    for i in 0..21u32 {
        if ws
            .send(Message::Binary(inputs(ids, i, 9).into()))
            .await
            .is_err()
        {
            break;
        }
    }
    let (msgs, close) = read_until_close(&mut ws, 3).await;
    let errs = errors(&msgs);
    assert!(
        errs.iter()
            .any(|e| e.contains("input packet with 9 inputs: at most 8 per packet")),
        "{errs:?}"
    );
    assert!(
        errs.iter().any(|e| e.contains("too many bad frames")),
        "{errs:?}"
    );
    assert_eq!(close.expect("a close frame").0, CloseCode::Policy);
}

#[tokio::test]
async fn the_per_address_cap_answers_429() {
    let limits = Limits {
        max_connections_per_ip: 2,
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, limits)).await;
    let a = connect(&relay).await;
    let _b = connect(&relay).await;
    let url = format!("ws://{}/ws", relay.addr);
    match tokio_tungstenite::connect_async(&url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status(), 429);
        }
        other => panic!("third connection not refused: {:?}", other.map(|_| ())),
    }
    // A closed session gives its slot back.
    drop(a);
    let mut ok = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if tokio_tungstenite::connect_async(&url).await.is_ok() {
            ok = true;
            break;
        }
    }
    assert!(ok, "slot not returned");
}

/// A raw request, so the path reaches the server exactly as written
/// (clients normalise `..` away).
async fn raw_get(addr: std::net::SocketAddr, path: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

#[tokio::test]
async fn static_files_carry_csp_and_nosniff_and_cannot_escape_dist() {
    let root = std::env::temp_dir().join(format!("relay-hostile-{}", std::process::id()));
    let dist = root.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(root.join("secret.txt"), "TOP-SECRET").unwrap();
    std::fs::write(
        dist.join("index.html"),
        "<html><script>boot()</script><script src=\"gl.js\"></script>PAGE</html>",
    )
    .unwrap();
    let relay = Served::start(AppState::new(&dist, 1)).await;
    let page = raw_get(relay.addr, "/").await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    let lower = page.to_ascii_lowercase();
    assert!(lower.contains("x-content-type-options: nosniff"), "{page}");
    let csp = page
        .lines()
        .find(|l| {
            l.to_ascii_lowercase()
                .starts_with("content-security-policy:")
        })
        .expect("a CSP header");
    assert!(csp.contains("'wasm-unsafe-eval'"), "{csp}");
    assert_eq!(csp.matches("'sha256-").count(), 1, "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    for path in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/..%2fsecret.txt",
        "/..%2Fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "/..%5csecret.txt",
        "/....//secret.txt",
        "//../secret.txt",
        "/./../secret.txt",
    ] {
        let resp = raw_get(relay.addr, path).await;
        assert!(!resp.contains("TOP-SECRET"), "{path} escaped dist: {resp}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test]
async fn shutdown_sends_1001_to_every_client_and_serve_returns() {
    let mut relay = start().await;
    let mut a = connect(&relay).await;
    let mut b = connect(&relay).await;
    a.send(Message::Binary(codec::encode(&ClientMsg::Hello).into()))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t = std::time::Instant::now();
    relay.stop();
    for ws in [&mut a, &mut b] {
        let (_, close) = read_until_close(ws, 3).await;
        let (code, reason) = close.expect("a close frame");
        assert_eq!(code, CloseCode::Away);
        assert_eq!(reason, "relay shutting down");
    }
    tokio::time::timeout(Duration::from_secs(5), relay.served)
        .await
        .expect("serve returned")
        .unwrap()
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // Nothing listens any more.
    assert!(tokio::net::TcpStream::connect(relay.addr).await.is_err());
}

#[tokio::test]
async fn a_client_that_stops_reading_is_dropped_after_the_send_timeout() {
    let limits = Limits {
        max_connections_per_ip: 1,
        send_timeout: Duration::from_millis(300),
        socket_send_buffer: 4096,
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, limits)).await;
    // A small receive window, and it never reads.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(2048).unwrap();
    let stream = socket.connect(relay.addr).await.unwrap();
    let (mut deaf, _) = tokio_tungstenite::client_async(format!("ws://{}/ws", relay.addr), stream)
        .await
        .unwrap();
    let url = format!("ws://{}/ws", relay.addr);
    let t = std::time::Instant::now();
    // Its session holds the address's only slot: the first retry is
    // refused with 429.
    match tokio_tungstenite::connect_async(&url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
        other => panic!("the first retry must be refused while the deaf session lives: {other:?}"),
    }
    // It holds the slot until the relay drops it.
    let mut refused = 1;
    let _second = loop {
        // Hellos make the relay send more (a Welcome each, 10 /s).
        let _ = tokio::time::timeout(
            Duration::from_millis(50),
            deaf.send(Message::Binary(codec::encode(&ClientMsg::Hello).into())),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Ok((second, _)) = tokio_tungstenite::connect_async(&url).await {
            break second;
        }
        refused += 1;
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the deaf client was never dropped"
        );
    };
    let dropped_after = t.elapsed();
    println!("deaf client dropped after {dropped_after:?}, {refused} retries refused");
    assert!(
        dropped_after >= limits.send_timeout,
        "dropped after {dropped_after:?}, before the {:?} send timeout could pass",
        limits.send_timeout
    );
    // What dropped it: a send that timed out (the relay counts each
    // session's end by its cause), and nothing else (the second session is
    // still open).
    let metrics = http(&relay.addr.to_string(), "GET /metrics", "", b"")
        .await
        .unwrap()
        .text();
    let count = |reason: &str| {
        let key = format!("relay_sessions_ended_total{{reason=\"{reason}\"}} ");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(&key))
            .unwrap_or_else(|| panic!("no {key} in /metrics"))
            .parse::<f64>()
            .unwrap()
    };
    assert_eq!(count("slow_reader"), 1.0, "{metrics}");
    for other in [
        "client",
        "client_closed",
        "violation",
        "too_big",
        "shutdown",
    ] {
        assert_eq!(count(other), 0.0, "{other}");
    }
    assert_eq!(
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("relay_upgrades_refused_total{reason=\"address_cap\"} "))
            .unwrap(),
        refused.to_string()
    );
}
