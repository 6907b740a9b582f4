//! The relay over a real socket on port 0, with a tokio-tungstenite client.

mod common;

use common::*;

use futures_util::SinkExt;
use sim::cmc::wire::MoveResponse;
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::Vec2;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn handshake_moves_acks_and_a_malformed_frame_does_not_end_the_session() {
    let relay = start().await;
    let mut ws = connect(&relay).await;
    ws.send(Message::Binary(codec::encode(&ClientMsg::Hello).into()))
        .await
        .unwrap();
    let msgs = drain(&mut ws, 100).await;
    let spawn = match msgs.iter().find(|m| matches!(m, ServerMsg::Welcome { .. })) {
        Some(ServerMsg::Welcome { world, .. }) => world.spawn,
        _ => panic!("no Welcome in {msgs:?}"),
    };

    // Standing still at spawn for 0.5 s of client time: every move is good.
    let mut acks = Vec::new();
    for i in 1..=30u32 {
        ws.send(Message::Binary(
            server_move(i * 16, Vec2::ZERO, spawn).into(),
        ))
        .await
        .unwrap();
        for m in drain(&mut ws, 16).await {
            if let ServerMsg::MoveResponse(MoveResponse::Ack { time_stamp }) = m {
                acks.push(time_stamp.0);
            }
        }
    }
    // Default RTT 100 ms: acks trail the moves by ~100 ms; at most one per
    // 0.10 s.
    acks.extend(
        drain(&mut ws, 300)
            .await
            .into_iter()
            .filter_map(|m| match m {
                ServerMsg::MoveResponse(MoveResponse::Ack { time_stamp }) => Some(time_stamp.0),
                _ => None,
            }),
    );
    assert!(acks.len() >= 3 && acks.len() <= 6, "acks {acks:?}");
    assert!(acks.windows(2).all(|w| w[1] > w[0]));

    // Garbage: an Error with a reason, and the session goes on.
    ws.send(Message::Binary(
        vec![sim::protocol::PROTOCOL_VERSION, 0xff, 0xff].into(),
    ))
    .await
    .unwrap();
    ws.send(Message::Binary(vec![42].into())).await.unwrap();
    ws.send(Message::Text("hello".into())).await.unwrap();
    let errors: Vec<String> = drain(&mut ws, 100)
        .await
        .into_iter()
        .filter_map(|m| match m {
            ServerMsg::Error { reason } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].contains("malformed"), "{}", errors[0]);
    assert!(errors[1].contains("version 42"), "{}", errors[1]);
    assert!(errors[2].contains("text frames"), "{}", errors[2]);

    // The client's clock ran on while it was quiet (a real page's does):
    // the server has moved the silent client's time stamp on by what it
    // simulated for it (≤ 1 s), so moves from before that would be stale.
    for i in 31..=45u32 {
        ws.send(Message::Binary(
            server_move(1500 + i * 16, Vec2::ZERO, spawn).into(),
        ))
        .await
        .unwrap();
    }
    let later = drain(&mut ws, 400).await;
    assert!(
        later.iter().any(|m| matches!(m, ServerMsg::MoveResponse(MoveResponse::Ack { time_stamp }) if time_stamp.0 > 480)),
        "no ack after the bad frames: {later:?}"
    );
}

#[tokio::test]
async fn settings_change_reaches_the_conditioner_and_bad_settings_are_refused() {
    use sim::NetSettings;
    let relay = start().await;
    let mut ws = connect(&relay).await;
    ws.send(Message::Binary(codec::encode(&ClientMsg::Hello).into()))
        .await
        .unwrap();
    let bad = NetSettings::symmetric(100, 0, 90);
    ws.send(Message::Binary(
        codec::encode(&ClientMsg::SetNetSettings(bad)).into(),
    ))
    .await
    .unwrap();
    let zero = NetSettings::symmetric(0, 0, 0);
    ws.send(Message::Binary(
        codec::encode(&ClientMsg::SetNetSettings(zero)).into(),
    ))
    .await
    .unwrap();
    let msgs = drain(&mut ws, 100).await;
    assert!(msgs.iter().any(|m| matches!(m, ServerMsg::Error { reason } if reason.contains("uplink.loss_tenth_percent = 900 is outside 0–500"))));
    // RTT 0: a ping comes straight back.
    let t = std::time::Instant::now();
    ws.send(Message::Binary(
        codec::encode(&ClientMsg::Ping { id: 9 }).into(),
    ))
    .await
    .unwrap();
    loop {
        let m = drain(&mut ws, 50).await;
        if m.iter().any(|m| matches!(m, ServerMsg::Pong { id: 9, .. })) {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(2), "no pong");
    }
    assert!(
        t.elapsed() < Duration::from_millis(60),
        "pong took {:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn ping_rtt_matches_the_configured_rtt() {
    let relay = start().await;
    let mut ws = connect(&relay).await;
    ws.send(Message::Binary(codec::encode(&ClientMsg::Hello).into()))
        .await
        .unwrap();
    drain(&mut ws, 50).await;
    let mut rtts = Vec::new();
    for id in 1..=5u32 {
        let t = std::time::Instant::now();
        ws.send(Message::Binary(
            codec::encode(&ClientMsg::Ping { id }).into(),
        ))
        .await
        .unwrap();
        loop {
            let m = drain(&mut ws, 5).await;
            if m.iter()
                .any(|m| matches!(m, ServerMsg::Pong { id: p, .. } if *p == id))
            {
                break;
            }
            assert!(t.elapsed() < Duration::from_secs(2), "no pong");
        }
        rtts.push(t.elapsed().as_millis());
    }
    // Default RTT 100 ms: 50 ms each way through the conditioner. The
    // median is what the relay adds on a quiet machine (Nagle's 40 ms would
    // show here); single samples may wait for a busy CPU.
    rtts.sort_unstable();
    assert!(rtts.iter().all(|&r| r >= 100), "{rtts:?}");
    assert!(rtts[2] <= 115, "median of {rtts:?}");
}

/// A client that goes quiet (a hidden tab) stops getting the net update
/// streams 1 s after its last frame; its next frame brings them back.
#[tokio::test]
async fn a_quiet_client_stops_getting_net_updates_until_it_sends() {
    let relay = start().await;
    let mut ws = connect(&relay).await;
    send(&mut ws, &ClientMsg::Hello).await;
    let snapshots = |msgs: &[ServerMsg]| {
        msgs.iter()
            .filter(|m| matches!(m, ServerMsg::Observer(_)))
            .count()
    };
    // 20 Hz while the Hello is less than 1 s old (timing slack both ways).
    let first = drain(&mut ws, 1500).await;
    assert!(
        (15..=21).contains(&snapshots(&first)),
        "{} snapshots in the first 1.5 s",
        snapshots(&first)
    );
    assert_eq!(snapshots(&drain(&mut ws, 1000).await), 0, "still streaming");
    send(&mut ws, &ClientMsg::Ping { id: 1 }).await;
    let back = drain(&mut ws, 500).await;
    assert!(
        snapshots(&back) >= 8,
        "{} snapshots in 0.5 s after the Ping",
        snapshots(&back)
    );
}
