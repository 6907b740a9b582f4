//! Shared rooms (issue #13): every `/ws?room=NAME` whose name is not a
//! private `p-…` id joins the room NAME on this relay — one authoritative
//! [`sim::endpoints::room::RoomHost`] per room, on its own task.
//!
//! ```text
//!  session (ws/) ─── Command::{Join, Rebind, Frame, Leave, Dismiss} ──► room task: RoomHost
//!        ▲                    (unbounded: each session's budgets bound it)      │
//!        └──────── Out::{Seated, Frames, Rejected, Refused, Moved} ◄────────────┘
//!                  (bounded per player: a player who does not read loses
//!                   their own frames, never delays the room)
//! ```
//!
//! | module | holds |
//! |---|---|
//! | here | [`Rooms`]: the registry, joining, making a room from a checkpoint, dismissing one |
//! | `seat` | [`Seat`]: one player's place in a room, and the messages both ways |
//! | `task` | the room's task: commands in, polls on the room's wake-ups, frames out |
//! | `hosted` | [`hosted::Hosted`]: the room's authority by its model (CMC room or rollback match) |
//!
//! | `list` | `GET /api/rooms` |
//! | `recording` | `GET /api/rooms/{name}/recording`: a CMC room's recording so far; `POST`: keep it in the store |
//! | `checkpoint` | [`checkpoint::Checkpoint`]: what another relay needs to carry the room on |
//!
//! **Life of a room.** On one relay (SQLite), the first player's Join
//! makes it; with a shared registry (PostgreSQL, `crate::homes`), the
//! relay makes it when it claims the room's home, fresh or from the
//! checkpoint of the relay that had it ([`Rooms::create`]). Players join
//! and leave at any time; a dropped socket's seat is kept for the resume
//! grace period ([`crate::resume::GRACE`]) and a Resume on a new
//! connection takes it back, character and all (a Close frame from the
//! client is a goodbye: the player leaves at once); a room with no player
//! (bots do not count) for [`crate::Limits::empty_room_lifetime`] (30 s)
//! is dropped. A room holds at most [`crate::Limits::max_room_players`]
//! (bots included) and [`crate::Limits::max_seats_per_address`] seats of
//! one client address; one more is refused with the reason and the close
//! code [`CLOSE_ROOM_FULL`] (full) or 1008 (the address's share). A room
//! handed to another relay, or found to be another's, is dismissed
//! ([`Rooms::dismiss`]): its players are closed with
//! [`CLOSE_ROOM_MOVED`] and reconnect to where it is now.
//!
//! **Its model.** The player who makes a room chooses its model with
//! `&model=rollback` (issue 22; CMC without it): a rollback room is one
//! rollback match of at most [`crate::Limits::max_rollback_players`]
//! (2–8, bots included). A player asking an existing room for another
//! model is refused with the reason and close code [`CLOSE_ROOM_MODEL`];
//! one asking for none joins whatever the room runs.
//!
//! A room has one home at a time: each relay lists only its own rooms
//! (`/api/rooms`), and the registry sends a room's players to its home
//! whichever relay they reach (`crate::homes`).

pub(crate) mod checkpoint;
mod hosted;
mod list;
mod recording;
mod seat;
mod snapshot;
mod task;

pub(crate) use list::list;
pub use list::RoomSummary;
pub(crate) use recording::{recording, save as save_recording};
pub(crate) use seat::{Out, Seat};

use crate::metrics::{Metrics, SeatRefusal};
use crate::room::{RoomId, RoomModel};
use crate::token::TokenHash;
use checkpoint::Checkpoint;
use seat::{Command, SeatCounts};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Close code for a player refused by a full room: 1013 "try again later"
/// (IANA's WebSocket close code registry: a temporary condition).
pub const CLOSE_ROOM_FULL: u16 = 1013;

/// Close code for a player whose room has left this relay: 1012 "service
/// restart" (IANA's registry: the client should reconnect), which the page
/// does at once, resuming its seat where the room is now.
pub const CLOSE_ROOM_MOVED: u16 = 1012;

/// Close code for a player asking a room for another model than it runs:
/// 4000, the first of the codes RFC 6455 §7.4.2 leaves to applications
/// (the reason names the room's model).
pub const CLOSE_ROOM_MODEL: u16 = 4000;

