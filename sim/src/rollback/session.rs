//! Rollback client, link conditioner and server in one process on a
//! virtual clock (like [`crate::LocalSession`] for the CMC model): the
//! engine of the tests, the benches and the page's local mode. Frames go
//! through the real codec both ways, so byte counts are the wire's.

use super::bot::BotPlayer;
use super::config::RollbackConfig;
use super::endpoint::RollbackEndpoint;
use super::host::RollbackHost;
use crate::math::Vec2;
use crate::net::protocol::{NetSettings, SettingsError};
use crate::time::SimTime;

/// A whole rollback connection in one process.
#[derive(Debug, Clone)]
pub struct RollbackSession {
    /// The client end.
    pub endpoint: RollbackEndpoint,
    /// The server end.
    pub host: RollbackHost,
    now: SimTime,
}

impl RollbackSession {
    /// A session whose conditioners draw from `seed`, with `settings` on
    /// the link and `config` for the match.
    ///
    /// # Errors
    /// [`SettingsError`] if `settings` or `config` is out of range.
    pub fn new(
        seed: u64,
        settings: NetSettings,
        config: RollbackConfig,
    ) -> Result<Self, SettingsError> {
        let mut host = RollbackHost::new(seed, SimTime::ZERO, config)?;
        host.set_net_settings(settings)?;
        let mut s = RollbackSession {
            endpoint: RollbackEndpoint::new(config)?,
            host,
            now: SimTime::ZERO,
        };
        s.step(0.0, Vec2::ZERO, false);
        Ok(s)
    }

    /// Advances by one client frame of `dt` s with this input: the client
    /// predicts and sends, then the host runs through each of its wake-ups
    /// up to the new time and its frames reach the client at their own
    /// times.
    pub fn step(&mut self, dt: f64, direction: Vec2, fire: bool) {
        self.now = self.now.plus_micros((dt.max(0.0) * 1e6).round() as u64);
        for frame in self.endpoint.frame(self.now, dt, direction, fire) {
            // Frames built by the endpoint always decode.
            let _ = self.host.receive_frame(self.now, &frame);
        }
        for (at, frame) in self.host.poll_until(self.now) {
            // Refusals are counted by the endpoint.
            let _ = self.endpoint.receive_frame(at, &frame);
        }
    }

    /// Advances one frame with `bot` driving the local player.
    pub fn step_bot(&mut self, bot: &mut BotPlayer, dt: f64) {
        let position = self
            .endpoint
            .predicted()
            .map_or(Vec2::ZERO, |s| s.players[0].position.to_cm());
        let (dir, buttons) = bot.input(position, dt as f32);
        self.step(dt, dir, buttons & super::input::InputCmd::FIRE != 0);
    }

    /// Changes the link settings mid-run (like dragging a slider).
    ///
    /// # Errors
    /// [`SettingsError`] if out of range; nothing changes.
    pub fn set_net_settings(&mut self, settings: NetSettings) -> Result<(), SettingsError> {
        self.host.set_net_settings(settings)
    }

    /// Changes the match settings mid-run on both ends.
    ///
    /// # Errors
    /// [`SettingsError`] if out of range; nothing changes.
    pub fn set_config(&mut self, config: RollbackConfig) -> Result<(), SettingsError> {
        self.endpoint.set_config(config)?;
        self.host.set_config(self.now, config)
    }

    /// The virtual clock.
    pub fn now(&self) -> SimTime {
        self.now
    }
}
