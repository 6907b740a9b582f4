//! Reconnect (reference `003_…` §六 "断线重连": on logout the server keeps
//! the player's state; on the next login it hands it back and "the player
//! continues seamlessly"). When a socket drops, its session's
//! [`ServerHost`] — authoritative character, rules, settings, conditioner
//! — or, in a shared room, its [`Seat`] (the player stays in the room) is
//! parked here under the session's [`ResumeToken`] for [`GRACE`]; a new
//! connection whose first word is `ClientMsg::Resume { token }` takes it
//! over. A seat not taken back within the grace period is given up: the
//! player leaves the room (the relay sweeps the store when a grace period
//! ends, [`ResumeStore::sweep`]).
//!
//! Bounded: at most [`MAX_PARKED`] sessions wait at once (the oldest is
//! evicted for a newer one) and expired ones are swept on every park and
//! take. A token is 128 bits from the OS's CSPRNG, sent only to its own
//! client, and good for one resume: the resumed session gets the new
//! connection's token. The relay keeps only its SHA-256
//! ([`crate::token::TokenHash`]), here and in a room's checkpoint
//! (`crate::rooms::checkpoint`), so a seat can be carried to another relay
//! without its secret.

use crate::rooms::Seat;
use crate::token::TokenHash;
use sim::protocol::ResumeToken;
use sim::ServerHost;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a dropped session waits for its client.
pub const GRACE: Duration = Duration::from_secs(10);

/// Most sessions parked at once (≈ 10 KiB each: 10 MiB at most).
pub const MAX_PARKED: usize = 1024;

/// What a dropped session leaves behind.
#[derive(Debug)]
pub(crate) enum Resumable {
    /// A private session's host: the whole simulation.
    Host(Box<ServerHost>),
    /// A shared room's seat: the player, still in the room.
    Seat(Seat),
}

/// A parked session.
#[derive(Debug)]
struct Parked {
    session: Resumable,
    since: Instant,
    connection: u64,
}

/// Dropped sessions waiting for their clients.
#[derive(Debug, Default)]
pub(crate) struct ResumeStore {
    parked: Mutex<HashMap<TokenHash, Parked>>,
}

/// Sweeps `state`'s resume store one grace period from now: a seat not
/// taken back leaves its room then, whether or not anyone else reconnects.
pub(crate) fn sweep_later(state: crate::AppState) {
    tokio::spawn(async move {
        tokio::time::sleep(GRACE).await;
        state.inner.resume.sweep(Instant::now());
    });
}

/// A fresh token.
///
/// # Errors
/// The OS random source's error (no token, so the session is not
/// resumable).
pub(crate) fn new_token() -> Result<ResumeToken, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(ResumeToken(bytes))
}

impl ResumeStore {
    fn expire(parked: &mut HashMap<TokenHash, Parked>, now: Instant) {
        parked.retain(|_, p| now.duration_since(p.since) < GRACE);
    }

    /// Gives up every session whose grace period is over at `now` (a seat
    /// given up leaves its room).
    pub(crate) fn sweep(&self, now: Instant) {
        let mut parked = self.parked.lock().unwrap_or_else(PoisonError::into_inner);
        Self::expire(&mut parked, now);
    }

    /// Keeps `session` (of connection `connection`) under `token` from
    /// `now`.
    pub(crate) fn park(
        &self,
        token: ResumeToken,
        session: Resumable,
        connection: u64,
        now: Instant,
    ) {
        self.park_hashed(TokenHash::of(&token), session, connection, now);
    }

    /// [`ResumeStore::park`] by the token's hash (a seat carried over from
    /// another relay's checkpoint).
    pub(crate) fn park_hashed(
        &self,
        token: TokenHash,
        session: Resumable,
        connection: u64,
        now: Instant,
    ) {
        let mut parked = self.parked.lock().unwrap_or_else(PoisonError::into_inner);
        Self::expire(&mut parked, now);
        if parked.len() >= MAX_PARKED {
            let oldest = parked.iter().min_by_key(|(_, p)| p.since).map(|(t, _)| *t);
            if let Some(t) = oldest {
                parked.remove(&t);
            }
        }
        parked.insert(
            token,
            Parked {
                session,
                since: now,
                connection,
            },
        );
    }

    /// The session `token` names, if it is still waiting and `fits` it
    /// (a new connection takes back only its own kind: a private host, or
    /// a seat of the room it connected to): what it left and the
    /// connection number it had. One that does not fit stays parked.
    pub(crate) fn take(
        &self,
        token: &ResumeToken,
        now: Instant,
        fits: impl FnOnce(&Resumable) -> bool,
    ) -> Option<(Resumable, u64)> {
        let token = TokenHash::of(token);
        let mut parked = self.parked.lock().unwrap_or_else(PoisonError::into_inner);
        Self::expire(&mut parked, now);
        if !fits(&parked.get(&token)?.session) {
            return None;
        }
        parked.remove(&token).map(|p| (p.session, p.connection))
    }

    /// Sessions waiting now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.parked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> Resumable {
        Resumable::Host(Box::new(ServerHost::new(1, sim::SimTime::ZERO)))
    }

    #[test]
    fn a_session_can_be_taken_once_within_the_grace_period() {
        let store = ResumeStore::default();
        let t0 = Instant::now();
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_ne!(a, b);
        store.park(a, host(), 1, t0);
        store.park(b, host(), 2, t0);
        assert!(store.take(&a, t0 + GRACE / 2, |_| true).is_some());
        assert!(
            store.take(&a, t0 + GRACE / 2, |_| true).is_none(),
            "used twice"
        );
        assert!(store.take(&b, t0 + GRACE, |_| true).is_none(), "expired");
        assert_eq!(store.len(), 0);
    }

    #[test]
    fn a_seat_parked_by_its_token_hash_is_taken_with_the_token() {
        let hash = TokenHash::of(&ResumeToken([7; 16]));
        let store = ResumeStore::default();
        let t0 = Instant::now();
        store.park_hashed(hash, host(), 3, t0);
        let (_, connection) = store.take(&ResumeToken([7; 16]), t0, |_| true).unwrap();
        assert_eq!(connection, 3);
    }

    #[test]
    fn at_most_max_parked_wait_and_the_oldest_goes_first() {
        let store = ResumeStore::default();
        let t0 = Instant::now();
        let first = new_token().unwrap();
        store.park(first, host(), 0, t0);
        for i in 1..=MAX_PARKED {
            store.park(
                new_token().unwrap(),
                host(),
                i as u64,
                t0 + Duration::from_micros(i as u64),
            );
        }
        assert_eq!(store.len(), MAX_PARKED);
        assert!(store
            .take(&first, t0 + Duration::from_millis(1), |_| true)
            .is_none());
    }
}
