//! The rollback model's Replayed panel log ([`RollbackLog`]): every rebase
//! whose re-simulation changed something — a player's position, HP or
//! hit-stun, a projectile — kept with *why* it happened, newest first on
//! screen, ◀ ▶ stepping through the last [`KEPT`]. A rebase that only
//! confirmed the prediction (the common case: every State is a rebase,
//! `001_…` §8) is counted, not kept. Pure: tested natively.
//!
//! Why a rebase changed the prediction, in the order it is decided:
//! a confirmed tick's hash disagreed (desync); the local player changed
//! and the server held or defaulted one of its inputs since the last
//! rebase (a missed input, `001_…` §5.1); the remote player (or its shots)
//! changed — its input was predicted by hold-last and was not what it did;
//! the local player alone changed for another reason.

use sim::rollback::arena::{BOT_PLAYER, CLIENT_PLAYER};
use sim::rollback::snapshot::{PlayerState, Projectile};
use sim::rollback::{RollbackMetrics, RollbackRecord, Snapshot};
use std::collections::VecDeque;

/// Rebases kept for ◀ ▶.
pub const KEPT: usize = 24;

/// Why a rebase changed the prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// A confirmed tick's recomputed hash disagreed with the server's.
    HashMismatch,
    /// The server held (or defaulted) one of the local player's inputs.
    MissedInput,
    /// The remote player did something else than hold-last predicted.
    RemoteInput,
    /// The local player's state differed for another reason.
    LocalState,
}

impl Why {
    /// The Replayed panel's words.
    pub fn label(self) -> &'static str {
        match self {
            Why::HashMismatch => "hash mismatch: a confirmed tick disagreed (desync)",
            Why::MissedInput => "a missed input: the server held your last one (hold-last)",
            Why::RemoteInput => "the bot's input was mispredicted (hold-last)",
            Why::LocalState => "your state differed from the server's",
        }
    }
}

/// One rebase that changed the prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Which rebase of the match it was (1 = the first).
    pub number: u64,
    /// The rebase: discarded ticks, restored State, re-simulated ticks.
    pub record: RollbackRecord<Snapshot>,
    /// Why it changed the prediction.
    pub why: Why,
    /// How far the local player moved on screen (old vs new prediction at
    /// the client's tick), mm.
    pub local_mm: u32,
    /// How far the remote player moved, mm.
    pub remote_mm: u32,
    /// Projectiles in flight before → after.
    pub projectiles: (usize, usize),
    /// A visible rollback (`001_…` §8: more than 16 cm, or HP / action).
    pub visible: bool,
    /// Rebases since the previous entry that only confirmed the
    /// prediction.
    pub confirmations_before: u64,
}

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct RollbackLog {
    entries: VecDeque<Entry>,
    rebases: u64,
    missed: u32,
    mismatches: u64,
    confirmations: u64,
    /// Entries back from the newest being shown; `None` follows the newest.
    back: Option<usize>,
}

impl RollbackLog {
    /// Forgets everything (a new run).
    pub fn clear(&mut self) {
        *self = RollbackLog::default();
    }

    /// Takes the predictor's read-out after a frame: when a rebase
    /// happened since the last call, `last` is it (the local player is
    /// [`CLIENT_PLAYER`], the bot [`BOT_PLAYER`]). A new match (counters
    /// back to 0) starts afresh.
    pub fn update(&mut self, last: Option<&RollbackRecord<Snapshot>>, m: &RollbackMetrics) {
        if m.rebases < self.rebases {
            self.clear();
        }
        let fresh = m.rebases > self.rebases;
        let missed = m.missed_inputs.saturating_sub(self.missed);
        let mismatches = m.hash_mismatches.saturating_sub(self.mismatches);
        self.rebases = m.rebases;
        self.missed = m.missed_inputs;
        self.mismatches = m.hash_mismatches;
        let (true, Some(record)) = (fresh, last) else {
            return;
        };
        match classify(record, missed > 0, mismatches > 0) {
            Some((why, local_mm, remote_mm, projectiles)) => {
                if self.entries.len() == KEPT {
                    self.entries.pop_front();
                }
                self.entries.push_back(Entry {
                    number: m.rebases,
                    record: record.clone(),
                    why,
                    local_mm,
                    remote_mm,
                    projectiles,
                    visible: record.divergence.is_visible(),
                    confirmations_before: self.confirmations,
                });
                self.confirmations = 0;
                if let Some(b) = &mut self.back {
                    *b = (*b + 1).min(self.entries.len() - 1);
                }
            }
            None => self.confirmations += 1,
        }
    }

