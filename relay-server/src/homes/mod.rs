//! Where a shared room lives when several relays share a PostgreSQL store
//! (issue #27: "a room must have one home at a time").
//!
//! nginx pins a room to a relay by a consistent hash of its name
//! (`deploy/nginx.conf`), but which relay that is changes whenever the set
//! of relays does — one added, one removed, one back after a crash —
//! while the room's players stay connected where they were. So the relays
//! keep a registry of live rooms in PostgreSQL, `room_homes`: room → its
//! home relay's internal address, a lease and the room's last checkpoint
//! ([`crate::rooms::checkpoint`]).
//!
//! ```text
//! /ws?room=R reaches relay X
//!   R is here ─────────────────────────────────────► play here
//!   claim R: no live lease, or X's own ─► Mine ─────► make R (from its checkpoint) and play here
//!            Y holds a live lease ──────► Theirs(Y) ─► pass the player on to Y (ws::forward)
//!                 Y refuses connections (gone) ─────► take R over from Y, as Mine
//!                 Y draining or unsure ─────────────► 409, the page retries
//! every lease / 3: renew X's leases with each room's newest checkpoint;
//!                 a lease found to be another's ────► dismiss R here (1012: its players reconnect)
//! R empty for 30 s ─► its row deleted
//! SIGTERM ─► every room handed off: lease ended now, checkpoint left; then dismissed (1012)
//! start ───► the leases of this relay's previous run end now (checkpoints kept)
//! ```
//!
//! A room is therefore never on two relays: the lease is taken in one
//! statement, a relay plays a room only under its own lease, and one that
//! finds its lease gone gives the room up. A room moves only as a whole —
//! when its home leaves (drain: the newest checkpoint, seats and all) or
//! vanishes (crash: the checkpoint of the last renewal, at most a third of
//! a lease old) — and its players come back to it with their resume
//! tokens. Adding a relay moves nothing: the rooms whose hash now names it
//! stay where they are, and their newcomers are passed on to them. With
//! SQLite (one relay) there is no registry and nothing changes.
//!
//! Limits, said plainly: a relay cut off from PostgreSQL keeps playing its
//! rooms (a database outage must not stop games) and cannot renew; if
//! another relay reaches PostgreSQL and claims one of them meanwhile (its
//! lease expired), the room is on both until the first one reaches
//! PostgreSQL again and gives it up. New rooms are not made while the
//! registry does not answer (409, the page retries).

mod pg;

use crate::metrics::HomeEvent;
use crate::resume::{self, Resumable};
use crate::room::{RoomId, RoomModel};
use crate::rooms::checkpoint::Checkpoint;
use crate::store::{Db, StoreError};
use crate::AppState;
use axum::http::{HeaderMap, HeaderName};
use pg::Claim;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tracing::{info, warn};

/// Request header of a player passed on by another relay (its instance):
/// such a player is never passed on again.
pub(crate) const FORWARDED_HEADER: HeaderName = HeaderName::from_static("x-relay-forwarded-by");

/// Connections of this relay's registry pool: a claim per new room, a
/// renewal per third of a lease.
const POOL_SIZE: usize = 2;

/// Where a room lives now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Home {
    /// Its internal address, `host:port`.
    pub(crate) addr: String,
    /// Its instance name.
    pub(crate) instance: String,
    /// Its lease.
    pub(crate) lease: i64,
}

/// Where a `/ws` of a shared room is played.
#[derive(Debug)]
pub(crate) enum Place {
    /// On this relay.
    Here,
    /// On `Home`: pass the player on.
    Forward(Home),
    /// Nowhere for now: 409 with this reason (the page retries).
    Unavailable(String),
}

/// This relay's part in the registry.
#[derive(Debug)]
pub(crate) struct Homes {
    registry: pg::Registry,
    /// Claims one at a time: two players arriving at once for a new room
    /// make it once, under one lease.
    claiming: tokio::sync::Mutex<()>,
}

impl Homes {
    /// The registry in the database at `url` (migrated by the store), for
    /// the relay at internal address `me` named `instance`, leases lasting
    /// `lease`, calls bounded by `deadline`; the leases of this relay's
    /// previous run end now.
    ///
    /// # Errors
    /// [`StoreError`] if the database cannot be reached.
    pub(crate) async fn open(
        url: &str,
        me: String,
        instance: String,
        lease: Duration,
        checkpoint_life: Duration,
        deadline: Duration,
    ) -> Result<Homes, StoreError> {
        let registry = pg::Registry {
            db: Db::new(url, POOL_SIZE)?.with_deadline(deadline),
            me,
            instance,
            lease,
            checkpoint_life,
        };
        let ended = registry.start().await?;
        info!(me = %registry.me, leases_ended = ended, "room registry open");
        Ok(Homes {
            registry,
            claiming: tokio::sync::Mutex::new(()),
        })
    }
}

/// Where the player of `/ws?room=<room>` (a shared room) plays; the
/// request's `headers` say whether another relay passed it on. A room
/// claimed fresh here runs the `model` the player asked for.
pub(crate) async fn place(
    state: &AppState,
    room: &RoomId,
    model: Option<RoomModel>,
    headers: &HeaderMap,
) -> Place {
    let rooms = &state.inner.rooms;
    if rooms.contains(room) {
        return Place::Here;
    }
    let Some(homes) = &state.inner.homes else {
        // One relay: the room is made at the first Join.
        return Place::Here;
    };
    let _one_at_a_time = homes.claiming.lock().await;
    if rooms.contains(room) {
        return Place::Here;
    }
    match homes.registry.claim(room).await {
        Ok(Claim::Mine { lease, checkpoint }) => {
            adopt(state, room, model, lease, checkpoint);
            Place::Here
        }
        Ok(Claim::Theirs(_)) if headers.contains_key(FORWARDED_HEADER) => Place::Unavailable(
            format!("room {room} is moving between relays: connect again"),
        ),
        Ok(Claim::Theirs(home)) => Place::Forward(home),
        Err(e) => unavailable(state, room, &e),
    }
}

