//! The cap on open WebSocket sessions per client IP address (issue #7
//! "a cap on connections per client address").
//!
//! A [`Permit`] is taken before the upgrade and held by the session task;
//! dropping it (the session ending, however it ends) gives the slot back.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// Open sessions per address. The map holds only addresses with at least
/// one session, so it is bounded by the number of open sessions.
#[derive(Debug, Default)]
pub(crate) struct AddrCap {
    max: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One session's slot; returned on drop.
#[derive(Debug)]
pub(crate) struct Permit {
    cap: Arc<AddrCap>,
    addr: IpAddr,
}

impl AddrCap {
    /// At most `max` sessions per address; `0` = unlimited.
    pub(crate) fn new(max: usize) -> AddrCap {
        AddrCap {
            max,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// A slot for `addr`, or `None` when it already has `max` sessions.
    pub(crate) fn try_acquire(self: &Arc<Self>, addr: IpAddr) -> Option<Permit> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(addr).or_insert(0);
        if self.max != 0 && *n >= self.max {
            if *n == 0 {
                open.remove(&addr);
            }
            return None;
        }
        *n += 1;
        Some(Permit {
            cap: Arc::clone(self),
            addr,
        })
    }

    /// Sessions open from `addr`.
    #[cfg(test)]
    fn open(&self, addr: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.get(&addr).copied().unwrap_or(0)
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut open = self.cap.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.addr);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_counts_per_address_and_slots_come_back() {
        let cap = Arc::new(AddrCap::new(2));
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let p1 = cap.try_acquire(a).unwrap();
        let _p2 = cap.try_acquire(a).unwrap();
        assert!(cap.try_acquire(a).is_none());
        assert!(cap.try_acquire(b).is_some());
        drop(p1);
        assert_eq!(cap.open(a), 1);
        assert!(cap.try_acquire(a).is_some());
        assert_eq!(cap.open(b), 0, "a dropped permit leaves no entry");
        let unlimited = Arc::new(AddrCap::new(0));
        let many: Vec<_> = (0..100)
            .map(|_| unlimited.try_acquire(a).unwrap())
            .collect();
        assert_eq!(unlimited.open(a), 100);
        drop(many);
        assert_eq!(unlimited.open(a), 0);
    }
}