    /// The entry shown, its position (1 = oldest kept) and how many are
    /// kept.
    pub fn shown(&self) -> Option<(&Entry, usize, usize)> {
        let n = self.entries.len();
        let back = self.back.unwrap_or(0).min(n.checked_sub(1)?);
        Some((&self.entries[n - 1 - back], n - back, n))
    }

    /// Rebases that only confirmed the prediction after the entry shown
    /// (until the next one, or until now for the newest).
    pub fn confirmations_after_shown(&self) -> u64 {
        let n = self.entries.len();
        match self.back.unwrap_or(0).min(n.saturating_sub(1)) {
            0 => self.confirmations,
            back => self.entries[n - back].confirmations_before,
        }
    }

    /// Rebases seen in this match.
    pub fn rebases(&self) -> u64 {
        self.rebases
    }

    /// ◀: one entry older (stays at the oldest).
    pub fn older(&mut self) {
        let n = self.entries.len();
        if n > 0 {
            self.back = Some((self.back.unwrap_or(0) + 1).min(n - 1));
        }
    }

    /// ▶: one entry newer; past the newest, follow new ones again.
    pub fn newer(&mut self) {
        self.back = match self.back {
            Some(b) if b > 1 => Some(b - 1),
            _ => None,
        };
    }

    /// `true` while the newest entry is shown as entries arrive.
    pub fn follows_newest(&self) -> bool {
        self.back.is_none()
    }
}

/// The old prediction and the re-simulated state at the client's tick.
pub fn ends(record: &RollbackRecord<Snapshot>) -> (Option<&Snapshot>, &Snapshot) {
    let new = record.resimulated.last().unwrap_or(&record.restored);
    let old = record.discarded.last().filter(|s| s.tick == new.tick);
    (old, new)
}

/// Why `record` changed the prediction, how far each player moved (mm)
/// and the projectiles before → after; `None` when it changed nothing.
fn classify(
    record: &RollbackRecord<Snapshot>,
    missed: bool,
    mismatch: bool,
) -> Option<(Why, u32, u32, (usize, usize))> {
    let (old, new) = ends(record);
    let projectiles = (
        old.map_or(0, |o| o.projectiles.len()),
        new.projectiles.len(),
    );
    let Some(old) = old else {
        // The old prediction fell out of the history: assume it changed.
        let local = record.divergence.position_mm;
        return Some((Why::LocalState, local, 0, projectiles));
    };
    let (local, remote) = (CLIENT_PLAYER, BOT_PLAYER);
    let player_changed = |p: usize| match (old.players.get(p), new.players.get(p)) {
        (Some(a), Some(b)) => {
            distance_mm(a, b) > 0
                || a.hp != b.hp
                || a.stun != b.stun
                || shots(old, p) != shots(new, p)
        }
        _ => true,
    };
    let local_changed = player_changed(local);
    let remote_changed = player_changed(remote);
    if !(local_changed || remote_changed || mismatch) {
        return None;
    }
    let why = if mismatch {
        Why::HashMismatch
    } else if local_changed && missed {
        Why::MissedInput
    } else if remote_changed {
        Why::RemoteInput
    } else {
        Why::LocalState
    };
    let moved = |p: usize| match (old.players.get(p), new.players.get(p)) {
        (Some(a), Some(b)) => distance_mm(a, b),
        _ => 0,
    };
    Some((why, moved(local), moved(remote), projectiles))
}

fn distance_mm(a: &PlayerState, b: &PlayerState) -> u32 {
    (a.position.distance_sq(b.position) as f64).sqrt().round() as u32
}

