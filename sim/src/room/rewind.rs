//! Server-side rewind: judging one shot (reference `003_…` "回溯算法":
//! `ServerSideRewind` → `GetFrameToCheck` → `ConfirmHit`).
//!
//! The shot says when the world it was aimed at left the server (its hit
//! time) and how the shooter's screen drew it from the net updates
//! ([`DrawnFrom`]). With rewind on, the server puts every other
//! character's boxes **where the shooter drew them** — rebuilt from its
//! frame history's records of the very ticks those updates carried, as
//! the client did: on the line between two of them at the hit time
//! (interpolation), or one extrapolated with its replicated velocity plus
//! the shooter's mesh offset (the mesh-offset modes) — and traces the ray
//! against them, head first, then body; the nearest character struck
//! decides. Testing the history at the hit time instead tests the
//! collision position, or a server tick the shooter never received:
//! with Exponential smoothing up to 21 cm (99th percentile) from the body
//! aimed at, turning head shots into body shots (s&box issue #2931, "off
//! by one tick"). Never across a teleport: a shot whose updates lie on
//! either side of one is tested against the history at its hit time,
//! which takes the nearer frame ([`FrameHistory`]). The mesh offset is the
//! shooter's word, capped at what smoothing can make
//! ([`MAX_SMOOTH_UPDATE_DISTANCE`]), as the hit time is, capped by the
//! rewind cap. With rewind off it traces against where everyone is now,
//! which is what the shooter saw only if nobody moved for a round trip. A hit
//! time further back than the shooter's rewind cap (250 ms by default:
//! Overwatch; Source's `sv_maxunlag` is 1 s) or than the history reaches
//! is refused as too old: past the cap, favouring the shooter would be
//! unfair to the target, who by then has long moved on.
//!
//! Nothing is moved: the boxes tested are values read from the history,
//! so the current boxes cannot be left displaced (the reference's
//! `CacheBoxPositions` / `MoveBoxes` / `ResetHitBoxes` dance).

use super::config::PlayerSettings;
use super::history::{FrameHistory, FramePackage};
use super::hitbox::HitBoxes;
use super::replication::PlayerId;
use super::weapon::RejectReason;
use super::wire::{DrawnFrom, Shot, ShotResult, TargetViews, Verdict};
use crate::cmc::proxy::MAX_EXTRAPOLATION;
use crate::cmc::smoothing::MAX_SMOOTH_UPDATE_DISTANCE;
use crate::cmc::wire::NetPosition;
use crate::foundation::interpolation::lerp_at;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;

/// One character a shot may strike.
#[derive(Debug, Clone, Copy)]
pub struct RewindTarget<'a> {
    /// Who.
    pub id: PlayerId,
    /// Their saved frames.
    pub history: &'a FrameHistory,
    /// Their boxes now.
    pub current: HitBoxes,
    /// How far their own player's view runs ahead of the server, µs (their
    /// estimated uplink trip; 0 for a bot).
    pub lead_us: u64,
}

/// What a shot is judged with.
#[derive(Debug, Clone, Copy)]
pub struct RewindRules<'a> {
    /// The shooter's rewind switch and cap.
    pub settings: PlayerSettings,
    /// How far the frame history reaches, µs (`MaxRecordTime`).
    pub max_record_us: u64,
    /// Weapon range, cm.
    pub range_cm: f32,
    /// The arena (walls stop the ray).
    pub world: &'a World,
}

