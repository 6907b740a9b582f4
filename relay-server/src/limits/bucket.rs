//! Token buckets on the relay's clock: one per budget of a connection
//! ([`super::gate`]), and one per client address for the scenario saves
//! ([`AddrBuckets`]).

use super::Rate;
use sim::SimTime;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// A token bucket on the relay's clock.
#[derive(Debug, Clone)]
pub(crate) struct TokenBucket {
    rate: Rate,
    tokens: f64,
    last: SimTime,
}

impl TokenBucket {
    /// A full bucket at `now`.
    pub(crate) fn new(rate: Rate, now: SimTime) -> TokenBucket {
        TokenBucket {
            rate,
            tokens: rate.burst,
            last: now,
        }
    }

    fn refill(&mut self, now: SimTime) {
        let elapsed = now.micros_since(self.last) as f64 / 1e6;
        self.last = self.last.max(now);
        self.tokens = (self.tokens + elapsed * self.rate.per_second).min(self.rate.burst);
    }

    /// Takes one token if there is one.
    pub(crate) fn try_take(&mut self, now: SimTime) -> bool {
        self.refill(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// When the next whole token will be there.
    pub(crate) fn next_token(&self) -> SimTime {
        let missing = (1.0 - self.tokens).max(0.0);
        self.last
            .plus_micros((missing / self.rate.per_second * 1e6).ceil() as u64)
    }

    /// Whether the bucket has refilled to its burst by `now` (then it is
    /// as good as a new one).
    fn is_full(&self, now: SimTime) -> bool {
        let elapsed = now.micros_since(self.last) as f64 / 1e6;
        self.tokens + elapsed * self.rate.per_second >= self.rate.burst
    }
}

/// Addresses [`AddrBuckets`] tracks at once (≈ 64 B each: 4 MiB). When
/// every one of them has a bucket still refilling, a further address is
/// refused for a second rather than the map growing: an attacker with a
/// million addresses cannot grow the relay's memory.
pub(crate) const MAX_TRACKED: usize = 65_536;

/// One token bucket per client address (an IPv6 client per /64, the
/// smallest network a home or a phone is given), for what a client does
/// seldom: saving a scenario. A bucket that has refilled is forgotten.
#[derive(Debug)]
pub(crate) struct AddrBuckets {
    rate: Rate,
    buckets: Mutex<HashMap<IpAddr, TokenBucket>>,
}

impl AddrBuckets {
    /// No address has spent anything yet.
    pub(crate) fn new(rate: Rate) -> AddrBuckets {
        AddrBuckets {
            rate,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Spends one of `addr`'s tokens at `now`.
    ///
    /// # Errors
    /// How long until `addr` has a token again (at least 1 ms), when its
    /// bucket is empty.
    pub(crate) fn take(&self, addr: IpAddr, now: SimTime) -> Result<(), Duration> {
        let key = key(addr);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if !buckets.contains_key(&key) && buckets.len() >= MAX_TRACKED {
            buckets.retain(|_, b| !b.is_full(now));
            if buckets.len() >= MAX_TRACKED {
                return Err(Duration::from_secs(1));
            }
        }
        let bucket = buckets
            .entry(key)
            .or_insert_with(|| TokenBucket::new(self.rate, now));
        if bucket.try_take(now) {
            return Ok(());
        }
        let wait = bucket.next_token().micros_since(now).max(1000);
        Err(Duration::from_micros(wait))
    }
}

/// The address a bucket is kept under: IPv4 as it is, IPv6 by its /64.
fn key(addr: IpAddr) -> IpAddr {
    match addr.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_address_has_its_own_bucket_and_an_ipv6_client_is_its_64() {
        let saves = AddrBuckets::new(Rate {
            per_second: 0.5,
            burst: 3.0,
        });
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        let b: IpAddr = "203.0.113.8".parse().unwrap();
        let t = SimTime::from_millis(1000);
        for _ in 0..3 {
            assert_eq!(saves.take(a, t), Ok(()));
        }
        assert_eq!(saves.take(a, t), Err(Duration::from_secs(2)));
        assert_eq!(saves.take(b, t), Ok(()), "another address is unaffected");
        assert_eq!(saves.take(a, SimTime::from_millis(3000)), Ok(()));
        // Two addresses of one /64 share a bucket; another /64 does not.
        let v6 = |s: &str| s.parse::<IpAddr>().unwrap();
        for _ in 0..3 {
            assert!(saves.take(v6("2001:db8:0:1::1"), t).is_ok());
        }
        assert!(saves.take(v6("2001:db8:0:1::ffff"), t).is_err());
        assert!(saves.take(v6("2001:db8:0:2::1"), t).is_ok());
        // An IPv4-mapped address is its IPv4 address.
        assert!(saves.take(v6("::ffff:203.0.113.8"), t).is_ok());
        assert!(saves.take(b, t).is_ok());
        assert!(saves.take(b, t).is_err(), "b spent 3 under two spellings");
    }

    #[test]
    fn refilled_buckets_are_forgotten_when_the_map_is_full() {
        let saves = AddrBuckets::new(Rate {
            per_second: 1.0,
            burst: 1.0,
        });
        let t = SimTime::from_millis(1000);
        for i in 0..MAX_TRACKED as u32 {
            assert!(saves.take(IpAddr::from(i.to_be_bytes()), t).is_ok());
        }
        let newcomer = IpAddr::from([250, 0, 0, 1]);
        assert_eq!(saves.take(newcomer, t), Err(Duration::from_secs(1)));
        // A second later every bucket has refilled: they are swept.
        assert_eq!(saves.take(newcomer, SimTime::from_millis(2000)), Ok(()));
        let len = saves.buckets.lock().unwrap().len();
        assert_eq!(len, 1);
    }
}
