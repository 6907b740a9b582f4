//! Recording a CMC room and running its authority again (issue #23, the
//! room's recording): a replay gives the live host's tick hashes bit for
//! bit, a changed input changes them from its tick on, the compact form
//! round-trips and refuses bad bytes, and a what-if fork with lag
//! compensation off (`003_…` 回溯算法) turns verdicts at RTT 200 ms.

mod common;

use common::FRAME;
use sim::endpoints::room::recording::{
    RecordedEvent, RecordingError, RoomRecording, MAX_RECORDING_BYTES, ROOM_RECORDING_VERSION,
};
use sim::endpoints::room::replay::{fork, replay, RuleChange};
use sim::endpoints::room::RoomSession;
use sim::protocol::ClientMsg;
use sim::room::{PlayerId, RoomConfig, Verdict};
use sim::{NetSettings, SmoothingMode, Vec2};
use std::time::Instant;

/// [`common::rooms::duel`] with the default smoothing.
fn duel(
    shooter_link: NetSettings,
    target_link: NetSettings,
    seconds: u32,
) -> (RoomSession, PlayerId, PlayerId) {
    common::rooms::duel(shooter_link, target_link, seconds, SmoothingMode::default())
}

/// RTT 150 ms / ±10 ms / 3 % loss for the shooter, 200 ms / ±10 ms / 3 %
/// for the target.
fn lossy_duel() -> (RoomSession, PlayerId, PlayerId) {
    duel(
        NetSettings::symmetric(150, 10, 3),
        NetSettings::symmetric(200, 10, 3),
        20,
    )
}

#[test]
fn a_20_s_two_player_room_at_rtt_150_to_200_with_loss_replays_to_the_live_hashes_bit_for_bit() {
    let (s, shooter, target) = lossy_duel();
    let recording = s.host.recording().unwrap().clone();
    // 20 s of 60 Hz ticks (tick 0 at the start, the last at 20 s).
    assert_eq!(recording.tick_hashes.len(), 1201);
    assert!(!recording.truncated);
    let joins = recording
        .events
        .iter()
        .filter(|e| matches!(e, RecordedEvent::Join { .. }))
        .count();
    let settings = recording
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                RecordedEvent::Control {
                    msg: ClientMsg::SetNetSettings(_),
                    ..
                }
            )
        })
        .count();
    assert_eq!((joins, settings), (2, 2));

    let started = Instant::now();
    let out = replay(&recording).unwrap();
    let took = started.elapsed();
    assert_eq!(out.first_divergence, None);
    assert_eq!(out.tick_hashes, recording.tick_hashes);
    // The replay's verdicts are the live host's.
    let live = s.host.shot_counters(shooter).unwrap();
    let head = out
        .shots
        .iter()
        .filter(|x| x.verdict == Verdict::HitHead)
        .count() as u64;
    assert_eq!(out.shots.len() as u64, live.judged);
    assert_eq!(head, live.hit_head);
    // 53 shots from 4 s to 20 s, every one a head shot.
    assert_eq!((live.judged, live.hit_head), (53, 53), "{live:?}");
    assert!(out.shots.iter().all(|x| x.shooter == shooter));
    assert!(out.hits() > 0 && out.shots.iter().any(|x| x.target == Some(target)));

    let bytes = recording.to_bytes().unwrap();
    let back = RoomRecording::from_bytes(&bytes).unwrap();
    assert_eq!(back, recording);
    println!(
        "{} events, {} bytes: {:.0} B per player-second; replay of {:.0} s took {:.1} ms; {} shots, {} hits; {}",
        recording.events.len(),
        bytes.len(),
        bytes.len() as f64 / (2.0 * recording.seconds()),
        recording.seconds(),
        took.as_secs_f64() * 1e3,
        out.shots.len(),
        out.hits(),
        out.line(),
    );
}