/// Close code for a seat refused for its address's share: 1008 "policy
/// violation" (RFC 6455 §7.4.1).
const CLOSE_POLICY: u16 = 1008;

/// Frame batches waiting for one player's session; more are dropped (the
/// player's own loss: a session that stops reading never slows the room).
/// At 60 polls/s a batch per poll, 256 is 4 s of room traffic.
const OUT_QUEUE: usize = 256;

/// Tells a player on `out` that their seat is refused for `reason`: the
/// room's Refused message, then the close with `code`.
fn refuse(out: &mpsc::Sender<Out>, reason: String, code: u16) {
    let _ = out.try_send(Out::Refused {
        frame: sim::net::codec::encode(&sim::protocol::ServerMsg::Room(
            sim::room::RoomServerMsg::Refused {
                reason: reason.clone(),
            },
        )),
        code,
        reason,
    });
}

/// What `/api/rooms` shows of a room and the registry renews it with,
/// kept current by its task.
#[derive(Debug, Default)]
struct RoomInfo {
    /// The model it runs, chosen when it was made.
    model: RoomModel,
    /// Most players, bots included.
    max_players: usize,
    /// Remote players seated (a dropped socket's seat within its grace
    /// period included).
    players: AtomicUsize,
    /// Server-driven bots.
    bots: AtomicUsize,
    /// Spectators of a rollback room (issue 22).
    spectators: AtomicUsize,
    /// The newest checkpoint, encoded (with a shared registry only).
    checkpoint: Mutex<Option<Arc<Vec<u8>>>>,
}

/// One room in the registry.
#[derive(Debug)]
struct Entry {
    /// The room's task.
    tx: mpsc::UnboundedSender<Command>,
    /// Seats handed out and not yet given back: the task drops the room
    /// only when none is, under the registry's lock, so a player joining
    /// never finds a room that is going away.
    counts: Arc<SeatCounts>,
    info: Arc<RoomInfo>,
    /// This relay's lease on the room in the shared registry.
    lease: Option<i64>,
}

/// A room this relay holds a lease on, as the registry renews it.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    /// The room.
    pub(crate) room: RoomId,
    /// The lease.
    pub(crate) lease: i64,
    /// Its newest checkpoint, encoded.
    pub(crate) checkpoint: Option<Arc<Vec<u8>>>,
}

/// How the registry learns that a room it holds a lease on has ended
/// here: its name and lease.
pub(crate) type Ended = mpsc::UnboundedSender<(RoomId, i64)>;

/// The shared rooms of this relay.
#[derive(Debug)]
pub(crate) struct Rooms {
    map: Mutex<HashMap<RoomId, Entry>>,
    /// Most players per CMC room, bots included.
    max_players: usize,
    /// Most players per rollback room, bots included (2..=8).
    max_rollback_players: usize,
    /// Most seats one address holds in a room (`0` = no cap).
    max_seats_per_address: usize,
    /// Inputs a new CMC room records at most (`0`: not recorded).
    record_events: usize,
    /// Ticks a new rollback room's match records at most (`0`: not
    /// recorded).
    record_ticks: usize,
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
    /// With a shared registry: where ended rooms' leases go to be released
    /// (a missing room is then never made on a Join: only a claim makes
    /// one). `None`: this relay alone, rooms made on demand.
    ended: Mutex<Option<Ended>>,
}

impl Rooms {
    /// No rooms yet; each will hold at most `max_players` (clamped to
    /// `1..=`[`sim::room::config::MAX_ROOM_PLAYERS`]) and
    /// `max_seats_per_address` seats of one address, and live on
    /// `empty_lifetime` without a player.
    pub(crate) fn new(
        limits: &crate::Limits,
        seed_base: u64,
        epoch: Instant,
        shutdown: CancellationToken,
    ) -> Rooms {
        Rooms {
            map: Mutex::new(HashMap::new()),
            max_players: limits
                .max_room_players
                .clamp(1, sim::room::config::MAX_ROOM_PLAYERS),
            max_rollback_players: limits.max_rollback_players.clamp(
                sim::rollback::arena::MIN_PLAYERS,
                sim::rollback::arena::MAX_PLAYERS,
            ),
            max_seats_per_address: limits.max_seats_per_address,
            record_events: limits.room_record_events,
            record_ticks: limits.match_record_ticks,
            empty_lifetime: limits.empty_room_lifetime,
            seed_base,
            made: AtomicU64::new(0),
            seated: AtomicU64::new(0),
            epoch,
            shutdown,
            ended: Mutex::new(None),
        }
    }

