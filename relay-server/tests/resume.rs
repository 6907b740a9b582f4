//! Reconnect (issue #7, reference `003_…` §六 断线重连): a client whose
//! socket drops and that comes back within the grace period with its
//! token resumes its character and the server's state; a wrong or used
//! token is refused with a reason.

mod common;

use common::*;

use futures_util::SinkExt;
use sim::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::Vec2;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// Running right: the server corrects whatever we claim; only its state
/// matters here.
fn run_right(ts: u32) -> Vec<u8> {
    server_move(ts, Vec2::new(1.0, 0.0), Vec2::ZERO)
}

/// The last observer snapshot's player x and simulated-move total.
fn observed(msgs: &[ServerMsg]) -> Option<(f32, u32)> {
    msgs.iter().rev().find_map(|m| match m {
        ServerMsg::Observer(s) => Some((s.player.position.x, s.totals.moves)),
        _ => None,
    })
}

#[tokio::test]
async fn a_dropped_client_resumes_its_character_with_its_token() {
    let relay = start().await;
    let (mut a, _) = (connect(&relay).await, ());
    send(&mut a, &ClientMsg::Hello).await;
    let hello = drain(&mut a, 100).await;
    let spawn_x = hello
        .iter()
        .find_map(|m| match m {
            ServerMsg::Welcome { world, .. } => Some(world.spawn.x),
            _ => None,
        })
        .expect("Welcome");
    let (token, grace_ms) = hello
        .iter()
        .find_map(|m| match m {
            ServerMsg::SessionToken { token, grace_ms } => Some((*token, *grace_ms)),
            _ => None,
        })
        .expect("a SessionToken after the Welcome");
    assert_eq!(grace_ms, 10_000);
    assert_eq!(
        format!("{token:?}"),
        "ResumeToken(…)",
        "the token never shows in logs"
    );

    // Run right for 0.5 s of client time.
    for i in 1..=30u32 {
        a.send(Message::Binary(run_right(i * 16).into()))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (x_before, moves_before) = observed(&drain(&mut a, 300).await).unwrap();
    assert!(x_before > spawn_x + 50.0, "{x_before} vs spawn {spawn_x}");
    assert_eq!(moves_before, 30);
    // The socket drops without a close handshake.
    drop(a);
    tokio::time::sleep(Duration::from_millis(200)).await;

    // A wrong token is refused with a reason.
    let (mut c, _) = (connect(&relay).await, ());
    send(
        &mut c,
        &ClientMsg::Resume {
            token: ResumeToken([7; 16]),
        },
    )
    .await;
    let refused = drain(&mut c, 150).await;
    assert!(
        refused
            .iter()
            .any(|m| matches!(m, ServerMsg::Error { reason } if reason.contains("resume failed"))),
        "{refused:?}"
    );
    assert!(!refused
        .iter()
        .any(|m| matches!(m, ServerMsg::Welcome { .. })));

    // The right one resumes: same character, same counters, a new token.
    let (mut b, _) = (connect(&relay).await, ());
    send(&mut b, &ClientMsg::Resume { token }).await;
    let back = drain(&mut b, 150).await;
    assert!(back.iter().any(|m| matches!(m, ServerMsg::Welcome { .. })));
    let new_token = back
        .iter()
        .find_map(|m| match m {
            ServerMsg::SessionToken { token, .. } => Some(*token),
            _ => None,
        })
        .expect("a new token");
    assert_ne!(new_token, token);
    let (x_after, moves_after) = observed(&back).unwrap();
    // Not back at spawn; the server moved the silent client on for at most
    // 1 s at the last input (UE forced position updates, `000_…` §9.5).
    assert!(x_after > spawn_x + 50.0, "{x_after}: reset to spawn?");
    assert!(
        (x_after - x_before).abs() <= 601.0,
        "{x_after} vs {x_before}"
    );
    assert_eq!(moves_after, 30, "the server's counters carried over");
    // Moves go on from where the client was, its clock having run on
    // during the drop: the server has moved the silent client's time stamp
    // on by what it simulated (≤ 1 s), so older moves would be stale.
    for i in 31..=40u32 {
        b.send(Message::Binary(run_right(1500 + i * 16).into()))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (x_later, moves_later) = observed(&drain(&mut b, 300).await).unwrap();
    assert_eq!(moves_later, 40);
    assert!(x_later > x_after);

    // A token is good once.
    let (mut d, _) = (connect(&relay).await, ());
    send(&mut d, &ClientMsg::Resume { token }).await;
    assert!(drain(&mut d, 150)
        .await
        .iter()
        .any(|m| matches!(m, ServerMsg::Error { reason } if reason.contains("resume failed"))));
}
