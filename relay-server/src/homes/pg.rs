//! The room registry's statements (PostgreSQL, table `room_homes`: see
//! `crate::store`'s migrations). Every call is bounded by the store's
//! deadline ([`Db::call`]); times are the database's (`now()`), so the
//! relays' clocks never disagree about a lease.

use super::Home;
use crate::room::RoomId;
use crate::rooms::Held;
use crate::store::{Db, StoreError};
use std::time::Duration;

/// What a claim found.
#[derive(Debug)]
pub(super) enum Claim {
    /// The room is this relay's under `lease`; `checkpoint` is where the
    /// room was if another relay had it lately.
    Mine {
        /// The new lease.
        lease: i64,
        /// The room's checkpoint, encoded.
        checkpoint: Option<Vec<u8>>,
    },
    /// Another relay holds a live lease.
    Theirs(Home),
}

/// The statements, for one relay.
#[derive(Debug)]
pub(super) struct Registry {
    pub(super) db: Db,
    /// This relay's internal address (`host:port`).
    pub(super) me: String,
    /// This relay's instance name.
    pub(super) instance: String,
    /// How long a lease lasts.
    pub(super) lease: Duration,
    /// How old a released room's checkpoint may be and still be taken up
    /// (an empty room's lifetime: older, the room would have been dropped).
    pub(super) checkpoint_life: Duration,
}

/// A fresh lease number.
fn lease_number() -> Result<i64, StoreError> {
    let mut raw = [0u8; 8];
    getrandom::fill(&mut raw).map_err(|e| StoreError::Random(e.to_string()))?;
    Ok(i64::from_le_bytes(raw))
}

impl Registry {
    fn secs(d: Duration) -> f64 {
        d.as_secs_f64()
    }

    /// Claims `room` for this relay: granted when no relay holds a live
    /// lease on it (or this one does); else who does.
    pub(super) async fn claim(&self, room: &RoomId) -> Result<Claim, StoreError> {
        let lease = lease_number()?;
        let (room, me, instance) = (room.to_string(), self.me.clone(), self.instance.clone());
        let (ttl, life) = (Self::secs(self.lease), Self::secs(self.checkpoint_life));
        self.db
            .call(move |client| {
                Box::pin(async move {
                    for _ in 0..3 {
                        let claimed = client
                            .query_opt(
                                "WITH old AS (SELECT lease_until FROM room_homes WHERE room = $1)
                                 INSERT INTO room_homes AS h (room, home, instance, lease, lease_until)
                                 VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
                                 ON CONFLICT (room) DO UPDATE SET home = EXCLUDED.home,
                                     instance = EXCLUDED.instance, lease = EXCLUDED.lease,
                                     lease_until = EXCLUDED.lease_until
                                 WHERE h.lease_until < now() OR h.home = EXCLUDED.home
                                 RETURNING CASE WHEN (SELECT lease_until FROM old)
                                     > now() - make_interval(secs => $6) THEN h.checkpoint END",
                                &[&room, &me, &instance, &lease, &ttl, &life],
                            )
                            .await?;
                        if let Some(row) = claimed {
                            return Ok(Claim::Mine {
                                lease,
                                checkpoint: row.get(0),
                            });
                        }
                        let held = client
                            .query_opt(
                                "SELECT home, instance, lease FROM room_homes WHERE room = $1",
                                &[&room],
                            )
                            .await?;
                        // Gone between the two statements: claim again.
                        if let Some(row) = held {
                            return Ok(Claim::Theirs(Home {
                                addr: row.get(0),
                                instance: row.get(1),
                                lease: row.get(2),
                            }));
                        }
                    }
                    Err(StoreError::Pool("the room registry keeps changing".into()))
                })
            })
            .await
    }