#[test]
fn changing_one_recorded_move_changes_the_hashes_from_the_tick_after_it_on() {
    let (s, _, target) = lossy_duel();
    let mut recording = s.host.recording().unwrap().clone();
    // The target's first move received at or after 10 s.
    let (k, at) = recording
        .events
        .iter()
        .enumerate()
        .find_map(|(k, e)| match e {
            RecordedEvent::Poll { at, received }
                if at.0 >= 10_000_000
                    && received
                        .iter()
                        .any(|(id, m)| *id == target && matches!(m, ClientMsg::ServerMove(_))) =>
            {
                Some((k, *at))
            }
            _ => None,
        })
        .unwrap();
    let RecordedEvent::Poll { received, .. } = &mut recording.events[k] else {
        unreachable!()
    };
    for (id, m) in received.iter_mut() {
        if let (true, ClientMsg::ServerMove(m)) = (*id == target, m) {
            // Full acceleration along x instead of the strafe along y.
            m.new_move.input.accel_x = 32767;
            m.new_move.input.accel_y = 0;
            break;
        }
    }
    let out = replay(&recording).unwrap();
    // The first tick at or after the poll that delivered it: ticks before
    // it ran at their own polls, with the move not yet received.
    let tick = (0..).find(|k: &u64| k * 1_000_000 / 60 >= at.0).unwrap() as usize;
    assert!((600..=602).contains(&tick), "tick {tick}");
    assert_eq!(out.first_divergence, Some(tick));
    assert_eq!(out.tick_hashes[..tick], recording.tick_hashes[..tick]);
    assert_ne!(out.tick_hashes[tick], recording.tick_hashes[tick]);
}

#[test]
fn rewind_off_at_rtt_200_turns_hits_into_misses_and_names_each_shot() {
    let rtt200 = NetSettings::symmetric(200, 0, 0);
    let (s, _, _) = duel(rtt200, rtt200, 12);
    let recording = s.host.recording().unwrap().clone();
    let f = fork(&recording, RuleChange::RewindOff).unwrap();
    assert_eq!(f.base.first_divergence, None);
    let lines: Vec<String> = f.changes.iter().map(ToString::to_string).collect();
    println!(
        "{} of {} shots change:\n{}",
        lines.len(),
        f.base.shots.len(),
        lines.join("\n")
    );
    // 26 shots from 4 s to 12 s, every one a head shot as recorded and a
    // miss judged against the present: the target has moved on 200 ms.
    assert_eq!(
        (
            f.base.shots.len(),
            f.base.hits(),
            f.forked.hits(),
            f.changes.len()
        ),
        (26, 26, 0, 26)
    );
    assert_eq!(lines[4], "shot #5 (player 1, action 5): hit head 2 → miss");
    // A cap below the round trip refuses them as too old instead.
    let capped = fork(&recording, RuleChange::RewindCap { ms: 50 }).unwrap();
    assert_eq!(capped.changes.len(), 26);
    assert_eq!(
        capped.changes[0].to_string(),
        "shot #1 (player 1, action 1): hit head 2 → rejected: too old"
    );
    // A cap above it changes nothing.
    let wide = fork(&recording, RuleChange::RewindCap { ms: 1000 }).unwrap();
    assert_eq!(wide.changes, []);
}

#[test]
fn a_poll_at_a_ticks_floored_time_holds_that_ticks_hash() {
    // Tick 38 runs at ⌊38 · 10⁶ / 60⌋ = 633 333 µs: a poll then (a relay
    // polls at its room's wake-ups, the tick times) has run ticks 0..=38.
    let mut recording = RoomRecording {
        config: RoomConfig::default(),
        seed: 1,
        created: sim::SimTime::ZERO,
        events: vec![RecordedEvent::Poll {
            at: sim::SimTime(633_333),
            received: Vec::new(),
        }],
        tick_hashes: vec![0; 39],
        truncated: false,
    };
    assert_eq!(recording.validate(), Ok(()));
    recording.tick_hashes.push(0);
    assert_eq!(
        recording.validate(),
        Err(RecordingError::Invalid(
            "40 tick hashes for 39 ticks".into()
        ))
    );
}

#[test]
fn bad_bytes_are_refused_with_their_reason() {
    let (s, _, _) = duel(
        NetSettings::symmetric(100, 0, 0),
        NetSettings::symmetric(100, 0, 0),
        2,
    );
    let bytes = s.host.recording().unwrap().to_bytes().unwrap();
    assert_eq!(bytes[0], ROOM_RECORDING_VERSION as u8);
    let mut other = bytes.clone();
    other[0] = 9;
    assert_eq!(
        RoomRecording::from_bytes(&other),
        Err(RecordingError::UnknownVersion(9))
    );
    assert!(matches!(
        RoomRecording::from_bytes(&bytes[..bytes.len() / 2]),
        Err(RecordingError::Malformed(_))
    ));
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(matches!(
        RoomRecording::from_bytes(&trailing),
        Err(RecordingError::Malformed(_))
    ));
    let huge = vec![0u8; MAX_RECORDING_BYTES + 1];
    assert_eq!(
        RoomRecording::from_bytes(&huge),
        Err(RecordingError::TooLarge {
            len: MAX_RECORDING_BYTES + 1,
            max: MAX_RECORDING_BYTES
        })
    );
}