    /// From now on rooms are made only by a claim ([`Rooms::create`]),
    /// keep checkpoints, and report on `ended` when they end here.
    pub(crate) fn share(&self, ended: Ended) {
        *self.ended.lock().unwrap_or_else(PoisonError::into_inner) = Some(ended);
    }

    fn shared(&self) -> bool {
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// A seat in room `id` (running `model`, if named) for a client at
    /// `addr` whose session's token hashes to `token`, and the channel its
    /// frames come back on; with `watch` a spectator's place (issue 22),
    /// which needs a rollback room that exists (else refused with
    /// [`CLOSE_ROOM_MODEL`] and the reason) and counts towards the
    /// address's share like a seat. The room answers with
    /// [`Out::Seated`] or, when full, [`Out::Refused`].
    /// `None` and an [`Out::Refused`] already waiting when `addr` holds its
    /// share of the room's seats; an [`Out::Moved`] waiting when the room
    /// is not here (with a shared registry: it ended or moved since the
    /// connection was placed).
    pub(crate) fn join(
        self: &Arc<Self>,
        id: &RoomId,
        (model, watch): (Option<RoomModel>, bool),
        addr: IpAddr,
        token: Option<TokenHash>,
        metrics: &Arc<Metrics>,
    ) -> (Option<Seat>, mpsc::Receiver<Out>) {
        let (out, rx) = mpsc::channel(OUT_QUEUE);
        let shared = self.shared();
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if shared && !map.contains_key(id) {
            drop(map);
            let reason = format!("room {id} is no longer on this relay: reconnect");
            let _ = out.try_send(Out::Moved { reason });
            return (None, rx);
        }
        let watched = map.get(id).map(|e| e.info.model);
        if watch && watched != Some(RoomModel::Rollback) {
            drop(map);
            metrics.seat_refused(SeatRefusal::RoomModel);
            let reason = match watched {
                None => format!("room {id} does not exist: there is no match to watch"),
                Some(runs) => {
                    format!("room {id} runs the {runs} model: only a rollback match is watched")
                }
            };
            refuse(&out, reason, CLOSE_ROOM_MODEL);
            return (None, rx);
        }
        let entry = map.entry(id.clone()).or_insert_with(|| {
            self.spawn(id, model.unwrap_or_default(), metrics, None, None)
                .0
        });
        if let Some(asked) = model.filter(|&m| m != entry.info.model) {
            let runs = entry.info.model;
            drop(map);
            metrics.seat_refused(SeatRefusal::RoomModel);
            let reason = format!(
                "room {id} runs the {runs} model, not {asked}: \
                 join it without model= or choose another room"
            );
            refuse(&out, reason, CLOSE_ROOM_MODEL);
            return (None, rx);
        }
        if !entry.counts.try_add(addr, self.max_seats_per_address) {
            drop(map);
            metrics.seat_refused(SeatRefusal::AddressCap);
            let reason = format!(
                "room {id}: this address holds {} seats of the room already",
                self.max_seats_per_address
            );
            refuse(&out, reason, CLOSE_POLICY);
            return (None, rx);
        }
        let key = self.seated.fetch_add(1, Ordering::Relaxed);
        let seat = Seat::new(
            id.clone(),
            key,
            entry.tx.clone(),
            entry.counts.clone(),
            addr,
        );
        drop(map);
        seat.join(out, token, watch);
        (Some(seat), rx)
    }

    /// Makes room `id`, whose home this relay now is under `lease`, fresh
    /// (running `model`) or from `checkpoint`; returns the seats made from
    /// it, each under its token's hash, to be parked for their players'
    /// Resumes. Nothing if the room is here already.
    pub(crate) fn create(
        self: &Arc<Self>,
        id: &RoomId,
        model: Option<RoomModel>,
        lease: i64,
        checkpoint: Option<&Checkpoint>,
        metrics: &Arc<Metrics>,
    ) -> Vec<(TokenHash, Seat)> {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if map.contains_key(id) {
            return Vec::new();
        }
        // A room carried on from a checkpoint is a CMC room (a rollback
        // room keeps none); a fresh one runs the model asked for.
        let model = match checkpoint {
            Some(_) => RoomModel::Cmc,
            None => model.unwrap_or_default(),
        };
        let (entry, seats) = self.spawn(id, model, metrics, Some(lease), checkpoint);
        map.insert(id.clone(), entry);
        seats
    }

    /// Whether room `id` is here.
    /// The model room `id` runs, `None` if it is not here.
    pub(crate) fn model(&self, id: &RoomId) -> Option<RoomModel> {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .map(|e| e.info.model)
    }

    pub(crate) fn contains(&self, id: &RoomId) -> bool {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id)
    }