/// The projectiles player `p` has in flight, in firing order.
fn shots(s: &Snapshot, p: usize) -> Vec<&Projectile> {
    s.projectiles
        .iter()
        .filter(|q| usize::from(q.owner) == p)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::rollback::snapshot::MmVec;
    use sim::rollback::{Divergence, Tick};

    fn snap(tick: u32, local_x: i32, remote_x: i32, shots: usize) -> Snapshot {
        let player = |x| PlayerState {
            position: MmVec { x, y: 7500 },
            hp: 100,
            ..PlayerState::default()
        };
        Snapshot {
            tick: Tick(tick),
            players: vec![player(local_x), player(remote_x)],
            projectiles: (0..shots)
                .map(|i| Projectile {
                    owner: 1,
                    position: MmVec {
                        x: 1000 * i as i32,
                        y: 0,
                    },
                    velocity: MmVec { x: 250, y: 0 },
                    life: 60,
                })
                .collect(),
        }
    }

    /// A rebase from tick 10 to 14 whose prediction at 14 was `old` and
    /// is now `new`.
    fn record(old: Snapshot, new: Snapshot, local_mm: u32) -> RollbackRecord<Snapshot> {
        RollbackRecord {
            from: Tick(10),
            to: Tick(14),
            discarded: vec![snap(10, 0, 0, 0), old],
            restored: snap(10, 0, 0, 0),
            resimulated: vec![new],
            divergence: Divergence {
                position_mm: local_mm,
                discrete: false,
            },
        }
    }

    fn metrics(rebases: u64, missed: u32, mismatches: u64) -> RollbackMetrics {
        RollbackMetrics {
            rebases,
            missed_inputs: missed,
            hash_mismatches: mismatches,
            ..RollbackMetrics::default()
        }
    }

    #[test]
    fn a_rebase_that_confirms_the_prediction_is_counted_not_kept() {
        let mut log = RollbackLog::default();
        let same = record(snap(14, 500, 900, 1), snap(14, 500, 900, 1), 0);
        log.update(Some(&same), &metrics(1, 0, 0));
        log.update(Some(&same), &metrics(2, 0, 0));
        assert!(log.shown().is_none());
        assert_eq!(log.confirmations_after_shown(), 2);
    }

    #[test]
    fn the_bot_starting_to_fire_is_a_remote_misprediction() {
        let mut log = RollbackLog::default();
        let r = record(snap(14, 500, 900, 0), snap(14, 500, 900, 1), 0);
        log.update(Some(&r), &metrics(7, 0, 0));
        let (e, i, n) = log.shown().unwrap();
        assert_eq!((i, n, e.number), (1, 1, 7));
        assert_eq!(e.why, Why::RemoteInput);
        assert_eq!(e.projectiles, (0, 1));
        assert!(!e.visible);
    }

    #[test]
    fn a_held_input_that_moved_the_local_player_is_a_missed_input() {
        let mut log = RollbackLog::default();
        log.update(None, &metrics(3, 2, 0));
        let r = record(snap(14, 500, 900, 0), snap(14, 2300, 900, 0), 1800);
        log.update(Some(&r), &metrics(4, 3, 0));
        let (e, _, _) = log.shown().unwrap();
        assert_eq!(e.why, Why::MissedInput);
        assert_eq!((e.local_mm, e.remote_mm), (1800, 0));
        assert!(e.visible, "1.8 m is above 16 cm");
        // The same move with no new missed input is the local state alone.
        let r = record(snap(14, 500, 900, 0), snap(14, 600, 900, 0), 100);
        log.update(Some(&r), &metrics(5, 3, 0));
        assert_eq!(log.shown().unwrap().0.why, Why::LocalState);
    }

    #[test]
    fn a_hash_mismatch_is_named_first() {
        let mut log = RollbackLog::default();
        let same = record(snap(14, 500, 900, 0), snap(14, 500, 900, 0), 0);
        log.update(Some(&same), &metrics(1, 0, 1));
        assert_eq!(log.shown().unwrap().0.why, Why::HashMismatch);
    }

    #[test]
    fn stepping_back_holds_its_place_as_new_entries_arrive() {
        let mut log = RollbackLog::default();
        let moved = |x: i32| record(snap(14, 500, 900, 0), snap(14, 500, x, 0), 0);
        let same = record(snap(14, 500, 900, 0), snap(14, 500, 900, 0), 0);
        log.update(Some(&moved(901)), &metrics(1, 0, 0));
        log.update(Some(&moved(902)), &metrics(2, 0, 0));
        log.update(Some(&same), &metrics(3, 0, 0));
        log.update(Some(&moved(904)), &metrics(4, 0, 0));
        assert_eq!(log.confirmations_after_shown(), 0);
        log.older();
        assert_eq!(log.shown().unwrap().0.number, 2);
        assert_eq!(log.confirmations_after_shown(), 1, "rebase 3 confirmed");
        log.update(Some(&moved(999)), &metrics(5, 0, 0));
        assert_eq!(log.shown().unwrap().0.number, 2, "still the one chosen");
        log.newer();
        log.newer();
        assert!(log.follows_newest());
        assert_eq!(log.shown().unwrap().0.number, 5);
        // A new match starts afresh.
        log.update(None, &metrics(1, 0, 0));
        assert!(log.shown().is_none());
    }
}
