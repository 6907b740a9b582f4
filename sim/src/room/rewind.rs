//! Server-side rewind: judging one shot (reference `003_…` "回溯算法":
//! `ServerSideRewind` → `GetFrameToCheck` → `ConfirmHit`).
//!
//! The shot says when the world it was aimed at left the server (its hit
//! time, from clock sync). With rewind on, the server takes every other
//! character's boxes **at that time** from their frame history —
//! interpolated between the two frames around it — and traces the ray
//! against them, head first, then body; the nearest character struck
//! decides. With rewind off it traces against where everyone is now, which
//! is what the shooter saw only if nobody moved for a round trip. A hit
//! time further back than the shooter's rewind cap (250 ms by default:
//! Overwatch; Source's `sv_maxunlag` is 1 s) or than the history reaches
//! is refused as too old: past the cap, favouring the shooter would be
//! unfair to the target, who by then has long moved on.
//!
//! Nothing is moved: the boxes tested are values read from the history,
//! so the current boxes cannot be left displaced (the reference's
//! `CacheBoxPositions` / `MoveBoxes` / `ResetHitBoxes` dance).

use super::config::PlayerSettings;
use super::history::FrameHistory;
use super::hitbox::{HitBoxes, Ray};
use super::wire::{PlayerId, RejectReason, Shot, ShotResult, TargetViews, Verdict};
use crate::net::protocol::NetPosition;
use crate::time::SimTime;
use crate::world::World;

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
    let direction = shot.direction.to_unit();
    if direction.is_zero() {
        return result;
    }
    let ray = Ray {
        origin: shot.origin.to_vec2(),
        direction,
        length: rules.range_cm,
    }
    .stopped_by_walls(rules.world);
    // (boxes tested, target) for everyone the history reaches.
    let tested = targets.iter().filter_map(|t| {
        let boxes = if rules.settings.rewind {
            t.history.frame_to_check(shot.hit_time)?.0.boxes
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec2;
    use crate::room::history::FramePackage;
    use crate::room::seq::Seq;
    use crate::room::wire::NetDirection;

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
                    time: t,
                    boxes: HitBoxes::at(Vec2::new(x, 250.0), 34.0),
                },
                400_000,
            );
        }
        h
    }

    /// A shot straight up from (`aim_x`, 500), fired 100 ms after the
    /// world it was aimed at left the server at `hit_ms`.
    fn shot_at(aim_x: f32, hit_ms: u64) -> Shot {
        Shot {
            seq: Seq(1),
            at: SimTime::from_millis(hit_ms + 100),
            hit_time: SimTime::from_millis(hit_ms),
            origin: NetPosition::quantize(Vec2::new(aim_x, 500.0)),
            direction: NetDirection::quantize(Vec2::new(0.0, -1.0)),
        }
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
}
