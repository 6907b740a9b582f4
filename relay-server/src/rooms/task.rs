//! One room's task: the only owner of its authority ([`Hosted`]: a CMC
//! [`RoomHost`] or a rollback match, by the room's model). It takes the
//! players' commands as they come, polls the room at its wake-ups (the
//! 60 Hz tick, packets due on a player's link), and hands each player's
//! frames to their session.
//!
//! ```text
//! loop: commands (all waiting) ─► Hosted::receive_msg / add / remove
//!       or the room's next wake-up
//!       poll_until(now) ─► frames by player ─► each seat's channel (try_send)
//!       a seat, a token or a setting changed ─► the checkpoint (shared registry)
//!       take_traces(now) ─► stamped with the room's poll times ─► Out::Trace
//!       no player for the empty-room lifetime ─► out of the registry, end
//!       dismissed ─► every player told to reconnect, end
//! ```

use super::checkpoint::{Checkpoint, SeatState};
use super::hosted::Hosted;
use super::seat::{Command, Out};
use super::snapshot::Snapshot;
use super::{RoomInfo, Rooms, CLOSE_ROOM_FULL};
use crate::metrics::{Metrics, SeatRefusal, FLUSH_INTERVAL};
use crate::room::{RoomId, RoomModel};
use crate::trace::RoomTimes;
use sim::endpoints::rollback_room::RollbackRoomHost;
use sim::endpoints::room::{RoomError, RoomHost};
use sim::protocol::ClientMsg;
use sim::rollback::RollbackConfig;
use sim::room::{PlayerId, RoomClientMsg, RoomConfig};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info};

/// What a room is made of.
pub(super) struct Made<'a> {
    /// Its name.
    pub(super) id: RoomId,
    /// Its model.
    pub(super) model: RoomModel,
    /// Most players, bots included.
    pub(super) max_players: usize,
    /// Its link conditioners' seed.
    pub(super) seed: u64,
    /// This relay's lease on it (shared registry).
    pub(super) lease: Option<i64>,
    /// Where it was when another relay had it.
    pub(super) checkpoint: Option<&'a Checkpoint>,
    /// Inputs it records at most if it is a fresh CMC room (`0`: none).
    pub(super) record_events: usize,
    /// Ticks it records at most if it is a fresh rollback room (`0`:
    /// none).
    pub(super) record_ticks: usize,
    /// Where its restored seats' numbers come from.
    pub(super) seat_keys: &'a AtomicU64,
}

/// A room and the channels to its players.
pub(super) struct RoomTask {
    id: RoomId,
    host: Hosted,
    rooms: Arc<Rooms>,
    metrics: Arc<Metrics>,
    info: Arc<RoomInfo>,
    lease: Option<i64>,
    /// Seat number → the player in it, their token and address.
    seats: HashMap<u64, SeatState>,
    /// Each seated player's channel, by id.
    outs: BTreeMap<PlayerId, mpsc::Sender<Out>>,
    /// Since when no player has been seated.
    empty_since: Option<tokio::time::Instant>,
    /// A seat, a token or a setting changed since the last checkpoint.
    changed: bool,
    /// The room's processing times for its players' traces.
    times: RoomTimes,
}

