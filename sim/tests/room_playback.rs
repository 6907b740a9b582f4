//! A room recording played back for the page (issue 23,
//! `sim::endpoints::room::playback`): the golden duel
//! (`scenarios/rooms/duel-150-200ms-3pct.json`: a shooter at RTT 150 ms
//! firing every 300 ms at a strafer at RTT 200 ms, 3 % loss each) gives
//! the same hashes and verdicts as its replay, one body frame per tick,
//! each seat's link, and each shot's ray and the server's views of its
//! target.

mod common;

use common::scenarios_dir;
use sim::endpoints::room::playback::{play, RoomPlayback};
use sim::endpoints::room::recording::RoomRecordingFile;
use sim::foundation::movement::MovementParams;
use sim::room::hitbox::HitBoxes;
use sim::room::PlayerId;
use sim::SimTime;

fn duel() -> (RoomRecordingFile, RoomPlayback) {
    let path = scenarios_dir().join("rooms/duel-150-200ms-3pct.json");
    let file = RoomRecordingFile::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    let playback = play(&file.recording().unwrap()).unwrap();
    (file, playback)
}

#[test]
fn a_playback_is_the_replay_with_one_body_frame_per_tick() {
    let (file, p) = duel();
    assert!(p.identical());
    assert_eq!(p.outcome.line(), file.replay);
    assert_eq!(p.ticks.len(), 721);
    assert_eq!(p.span(), (SimTime::ZERO, SimTime::from_millis(12_000)));
    // Both players in every frame, by id.
    assert!(p
        .ticks
        .iter()
        .all(|k| k.bodies.iter().map(|b| b.0 .0).eq([1, 2])));
    // A seek lands on the newest tick at or before the time.
    let k = p.tick_at(SimTime::from_millis(1_010)).unwrap();
    assert_eq!(k.at, SimTime::from_millis(1_000));
    assert_eq!(p.tick_at(SimTime::ZERO).unwrap().at, SimTime::ZERO);
    assert_eq!(p.shots_until(SimTime::from_millis(4_000)).len(), 0);
    assert_eq!(p.shots_until(SimTime::from_millis(12_000)).len(), 26);
}

#[test]
fn each_seat_has_the_link_its_player_set() {
    let (_, p) = duel();
    let rtt = |i: usize, t: u64| {
        p.seats[i]
            .link_at(SimTime::ZERO.plus_micros(t))
            .map(|s| s.rtt_ms())
    };
    assert_eq!(p.seats.len(), 2);
    assert!(p.seats.iter().all(|s| !s.bot));
    // The room's default (RTT 100 ms) until each set theirs at the first
    // tick after joining, 16.667 ms.
    assert_eq!((rtt(0, 0), rtt(1, 0)), (Some(100), Some(100)));
    assert_eq!((rtt(0, 20_000), rtt(1, 20_000)), (Some(150), Some(200)));
}

#[test]
fn every_shot_hits_the_rewound_boxes_along_its_ray_and_misses_the_present() {
    let (file, p) = duel();
    let recording = file.recording().unwrap();
    let (radius, range) = (
        MovementParams::default().radius,
        f32::from(recording.config.weapon.range_cm),
    );
    let world = sim::World::arena();
    let mut missed_present = 0;
    let mut rewinds = Vec::new();
    for (k, s) in p.shots.iter().enumerate() {
        assert_eq!(s.number, k + 1, "one shooter's shots, numbered from 1");
        assert_eq!(s.judged.shooter, PlayerId(1));
        assert_eq!(s.judged.seq, s.detail.shot.seq);
        let target = s
            .detail
            .result
            .target
            .expect("every shot was judged against P2");
        assert_eq!(target.id, PlayerId(2));
        let ray = s.detail.shot.ray(range, &world);
        assert!(
            HitBoxes::at(target.tested.to_vec2(), radius)
                .confirm_hit(&ray)
                .is_some(),
            "shot #{}: its ray meets the boxes the server tested",
            s.number
        );
        rewinds.push(s.detail.result.rewind_ms);
        missed_present += usize::from(
            HitBoxes::at(target.server_now.to_vec2(), radius)
                .confirm_hit(&ray)
                .is_none(),
        );
    }
    rewinds.sort_unstable();
    // Rewound about the shooter's one-way trip plus the 100 ms the
    // shooter draws the others in the past (jitter ±10 ms each way).
    assert_eq!((rewinds[0], rewinds[25]), (137, 165));
    // Against the present every one of these head shots at a strafer
    // misses: the rewind is what made them hits.
    assert_eq!(missed_present, 26);
}

#[test]
fn the_sample_brawl_plays_back_identically_with_shots_from_every_seat() {
    let recording = sim::endpoints::room::sample::brawl(8);
    let p = play(&recording).unwrap();
    assert!(p.identical());
    assert_eq!(p.ticks.len(), 8 * 60 + 1);
    assert_eq!(p.seats.len(), 4);
    let shooters: std::collections::BTreeSet<u32> =
        p.shots.iter().map(|s| s.judged.shooter.0).collect();
    assert_eq!(shooters.into_iter().collect::<Vec<_>>(), [1, 2, 3, 4]);
    // 2.5 shots a second from each of 4 seats over the last 6 s, every one
    // judged a hit on the rewound boxes.
    assert_eq!((p.shots.len(), p.outcome.hits()), (60, 60));
}
