//! Golden runs that shoot: s&box #2931 (the boxes tested are the ones
//! drawn), etlegacy #1644 (no hit on the line across a respawn) and
//! garrysmod #4667 (a dashing target at a low net update rate and a high
//! ping: no record thrown away).

use super::{Recorder, RunOutcome, FRAME};
use crate::cmc::smoothing::SmoothingMode;
use crate::endpoints::room::endpoint::RoomEndpoint;
use crate::endpoints::room::session::RoomSession;
use crate::foundation::bot::{Bot, Waypoint};
use crate::foundation::math::Vec2;
use crate::net::settings::NetSettings;
use crate::room::config::{PlayerSettings, RoomConfig};
use crate::room::replication::PlayerId;
use crate::room::shots::ShotRecord;
use crate::room::weapon::WeaponConfig;
use crate::room::wire::Verdict;

/// Up and down x = 1000 between y = 400 and 1100 at UE's 600 cm/s walk
/// speed (dashing at the start of each leg if `dash`), in clear view of
/// the spawn.
pub fn strafer(dash: bool) -> Bot {
    let leg = |y| Waypoint {
        target: Vec2::new(1000.0, y),
        dash,
        pause: 0.0,
    };
    Bot::with_tour(vec![leg(400.0), leg(1100.0)])
}

/// A bot standing at `at` for good.
fn standing(at: Vec2) -> Bot {
    Bot::with_tour(vec![Waypoint {
        target: at,
        dash: false,
        pause: f32::MAX,
    }])
}

/// Where a shot is aimed at the body as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aim {
    /// Its centre: the head.
    Centre,
    /// [`CHEST_CM`] to the side of the centre, across the ray: the body,
    /// not the head.
    Chest,
}

/// How far off the centre a chest shot passes, cm: midway between the
/// head's 12 cm and the body's 34.
pub const CHEST_CM: f32 = 23.0;

/// What a shooting run counted, over the shots judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShotTally {
    /// Shots fired.
    pub fired: u64,
    /// Shots the server judged against someone.
    pub judged: u64,
    /// Of those, the boxes tested within 1 cm of the body drawn.
    pub within_1cm: u64,
    /// The farthest the boxes tested lay from the body drawn, 1/100 cm.
    pub worst: u64,
    /// Head or body hits.
    pub confirmed: u64,
    /// Head hits.
    pub head: u64,
    /// The shooter's own trace struck someone.
    pub saw_hit: u64,
}

impl ShotTally {
    fn count(&mut self, r: &ShotRecord, rec: &mut Recorder) {
        let Some(result) = r.result else { return };
        rec.value(u64::from(r.seq.0))
            .value(verdict_code(result.verdict));
        self.saw_hit += u64::from(r.local_hit.is_some());
        self.confirmed += u64::from(result.verdict.is_hit());
        self.head += u64::from(result.verdict == Verdict::HitHead);
        let Some(v) = r.views() else { return };
        rec.position(v.tested);
        if let Some(saw) = v.shooter_saw {
            self.judged += 1;
            let apart = ((saw - v.tested).length() * 100.0).round() as u64;
            self.within_1cm += u64::from(apart <= 100);
            self.worst = self.worst.max(apart);
        }
    }
}

/// A stable number for a verdict.
fn verdict_code(v: Verdict) -> u64 {
    match v {
        Verdict::HitHead => 1,
        Verdict::HitBody => 2,
        Verdict::Miss => 3,
        Verdict::Rejected(r) => 10 + r as u64,
    }
}

/// The shots of `me` judged since the last call, oldest first.
fn judged(s: &RoomSession, me: PlayerId, counted: &mut Vec<u32>) -> Vec<ShotRecord> {
    let Some(e) = s.endpoint(me) else {
        return Vec::new();
    };
    let new: Vec<ShotRecord> = e
        .shots()
        .iter()
        .filter(|r| r.result.is_some() && !counted.contains(&r.seq.0))
        .cloned()
        .collect();
    counted.extend(new.iter().map(|r| r.seq.0));
    new
}

/// The point `aim` picks on `target` as `me` draws it, if drawn.
fn aim_point(e: &RoomEndpoint, target: PlayerId, aim: Aim) -> Option<Vec2> {
    let drawn = e.proxies().get(target)?.drawn_position();
    let from = e.client().state().position;
    let across = (drawn - from).safe_normal();
    Some(match aim {
        Aim::Centre => drawn,
        Aim::Chest => drawn + Vec2::new(-across.y, across.x) * CHEST_CM,
    })
}

