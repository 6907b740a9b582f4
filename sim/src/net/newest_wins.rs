//! Newest wins: the rule for replicated *state* (a proxy's movement, the
//! observer snapshot, what rooms replicate). Each update carries the
//! server's replication counter; an update older than or equal to the
//! last one applied is ignored and counted, so a late or duplicated packet
//! never moves anything back (UE replicates `ReplicatedMovement` as
//! properties: the newest received value is the value). The counter is
//! a wrapping `u32` compared by signed difference: ordering holds while
//! two updates are less than 2³¹ apart (at 60 Hz, over a year).

/// The receiving end of one sequenced state stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NewestWins {
    last: Option<u32>,
    stale: u64,
}

impl NewestWins {
    /// `true` (and remembered) if `seq` is newer than every update applied
    /// so far; `false` (and counted) for a late or duplicate one.
    pub fn accept(&mut self, seq: u32) -> bool {
        if self
            .last
            .is_some_and(|last| seq.wrapping_sub(last) as i32 <= 0)
        {
            self.stale += 1;
            return false;
        }
        self.last = Some(seq);
        true
    }

    /// Updates ignored as late or duplicate so far.
    pub fn stale(&self) -> u64 {
        self.stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_and_duplicate_updates_are_ignored_and_counted_across_the_wrap() {
        let mut n = NewestWins::default();
        let order = [u32::MAX - 1, u32::MAX, u32::MAX, 0, u32::MAX - 3, 2, 1, 3];
        let applied: Vec<bool> = order.iter().map(|&s| n.accept(s)).collect();
        assert_eq!(applied, [true, true, false, true, false, true, false, true]);
        assert_eq!(n.stale(), 3);
    }
}
