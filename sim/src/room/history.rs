//! The server's frame history (reference `003_…` "延迟补偿组件":
//! `FrameHistory`, `SaveFramePackage`, `GetFrameToCheck`,
//! `InterpBetweenFrames`).
//!
//! Every server tick each character's hit boxes are saved with the server
//! time and the velocity its net update carried; frames older than
//! `MaxRecordTime` behind the newest are dropped. A shot asks for the
//! boxes at its hit time: the frame at exactly that time, or the two
//! frames around it **interpolated**, or the newest frame when the hit time
//! is later than it (a shooter whose clock runs ahead), or nothing when it
//! is older than the oldest kept (too old to rewind).
//!
//! A frame reached by a **teleport** (a respawn) is marked, and the
//! history never interpolates across it: between the last frame before
//! and the first after, the nearer of the two is tested (etlegacy's
//! antilag; Source's `LC_TELEPORTED`). The mark comes from whoever moved
//! the character, never from a distance: a distance threshold also cuts
//! honest fast movement at low tick rates (garrysmod issue #4667, Source's
//! `sv_lagcompensation_teleport_dist`), and nothing a character can do by
//! moving is a teleport here.
//! The history is read, never written, by a shot: the current boxes are
//! never moved, so there is nothing to restore (the reference moves the
//! character's boxes back and must put them back on every path).

use super::hitbox::HitBoxes;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use std::collections::VecDeque;

/// Default `MaxRecordTime`, ms: 0.4 s (`003_…` "该容器有一定时间(假设400ms)的
/// 历史数据帧").
pub const DEFAULT_MAX_RECORD_TIME_MS: u16 = 400;

/// Range of `MaxRecordTime`, ms: from 100 ms (about a 100 ms rewind) up to
/// the reference's debug setting of 4 s (`003_…` `MaxRecordTime = 4.f`).
pub const MAX_RECORD_TIME_RANGE_MS: (u16, u16) = (100, 4000);

/// One character's hit boxes at one server time (`FFramePackage`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FramePackage {
    /// Server time of the frame.
    pub time: SimTime,
    /// The hit boxes then.
    pub boxes: HitBoxes,
    /// The velocity a net update of this tick carries (whole cm/s, as
    /// replicated): what a client extrapolates the character with.
    pub velocity: Vec2,
    /// The character got here by a teleport from the frame before: never
    /// interpolated across.
    pub teleported: bool,
}

impl FramePackage {
    /// A frame of `boxes` at `time`, standing still and not teleported.
    pub fn at(time: SimTime, boxes: HitBoxes) -> FramePackage {
        FramePackage {
            time,
            boxes,
            velocity: Vec2::ZERO,
            teleported: false,
        }
    }
}

/// How [`FrameHistory::frame_to_check`] found its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameSource {
    /// A frame saved at exactly the hit time.
    Exact,
    /// Interpolated between the two frames around the hit time.
    Interpolated,
    /// The two frames around the hit time lie on either side of a
    /// teleport: the nearer of them.
    Nearer,
    /// The hit time is at or after the newest frame: the newest.
    Newest,
}

/// One character's saved frames, oldest first.
#[derive(Debug, Clone, Default)]
pub struct FrameHistory {
    frames: VecDeque<FramePackage>,
}

impl FrameHistory {
    /// Saves a frame (`SaveFramePackagePerTick`) and drops the oldest ones
    /// while the history spans more than `max_record_us` µs. A frame not
    /// later than the newest one is ignored (the server's clock only moves
    /// forward).
    pub fn save(&mut self, frame: FramePackage, max_record_us: u64) {
        if self.frames.back().is_some_and(|f| f.time >= frame.time) {
            return;
        }
        self.frames.push_back(frame);
        while self
            .frames
            .front()
            .is_some_and(|f| frame.time.micros_since(f.time) > max_record_us)
        {
            self.frames.pop_front();
        }
    }

    /// The boxes at server time `time` (`GetFrameToCheck`), or `None` if
    /// it is older than the oldest frame kept (or nothing is saved yet).
    pub fn frame_to_check(&self, time: SimTime) -> Option<(FramePackage, FrameSource)> {
        let oldest = self.frames.front()?;
        let newest = self.frames.back()?;
        if time < oldest.time {
            return None;
        }
        if time >= newest.time {
            let source = if time == newest.time {
                FrameSource::Exact
            } else {
                FrameSource::Newest
            };
            return Some((*newest, source));
        }
        // The first frame later than `time`; the one before it is not later.
        let younger = self.frames.partition_point(|f| f.time <= time);
        let (older, younger) = (self.frames[younger - 1], self.frames[younger]);
        if older.time == time {
            return Some((older, FrameSource::Exact));
        }
        if younger.teleported {
            let nearer = if time.micros_since(older.time) < younger.time.micros_since(time) {
                older
            } else {
                younger
            };
            return Some((nearer, FrameSource::Nearer));
        }
        Some((
            interp_between_frames(&older, &younger, time),
            FrameSource::Interpolated,
        ))
    }

