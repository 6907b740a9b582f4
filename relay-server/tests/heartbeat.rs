//! The WebSocket heartbeat (issue #27): the relay pings every socket, so an
//! idle room behind a proxy with a short idle timeout keeps its players —
//! at the scale (nginx `proxy_read_timeout 30s`, 3 minutes idle,
//! the default 20 s Ping) and scaled down with a control that shows the
//! proxy's timeout is real; and a peer that stops answering is closed, its
//! seat kept for the resume grace and then freed. The nginx tests need
//! nginx and PostgreSQL: `scripts/test.sh` runs them with `--ignored`.

mod common;

use common::cluster::Cluster;
use common::*;
use futures_util::StreamExt;
use relay_server::{AppState, Limits};
use sim::protocol::ClientMsg;
use sim::room::RoomClientMsg;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

/// A client's binary frame (masked, RFC 6455 §5.3) carrying `payload`
/// (under 126 bytes).
fn client_frame(payload: &[u8]) -> Vec<u8> {
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    let mut f = vec![0x82, 0x80 | payload.len() as u8];
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

/// The server's frames in `bytes` (unmasked): opcode and payload.
fn server_frames(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut frames = Vec::new();
    while bytes.len() >= 2 {
        let op = bytes[0] & 0x0f;
        let (len, start) = match bytes[1] & 0x7f {
            126 => (usize::from(u16::from_be_bytes([bytes[2], bytes[3]])), 4),
            127 => break,
            n => (usize::from(n), 2),
        };
        if bytes.len() < start + len {
            break;
        }
        frames.push((op, bytes[start..start + len].to_vec()));
        bytes = &bytes[start + len..];
    }
    frames
}

/// What an idle player saw: the relay's Pings, and the end of its socket.
#[derive(Debug, Default)]
struct Idle {
    pings: u32,
    ended: Option<(Duration, String)>,
}

/// Joins `room` through nginx from `from`, says one thing, then reads for
/// `secs` without sending anything of its own (its socket layer answers
/// Pings, as a browser does).
async fn idle(nginx: &str, room: &str, from: IpAddr, secs: u64) -> Idle {
    let (mut ws, _) = ws_connect(&format!("ws://{nginx}/ws?room={room}"), &[], Some(from))
        .await
        .unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    send(&mut ws, &ClientMsg::Ping { id: 1 }).await;
    let start = Instant::now();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    let mut seen = Idle::default();
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Err(_) => return seen,
            Ok(Some(Ok(Message::Ping(_)))) => seen.pings += 1,
            Ok(Some(Ok(Message::Close(f)))) => {
                seen.ended = Some((start.elapsed(), format!("close {f:?}")));
                return seen;
            }
            Ok(Some(Ok(_))) => {}
            Ok(other) => {
                seen.ended = Some((start.elapsed(), format!("{other:?}")));
                return seen;
            }
        }
    }
}

