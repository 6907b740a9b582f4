//! [`Seq`]: the wrapping counters of a room — the replication counter of
//! the proxy updates and the client's ammo action numbers.

use serde::{Deserialize, Serialize};

/// A sequence number that counts up by one per item and wraps at 2³².
/// Order is defined by [`Seq::diff`] (`001_…` §9.4: a wrapping counter
/// compared with a plain `>` is a pitfall). Newest-wins state (a proxy
/// update, an ammo acknowledgement) keeps the item with the later `Seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Seq(pub u32);

impl Seq {
    /// Signed difference `self − earlier`, correct across the wrap as long
    /// as the two are less than 2³¹ apart.
    pub fn diff(self, earlier: Seq) -> i32 {
        self.0.wrapping_sub(earlier.0) as i32
    }

    /// `true` when `self` is strictly later than `other` (wrapping).
    pub fn is_after(self, other: Seq) -> bool {
        self.diff(other) > 0
    }

    /// The next number (wrapping).
    pub fn next(self) -> Seq {
        Seq(self.0.wrapping_add(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_order_survives_the_wrap() {
        let before = Seq(u32::MAX - 1);
        let after = before.next().next().next();
        assert_eq!(after, Seq(1));
        assert!(after.is_after(before));
        assert!(!before.is_after(after));
        assert!(!after.is_after(after));
        assert_eq!(after.diff(before), 3);
        assert_eq!(before.diff(after), -3);
    }
}