    /// Takes `room` over from `from`, whose relay refuses connections (it
    /// is gone): the room's checkpoint when it was still `from`'s, else
    /// `None` (someone else was quicker).
    pub(super) async fn take_over(
        &self,
        room: &RoomId,
        from: &Home,
    ) -> Result<Option<(i64, Option<Vec<u8>>)>, StoreError> {
        let lease = lease_number()?;
        let (room, me, instance, old) = (
            room.to_string(),
            self.me.clone(),
            self.instance.clone(),
            from.lease,
        );
        let ttl = Self::secs(self.lease);
        self.db
            .call(move |client| {
                Box::pin(async move {
                    let row = client
                        .query_opt(
                            "UPDATE room_homes SET home = $2, instance = $3, lease = $4,
                                 lease_until = now() + make_interval(secs => $5)
                             WHERE room = $1 AND lease = $6 RETURNING checkpoint",
                            &[&room, &me, &instance, &lease, &ttl, &old],
                        )
                        .await?;
                    Ok(row.map(|r| (lease, r.get(0))))
                })
            })
            .await
    }

    /// Renews the leases of `held` with their checkpoints; returns the
    /// rooms whose lease is no longer this relay's.
    pub(super) async fn renew(&self, held: &[Held]) -> Result<Vec<Held>, StoreError> {
        if held.is_empty() {
            return Ok(Vec::new());
        }
        let rooms: Vec<String> = held.iter().map(|h| h.room.to_string()).collect();
        let leases: Vec<i64> = held.iter().map(|h| h.lease).collect();
        let checkpoints: Vec<Option<Vec<u8>>> = held
            .iter()
            .map(|h| h.checkpoint.as_deref().cloned())
            .collect();
        let (me, ttl) = (self.me.clone(), Self::secs(self.lease));
        let renewed: Vec<String> = self
            .db
            .call(move |client| {
                Box::pin(async move {
                    let rows = client
                        .query(
                            "UPDATE room_homes AS h
                             SET lease_until = now() + make_interval(secs => $1),
                                 checkpoint = COALESCE(u.checkpoint, h.checkpoint)
                             FROM unnest($2::text[], $3::bigint[], $4::bytea[])
                                 AS u(room, lease, checkpoint)
                             WHERE h.room = u.room AND h.lease = u.lease AND h.home = $5
                             RETURNING h.room",
                            &[&ttl, &rooms, &leases, &checkpoints, &me],
                        )
                        .await?;
                    Ok(rows.iter().map(|r| r.get(0)).collect())
                })
            })
            .await?;
        Ok(held
            .iter()
            .filter(|h| !renewed.iter().any(|r| r == h.room.as_str()))
            .cloned()
            .collect())
    }

    /// Lets go of `room` (under `lease`), leaving `checkpoint` for the
    /// relay that claims it next (at once: the lease ends now).
    pub(super) async fn hand_off(
        &self,
        room: &RoomId,
        lease: i64,
        checkpoint: Option<Vec<u8>>,
    ) -> Result<(), StoreError> {
        let room = room.to_string();
        self.db
            .call(move |client| {
                Box::pin(async move {
                    client
                        .execute(
                            "UPDATE room_homes SET lease_until = now() - interval '1 millisecond',
                                 checkpoint = COALESCE($3, checkpoint)
                             WHERE room = $1 AND lease = $2",
                            &[&room, &lease, &checkpoint],
                        )
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    /// Forgets `room` (under `lease`): it ended, empty.
    pub(super) async fn release(&self, room: &RoomId, lease: i64) -> Result<(), StoreError> {
        let room = room.to_string();
        self.db
            .call(move |client| {
                Box::pin(async move {
                    client
                        .execute(
                            "DELETE FROM room_homes WHERE room = $1 AND lease = $2",
                            &[&room, &lease],
                        )
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    /// At start: the leases a previous run of this relay (same internal
    /// address) held end now, their checkpoints kept for whoever claims
    /// the rooms; and rooms released long ago are forgotten.
    pub(super) async fn start(&self) -> Result<u64, StoreError> {
        let me = self.me.clone();
        self.db
            .call(move |client| {
                Box::pin(async move {
                    let n = client
                        .execute(
                            "UPDATE room_homes SET lease_until = now() - interval '1 millisecond'
                             WHERE home = $1 AND lease_until > now()",
                            &[&me],
                        )
                        .await?;
                    client
                        .execute(
                            "DELETE FROM room_homes WHERE lease_until < now() - interval '1 hour'",
                            &[],
                        )
                        .await?;
                    Ok(n)
                })
            })
            .await
    }
}
