//! The Replayed panel's memory of corrections ([`CorrectionLog`]): every
//! Adjustment the client received, grouped into bursts, so that the panel
//! keeps showing the correction that moved the character rather than the
//! redundant ones right behind it, and ◀ ▶ step through recent ones.
//!
//! With an RTT longer than the adjustment interval, every move in flight
//! when the first correction leaves the server is judged against the old
//! prediction too, so one error brings a burst: one correction that moves
//! the character, then a few that find it already fixed (residual within
//! the threshold: [`sim::CorrectionRecord::is_redundant`]). A correction
//! that moves the character opens a group; redundant ones join the group
//! before them.
//!
//! The client keeps only its last few records
//! ([`sim::cmc::client::CORRECTION_HISTORY`]) and fills a record's replayed path
//! at the tick after it arrived, so the log copies new records and refreshes
//! the ones it still sees.

use sim::CorrectionRecord;
#[cfg(test)]
use sim::TimeStamp;
use std::collections::VecDeque;

/// Groups kept for ◀ ▶.
pub const KEPT_GROUPS: usize = 24;

/// One correction as logged.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The record (its replayed path complete once the replay ran).
    pub record: CorrectionRecord,
    /// Its number among the Adjustments received (1 = the first).
    pub number: u64,
    /// Redundant on arrival (judged with the threshold then in force).
    pub redundant: bool,
}

/// A correction that moved the character (or a redundant one with nothing
/// before it) and the redundant ones that followed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The first correction of the burst.
    pub lead: Entry,
    /// The redundant ones after it.
    pub followers: Vec<Entry>,
}

impl Group {
    /// The largest residual of the followers, cm.
    pub fn followers_max_residual_cm(&self) -> f32 {
        self.followers
            .iter()
            .map(|e| e.record.residual_cm)
            .fold(0.0, f32::max)
    }
}

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub struct CorrectionLog {
    groups: VecDeque<Group>,
    /// Adjustments counted so far (the client's counter).
    seen: u64,
    /// The group ◀ ▶ picked, counted from the newest (0) — `None` follows
    /// the newest.
    pinned: Option<usize>,
}

fn same(a: &CorrectionRecord, b: &CorrectionRecord) -> bool {
    a.time_stamp == b.time_stamp && a.snap == b.snap && a.error_cm == b.error_cm
}

impl CorrectionLog {
    /// Forgets everything (a new session, cleared trails).
    pub fn clear(&mut self) {
        *self = CorrectionLog::default();
    }

    /// Takes the client's records (oldest first) and its count of
    /// Adjustments received; `threshold_cm` decides redundancy of the new
    /// ones.
    pub fn update(
        &mut self,
        records: &VecDeque<CorrectionRecord>,
        adjustments: u64,
        threshold_cm: f32,
    ) {
        if adjustments < self.seen {
            self.clear();
        }
        let new = usize::try_from(adjustments - self.seen)
            .unwrap_or(usize::MAX)
            .min(records.len());
        // Refresh the logged copies the client still holds (their replay
        // may have run since).
        let old = records.len() - new;
        for r in records.iter().take(old) {
            if let Some(e) = self.entries_mut().find(|e| same(&e.record, r)) {
                e.record = r.clone();
            }
        }
        for (i, r) in records.iter().skip(old).enumerate() {
            let number = adjustments - (new - i) as u64 + 1;
            let entry = Entry {
                record: r.clone(),
                number,
                redundant: r.is_redundant(threshold_cm),
            };
            match self.groups.back_mut() {
                Some(g) if entry.redundant => g.followers.push(entry),
                _ => {
                    self.groups.push_back(Group {
                        lead: entry,
                        followers: Vec::new(),
                    });
                    if let Some(p) = &mut self.pinned {
                        *p += 1;
                    }
                    if self.groups.len() > KEPT_GROUPS {
                        self.groups.pop_front();
                    }
                }
            }
        }
        if let Some(p) = self.pinned {
            if p >= self.groups.len() {
                self.pinned = self.groups.len().checked_sub(1);
            }
        }
        self.seen = adjustments;
    }

