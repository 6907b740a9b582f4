//! [`RoomSession`]: a room and several clients in one process on one
//! virtual clock — the engine of the room tests and benches, like
//! [`crate::endpoints::session::LocalSession`] for one player. Frames go through the real
//! codec both ways. Each client reads its **own** clock (the server's
//! plus a per-player offset), so clock sync has something to find.

use super::endpoint::RoomEndpoint;
use super::host::{RoomError, RoomHost};
use crate::foundation::bot::Bot;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::net::codec;
use crate::net::settings::NetSettings;
use crate::protocol::ServerMsg;
use crate::room::config::RoomConfig;
use crate::room::replication::PlayerId;

/// How far client `id`'s clock reads ahead of the room's, µs: 7 s per id.
fn clock_offset_us(id: PlayerId) -> u64 {
    7_000_000 * u64::from(id.0)
}

/// One client of the session.
#[derive(Debug, Clone)]
struct SessionClient {
    id: PlayerId,
    endpoint: RoomEndpoint,
}

/// A room and its clients on one clock.
#[derive(Debug, Clone)]
pub struct RoomSession {
    /// The room.
    pub host: RoomHost,
    clients: Vec<SessionClient>,
    seed: u64,
    now: SimTime,
}

impl RoomSession {
    /// An empty room whose conditioners draw from `seed`.
    ///
    /// # Errors
    /// [`RoomError::Settings`] if `config` is out of range.
    pub fn new(config: RoomConfig, seed: u64) -> Result<RoomSession, RoomError> {
        Ok(RoomSession {
            host: RoomHost::new(config, seed, SimTime::ZERO)?,
            clients: Vec::new(),
            seed,
            now: SimTime::ZERO,
        })
    }

    /// A new client with its link set to `settings` (sent with its Join).
    ///
    /// # Errors
    /// [`RoomError::Full`] when the room is full.
    pub fn join(&mut self, settings: NetSettings) -> Result<PlayerId, RoomError> {
        let id = self.host.add_player(self.now)?;
        let mut endpoint = RoomEndpoint::new(self.seed ^ u64::from(id.0));
        endpoint.set_net_settings(settings);
        self.clients.push(SessionClient { id, endpoint });
        Ok(id)
    }

    /// Client `id` leaves: the room drops them at once.
    pub fn leave(&mut self, id: PlayerId) {
        self.clients.retain(|c| c.id != id);
        self.host.remove_player(id);
    }

    /// A server bot driven by `bot`, standing at `at` (cm).
    ///
    /// # Errors
    /// [`RoomError::Full`] when the room is full.
    pub fn add_bot(&mut self, bot: Bot, at: Vec2) -> Result<PlayerId, RoomError> {
        self.host.add_bot_with(self.now, bot, at)
    }

    /// Advances by one render frame of `dt` s: every client runs a frame
    /// with the input `input` gives it, the room runs through each of its
    /// wake-ups up to the new time, and its frames reach the clients at
    /// their own arrival times.
    pub fn step(
        &mut self,
        dt: f64,
        mut input: impl FnMut(PlayerId, &RoomEndpoint) -> (Vec2, bool),
    ) {
        self.now = self.now.plus_micros((dt.max(0.0) * 1e6).round() as u64);
        for c in &mut self.clients {
            let (direction, dash) = input(c.id, &c.endpoint);
            let client_now = self.now.plus_micros(clock_offset_us(c.id));
            for frame in c.endpoint.frame(client_now, dt, direction, dash) {
                // Frames built by the endpoint always decode; an error is
                // answered by the room, never a panic.
                let _ = self.host.receive_frame(self.now, c.id, &frame);
            }
        }
        let mut frames = self.host.poll_until(self.now);
        // The packet traces clients asked for (as the relay sends them).
        for (id, batch) in self.host.take_traces() {
            let frame = codec::encode(&ServerMsg::Trace(Box::new(batch)));
            frames.push((self.now, id, frame));
        }
        for (at, id, frame) in frames {
            if let Some(c) = self.clients.iter_mut().find(|c| c.id == id) {
                let _ = c
                    .endpoint
                    .receive_frame(at.plus_micros(clock_offset_us(id)), &frame);
            }
        }
    }

    /// Lets client `id` act at the current time (fire, reload, change a
    /// setting) with its own clock's reading, and sends what it queued at
    /// once. `None` if there is no such client.
    pub fn act<T>(
        &mut self,
        id: PlayerId,
        f: impl FnOnce(&mut RoomEndpoint, SimTime) -> T,
    ) -> Option<T> {
        let now = self.now;
        let c = self.clients.iter_mut().find(|c| c.id == id)?;
        let out = f(&mut c.endpoint, now.plus_micros(clock_offset_us(id)));
        for frame in c.endpoint.take_outgoing() {
            let _ = self.host.receive_frame(now, id, &frame);
        }
        Some(out)
    }

    /// Client `id`'s endpoint.
    pub fn endpoint(&self, id: PlayerId) -> Option<&RoomEndpoint> {
        self.clients
            .iter()
            .find(|c| c.id == id)
            .map(|c| &c.endpoint)
    }

    /// Client `id`'s clock now.
    pub fn client_now(&self, id: PlayerId) -> SimTime {
        self.now.plus_micros(clock_offset_us(id))
    }

    /// The room's clock.
    pub fn now(&self) -> SimTime {
        self.now
    }
}