/// Judges an accepted shot arriving at `now` against every other
/// character.
pub fn judge(
    shot: &Shot,
    now: SimTime,
    rules: &RewindRules,
    targets: &[RewindTarget],
) -> ShotResult {
    let age_us = now.micros_since(shot.hit_time);
    let rewind_ms = if rules.settings.rewind {
        u16::try_from(age_us / 1000).unwrap_or(u16::MAX)
    } else {
        0
    };
    let mut result = ShotResult {
        seq: shot.seq,
        verdict: Verdict::Miss,
        rewind_ms,
        target: None,
    };
    if rules.settings.rewind
        && (age_us > u64::from(rules.settings.rewind_cap_ms) * 1000 || age_us > rules.max_record_us)
    {
        result.verdict = Verdict::Rejected(RejectReason::TooOld);
        return result;
    }
    if shot.direction.to_unit().is_zero() {
        return result;
    }
    let ray = shot.ray(rules.range_cm, rules.world);
    // (boxes tested, target) for everyone the history reaches.
    let tested = targets.iter().filter_map(|t| {
        let boxes = if rules.settings.rewind {
            drawn_boxes(shot, t, rules.world)?
        } else {
            t.current
        };
        Some((boxes, t))
    });
    let mut hit: Option<(f32, Verdict, HitBoxes, &RewindTarget)> = None;
    let mut nearest_miss: Option<(f32, HitBoxes, &RewindTarget)> = None;
    for (boxes, t) in tested {
        if let Some((zone, at)) = boxes.confirm_hit(&ray) {
            if hit.is_none_or(|(best, ..)| at < best) {
                hit = Some((at, Verdict::hit(zone), boxes, t));
            }
        } else if let Some(d) = boxes.miss_distance(&ray) {
            if nearest_miss.is_none_or(|(best, ..)| d < best) {
                nearest_miss = Some((d, boxes, t));
            }
        }
    }
    let (boxes, target) = match (hit, nearest_miss) {
        (Some((_, verdict, boxes, t)), _) => {
            result.verdict = verdict;
            (boxes, t)
        }
        (None, Some((_, boxes, t))) => (boxes, t),
        (None, None) => return result,
    };
    let saw_at = shot.at.plus_micros(target.lead_us);
    let saw = target
        .history
        .frame_to_check(saw_at)
        .map_or(target.current, |(f, _)| f.boxes);
    result.target = Some(TargetViews {
        id: target.id,
        tested: NetPosition::quantize(boxes.center()),
        server_now: NetPosition::quantize(target.current.center()),
        target_saw: NetPosition::quantize(saw.center()),
    });
    result
}

