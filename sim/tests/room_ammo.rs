//! Predicted ammo in a room (issue #13, reference `003_…` 弹药预测): the
//! naive counter that the server's value overwrites, and the
//! sequence-number fix; shots and reloads that reach the server on a lossy
//! link, and a reload's end judged with the clock estimate's slew (issue
//! #26).

use sim::endpoints::room::reports::ammo::{
    fire_through_reloads, lossy_downlink, lossy_link, AmmoTally,
};
use sim::endpoints::room::{RoomEndpoint, RoomSession};
use sim::room::ammo::{AmmoCause, AmmoMode};
use sim::room::{PlayerId, RoomConfig};
use sim::{NetSettings, Vec2};

const FRAME: f64 = 1.0 / 60.0;

fn still(_: PlayerId, _: &RoomEndpoint) -> (Vec2, bool) {
    (Vec2::ZERO, false)
}

/// A player at RTT 200 ms fires `shots` shots 100 ms apart (6 frames),
/// reloads if asked, fires `after` more once the reload is over, and waits
/// a second. Returns the session and the player.
fn fire_at_rtt_200(
    mode: AmmoMode,
    shots: u32,
    reload: bool,
    after: u32,
) -> (RoomSession, PlayerId) {
    let mut s = RoomSession::new(RoomConfig::default(), 3).unwrap();
    let me = s.join(NetSettings::symmetric(200, 0, 0)).unwrap();
    s.act(me, |e, _| e.set_ammo_mode(mode));
    let wait = |s: &mut RoomSession, frames| {
        for _ in 0..frames {
            s.step(FRAME, still);
        }
    };
    wait(&mut s, 60);
    let volley = |s: &mut RoomSession, n| {
        for _ in 0..n {
            s.act(me, |e, now| e.fire(now, Vec2::new(2000.0, 750.0)))
                .unwrap()
                .unwrap();
            wait(s, 6);
        }
    };
    volley(&mut s, shots);
    if reload {
        s.act(me, |e, now| e.reload(now)).unwrap().unwrap();
        wait(&mut s, 90); // the 1.5 s reload
    }
    volley(&mut s, after);
    wait(&mut s, 60);
    (s, me)
}

/// The counter's changes as (from, to, caused by the server).
fn changes(s: &RoomSession, me: PlayerId) -> Vec<(u16, u16, bool)> {
    let ammo = s.endpoint(me).unwrap().ammo();
    ammo.timeline()
        .map(|c| (c.from, c.to, c.cause == AmmoCause::Server))
        .collect()
}

#[test]
fn at_rtt_200_five_shots_100_ms_apart_jump_up_naively_and_never_with_sequence_numbers() {
    let (naive, me) = fire_at_rtt_200(AmmoMode::Naive, 5, false, 0);
    // 30 → 29 → 28 → 29 → 28, the reference's "11 → 9 → 10 → 9": the
    // answer to the first shot (29) lands just as the third is fired and
    // undoes the second. From then on each answer matches the counter
    // when it lands, which is one round high, until the last one takes
    // that round back: two corrections, one of them upward.
    assert_eq!(
        changes(&naive, me),
        vec![
            (30, 29, false),
            (29, 28, false),
            (28, 29, true),
            (29, 28, false),
            (28, 27, false),
            (27, 26, false),
            (26, 25, true),
        ]
    );
    let up = naive
        .endpoint(me)
        .unwrap()
        .ammo()
        .jumps()
        .filter(|c| c.to > c.from)
        .count();
    assert_eq!(up, 1);
    let (fixed, me) = fire_at_rtt_200(AmmoMode::Sequence, 5, false, 0);
    assert_eq!(fixed.endpoint(me).unwrap().ammo().jumps().count(), 0);
    let to: Vec<u16> = changes(&fixed, me).iter().map(|c| c.1).collect();
    assert_eq!(to, vec![29, 28, 27, 26, 25]);
    // Both end at the server's value.
    for s in [&naive, &fixed] {
        assert_eq!(s.host.ammo(me), Some(25));
        assert_eq!(s.endpoint(me).unwrap().ammo().shown(), 25);
    }
}

#[test]
fn a_predicted_reload_fills_the_counter_at_once_and_the_server_agrees() {
    let (s, me) = fire_at_rtt_200(AmmoMode::Sequence, 3, true, 2);
    assert_eq!(
        changes(&s, me),
        vec![
            (30, 29, false),
            (29, 28, false),
            (28, 27, false),
            (27, 30, false),
            (30, 29, false),
            (29, 28, false),
        ]
    );
    assert_eq!(s.host.ammo(me), Some(28));
    let c = s.host.shot_counters(me).unwrap();
    assert_eq!((c.judged, c.reloads, c.reloading), (5, 1, 0), "{c:?}");
}

