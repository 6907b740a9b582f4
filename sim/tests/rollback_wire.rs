//! The rollback model's messages: sizes on the wire, and every check a
//! State must pass at the client end (identity, age, hash, shape).

use sim::net::codec;
use sim::protocol::Setup;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::rollback::predictor::RollbackEndpointError;
use sim::rollback::wire::{IdentityError, Ids, StateMsg, MAGIC, VERSION};
use sim::rollback::{
    BotPlayer, RollbackConfig, RollbackPredictor, RollbackServerMsg, StateRejected,
};
use sim::{ClientEvent, LocalSession, Model, NetSettings};

/// A session 2 s into bot play on a perfect link, and the rollback
/// messages the host sends over the next two ticks (one State among them)
/// with their frames' sizes.
fn session_and_frames() -> Window {
    session_and_all_frames().0
}

/// A session and the rollback messages of a window, with their frames'
/// sizes.
type Window = (LocalSession, Vec<(usize, RollbackServerMsg)>);

/// As [`session_and_frames`], and the first observer view of the window:
/// its size, projectiles and ticks.
fn session_and_all_frames() -> (Window, Vec<usize>) {
    let mut s = LocalSession::with_setup(
        9,
        &Setup {
            net: NetSettings::symmetric(0, 0, 0),
            model: Model::Rollback(RollbackConfig::default()),
            ..Setup::default()
        },
    );
    let mut bot = BotPlayer::new(0);
    for _ in 0..120 {
        s.step_bot_player(&mut bot, 1.0 / 60.0);
    }
    let later = s.now().plus_millis(50);
    let mut views = Vec::new();
    let frames = s
        .host
        .poll_until(later)
        .into_iter()
        .filter_map(|(_, f)| match codec::decode(&f).unwrap() {
            ServerMsg::Rollback(m) => Some((f.len(), m)),
            ServerMsg::RollbackObserver(v) => {
                views.push((f.len(), v.snapshot.projectiles.len(), v.ticks.len()));
                None
            }
            _ => None,
        })
        .collect();
    let (len, projectiles, ticks) = views[0];
    ((s, frames), vec![len, projectiles, ticks])
}

fn predictor(s: &LocalSession) -> &RollbackPredictor {
    s.endpoint.rollback().unwrap()
}

#[test]
fn the_observer_view_and_the_model_switch_are_small() {
    let (_, view) = session_and_all_frames();
    // 20 Hz, so 3 ticks at 60 Hz; one projectile in flight.
    assert_eq!(view[1..], [1, 3]);
    // 96 bytes: the link totals' resent, held and held-ms counts (issue 24)
    // take a byte each per direction while they are small.
    assert_eq!(view[0], 96);
    let set = codec::encode(&ClientMsg::SetModel(Model::Rollback(
        RollbackConfig::default(),
    )));
    let start = codec::encode(&ServerMsg::Rollback(RollbackServerMsg::Start(
        sim::rollback::wire::StartMsg {
            ids: Ids::new(u32::MAX, 1, 0),
            tick_rate: sim::rollback::TickRate::Hz60,
            snapshot: sim::rollback::Arena::new(sim::rollback::TickRate::Hz60)
                .initial(sim::rollback::Tick(0)),
        },
    )));
    // SetModel: version, variant, the model's tag and 10 settings (the
    // rollback switch and the input delay since protocol 7); Start of a
    // session id as large as it gets.
    assert_eq!((set.len(), start.len()), (13, 43));
    // A spectator's Watch of the same world (issue 22): no ids, the hash
    // 8 and the two seat masks 1+1 instead.
    let snapshot =
        sim::rollback::Arena::new(sim::rollback::TickRate::Hz60).initial(sim::rollback::Tick(0));
    let watch = codec::encode(&ServerMsg::Rollback(RollbackServerMsg::Watch(
        sim::rollback::wire::ViewMsg {
            match_id: 1,
            tick_rate: sim::rollback::TickRate::Hz60,
            hash: snapshot.state_hash().to_le_bytes(),
            snapshot,
            players: 0b01,
            bots: 0b10,
        },
    )));
    assert_eq!(watch.len(), 44);
}

#[test]
fn messages_are_small() {
    let (mut s, frames) = session_and_frames();
    let ack = frames
        .iter()
        .find(|(_, m)| matches!(m, RollbackServerMsg::Ack(_)))
        .unwrap()
        .0;
    let (state, RollbackServerMsg::State(msg)) = frames
        .iter()
        .find(|(_, m)| matches!(m, RollbackServerMsg::State(_)))
        .unwrap()
    else {
        unreachable!()
    };
    let projectiles = msg.snapshot.projectiles.len();
    let up = s
        .endpoint
        .frame(s.now(), 1.0 / 60.0, sim::Vec2::new(1.0, 0.0), false, true);
    let inputs = up
        .iter()
        .find(|f| matches!(codec::decode(f), Ok(ClientMsg::Inputs(_))))
        .unwrap();
    eprintln!(
        "bytes: Inputs ×4 {}, Ack {ack}, State {state} with {projectiles} projectiles",
        inputs.len(),
    );
    // version 1 + ClientMsg variant 1 + ids 2+1+4+1+1 (this session id is
    // a 4-byte varint) + newest tick 2 + len 1 + 4 × 3.
    assert_eq!(inputs.len(), 26);
    // 1 + ServerMsg and RollbackServerMsg variants 2 + ids 9 + tick 2 +
    // newest 1+2 + buffer 1+1 + missed 1 + late 1.
    assert_eq!(ack, 20);
    // Players ≈ 20 B each, projectiles ≈ 12 B each, hash 8, 2 ticks × 2
    // players of inputs.
    assert_eq!(projectiles, 1);
    assert_eq!(*state, 75);
}

/// Re-encodes the first State of `frames` after `edit`, feeds it to the
/// endpoint and returns its verdict.
fn feed_edited(
    s: &mut LocalSession,
    frames: &[(usize, RollbackServerMsg)],
    edit: impl Fn(&mut StateMsg),
) -> Result<(), RollbackEndpointError> {
    let mut msg = frames
        .iter()
        .find_map(|(_, m)| match m {
            RollbackServerMsg::State(m) => Some(m.clone()),
            _ => None,
        })
        .unwrap();
    edit(&mut msg);
    let frame = codec::encode(&ServerMsg::Rollback(RollbackServerMsg::State(msg)));
    match s.endpoint.receive_frame(s.now(), &frame).unwrap() {
        ClientEvent::Applied => Ok(()),
        ClientEvent::Refused(e) => Err(e),
        other => panic!("{other:?}"),
    }
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
    assert_eq!(predictor(&s).counters().identity_rejected, 5);
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
    let before = predictor(&s).client().unwrap().counters();
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
    let c = predictor(&s).client().unwrap().counters();
    assert_eq!(c.rejected_hash, 1);
    assert_eq!(c.rejected_stale, before.rejected_stale + 1);
    assert_eq!(predictor(&s).counters().malformed, 2);
}