    /// `true` if a frame later than `from` and not later than `to` was
    /// reached by a teleport: nothing between the two may be interpolated.
    pub fn teleported_between(&self, from: SimTime, to: SimTime) -> bool {
        let first = self.frames.partition_point(|f| f.time <= from);
        self.frames
            .iter()
            .skip(first)
            .take_while(|f| f.time <= to)
            .any(|f| f.teleported)
    }

    /// The newest frame.
    pub fn newest(&self) -> Option<&FramePackage> {
        self.frames.back()
    }

    /// The oldest frame.
    pub fn oldest(&self) -> Option<&FramePackage> {
        self.frames.front()
    }

    /// Number of frames kept.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// `true` before the first frame.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// `InterpBetweenFrames` (`003_…`): the boxes at `time` between `older`
/// and `younger` (`older.time <= time <= younger.time`), each centre moved
/// linearly.
pub fn interp_between_frames(
    older: &FramePackage,
    younger: &FramePackage,
    time: SimTime,
) -> FramePackage {
    let span = younger.time.micros_since(older.time);
    let alpha = if span == 0 {
        1.0
    } else {
        (time.micros_since(older.time) as f32 / span as f32).clamp(0.0, 1.0)
    };
    FramePackage {
        time,
        boxes: older.boxes.lerp(&younger.boxes, alpha),
        velocity: younger.velocity,
        teleported: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(ms: u64, x: f32) -> FramePackage {
        FramePackage::at(
            SimTime::from_millis(ms),
            HitBoxes::at(Vec2::new(x, 500.0), 34.0),
        )
    }

    fn history() -> FrameHistory {
        let mut h = FrameHistory::default();
        for i in 0..10u64 {
            // 60 Hz-ish frames every 20 ms, moving 600 cm/s: 12 cm apart.
            h.save(frame(1000 + 20 * i, 100.0 + 12.0 * i as f32), 400_000);
        }
        h
    }

    #[test]
    fn interpolating_between_two_frames_gives_the_box_in_between() {
        let h = history();
        // 1045 ms lies a quarter of the way from the 1040 frame (x = 124)
        // to the 1060 frame (x = 136).
        let (f, source) = h.frame_to_check(SimTime::from_millis(1045)).unwrap();
        assert_eq!(source, FrameSource::Interpolated);
        assert_eq!(f.boxes, HitBoxes::at(Vec2::new(127.0, 500.0), 34.0));
        assert_eq!(f.time, SimTime::from_millis(1045));
    }

    #[test]
    fn exact_newest_and_too_old_frames() {
        let h = history();
        let (f, source) = h.frame_to_check(SimTime::from_millis(1060)).unwrap();
        assert_eq!((f.boxes.center().x, source), (136.0, FrameSource::Exact));
        let (f, source) = h.frame_to_check(SimTime::from_millis(5000)).unwrap();
        assert_eq!((f.boxes.center().x, source), (208.0, FrameSource::Newest));
        assert_eq!(h.frame_to_check(SimTime::from_millis(999)), None);
    }

    #[test]
    fn frames_older_than_max_record_time_are_trimmed() {
        let mut h = FrameHistory::default();
        for i in 0..100u64 {
            h.save(frame(20 * i, 0.0), 400_000);
        }
        // The newest is at 1980 ms; frames back to 1580 ms are kept: 21.
        assert_eq!(h.len(), 21);
        assert_eq!(h.oldest().unwrap().time, SimTime::from_millis(1580));
        // A stale frame is not saved.
        h.save(frame(1000, 0.0), 400_000);
        assert_eq!(h.newest().unwrap().time, SimTime::from_millis(1980));
    }

    #[test]
    fn a_teleport_is_never_interpolated_across_the_nearer_frame_is_tested() {
        // Standing at x = 100 until 1000 ms, respawned 10 m away at 1020.
        let mut h = FrameHistory::default();
        h.save(frame(980, 100.0), 400_000);
        h.save(frame(1000, 100.0), 400_000);
        h.save(
            FramePackage {
                teleported: true,
                ..frame(1020, 1100.0)
            },
            400_000,
        );
        h.save(frame(1040, 1100.0), 400_000);
        let at = |ms| {
            let (f, source) = h.frame_to_check(SimTime::from_millis(ms)).unwrap();
            (f.boxes.center().x, source)
        };
        assert_eq!(at(1009), (100.0, FrameSource::Nearer));
        assert_eq!(at(1010), (1100.0, FrameSource::Nearer));
        assert_eq!(at(1030), (1100.0, FrameSource::Interpolated));
        assert_eq!(at(990), (100.0, FrameSource::Interpolated));
        let (ms, t) = (SimTime::from_millis, SimTime::from_millis);
        assert!(h.teleported_between(ms(1000), t(1020)));
        assert!(h.teleported_between(ms(980), t(1040)));
        assert!(!h.teleported_between(ms(1020), t(1040)));
        assert!(!h.teleported_between(ms(980), t(1000)));
    }
}