/// A player on `link` drawing with `smoothing` fires `shots` shots, one
/// per 100 ms, at `aim` on the strafing bot (dashing if `dash`); `seed`
/// seeds the room. Returns the tally and the run's fingerprint.
pub fn shoot_strafer(
    seed: u64,
    link: NetSettings,
    smoothing: SmoothingMode,
    aim: Aim,
    shots: u32,
) -> (ShotTally, u64) {
    shoot_strafer_rewinding(seed, link, smoothing, aim, shots, true)
}

/// [`shoot_strafer`] with the server's rewind for the shooter's shots on
/// or off (`003_…`: off, each shot is tested against the present).
pub fn shoot_strafer_rewinding(
    seed: u64,
    link: NetSettings,
    smoothing: SmoothingMode,
    aim: Aim,
    shots: u32,
    rewind: bool,
) -> (ShotTally, u64) {
    let config = RoomConfig {
        weapon: WeaponConfig {
            magazine: 1000,
            ..WeaponConfig::default()
        },
        ..RoomConfig::default()
    };
    let Ok(mut s) = RoomSession::new(config, seed) else {
        return (ShotTally::default(), 0);
    };
    let (Ok(me), Ok(target)) = (
        s.join(link),
        s.add_bot(strafer(false), Vec2::new(1000.0, 750.0)),
    ) else {
        return (ShotTally::default(), 0);
    };
    s.act(me, |e, _| {
        e.set_smoothing(smoothing);
        // Only a change is sent: the golden runs keep their packets.
        if !rewind {
            e.set_player_settings(PlayerSettings {
                rewind,
                ..PlayerSettings::default()
            });
        }
    });
    let (mut rec, mut tally, mut counted) = (Recorder::default(), ShotTally::default(), Vec::new());
    let still = |_: PlayerId, _: &RoomEndpoint| (Vec2::ZERO, false);
    // Four seconds to join, sync clocks and reach the strafing line; the
    // shots; a second for the last verdicts.
    for frame in 0..(240 + 6 * shots + 60) {
        if (240..240 + 6 * shots).contains(&frame) && frame % 6 == 0 {
            let fired = s.act(me, |e, now| {
                let at = aim_point(e, target, aim)?;
                e.fire(now, at).ok()
            });
            tally.fired += u64::from(fired.flatten().is_some());
        }
        s.step(FRAME, still);
        rec.frame(&s, me);
        for r in judged(&s, me, &mut counted) {
            tally.count(&r, &mut rec);
        }
    }
    (tally, rec.finish())
}

/// The tally's numbers, as a run reports them.
fn measures(t: &ShotTally) -> Vec<(&'static str, u64)> {
    vec![
        ("fired", t.fired),
        ("judged", t.judged),
        ("within_1cm", t.within_1cm),
        ("worst_hundredths_cm", t.worst),
        ("confirmed", t.confirmed),
        ("head", t.head),
    ]
}

/// s&box #2931: at RTT 100 ± 10 ms, 50 centred shots at a target
/// strafing at 600 cm/s in each smoothing mode.
pub fn sbox_2931() -> RunOutcome {
    let link = NetSettings::symmetric(100, 10, 0);
    let (mut all, mut rec) = (ShotTally::default(), Recorder::default());
    for mode in [
        SmoothingMode::Disabled,
        SmoothingMode::Linear,
        SmoothingMode::Exponential,
        SmoothingMode::Interpolation,
    ] {
        let (t, fingerprint) = shoot_strafer(2931, link, mode, Aim::Centre, 50);
        rec.value(fingerprint);
        all.fired += t.fired;
        all.judged += t.judged;
        all.within_1cm += t.within_1cm;
        all.worst = all.worst.max(t.worst);
        all.confirmed += t.confirmed;
        all.head += t.head;
    }
    RunOutcome {
        fingerprint: rec.finish(),
        measures: measures(&all),
    }
}