/// The server's changes to the counter while a player at RTT 270 ms fires
/// every 100 ms for 8 s, reloading whenever the magazine is empty, and
/// the counter and the server's ammo at the end.
fn dry_and_reload_at_rtt_270(mode: AmmoMode) -> (Vec<(u16, u16)>, u16, Option<u16>) {
    let mut s = RoomSession::new(RoomConfig::default(), 4).unwrap();
    let me = s.join(NetSettings::symmetric(270, 0, 0)).unwrap();
    s.act(me, |e, _| e.set_ammo_mode(mode));
    for frame in 0..(120 + 8 * 60 + 150) {
        s.step(FRAME, still);
        if (120..600).contains(&frame) && frame % 6 == 0 {
            s.act(me, |e, now| {
                if e.fire(now, Vec2::new(2000.0, 750.0))
                    == Err(sim::endpoints::room::FireError::Empty)
                {
                    e.reload(now).unwrap();
                }
            });
        }
    }
    let e = s.endpoint(me).unwrap();
    let jumps = e.ammo().jumps().map(|c| (c.from, c.to)).collect();
    (jumps, e.ammo().shown(), s.host.ammo(me))
}

#[test]
fn firing_dry_and_reloading_at_rtt_270_the_naive_counter_jumps_and_the_sequence_counter_stays_in_sync(
) {
    // The class of ReactiveDrop issue #738 ("Offhand counter may falsely
    // show 0", at 270 ms ping: a predicted change and the server's crossing
    // on the way). Naive: the counter goes back up by two while firing, and
    // the server's accepted reload fills it before the local reload is
    // over — twice, once per magazine.
    let (naive, shown, server) = dry_and_reload_at_rtt_270(AmmoMode::Naive);
    assert_eq!(naive, vec![(27, 29), (0, 30), (27, 29), (0, 30)]);
    assert_eq!((shown, server), (30, Some(30)));
    // Sequence numbers: no change of the server's is ever seen, and the
    // counter ends where the server is.
    let (sequence, shown, server) = dry_and_reload_at_rtt_270(AmmoMode::Sequence);
    assert_eq!(sequence, vec![]);
    assert_eq!((shown, server), (30, Some(30)));
}

/// 20 seeds of 10 s of fire held through reloads on `link`.
fn twenty_runs(link: sim::NetSettings) -> Vec<AmmoTally> {
    (0..20)
        .map(|seed| fire_through_reloads(seed, link, 10).0)
        .collect()
}

#[test]
fn at_5_percent_uplink_loss_every_shot_and_reload_arrives_once_and_the_counter_never_jumps() {
    // RTT 150 ± 30 ms, 5 % lost on the way up, 10 % reordered on the way
    // down (chickynoid #29). Sent once: 1 433 shots fired against 1 355
    // received over the 20 runs, a reload lost in one, 69 upward jumps
    // of the counter in 19.
    let runs = twenty_runs(lossy_link(5));
    for (seed, t) in runs.iter().enumerate() {
        assert_eq!(t.shots_fired, t.shots_handled, "seed {seed}: {t:?}");
        assert_eq!(t.reloads_started, t.reloads_handled, "seed {seed}: {t:?}");
        assert_eq!(t.last_action, t.handled_action, "seed {seed}: {t:?}");
        assert_eq!(t.last_action, t.shots_fired + t.reloads_started);
        assert_eq!((t.upward_jumps, t.refused_reloading), (0, 0), "seed {seed}");
    }
    let fired: u64 = runs.iter().map(|t| t.shots_fired).sum();
    let reloads: u64 = runs.iter().map(|t| t.reloads_started).sum();
    assert_eq!((fired, reloads), (1440, 40));
}

#[test]
fn the_first_shot_after_a_reload_is_never_refused() {
    // On a lossless link at RTT 150 ± 30 ms, the clock estimate slews by
    // up to 75 ms over a 1.5 s reload; with a fixed 10 ms tolerance the
    // first shot after it was refused as "reloading" in 8 of 20 runs
    // (RiseOfTheDead #875), and in 4 of 20 on the lossy link.
    for link in [sim::NetSettings::symmetric(150, 30, 0), lossy_link(5)] {
        for (seed, t) in twenty_runs(link).iter().enumerate() {
            assert_eq!(t.refused_reloading, 0, "seed {seed}: {t:?}");
            assert_eq!(t.reloads_handled, 2, "seed {seed}: {t:?}");
        }
    }
}

#[test]
fn at_20_percent_downlink_loss_every_shot_gets_its_verdict_once() {
    // Facepunch/sbox-issues#2099 (a client RPC lost at 200 ms of fake lag
    // is never made good) in a room: the verdict went once, unreliable, so
    // a lost one left the shot "waiting for the server's verdict" for
    // good — 124 of 720 shots over these 10 seeds. Now a shot waits in
    // the outbox for its verdict as for its ammo, and a repeat is
    // answered with the verdict again.
    let runs: Vec<AmmoTally> = (0..10)
        .map(|seed| fire_through_reloads(seed, lossy_downlink(20), 10).0)
        .collect();
    for (seed, t) in runs.iter().enumerate() {
        assert_eq!(t.verdicts_received, t.shots_fired, "seed {seed}: {t:?}");
        assert_eq!(t.shots_handled, t.shots_fired, "seed {seed}: {t:?}");
    }
    let fired: u64 = runs.iter().map(|t| t.shots_fired).sum();
    assert_eq!(fired, 720);
}