/// Room `room`'s home `from` refuses connections: it is gone. Takes the
/// room over (from its last checkpoint; without one, fresh with the
/// `model` the player asked for) unless another relay was quicker.
pub(crate) async fn take_over(
    state: &AppState,
    room: &RoomId,
    model: Option<RoomModel>,
    from: &Home,
) -> Place {
    let Some(homes) = &state.inner.homes else {
        return Place::Here;
    };
    let _one_at_a_time = homes.claiming.lock().await;
    match homes.registry.take_over(room, from).await {
        Ok(Some((lease, checkpoint))) => {
            info!(%room, from = %from.instance, "room taken over from a relay that is gone");
            adopt(state, room, model, lease, checkpoint);
            Place::Here
        }
        Ok(None) => Place::Unavailable(format!("room {room} has just moved: connect again")),
        Err(e) => unavailable(state, room, &e),
    }
}

fn unavailable(state: &AppState, room: &RoomId, e: &StoreError) -> Place {
    if matches!(e, StoreError::Timeout(_)) {
        state.inner.metrics.store_timeout();
    }
    warn!(%room, error = %e, "room registry");
    Place::Unavailable(format!(
        "room {room}: the room registry does not answer ({e}): connect again"
    ))
}

/// Makes `room` here under `lease`, from `checkpoint` if there is one (a
/// checkpoint that does not parse is logged and the room made fresh); its
/// seats wait for their players' Resumes. A fresh room runs `model` (a
/// checkpoint is a CMC room's: a rollback room keeps none).
fn adopt(
    state: &AppState,
    room: &RoomId,
    model: Option<RoomModel>,
    lease: i64,
    checkpoint: Option<Vec<u8>>,
) {
    let checkpoint = checkpoint.and_then(|bytes| {
        Checkpoint::decode(&bytes)
            .map_err(|e| warn!(%room, error = %e, "room checkpoint unreadable: a fresh room"))
            .ok()
    });
    let metrics = &state.inner.metrics;
    let seats = state
        .inner
        .rooms
        .create(room, model, lease, checkpoint.as_ref(), metrics);
    metrics.home(if checkpoint.is_some() {
        HomeEvent::Restored
    } else {
        HomeEvent::Claimed
    });
    info!(%room, restored = checkpoint.is_some(), seats = seats.len(), "room claimed");
    if seats.is_empty() {
        return;
    }
    let now = std::time::Instant::now();
    for (token, seat) in seats {
        state
            .inner
            .resume
            .park_hashed(token, Resumable::Seat(seat), 0, now);
    }
    resume::sweep_later(state.clone());
}

/// Runs the registry's side of this relay until it shuts down: renews its
/// leases every third of a lease, gives up rooms whose lease is another's,
/// and forgets rooms that ended here.
pub(crate) fn spawn(state: &AppState) {
    let Some(homes) = state.inner.homes.clone() else {
        return;
    };
    let (ended, mut ended_rx) = mpsc::unbounded_channel();
    state.inner.rooms.share(ended);
    let state = state.clone();
    let token = state.shutdown_token();
    tokio::spawn(async move {
        let mut renew = tokio::time::interval(homes.registry.lease / 3);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                _ = renew.tick() => renew_all(&state, &homes).await,
                Some((room, lease)) = ended_rx.recv() => {
                    if let Err(e) = homes.registry.release(&room, lease).await {
                        warn!(%room, error = %e, "room registry: release");
                    }
                }
            }
        }
    });
}

async fn renew_all(state: &AppState, homes: &Arc<Homes>) {
    let rooms = &state.inner.rooms;
    match homes.registry.renew(&rooms.held()).await {
        Ok(lost) => {
            for held in lost {
                warn!(room = %held.room, "room lease held by another relay: room given up here");
                state.inner.metrics.home(HomeEvent::LeaseLost);
                rooms.dismiss(
                    &held.room,
                    held.lease,
                    "the room moved to another relay: reconnect",
                );
            }
        }
        Err(e) => {
            if matches!(e, StoreError::Timeout(_)) {
                state.inner.metrics.store_timeout();
            }
            // The rooms play on; the next round tries again.
            warn!(error = %e, "room registry: renewing leases");
        }
    }
}

/// The relay is leaving: hands every room it holds to whichever relay its
/// players reach next (lease ended, newest checkpoint left), then tells
/// the players to reconnect. Returns how many rooms were handed off.
pub(crate) async fn hand_off_all(state: &AppState) -> usize {
    let Some(homes) = &state.inner.homes else {
        return 0;
    };
    let rooms = &state.inner.rooms;
    let held = rooms.held();
    for h in &held {
        let checkpoint = h.checkpoint.as_deref().cloned();
        if let Err(e) = homes.registry.hand_off(&h.room, h.lease, checkpoint).await {
            warn!(room = %h.room, error = %e, "room registry: hand-off (its lease ends on its own)");
        }
        state.inner.metrics.home(HomeEvent::HandedOff);
        rooms.dismiss(
            &h.room,
            h.lease,
            "the relay is leaving: the room moves, reconnect",
        );
    }
    if !held.is_empty() {
        info!(rooms = held.len(), "rooms handed off");
    }
    held.len()
}
