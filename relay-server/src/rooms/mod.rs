//! Shared rooms (issue #13): every `/ws?room=NAME` whose name is not a
//! private `p-…` id joins the room NAME on this relay — one authoritative
//! [`sim::room::RoomHost`] per room, on its own task.
//!
//! ```text
//!  session (ws.rs) ── Command::{Join, Rebind, Frame, Leave} ──► room task: RoomHost
//!        ▲                    (unbounded: each session's budgets bound it)      │
//!        └──────── Out::{Seated, Frames, Rejected, Refused} ◄───────────────────┘
//!                  (bounded per player: a player who does not read loses
//!                   their own frames, never delays the room)
//! ```
//!
//! | module | holds |
//! |---|---|
//! | here | [`Rooms`]: the registry, joining, `GET /api/rooms` |
//! | `seat` | [`Seat`]: one player's place in a room, and the messages both ways |
//! | `task` | the room's task: commands in, polls on the room's wake-ups, frames out |
//!
//! **Life of a room.** The first player's Join makes it; players join and
//! leave at any time; a dropped socket's seat is kept for the resume grace
//! period ([`crate::resume::GRACE`]) and a Resume on a new connection takes
//! it back, character and all (a Close frame from the client is a goodbye:
//! the player leaves at once); a room with no player (bots do not count)
//! for [`crate::Limits::empty_room_lifetime`] (30 s) is dropped. A room
//! holds at most
//! [`crate::Limits::max_room_players`] (bots included); one more is
//! refused with the room's reason and the close code
//! [`CLOSE_ROOM_FULL`].
//!
//! Behind nginx every connection of one room reaches one relay (the room
//! is the hash key), so a room never spans relays; each relay lists its own
//! rooms (`/api/rooms?room=NAME` is routed like the room's sockets).

mod seat;
mod task;

pub(crate) use seat::{Out, Seat};

use crate::metrics::Metrics;
use crate::room::RoomId;
use crate::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use seat::Command;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Close code for a player refused by a full room: 1013 "try again later"
/// (IANA's WebSocket close code registry: a temporary condition).
pub const CLOSE_ROOM_FULL: u16 = 1013;

/// Frame batches waiting for one player's session; more are dropped (the
/// player's own loss: a session that stops reading never slows the room).
/// At 60 polls/s a batch per poll, 256 is 4 s of room traffic.
const OUT_QUEUE: usize = 256;

/// What `/api/rooms` shows of a room, kept current by its task.
#[derive(Debug, Default)]
struct RoomInfo {
    /// Remote players seated (a dropped socket's seat within its grace
    /// period included).
    players: AtomicUsize,
    /// Server-driven bots.
    bots: AtomicUsize,
}

/// One room in the registry.
#[derive(Debug)]
struct Entry {
    /// The room's task.
    tx: mpsc::UnboundedSender<Command>,
    /// Seats handed out and not yet given back: the task drops the room
    /// only when this is 0 under the registry's lock, so a player joining
    /// never finds a room that is going away.
    seats: Arc<AtomicUsize>,
    info: Arc<RoomInfo>,
}

/// The shared rooms of this relay.
#[derive(Debug)]
pub(crate) struct Rooms {
    map: Mutex<HashMap<RoomId, Entry>>,
    /// Most players per room, bots included.
    max_players: usize,
    /// How long a room with no player lives on: a player reloading the
    /// page, or the last one leaving and another coming, finds the room
    /// (its bots, its `MaxRecordTime`) as it was.
    empty_lifetime: Duration,
    /// Rooms' link conditioners draw from this and a counter.
    seed_base: u64,
    made: AtomicU64,
    /// Seats handed out, numbering them.
    seated: AtomicU64,
    /// The relay's clock origin (every `SimTime` counts from it).
    epoch: Instant,
    /// Cancelled when the relay shuts down: every room ends.
    shutdown: CancellationToken,
}

/// A room as `GET /api/rooms` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RoomSummary {
    /// Its name.
    pub room: String,
    /// Remote players (a dropped socket's seat within its grace period
    /// included).
    pub players: usize,
    /// Server-driven bots.
    pub bots: usize,
    /// Most players, bots included.
    pub max_players: usize,
}