/// Target `t`'s boxes where the shooter of `shot` drew them (see the
/// module doc), or, across a teleport or without the records, the
/// history at the hit time; `None` if that is older than the history.
fn drawn_boxes(shot: &Shot, t: &RewindTarget, world: &World) -> Option<HitBoxes> {
    let (hit, history) = (shot.hit_time, t.history);
    let record = |time| history.frame_to_check(time).map(|(f, _)| f);
    // What the net update of a record carried: the position quantized.
    let replicated = |f: &FramePackage| NetPosition::quantize(f.boxes.center()).to_vec2();
    let rebuilt = match &shot.drawn {
        DrawnFrom::Between { from, to } if !history.teleported_between(*from, *to) => {
            record(*from).zip(record(*to)).map(|(a, b)| {
                let (pa, pb) = (replicated(&a), replicated(&b));
                let at = pa + (pb - pa) * lerp_at(*from, *to, hit);
                HitBoxes::at(at, b.boxes.body.radius)
            })
        }
        DrawnFrom::Ahead { from, offsets } if !history.teleported_between(*from, hit) => {
            record(*from).map(|a| {
                let ahead = (hit.micros_since(*from) as f32 / 1e6).min(MAX_EXTRAPOLATION);
                let (mut at, mut velocity) = (replicated(&a), a.velocity);
                let radius = a.boxes.body.radius;
                if ahead > 0.0 {
                    at += velocity * ahead;
                    world.resolve_collisions(&mut at, &mut velocity, radius);
                }
                let offset = offsets
                    .iter()
                    .find(|m| m.id == t.id)
                    .map_or(Vec2::ZERO, |m| {
                        m.offset
                            .to_vec2()
                            .clamped_to_max_size(MAX_SMOOTH_UPDATE_DISTANCE)
                    });
                HitBoxes::at(at + offset, radius)
            })
        }
        _ => None,
    };
    rebuilt.or_else(|| record(hit).map(|f| f.boxes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::seq::Seq;
    use crate::room::wire::{MeshOffset, NetDirection, NetOffset};

    /// A target strafing right at 600 cm/s along y = 250 (the north
    /// corridor), at x = 1000 at t = 1000 ms, frames every 1/60 s up to
    /// 1500 ms.
    fn strafer() -> FrameHistory {
        let mut h = FrameHistory::default();
        for i in 0..=30u64 {
            let t = SimTime(1_000_000 + i * 1_000_000 / 60);
            let x = 1000.0 + 600.0 * (t.0 - 1_000_000) as f32 / 1e6;
            h.save(
                FramePackage {
                    velocity: Vec2::new(600.0, 0.0),
                    ..FramePackage::at(t, HitBoxes::at(Vec2::new(x, 250.0), 34.0))
                },
                400_000,
            );
        }
        h
    }

    /// A shot straight up from (`aim_x`, 330), fired 100 ms after the
    /// world it was aimed at left the server at `hit_ms`, drawn from the
    /// updates of `drawn` (the history at the hit time when `None`).
    fn shot_from(aim_x: f32, hit_ms: u64, drawn: Option<DrawnFrom>) -> Shot {
        let hit_time = SimTime::from_millis(hit_ms);
        Shot {
            seq: Seq(1),
            at: SimTime::from_millis(hit_ms + 100),
            hit_time,
            origin: NetPosition::quantize(Vec2::new(aim_x, 330.0)),
            direction: NetDirection::quantize(Vec2::new(0.0, -1.0)),
            drawn: drawn.unwrap_or(DrawnFrom::Between {
                from: hit_time,
                to: hit_time,
            }),
        }
    }

    fn shot_at(aim_x: f32, hit_ms: u64) -> Shot {
        shot_from(aim_x, hit_ms, None)
    }

    /// The centre of the boxes tested for `shot`, 100 ms after its hit
    /// time.
    fn tested(shot: &Shot, history: &FrameHistory) -> Vec2 {
        let world = World::arena();
        let target = RewindTarget {
            id: PlayerId(2),
            history,
            current: history.newest().unwrap().boxes,
            lead_us: 0,
        };
        let now = shot.hit_time.plus_millis(100);
        let r = judge(shot, now, &rules(&world, true), &[target]);
        r.target.unwrap().tested.to_vec2()
    }

    fn rules(world: &World, rewind: bool) -> RewindRules<'_> {
        RewindRules {
            settings: PlayerSettings {
                rewind,
                ..PlayerSettings::default()
            },
            max_record_us: 400_000,
            range_cm: 5000.0,
            world,
        }
    }

    #[test]
    fn a_shot_at_where_the_target_was_200_ms_ago_hits_only_with_rewind() {
        let (world, history) = (World::arena(), strafer());
        let current = history.newest().unwrap().boxes;
        let target = RewindTarget {
            id: PlayerId(2),
            history: &history,
            current,
            lead_us: 0,
        };
        // At 1300 ms the target was at x = 1180; now (1500 ms) at 1300.
        let shot = shot_at(1180.0, 1300);
        let on = judge(
            &shot,
            SimTime::from_millis(1500),
            &rules(&world, true),
            &[target],
        );
        assert_eq!((on.verdict, on.rewind_ms), (Verdict::HitHead, 200));
        let views = on.target.unwrap();
        assert_eq!(views.tested.to_vec2(), Vec2::new(1180.0, 250.0));
        assert_eq!(views.server_now.to_vec2(), Vec2::new(1300.0, 250.0));
        // Fired (claimed) at 1400 ms: a bot sees itself where it was then.
        assert_eq!(views.target_saw.to_vec2(), Vec2::new(1240.0, 250.0));
        let off = judge(
            &shot,
            SimTime::from_millis(1500),
            &rules(&world, false),
            &[target],
        );
        assert_eq!((off.verdict, off.rewind_ms), (Verdict::Miss, 0));
        assert_eq!(
            off.target.unwrap().tested.to_vec2(),
            Vec2::new(1300.0, 250.0)
        );
        // The current boxes were read, never moved.
        assert_eq!(history.newest().unwrap().boxes, current);
    }

    #[test]
    fn a_shot_older_than_the_cap_is_rejected_as_too_old() {
        let (world, history) = (World::arena(), strafer());
        let target = RewindTarget {
            id: PlayerId(2),
            history: &history,
            current: history.newest().unwrap().boxes,
            lead_us: 0,
        };
        let at_cap = judge(
            &shot_at(1150.0, 1250),
            SimTime::from_millis(1500),
            &rules(&world, true),
            &[target],
        );
        assert_eq!(at_cap.verdict, Verdict::HitHead);
        let past = judge(
            &shot_at(1149.4, 1249),
            SimTime::from_millis(1500),
            &rules(&world, true),
            &[target],
        );
        assert_eq!(past.verdict, Verdict::Rejected(RejectReason::TooOld));
        assert_eq!(past.rewind_ms, 251);
    }

    #[test]
    fn the_boxes_are_rebuilt_where_the_shooter_drew_them() {
        let history = strafer();
        // 1 ms, 1/60 s ticks: the update of tick 12 (1200 ms) is at
        // x = 1120. Extrapolated 30 ms (18 cm) with a mesh offset of
        // −12.5 cm: drawn at 1125.5.
        let t12 = SimTime(1_000_000 + 12 * 1_000_000 / 60);
        let ahead = DrawnFrom::Ahead {
            from: t12,
            offsets: vec![MeshOffset {
                id: PlayerId(2),
                offset: NetOffset::quantize(Vec2::new(-12.5, 0.0)),
            }],
        };
        let shot = Shot {
            hit_time: t12.plus_micros(30_000),
            ..shot_from(1125.5, 0, Some(ahead))
        };
        let at = tested(&shot, &history);
        assert!((at.x - 1125.5).abs() < 0.01, "{at:?}");
        // An offset no smoothing makes is cut to 256 cm.
        let far = DrawnFrom::Ahead {
            from: t12,
            offsets: vec![MeshOffset {
                id: PlayerId(2),
                offset: NetOffset::quantize(Vec2::new(-300.0, 0.0)),
            }],
        };
        let shot = Shot { drawn: far, ..shot };
        assert!((tested(&shot, &history).x - (1138.0 - 256.0)).abs() < 0.01);
        // Interpolated between the updates of ticks 12 and 15 (x 1120 and
        // 1150), a third of the way: 1130.
        let t15 = SimTime(1_000_000 + 15 * 1_000_000 / 60);
        let between = DrawnFrom::Between { from: t12, to: t15 };
        let shot = Shot {
            hit_time: t12.plus_micros(50_000 / 3),
            ..shot_from(1130.0, 0, Some(between))
        };
        assert!((tested(&shot, &history).x - 1130.0).abs() < 0.01);
    }

    #[test]
    fn a_teleport_between_two_records_is_never_hit_on_the_line_between_them() {
        // Standing at x = 1000 until 1200 ms, respawned 10 m east at 1250
        // (frames every 50 ms, as a 20 Hz update sees them).
        let mut history = FrameHistory::default();
        for i in 0..=6u64 {
            let x = if i < 5 { 1000.0 } else { 2000.0 };
            let frame = FramePackage::at(
                SimTime::from_millis(1000 + 50 * i),
                HitBoxes::at(Vec2::new(x, 250.0), 34.0),
            );
            history.save(
                FramePackage {
                    teleported: i == 5,
                    ..frame
                },
                400_000,
            );
        }
        let world = World::arena();
        let target = RewindTarget {
            id: PlayerId(2),
            history: &history,
            current: history.newest().unwrap().boxes,
            lead_us: 0,
        };
        let (from, to) = (SimTime::from_millis(1200), SimTime::from_millis(1250));
        let judged = |x: f32, ms: u64, drawn: Option<DrawnFrom>| {
            judge(
                &shot_from(x, ms, drawn),
                SimTime::from_millis(1400),
                &rules(&world, true),
                &[target],
            )
        };
        let (mut on_the_line, mut hits) = (0, 0);
        for ms in 1201..1250u64 {
            // Aimed where the line between the two records is at that
            // time, more than a body from either end; from the history at
            // the hit time, and drawn between the two updates.
            let x = 1000.0 + 20.0 * (ms - 1200) as f32;
            if x - 1000.0 <= 34.0 || 2000.0 - x <= 34.0 {
                continue;
            }
            on_the_line += 1;
            for drawn in [None, Some(DrawnFrom::Between { from, to })] {
                let r = judged(x, ms, drawn);
                hits += u32::from(r.verdict.is_hit());
                let nearer = if ms < 1225 { 1000.0 } else { 2000.0 };
                assert_eq!(r.target.unwrap().tested.to_vec2().x, nearer, "{ms} ms");
            }
        }
        assert_eq!((on_the_line, hits), (47, 0));
        // Where the nearer record stood, it is hit.
        assert!(judged(1000.0, 1210, None).verdict.is_hit());
        assert!(judged(2000.0, 1240, Some(DrawnFrom::Between { from, to }))
            .verdict
            .is_hit());
    }
}