    fn entries_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.groups
            .iter_mut()
            .rev()
            .take(4)
            .flat_map(|g| std::iter::once(&mut g.lead).chain(g.followers.iter_mut()))
    }

    /// ◀: one group older (stays at the oldest).
    pub fn older(&mut self) {
        let last = self.groups.len().saturating_sub(1);
        self.pinned = Some(self.pinned.map_or(1, |p| p + 1).min(last));
    }

    /// ▶: one group newer; past the newest, follows the newest again.
    pub fn newer(&mut self) {
        self.pinned = match self.pinned {
            Some(p) if p > 1 => Some(p - 1),
            _ => None,
        };
    }

    /// `true` while the newest group is shown and new ones replace it.
    pub fn follows_newest(&self) -> bool {
        self.pinned.is_none()
    }

    /// The group shown, its position (1 = oldest) and how many are kept.
    pub fn shown(&self) -> Option<(&Group, usize, usize)> {
        let n = self.groups.len();
        let back = self.pinned.unwrap_or(0).min(n.checked_sub(1)?);
        let i = n - 1 - back;
        Some((&self.groups[i], i + 1, n))
    }

    /// The time stamp of every logged correction, oldest first.
    #[cfg(test)]
    fn time_stamps(&self) -> Vec<TimeStamp> {
        self.groups
            .iter()
            .flat_map(|g| std::iter::once(&g.lead).chain(&g.followers))
            .map(|e| e.record.time_stamp)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{AdjustmentReason, Vec2};

    fn record(ts: u32, residual_cm: f32) -> CorrectionRecord {
        CorrectionRecord {
            time_stamp: TimeStamp(ts),
            error_cm: residual_cm.max(20.0),
            residual_cm,
            snap: Vec2::new(ts as f32, 0.0),
            discarded: vec![Vec2::ZERO],
            replayed: vec![Vec2::ZERO],
            moves_replayed: 0,
            reason: AdjustmentReason::PositionError,
        }
    }

    /// Feeds records one by one as the client would hold them (its last
    /// eight).
    fn feed(
        log: &mut CorrectionLog,
        client: &mut VecDeque<CorrectionRecord>,
        count: &mut u64,
        r: CorrectionRecord,
    ) {
        client.push_back(r);
        if client.len() > 8 {
            client.pop_front();
        }
        *count += 1;
        log.update(client, *count, 16.0);
    }

    #[test]
    fn a_burst_keeps_showing_the_correction_that_moved_the_character() {
        let (mut log, mut client, mut n) = (CorrectionLog::default(), VecDeque::new(), 0);
        feed(&mut log, &mut client, &mut n, record(100, 48.0));
        for ts in [116, 133, 150] {
            feed(&mut log, &mut client, &mut n, record(ts, 0.4));
        }
        let (g, pos, of) = log.shown().unwrap();
        assert_eq!(
            (g.lead.record.time_stamp, g.lead.number, pos, of),
            (TimeStamp(100), 1, 1, 1)
        );
        assert_eq!(g.followers.len(), 3);
        assert!(g.followers.iter().all(|e| e.redundant));
        assert_eq!(g.followers_max_residual_cm(), 0.4);
        feed(&mut log, &mut client, &mut n, record(400, 30.0));
        let (g, pos, of) = log.shown().unwrap();
        assert_eq!(
            (g.lead.number, pos, of),
            (5, 2, 2),
            "a new error opens a group"
        );
    }

    #[test]
    fn arrows_step_through_groups_and_a_pinned_view_survives_new_ones() {
        let (mut log, mut client, mut n) = (CorrectionLog::default(), VecDeque::new(), 0);
        for ts in [100, 200, 300] {
            feed(&mut log, &mut client, &mut n, record(ts, 40.0));
        }
        log.older();
        assert_eq!(
            log.shown().unwrap().0.lead.record.time_stamp,
            TimeStamp(200)
        );
        log.older();
        log.older();
        assert_eq!(log.shown().unwrap().1, 1, "stays at the oldest");
        feed(&mut log, &mut client, &mut n, record(400, 40.0));
        assert_eq!(
            log.shown().unwrap().0.lead.record.time_stamp,
            TimeStamp(100),
            "pinned"
        );
        log.newer();
        log.newer();
        log.newer();
        assert!(log.follows_newest());
        assert_eq!(
            log.shown().unwrap().0.lead.record.time_stamp,
            TimeStamp(400)
        );
    }

    #[test]
    fn a_replay_filled_in_later_reaches_the_logged_copy() {
        let (mut log, mut client, mut n) = (CorrectionLog::default(), VecDeque::new(), 0);
        feed(&mut log, &mut client, &mut n, record(100, 40.0));
        client[0].moves_replayed = 6;
        log.update(&client, n, 16.0);
        assert_eq!(log.shown().unwrap().0.lead.record.moves_replayed, 6);
    }

    #[test]
    fn more_corrections_in_one_frame_than_the_client_keeps_are_numbered_right() {
        let mut log = CorrectionLog::default();
        let client: VecDeque<_> = (0..8).map(|i| record(100 + i * 10, 40.0)).collect();
        log.update(&client, 11, 16.0);
        let (g, pos, of) = log.shown().unwrap();
        assert_eq!((g.lead.number, pos, of), (11, 8, 8));
        assert_eq!(log.time_stamps().first(), Some(&TimeStamp(100)));
        log.update(&VecDeque::new(), 0, 16.0);
        assert!(log.shown().is_none(), "a new session starts a new log");
    }
}