#[test]
fn a_recording_at_its_event_limit_stops_and_replays_as_the_shorter_room() {
    let config = RoomConfig::default();
    let mut s = RoomSession::new(config, 5).unwrap();
    s.host.record(200).unwrap();
    s.join(NetSettings::symmetric(150, 10, 3)).unwrap();
    for _ in 0..600 {
        s.step(FRAME, |_, _| (Vec2::new(1.0, 0.0), false));
    }
    let recording = s.host.recording().unwrap();
    assert!(recording.truncated);
    assert_eq!(recording.events.len(), 200);
    // Fewer ticks than the 10 s ran (85: a net update's fate is an event
    // too), each still the live host's.
    assert!(
        (50..600).contains(&recording.tick_hashes.len()),
        "{}",
        recording.tick_hashes.len()
    );
    let out = replay(recording).unwrap();
    assert_eq!(out.first_divergence, None);
    assert_eq!(out.tick_hashes.len(), recording.tick_hashes.len());
}

#[test]
fn only_a_new_room_can_be_recorded() {
    let mut s = RoomSession::new(RoomConfig::default(), 5).unwrap();
    s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
    assert_eq!(s.host.record(10), Err(RecordingError::AlreadyStarted));
    assert!(s.host.recording().is_none());
}

#[test]
fn a_recording_reaching_an_hour_past_its_room_or_naming_a_stranger_is_invalid() {
    let (s, shooter, _) = duel(
        NetSettings::symmetric(100, 0, 0),
        NetSettings::symmetric(100, 0, 0),
        2,
    );
    let recording = s.host.recording().unwrap().clone();
    let mut late = recording.clone();
    late.events.push(RecordedEvent::Poll {
        at: sim::SimTime(3_600_000_001),
        received: Vec::new(),
    });
    assert!(matches!(
        RoomRecording::from_bytes(&late.to_bytes().unwrap()),
        Err(RecordingError::Invalid(e)) if e.contains("spans 3600000001")
    ));
    let mut stranger = recording.clone();
    stranger
        .events
        .push(RecordedEvent::Leave { id: PlayerId(9) });
    assert_eq!(
        replay(&stranger).unwrap_err().to_string(),
        format!(
            "invalid room recording: event {}: no such player to leave",
            recording.events.len()
        )
    );
    // A shot from a player who is not there.
    let mut moved = recording;
    for e in &mut moved.events {
        if let RecordedEvent::Poll { received, .. } = e {
            for (id, _) in received.iter_mut() {
                if *id == shooter {
                    *id = PlayerId(7);
                }
            }
        }
    }
    assert!(matches!(replay(&moved), Err(RecordingError::Invalid(e)) if e.contains("no player")));
}

#[test]
fn a_player_sending_garbage_and_refused_settings_leaves_the_recording_replayable() {
    let config = RoomConfig::default();
    let mut s = RoomSession::new(config, 11).unwrap();
    s.host.record(1_000_000).unwrap();
    let honest = s.join(NetSettings::symmetric(150, 10, 3)).unwrap();
    let hostile = s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
    let bad_settings = sim::net::codec::encode(&ClientMsg::Room(
        sim::room::RoomClientMsg::SetPlayerSettings(sim::room::PlayerSettings {
            net_update_hz: 0,
            ..Default::default()
        }),
    ));
    for frame in 0..300 {
        if frame % 10 == 0 {
            let now = s.now();
            assert!(s.host.receive_frame(now, hostile, &[0xff; 12]).is_err());
            assert!(s.host.receive_frame(now, hostile, &bad_settings).is_err());
        }
        s.step(FRAME, |id, _| match id == honest {
            true => (Vec2::new(1.0, 0.5), false),
            false => (Vec2::new(-1.0, 0.0), false),
        });
    }
    let recording = s.host.recording().unwrap();
    // Neither the garbage nor the refused settings are in it: the two
    // players' link settings are its only controls.
    let controls = recording
        .events
        .iter()
        .filter(|e| matches!(e, RecordedEvent::Control { .. }))
        .count();
    assert_eq!(controls, 2);
    let out = replay(recording).unwrap();
    assert_eq!(out.first_divergence, None);
    assert_eq!(out.tick_hashes.len(), 301);
}