impl Rooms {
    /// No rooms yet; each will hold at most `max_players` (clamped to
    /// `1..=`[`sim::room::config::MAX_ROOM_PLAYERS`]) and live on
    /// `empty_lifetime` without a player.
    pub(crate) fn new(
        max_players: usize,
        empty_lifetime: Duration,
        seed_base: u64,
        epoch: Instant,
        shutdown: CancellationToken,
    ) -> Rooms {
        Rooms {
            map: Mutex::new(HashMap::new()),
            max_players: max_players.clamp(1, sim::room::config::MAX_ROOM_PLAYERS),
            empty_lifetime,
            seed_base,
            made: AtomicU64::new(0),
            seated: AtomicU64::new(0),
            epoch,
            shutdown,
        }
    }

    /// A seat in room `id` (made now if it does not exist), and the channel
    /// its frames come back on. The room answers with [`Out::Seated`] or,
    /// when full, [`Out::Refused`].
    pub(crate) fn join(
        self: &Arc<Self>,
        id: &RoomId,
        metrics: &Arc<Metrics>,
    ) -> (Seat, mpsc::Receiver<Out>) {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = map
            .entry(id.clone())
            .or_insert_with(|| self.spawn(id, metrics));
        entry.seats.fetch_add(1, Ordering::Relaxed);
        let key = self.seated.fetch_add(1, Ordering::Relaxed);
        let seat = Seat::new(id.clone(), key, entry.tx.clone(), entry.seats.clone());
        drop(map);
        let (out, rx) = mpsc::channel(OUT_QUEUE);
        seat.join(out);
        (seat, rx)
    }

    /// A channel for a seat taken back by a resume: [`Seat::rebind`] sends
    /// its sender to the room.
    pub(crate) fn out_channel() -> (mpsc::Sender<Out>, mpsc::Receiver<Out>) {
        mpsc::channel(OUT_QUEUE)
    }

    fn spawn(self: &Arc<Self>, id: &RoomId, metrics: &Arc<Metrics>) -> Entry {
        let n = self.made.fetch_add(1, Ordering::Relaxed);
        let seed = self.seed_base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x524f_4f4d;
        let (tx, rx) = mpsc::unbounded_channel();
        let seats = Arc::new(AtomicUsize::new(0));
        let info = Arc::new(RoomInfo::default());
        let room = task::RoomTask::new(
            id.clone(),
            self.max_players,
            seed,
            Arc::clone(self),
            Arc::clone(metrics),
            info.clone(),
        );
        tokio::spawn(room.run(rx, self.shutdown.clone()));
        Entry { tx, seats, info }
    }

    /// Takes room `id` (the one whose task keeps `info`) out of the
    /// registry if no seat is handed out (the task then ends); `false` if
    /// a player has joined meanwhile.
    fn remove_if_empty(&self, id: &RoomId, info: &Arc<RoomInfo>) -> bool {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        match map.get(id) {
            Some(e) if Arc::ptr_eq(&e.info, info) && e.seats.load(Ordering::Relaxed) == 0 => {
                map.remove(id);
                true
            }
            _ => false,
        }
    }

    /// Every room, by name.
    pub(crate) fn list(&self) -> Vec<RoomSummary> {
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let mut rooms: Vec<RoomSummary> = map
            .iter()
            .map(|(id, e)| RoomSummary {
                room: id.to_string(),
                players: e.info.players.load(Ordering::Relaxed),
                bots: e.info.bots.load(Ordering::Relaxed),
                max_players: self.max_players,
            })
            .collect();
        rooms.sort_by(|a, b| a.room.cmp(&b.room));
        rooms
    }

    /// The relay's clock now.
    fn now(&self) -> sim::SimTime {
        sim::SimTime(u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX))
    }

    /// The instant the relay's clock reads `t`.
    fn instant_at(&self, t: sim::SimTime) -> tokio::time::Instant {
        tokio::time::Instant::from_std(self.epoch + Duration::from_micros(t.0))
    }
}

/// `GET /api/rooms`: this relay's shared rooms with their players and
/// bots, `{"instance": …, "rooms": [{"room", "players", "bots",
/// "max_players"}]}`, by name. Private sessions are not listed.
pub(crate) async fn list(State(state): State<AppState>) -> impl IntoResponse {
    Json(serde_json::json!({
        "instance": state.inner.deployment.instance,
        "rooms": state.inner.rooms.list(),
    }))
}