impl RoomTask {
    /// The room `made` says, and the seats its checkpoint made (their
    /// numbers and states).
    pub(super) fn new(
        made: Made<'_>,
        rooms: Arc<Rooms>,
        metrics: Arc<Metrics>,
        info: Arc<RoomInfo>,
    ) -> (RoomTask, Vec<(u64, SeatState)>) {
        let now = rooms.now();
        let (host, restored) = match made.model {
            RoomModel::Cmc => {
                let (host, restored) = cmc_host(&made, now);
                (Hosted::Cmc(Box::new(host)), restored)
            }
            // `Rooms::new` keeps `max_players` in 2..=8; the creator's
            // settings are the rollback defaults (001_… §5.1: 60 Hz,
            // hold-last 6, a State every 2 ticks).
            RoomModel::Rollback => {
                let mut host = RollbackRoomHost::new(
                    RollbackConfig::default(),
                    made.max_players,
                    made.seed,
                    now,
                )
                .expect("a valid rollback room");
                // A fresh match records from its creation, as a CMC room
                // does; one made from a checkpoint would not (its start is
                // not here: `Unrecorded::Restored`), though a rollback room
                // keeps none (see `hosted`).
                if made.checkpoint.is_none() && made.record_ticks > 0 {
                    host.record(made.record_ticks);
                }
                (Hosted::Rollback(Box::new(host)), Vec::new())
            }
        };
        info!(
            room = %made.id,
            seed = made.seed,
            model = %host.model(),
            max_players = host.max_players(),
            restored_seats = restored.len(),
            bots = host.bot_count(),
            "room made"
        );
        let task = RoomTask {
            id: made.id,
            host,
            rooms,
            metrics,
            info,
            lease: made.lease,
            seats: restored.iter().copied().collect(),
            outs: BTreeMap::new(),
            empty_since: Some(tokio::time::Instant::now()),
            changed: true,
            times: RoomTimes::default(),
        };
        (task, restored)
    }

    /// Runs the room until it has been empty for its lifetime (and no
    /// seat is being handed out), it is dismissed, or the relay shuts
    /// down.
    pub(super) async fn run(
        mut self,
        mut rx: mpsc::UnboundedReceiver<Command>,
        shutdown: CancellationToken,
    ) {
        self.metrics.room_opened();
        let ticks = self.metrics.room_ticks();
        let mut last_flush = std::time::Instant::now();
        let timer = tokio::time::sleep(std::time::Duration::ZERO);
        tokio::pin!(timer);
        let cancelled = shutdown.cancelled();
        tokio::pin!(cancelled);
        let mut dismissed = false;
        loop {
            let wake = self.host.next_wakeup().map(|t| self.rooms.instant_at(t));
            let expire = self.empty_since.map(|t| t + self.rooms.empty_lifetime);
            if let Some(at) = [wake, expire].into_iter().flatten().min() {
                timer.as_mut().reset(at);
            }
            let mut timer_fired = false;
            tokio::select! {
                cmd = rx.recv() => {
                    let Some(cmd) = cmd else { break };
                    dismissed |= self.command(cmd);
                    while let Ok(cmd) = rx.try_recv() {
                        dismissed |= self.command(cmd);
                    }
                    if dismissed {
                        break;
                    }
                }
                () = &mut timer => timer_fired = true,
                () = &mut cancelled => break,
            }
            let now = self.rooms.now();
            let tick_due = self.host.next_tick() <= now;
            let late = wake
                .filter(|_| timer_fired)
                .map(|at| tokio::time::Instant::now().saturating_duration_since(at));
            let started = std::time::Instant::now();
            let frames = self.host.poll_until(now);
            if tick_due {
                ticks.observe(started.elapsed().as_secs_f64());
            }
            self.times.polled(started, late);
            self.dispatch(frames);
            self.checkpoint();
            self.dispatch_traces();
            if last_flush.elapsed() >= FLUSH_INTERVAL {
                last_flush = std::time::Instant::now();
                ticks.flush();
            }
            if self.seats.is_empty() {
                let since = *self
                    .empty_since
                    .get_or_insert_with(tokio::time::Instant::now);
                let lifetime = self.rooms.empty_lifetime;
                if since.elapsed() >= lifetime && self.rooms.remove_if_empty(&self.id, &self.info) {
                    info!(room = %self.id, empty_s = lifetime.as_secs_f64(), "room dropped: no player");
                    self.rooms.ended(&self.id, self.lease);
                    break;
                }
            } else {
                self.empty_since = None;
            }
        }
        ticks.flush();
        self.metrics.room_closed();
    }

