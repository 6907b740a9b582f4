//! One room's task: the only owner of its [`RoomHost`]. It takes the
//! players' commands as they come, polls the room at its wake-ups (the
//! 60 Hz tick, packets due on a player's link), and hands each player's
//! frames to their session.
//!
//! ```text
//! loop: commands (all waiting) ─► RoomHost::receive_msg / add / remove
//!       or the room's next wake-up
//!       poll_until(now) ─► frames by player ─► each seat's channel (try_send)
//!       no player for the empty-room lifetime ─► out of the registry, end
//! ```

use super::seat::{Command, Out};
use super::{RoomInfo, Rooms};
use crate::metrics::{Metrics, FLUSH_INTERVAL};
use crate::room::RoomId;
use sim::room::{PlayerId, RoomConfig, RoomError, RoomHost};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info};

/// A room and the channels to its players.
pub(super) struct RoomTask {
    id: RoomId,
    host: RoomHost,
    rooms: Arc<Rooms>,
    metrics: Arc<Metrics>,
    info: Arc<RoomInfo>,
    /// Seat number → the player in it.
    seats: HashMap<u64, PlayerId>,
    /// Each seated player's channel, by id.
    outs: BTreeMap<PlayerId, mpsc::Sender<Out>>,
    /// Since when no player has been seated.
    empty_since: Option<tokio::time::Instant>,
}

impl RoomTask {
    pub(super) fn new(
        id: RoomId,
        max_players: usize,
        seed: u64,
        rooms: Arc<Rooms>,
        metrics: Arc<Metrics>,
        info: Arc<RoomInfo>,
    ) -> RoomTask {
        let config = RoomConfig {
            max_players,
            ..RoomConfig::default()
        };
        // `Rooms::new` keeps `max_players` in its range.
        let host = RoomHost::new(config, seed, rooms.now()).expect("a valid room configuration");
        info!(room = %id, seed, max_players = host.config().max_players, "room made");
        RoomTask {
            id,
            host,
            rooms,
            metrics,
            info,
            seats: HashMap::new(),
            outs: BTreeMap::new(),
            empty_since: Some(tokio::time::Instant::now()),
        }
    }

    /// Runs the room until it has been empty for its lifetime
    /// (and no seat is being handed out) or the relay shuts down.
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
        loop {
            let wake = self.host.next_wakeup().map(|t| self.rooms.instant_at(t));
            let expire = self.empty_since.map(|t| t + self.rooms.empty_lifetime);
            if let Some(at) = [wake, expire].into_iter().flatten().min() {
                timer.as_mut().reset(at);
            }
            tokio::select! {
                cmd = rx.recv() => {
                    let Some(cmd) = cmd else { break };
                    self.command(cmd);
                    while let Ok(cmd) = rx.try_recv() {
                        self.command(cmd);
                    }
                }
                () = &mut timer => {}
                () = &mut cancelled => break,
            }
            let now = self.rooms.now();
            let tick_due = self.host.next_tick() <= now;
            let started = std::time::Instant::now();
            let frames = self.host.poll_until(now);
            if tick_due {
                ticks.observe(started.elapsed().as_secs_f64());
            }
            self.dispatch(frames);
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
                    break;
                }
            } else {
                self.empty_since = None;
            }
        }
        ticks.flush();
        self.metrics.room_closed();
    }

    fn command(&mut self, cmd: Command) {
        let now = self.rooms.now();
        match cmd {
            Command::Join { seat, out } => match self.host.add_player(now) {
                Ok(id) => {
                    self.seats.insert(seat, id);
                    let _ = out.try_send(Out::Seated);
                    self.outs.insert(id, out);
                    info!(room = %self.id, player = id.0, players = self.seats.len(), "player joined");
                }
                Err(e) => {
                    let frame = RoomHost::refusal_frame(&e);
                    let reason = format!("room {}: {e}", self.id);
                    info!(room = %self.id, %reason, "player refused");
                    let _ = out.try_send(Out::Refused { frame, reason });
                }
            },
            Command::Rebind { seat, out } => {
                if let Some(&id) = self.seats.get(&seat) {
                    let _ = out.try_send(Out::Seated);
                    self.outs.insert(id, out);
                    info!(room = %self.id, player = id.0, "player resumed");
                }
            }
            Command::Frame { seat, len, msg } => {
                let Some(&id) = self.seats.get(&seat) else {
                    return;
                };
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
            Command::Leave { seat } => {
                if let Some(id) = self.seats.remove(&seat) {
                    self.outs.remove(&id);
                    self.host.remove_player(id);
                    info!(room = %self.id, player = id.0, players = self.seats.len(), "player left");
                }
            }
        }
        self.info.players.store(self.seats.len(), Ordering::Relaxed);
        self.info
            .bots
            .store(self.host.bot_count(), Ordering::Relaxed);
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
