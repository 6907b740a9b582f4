//! The shooter's record of its shots and their **four views** — the
//! signature of lag compensation (issue #13):
//!
//! 1. what the shooter saw: every other character's drawn position when it
//!    fired (kept here);
//! 2. where the target is on the server now, 3. the boxes the server
//!    tested (rewound), 4. what the target saw at that moment — the three
//!    the server sends back ([`TargetViews`]).
//!
//! When 1 and 3 agree the shot was judged on what the shooter saw; when 4
//! is somewhere else (behind a pillar), the target was hit "around the
//! corner" on their own screen.

use super::hitbox::{HitZone, Ray};
use super::replication::PlayerId;
use super::seq::Seq;
use super::wire::{ShotResult, TargetViews};
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use std::collections::VecDeque;

/// Shots kept for the Replayed panel.
pub const SHOTS_KEPT: usize = 32;

/// What the shooter's own trace struck when it fired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalHit {
    /// Who.
    pub id: PlayerId,
    /// Head or body.
    pub zone: HitZone,
}

/// One shot as the shooter lived it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShotRecord {
    /// Its ammo action number (reloads take action numbers too: what the
    /// wire and the packet rows name).
    pub seq: Seq,
    /// This shooter's shot number, from 1, counting shots only: what the
    /// page calls it (`your shot #3`), gap-free across reloads
    /// ([`ShotLog::next_number`]).
    pub number: u32,
    /// Client time it was fired.
    pub fired_at: SimTime,
    /// The server time of the world it was aimed at.
    pub hit_time: SimTime,
    /// The ray as sent (quantized), walls applied.
    pub ray: Ray,
    /// Every other character's drawn position at the shot, by id.
    pub saw: Vec<(PlayerId, Vec2)>,
    /// What the shooter's own trace struck.
    pub local_hit: Option<LocalHit>,
    /// The server's answer, once it arrived.
    pub result: Option<ShotResult>,
}

/// The four positions of one judged shot's target, cm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShotViews {
    /// The target.
    pub id: PlayerId,
    /// 1: where the shooter drew them (`None` if it did not draw them).
    pub shooter_saw: Option<Vec2>,
    /// 2: where they are on the server as the verdict is made.
    pub server_now: Vec2,
    /// 3: the centre of the boxes the server tested.
    pub tested: Vec2,
    /// 4: where their own player saw them when the shot was fired.
    pub target_saw: Vec2,
}

impl ShotRecord {
    /// The four views, once the server judged the shot against someone.
    pub fn views(&self) -> Option<ShotViews> {
        let TargetViews {
            id,
            tested,
            server_now,
            target_saw,
        } = self.result?.target?;
        Some(ShotViews {
            id,
            shooter_saw: self.saw.iter().find(|(p, _)| *p == id).map(|&(_, at)| at),
            server_now: server_now.to_vec2(),
            tested: tested.to_vec2(),
            target_saw: target_saw.to_vec2(),
        })
    }
}

/// The newest shots.
#[derive(Debug, Clone, Default)]
pub struct ShotLog {
    shots: VecDeque<ShotRecord>,
    /// Shots pushed so far, kept or not.
    fired: u32,
}

impl ShotLog {
    /// The number the next shot takes: one past every shot fired so far
    /// (1 for the first).
    pub fn next_number(&self) -> u32 {
        self.fired + 1
    }

    /// Keeps a new shot (dropping the oldest beyond [`SHOTS_KEPT`]).
    pub fn push(&mut self, shot: ShotRecord) {
        self.fired += 1;
        if self.shots.len() == SHOTS_KEPT {
            self.shots.pop_front();
        }
        self.shots.push_back(shot);
    }

    /// Attaches the server's answer to its shot: `true` if it did; an
    /// answer for a shot no longer kept, or a repeated one, changes
    /// nothing.
    pub fn resolve(&mut self, result: ShotResult) -> bool {
        let found = (self.shots.iter_mut()).find(|s| s.seq == result.seq && s.result.is_none());
        found.map(|s| s.result = Some(result)).is_some()
    }

    /// The shots kept, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &ShotRecord> {
        self.shots.iter()
    }
}