    /// A channel for a seat taken back by a resume: [`Seat::rebind`] sends
    /// its sender to the room.
    pub(crate) fn out_channel() -> (mpsc::Sender<Out>, mpsc::Receiver<Out>) {
        mpsc::channel(OUT_QUEUE)
    }

    /// Starts room `id`'s task (restoring `checkpoint`): its entry, and
    /// the seats the checkpoint made with their tokens.
    fn spawn(
        self: &Arc<Self>,
        id: &RoomId,
        model: RoomModel,
        metrics: &Arc<Metrics>,
        lease: Option<i64>,
        checkpoint: Option<&Checkpoint>,
    ) -> (Entry, Vec<(TokenHash, Seat)>) {
        let n = self.made.fetch_add(1, Ordering::Relaxed);
        let seed = self.seed_base ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x524f_4f4d;
        let (tx, rx) = mpsc::unbounded_channel();
        let counts = Arc::new(SeatCounts::default());
        let max_players = match model {
            RoomModel::Cmc => self.max_players,
            RoomModel::Rollback => self.max_rollback_players,
        };
        let info = Arc::new(RoomInfo {
            model,
            max_players,
            ..RoomInfo::default()
        });
        let (room, restored) = task::RoomTask::new(
            task::Made {
                id: id.clone(),
                model,
                max_players,
                seed,
                lease,
                checkpoint,
                record_events: self.record_events,
                record_ticks: self.record_ticks,
                seat_keys: &self.seated,
            },
            Arc::clone(self),
            Arc::clone(metrics),
            info.clone(),
        );
        let seats = restored
            .into_iter()
            .filter_map(|(key, state)| {
                counts.try_add(state.addr, 0);
                let seat = Seat::new(id.clone(), key, tx.clone(), counts.clone(), state.addr);
                Some((state.token?, seat))
            })
            .collect();
        tokio::spawn(room.run(rx, self.shutdown.clone()));
        (
            Entry {
                tx,
                counts,
                info,
                lease,
            },
            seats,
        )
    }

    /// Takes room `id` (the one whose task keeps `info`) out of the
    /// registry if no seat is handed out (the task then ends); `false` if
    /// a player has joined meanwhile.
    fn remove_if_empty(&self, id: &RoomId, info: &Arc<RoomInfo>) -> bool {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        match map.get(id) {
            Some(e) if Arc::ptr_eq(&e.info, info) && e.counts.total() == 0 => {
                map.remove(id);
                true
            }
            _ => false,
        }
    }

    /// Room `id` (the one whose task keeps `info`) has ended here: its
    /// lease, if it holds one, goes to the registry to be released.
    fn ended(&self, id: &RoomId, lease: Option<i64>) {
        if let (Some(lease), Some(ended)) = (
            lease,
            self.ended
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref(),
        ) {
            let _ = ended.send((id.clone(), lease));
        }
    }

    /// Ends room `id` here if it is the one under `lease`: every player is
    /// told to reconnect (close [`CLOSE_ROOM_MOVED`], `reason`). Its lease
    /// is not reported as ended: whoever dismisses it deals with it.
    pub(crate) fn dismiss(&self, id: &RoomId, lease: i64, reason: &str) {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if map.get(id).is_some_and(|e| e.lease == Some(lease)) {
            if let Some(e) = map.remove(id) {
                let _ = e.tx.send(Command::Dismiss {
                    reason: reason.to_owned(),
                });
            }
        }
    }

    /// Every room this relay holds a lease on, with its newest checkpoint.
    pub(crate) fn held(&self) -> Vec<Held> {
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        map.iter()
            .filter_map(|(id, e)| {
                Some(Held {
                    room: id.clone(),
                    lease: e.lease?,
                    checkpoint: e
                        .info
                        .checkpoint
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .clone(),
                })
            })
            .collect()
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