    /// Handles one command; `true` when the room is dismissed.
    fn command(&mut self, cmd: Command) -> bool {
        let now = self.rooms.now();
        match cmd {
            Command::Join {
                seat,
                out,
                addr,
                token,
                watch,
            } => match self.host.add(now, watch) {
                Ok(id) => {
                    self.seats.insert(seat, SeatState { id, token, addr });
                    let _ = out.try_send(Out::Seated);
                    self.outs.insert(id, out);
                    self.changed = true;
                    info!(room = %self.id, player = id.0, watch, players = self.seats.len(), "player joined");
                }
                Err(e) => {
                    let frame = RoomHost::refusal_frame(&e);
                    let reason = format!("room {}: {e}", self.id);
                    info!(room = %self.id, %reason, "player refused");
                    self.metrics.seat_refused(SeatRefusal::RoomFull);
                    let _ = out.try_send(Out::Refused {
                        frame,
                        code: CLOSE_ROOM_FULL,
                        reason,
                    });
                }
            },
            Command::Rebind { seat, out, token } => {
                if let Some(s) = self.seats.get_mut(&seat) {
                    s.token = token;
                    let _ = out.try_send(Out::Seated);
                    self.outs.insert(s.id, out);
                    self.changed = true;
                    info!(room = %self.id, player = s.id.0, "player resumed");
                }
            }
            Command::Frame { seat, len, msg } => {
                let Some(&SeatState { id, .. }) = self.seats.get(&seat) else {
                    return false;
                };
                self.changed |= matches!(
                    msg,
                    ClientMsg::SetNetSettings(_)
                        | ClientMsg::Room(
                            RoomClientMsg::SetPlayerSettings(_)
                                | RoomClientMsg::SetMaxRecordTime { .. }
                                | RoomClientMsg::AddBot
                        )
                );
                match self.host.receive_msg(now, id, len, msg) {
                    Ok(()) => {}
                    // The room answered the player with an Error already;
                    // a bad message is a strike, a full room's "add bot"
                    // is not.
                    Err(e @ (RoomError::Settings(_) | RoomError::NotInRoom(_))) => {
                        if let Some(out) = self.outs.get(&id) {
                            let _ = out.try_send(Out::Rejected(e.to_string()));
                        }
                    }
                    Err(e) => debug!(room = %self.id, player = id.0, error = %e, "refused"),
                }
            }
            Command::TraceCongested { seat, on } => {
                if let Some(SeatState { id, .. }) = self.seats.get(&seat) {
                    self.host.trace_congested(*id, on);
                }
            }
            Command::Leave { seat } => {
                if let Some(SeatState { id, .. }) = self.seats.remove(&seat) {
                    self.outs.remove(&id);
                    self.host.remove_player(id);
                    self.changed = true;
                    info!(room = %self.id, player = id.0, players = self.seats.len(), "player left");
                }
            }
            Command::Recording { reply } => {
                let answer = match &self.host {
                    Hosted::Cmc(h) => Snapshot::of(h),
                    Hosted::Rollback(h) => Snapshot::of_match(h),
                };
                let _ = reply.send(answer);
                return false;
            }
            Command::Dismiss { reason } => {
                for out in self.outs.values() {
                    let _ = out.try_send(Out::Moved {
                        reason: reason.clone(),
                    });
                }
                info!(room = %self.id, players = self.seats.len(), %reason, "room dismissed");
                return true;
            }
        }
        let spectators = self.host.spectator_count();
        self.info
            .players
            .store(self.seats.len() - spectators, Ordering::Relaxed);
        self.info.spectators.store(spectators, Ordering::Relaxed);
        self.info
            .bots
            .store(self.host.bot_count(), Ordering::Relaxed);
        false
    }