/// nginx with `proxy_read_timeout` and `proxy_send_timeout` of `secs` on
/// the WebSocket location.
fn read_timeout(conf: String, secs: u32) -> String {
    let shipped = "proxy_read_timeout 60s;\n            proxy_send_timeout 60s;";
    assert!(conf.contains(shipped), "{conf}");
    conf.replace(
        shipped,
        &format!("proxy_read_timeout {secs}s;\n            proxy_send_timeout {secs}s;"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn an_idle_room_behind_nginx_with_a_30_s_read_timeout_keeps_its_players_for_3_minutes() {
    let cluster = Cluster::start_n(1, &[], |c| read_timeout(c, 30)).await;
    let nginx = &cluster.nginx.addr;
    let (a, b) = tokio::join!(
        idle(nginx, "idle", IpAddr::from([127, 8, 0, 1]), 180),
        idle(nginx, "idle", IpAddr::from([127, 8, 0, 2]), 180)
    );
    println!("3 min idle behind a 30 s proxy timeout: {a:?}, {b:?}");
    for seen in [a, b] {
        assert!(seen.ended.is_none(), "{seen:?}");
        // One Ping per 20 s.
        assert!((8..=9).contains(&seen.pings), "{seen:?}");
    }
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn scaled_down_an_idle_player_outlives_the_proxy_timeout_only_with_the_heartbeat() {
    // nginx gives up on a socket silent for 2 s; the relay pings every 0.5 s.
    let fast = ["--heartbeat-interval-ms", "500"];
    let cluster = Cluster::start_n(1, &fast, |c| read_timeout(c, 2)).await;
    let kept = idle(&cluster.nginx.addr, "idle", IpAddr::from([127, 8, 1, 1]), 8).await;
    assert!(kept.ended.is_none(), "{kept:?}");
    assert!(kept.pings >= 14, "{kept:?}");
    cluster.finish().await;
    // The control: without a Ping within the proxy's timeout, it drops.
    let off = ["--heartbeat-interval-ms", "600000"];
    let cluster = Cluster::start_n(1, &off, |c| read_timeout(c, 2)).await;
    let dropped = idle(&cluster.nginx.addr, "idle", IpAddr::from([127, 8, 1, 2]), 8).await;
    let (after, _) = dropped
        .ended
        .clone()
        .expect("nginx dropped the idle socket");
    assert!(
        (Duration::from_millis(1500)..Duration::from_secs(4)).contains(&after),
        "{dropped:?}"
    );
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_stops_answering_pings_is_closed_and_its_seat_freed_after_the_resume_grace() {
    let limits = Limits {
        heartbeat_interval: Duration::from_millis(300),
        heartbeat_timeout: Duration::from_millis(400),
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, limits)).await;
    let url = relay.ws_url("room=lobby");
    // A healthy player, reading (so answering Pings).
    let (mut healthy, _) = ws_connect(&url, &[], Some(IpAddr::from([127, 9, 0, 1])))
        .await
        .unwrap();
    send(&mut healthy, &ClientMsg::Room(RoomClientMsg::Join)).await;
    send(&mut healthy, &ClientMsg::Ping { id: 1 }).await;
    let healthy = tokio::spawn(async move {
        let end = tokio::time::Instant::now() + Duration::from_secs(3);
        let mut pings = 0;
        while let Ok(Some(Ok(m))) = tokio::time::timeout_at(end, healthy.next()).await {
            match m {
                Message::Ping(_) => pings += 1,
                Message::Close(f) => panic!("the healthy player was closed: {f:?}"),
                _ => {}
            }
        }
        // It leaves the room, saying so.
        futures_util::SinkExt::close(&mut healthy).await.unwrap();
        pings
    });
    // A peer that joins, speaks, and then never reads again (a raw socket:
    // nothing answers the Pings).
    let mut mute = tokio::net::TcpStream::connect(relay.addr).await.unwrap();
    mute.write_all(
        format!(
            "GET /ws?room=lobby HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
            relay.addr
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(mute.read_u8().await.unwrap());
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    for msg in [
        ClientMsg::Room(RoomClientMsg::Join),
        ClientMsg::Ping { id: 1 },
    ] {
        mute.write_all(&client_frame(&sim::net::codec::encode(&msg)))
            .await
            .unwrap();
    }
    let silenced = Instant::now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let players = || async {
        http(&relay.addr.to_string(), "GET /api/rooms", "", b"")
            .await
            .unwrap()
            .json()["rooms"][0]["players"]
            .as_u64()
            .unwrap()
    };
    // Closed by now (a Ping at 0.3 s unanswered by 0.7 s), its seat kept.
    let mut sent = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(1), mute.read_to_end(&mut sent)).await;
    let frames = server_frames(&sent);
    let pings = frames.iter().filter(|(op, _)| *op == 0x9).count();
    let close = frames.iter().find(|(op, _)| *op == 0x8).map(|(_, p)| {
        (
            u16::from_be_bytes([p[0], p[1]]),
            String::from_utf8_lossy(&p[2..]).into_owned(),
        )
    });
    assert!(pings >= 1, "{frames:?}");
    assert_eq!(
        close,
        Some((1001, "no answer to the relay's pings within 0.4 s".into()))
    );
    assert_eq!(players().await, 2, "the seat is kept for the resume grace");
    assert!(healthy.await.unwrap() >= 8, "the healthy player was pinged");
    // The grace (10 s) over, the seat is given up.
    tokio::time::sleep_until(tokio::time::Instant::from_std(
        silenced + relay_server::resume::GRACE + Duration::from_secs(2),
    ))
    .await;
    assert_eq!(players().await, 0, "both left: the mute one's seat freed");
    let text = http(&relay.addr.to_string(), "GET /metrics", "", b"")
        .await
        .unwrap()
        .text();
    assert!(
        text.contains("relay_sessions_ended_total{reason=\"heartbeat\"} 1"),
        "{text}"
    );
}
