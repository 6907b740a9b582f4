//! The rollback model's messages: sizes on the wire, and every check a
//! State must pass at the client end (identity, age, hash, shape).

use sim::net::codec;
use sim::rollback::endpoint::RollbackEndpointError;
use sim::rollback::wire::{IdentityError, Ids, StateMsg, MAGIC, VERSION};
use sim::rollback::{BotPlayer, RollbackConfig, RollbackServerMsg, RollbackSession, StateRejected};
use sim::NetSettings;

/// A session 2 s into bot play on a perfect link, and the frames the host
/// sends over the next two ticks (one State among them).
fn session_and_frames() -> (RollbackSession, Vec<Vec<u8>>) {
    let mut s = RollbackSession::new(
        9,
        NetSettings::symmetric(0, 0, 0),
        RollbackConfig::default(),
    )
    .unwrap();
    let mut bot = BotPlayer::new(0);
    for _ in 0..120 {
        s.step_bot(&mut bot, 1.0 / 60.0);
    }
    let later = s.now().plus_millis(34);
    let frames = s
        .host
        .poll_until(later)
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    (s, frames)
}

fn decode(f: &[u8]) -> RollbackServerMsg {
    codec::decode(f).unwrap()
}

#[test]
fn messages_are_small() {
    let (mut s, frames) = session_and_frames();
    let ack = frames
        .iter()
        .find(|f| matches!(decode(f), RollbackServerMsg::Ack(_)))
        .unwrap();
    let state = frames
        .iter()
        .find(|f| matches!(decode(f), RollbackServerMsg::State(_)))
        .unwrap();
    let RollbackServerMsg::State(msg) = decode(state) else {
        unreachable!()
    };
    let projectiles = msg.snapshot.projectiles.len();
    let up = s
        .endpoint
        .frame(s.now(), 1.0 / 60.0, sim::Vec2::new(1.0, 0.0), true);
    let inputs = up.last().unwrap();
    eprintln!(
        "bytes: Inputs ×4 {}, Ack {}, State {} with {projectiles} projectiles",
        inputs.len(),
        ack.len(),
        state.len()
    );
    // version 1 + variant 1 + ids 2+1+4+1+1 (this session id is a 4-byte
    // varint) + newest tick 2 + len 1 + 4 × 3.
    assert_eq!(inputs.len(), 26);
    // 2 + ids 9 + tick 2 + newest 1+2 + buffer 1+1 + missed 1 + late 1.
    assert_eq!(ack.len(), 19);
    // Players ≈ 20 B each, projectiles ≈ 12 B each, hash 8, 2 ticks × 2
    // players of inputs.
    assert_eq!(projectiles, 1);
    assert_eq!(state.len(), 74);
}

/// Re-encodes the first State of `frames` after `edit`, feeds it to the
/// endpoint and returns its verdict.
fn feed_edited(
    s: &mut RollbackSession,
    frames: &[Vec<u8>],
    edit: impl Fn(&mut StateMsg),
) -> Result<(), RollbackEndpointError> {
    let mut msg = frames
        .iter()
        .find_map(|f| match decode(f) {
            RollbackServerMsg::State(m) => Some(m),
            _ => None,
        })
        .unwrap();
    edit(&mut msg);
    let frame = codec::encode(&RollbackServerMsg::State(msg));
    s.endpoint.receive_frame(s.now(), &frame)
}

#[test]
fn a_state_failing_any_identity_check_is_rejected_and_counted() {
    let (mut s, frames) = session_and_frames();
    type Edit = fn(&mut Ids);
    let cases: [(Edit, IdentityError); 5] = [
        (|i| i.magic = *b"XX", IdentityError::Magic),
        (
            |i| i.version = VERSION + 1,
            IdentityError::Version(VERSION + 1),
        ),
        (|i| i.session ^= 1, IdentityError::Session),
        (|i| i.match_id -= 1, IdentityError::Match),
        (|i| i.player = 1, IdentityError::Player),
    ];
    for (edit, expected) in cases {
        let verdict = feed_edited(&mut s, &frames, |m| edit(&mut m.ids));
        assert_eq!(verdict, Err(RollbackEndpointError::Identity(expected)));
    }
    assert_eq!(s.endpoint.counters().identity_rejected, 5);
    assert_eq!(MAGIC, *b"RB");
    // The untouched State is fine.
    assert_eq!(feed_edited(&mut s, &frames, |_| {}), Ok(()));
}

#[test]
fn a_stale_corrupt_or_misshapen_state_is_rejected_and_counted() {
    let (mut s, frames) = session_and_frames();
    assert!(matches!(
        feed_edited(&mut s, &frames, |m| m.snapshot.players[0].hp -= 1),
        Err(RollbackEndpointError::State(StateRejected::BadHash { .. }))
    ));
    assert_eq!(feed_edited(&mut s, &frames, |_| {}), Ok(()));
    let before = s.endpoint.client().unwrap().counters();
    assert!(matches!(
        feed_edited(&mut s, &frames, |_| {}),
        Err(RollbackEndpointError::State(StateRejected::Stale { .. }))
    ));
    assert_eq!(
        feed_edited(&mut s, &frames, |m| m.snapshot.players.truncate(1)),
        Err(RollbackEndpointError::MalformedState)
    );
    assert_eq!(
        feed_edited(&mut s, &frames, |m| m.inputs.truncate(3)),
        Err(RollbackEndpointError::MalformedState)
    );
    let c = s.endpoint.client().unwrap().counters();
    assert_eq!(c.rejected_hash, 1);
    assert_eq!(c.rejected_stale, before.rejected_stale + 1);
    assert_eq!(s.endpoint.counters().malformed, 2);
}