    /// Publishes the room's checkpoint for the registry if something in it
    /// changed (a room under a lease only).
    fn checkpoint(&mut self) {
        if !std::mem::take(&mut self.changed) || self.lease.is_none() {
            return;
        }
        // A rollback room is not carried on (see `hosted`).
        let Some(host) = self.host.cmc() else {
            return;
        };
        let encoded = Checkpoint::of(host, self.seats.values()).encode();
        *self
            .info
            .checkpoint
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(encoded));
    }

    /// Hands each tracing player their trace batches made by the polls, stamped
    /// with the room's processing times (a full queue loses a batch: the
    /// page sees the gap in the batches' numbers).
    fn dispatch_traces(&mut self) {
        let mut batches = self.host.take_traces();
        self.times.stamp(&mut batches);
        for (id, batch) in batches {
            if let Some(out) = self.outs.get(&id) {
                let _ = out.try_send(Out::Trace(Box::new(batch)));
            }
        }
    }

    /// Hands each player the frames of one poll, in order, in one batch.
    fn dispatch(&mut self, frames: Vec<(sim::SimTime, PlayerId, Vec<u8>)>) {
        let mut batches: BTreeMap<PlayerId, Vec<Vec<u8>>> = BTreeMap::new();
        for (_, id, frame) in frames {
            batches.entry(id).or_default().push(frame);
        }
        for (id, batch) in batches {
            if let Some(out) = self.outs.get(&id) {
                // A full queue: that player's loss alone.
                let _ = out.try_send(Out::Frames(batch));
            }
        }
    }
}

/// The CMC room `made` says, and the seats its checkpoint made (their
/// numbers and states).
fn cmc_host(made: &Made<'_>, now: sim::SimTime) -> (RoomHost, Vec<(u64, SeatState)>) {
    let config = RoomConfig {
        max_players: made.max_players,
        max_record_time_ms: made
            .checkpoint
            .map_or(RoomConfig::default().max_record_time_ms, |c| {
                c.max_record_time_ms
            }),
        ..RoomConfig::default()
    };
    // `Rooms::new` keeps `max_players` in its range; a checkpoint's
    // record time was in range on the relay that wrote it.
    let mut host = RoomHost::new(config, made.seed, now).unwrap_or_else(|_| {
        RoomHost::new(
            RoomConfig {
                max_players: made.max_players,
                ..RoomConfig::default()
            },
            made.seed,
            now,
        )
        .expect("a valid room configuration")
    });
    // A fresh room records from its creation; one carried on from a
    // checkpoint does not (a replay starts from an empty room).
    if made.checkpoint.is_none() && made.record_events > 0 {
        host.record(made.record_events)
            .expect("a new room records from its creation");
    }
    let restored = made
        .checkpoint
        .map(|c| c.restore(&mut host, now))
        .unwrap_or_default()
        .into_iter()
        .map(|s| (made.seat_keys.fetch_add(1, Ordering::Relaxed), s))
        .collect();
    (host, restored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rooms::snapshot::Unrecorded;

    /// A CMC room as `Rooms` makes it, carried on from `checkpoint` if
    /// given, asked to record 100 000 inputs.
    fn made<'a>(checkpoint: Option<&'a Checkpoint>, keys: &'a AtomicU64) -> Made<'a> {
        Made {
            id: RoomId::parse("lobby").unwrap(),
            model: RoomModel::Cmc,
            max_players: 16,
            seed: 7,
            lease: None,
            checkpoint,
            record_events: 100_000,
            record_ticks: 36_000,
            seat_keys: keys,
        }
    }

    #[test]
    fn a_room_carried_on_from_a_checkpoint_refuses_to_record_and_a_fresh_one_records() {
        // RecoilEngine#1388 (a game loaded from a save gives a wrong
        // replay): a replay starts from an empty room, so a room whose
        // start was on another relay has no recording to give.
        let keys = AtomicU64::new(0);
        let now = sim::SimTime::ZERO;
        let (fresh, _) = cmc_host(&made(None, &keys), now);
        assert!(Snapshot::of(&fresh).is_ok());
        let mut before = RoomHost::new(RoomConfig::default(), 7, now).unwrap();
        before.add_bot(now).unwrap();
        let checkpoint = Checkpoint::of(&before, [].iter());
        let (carried, _) = cmc_host(&made(Some(&checkpoint), &keys), now);
        assert_eq!(carried.bot_count(), 1, "the checkpoint's bot");
        assert_eq!(Snapshot::of(&carried).unwrap_err(), Unrecorded::Restored);
    }
}