/// etlegacy #1644: a bot standing at (550, 250) is respawned 10 m away,
/// at (550, 1250); the shooter (RTT 100 ms, interpolation, a shot every
/// frame) fires at the body as drawn, which interpolation draws on the
/// line between the two for one update interval. None of the shots at the
/// line hits.
pub fn etlegacy_1644() -> RunOutcome {
    let config = RoomConfig {
        weapon: WeaponConfig {
            magazine: 1000,
            fire_interval_ms: 16,
            ..WeaponConfig::default()
        },
        ..RoomConfig::default()
    };
    let (a, b) = (Vec2::new(550.0, 250.0), Vec2::new(550.0, 1250.0));
    let Ok(mut s) = RoomSession::new(config, 1644) else {
        return RunOutcome::failed();
    };
    let (Ok(me), Ok(target)) = (
        s.join(NetSettings::symmetric(100, 0, 0)),
        s.add_bot(standing(a), a),
    ) else {
        return RunOutcome::failed();
    };
    s.act(me, |e, _| e.set_smoothing(SmoothingMode::Interpolation));
    let (mut rec, mut counted) = (Recorder::default(), Vec::new());
    let (mut on_line, mut hits_on_line, mut hits, mut fired) = (0, 0, 0, 0);
    let mut aimed: Vec<(u32, bool)> = Vec::new();
    let still = |_: PlayerId, _: &RoomEndpoint| (Vec2::ZERO, false);
    // A shot every frame from 3 s to 5 s, the respawn at 4 s, a second
    // for the last verdicts.
    for frame in 0..(6 * 60) {
        if frame == 4 * 60 {
            let now = s.now();
            s.host.respawn_bot(now, target, standing(b), b);
        }
        if (3 * 60..5 * 60).contains(&frame) {
            let shot = s.act(me, |e, now| {
                let at = aim_point(e, target, Aim::Centre)?;
                let on_the_line = (at - a).length() > 34.0 && (at - b).length() > 34.0;
                Some((e.fire(now, at).ok()?, on_the_line))
            });
            if let Some(Some((seq, line))) = shot {
                aimed.push((seq.0, line));
                fired += 1;
            }
        }
        s.step(FRAME, still);
        rec.frame(&s, me);
        for r in judged(&s, me, &mut counted) {
            let hit = r.result.is_some_and(|x| x.verdict.is_hit());
            let line = aimed.iter().any(|&(seq, l)| seq == r.seq.0 && l);
            on_line += u64::from(line);
            hits_on_line += u64::from(line && hit);
            hits += u64::from(hit);
            ShotTally::default().count(&r, &mut rec);
        }
    }
    RunOutcome {
        fingerprint: rec.finish(),
        measures: vec![
            ("fired", fired),
            ("hits", hits),
            ("shots_at_the_line", on_line),
            ("hits_on_the_line", hits_on_line),
        ],
    }
}

/// garrysmod #4667: a bot dashing up and down (1 800 cm/s at each leg's
/// start) seen by a shooter at RTT 200 ms with net updates at 10 Hz and
/// interpolation (rewinds of 400 ms: a 1 s cap and history). Records
/// 180 cm apart are never taken for a teleport: every shot the shooter
/// saw hit is confirmed, and no frame is marked.
pub fn garrysmod_4667() -> RunOutcome {
    let config = RoomConfig {
        weapon: WeaponConfig {
            magazine: 1000,
            ..WeaponConfig::default()
        },
        max_record_time_ms: 1000,
        ..RoomConfig::default()
    };
    let Ok(mut s) = RoomSession::new(config, 4667) else {
        return RunOutcome::failed();
    };
    let (Ok(me), Ok(target)) = (
        s.join(NetSettings::symmetric(200, 0, 0)),
        s.add_bot(strafer(true), Vec2::new(1000.0, 750.0)),
    ) else {
        return RunOutcome::failed();
    };
    s.act(me, |e, _| {
        e.set_smoothing(SmoothingMode::Interpolation);
        e.set_player_settings(PlayerSettings {
            net_update_hz: 10,
            rewind: true,
            rewind_cap_ms: 1000,
        });
    });
    let (mut rec, mut tally, mut counted) = (Recorder::default(), ShotTally::default(), Vec::new());
    let mut marked = 0;
    let still = |_: PlayerId, _: &RoomEndpoint| (Vec2::ZERO, false);
    for frame in 0..(12 * 60) {
        if (4 * 60..11 * 60).contains(&frame) && frame % 6 == 0 {
            let fired = s.act(me, |e, now| {
                let at = aim_point(e, target, Aim::Centre)?;
                e.fire(now, at).ok()
            });
            tally.fired += u64::from(fired.flatten().is_some());
        }
        s.step(FRAME, still);
        rec.frame(&s, me);
        let history = s.host.history(target);
        marked += u64::from(
            history
                .and_then(|h| h.newest())
                .is_some_and(|f| f.teleported),
        );
        for r in judged(&s, me, &mut counted) {
            tally.count(&r, &mut rec);
        }
    }
    let mut measures = measures(&tally);
    measures.extend([
        ("saw_hit", tally.saw_hit),
        ("frames_marked_teleported", marked),
    ]);
    RunOutcome {
        fingerprint: rec.finish(),
        measures,
    }
}
