//! Client, link conditioner and server in one process on a virtual clock:
//! the engine of the tests and of the page's local mode. Frames go through
//! the real codec both ways, so byte counts are the wire's.

use crate::endpoints::client::ClientEndpoint;
use crate::endpoints::host::ServerHost;
use crate::foundation::bot::Bot;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::net::codec;
use crate::net::settings::NetSettings;
use crate::protocol::{ServerMsg, Setting, Setup};

/// A whole connection in one process, in either model
/// ([`Setup::model`]; [`Setting::Model`] switches it live).
///
/// # Examples
///
/// Ten seconds of the bot at RTT 150 ms and 10 % loss, then the read-out
/// the page's metrics panel shows:
///
/// ```
/// use sim::{Bot, LocalSession, NetSettings};
///
/// let mut session = LocalSession::new(3, NetSettings::symmetric(150, 0, 10));
/// let mut bot = Bot::new();
/// for _ in 0..600 {
///     session.step_bot(&mut bot, 1.0 / 60.0);
/// }
/// let m = session.endpoint.metrics(session.now());
/// assert!(m.acks > 50, "{} acks", m.acks);
/// assert!(m.queue_len <= 96, "UE's MaxSavedMoveCount");
/// println!("{} adjustments, {} moves replayed", m.adjustments, m.replayed_moves);
/// ```
#[derive(Debug, Clone)]
pub struct LocalSession {
    /// The client end.
    pub endpoint: ClientEndpoint,
    /// The server end.
    pub host: ServerHost,
    now: SimTime,
}

impl LocalSession {
    /// A session whose link conditioner draws from `seed`, with `settings`
    /// applied before the first move.
    pub fn new(seed: u64, settings: NetSettings) -> LocalSession {
        LocalSession::with_setup(
            seed,
            &Setup {
                net: settings,
                ..Setup::default()
            },
        )
    }

    /// A session whose link conditioner draws from `seed`, with every
    /// setting of `setup` in force before the first move.
    pub fn with_setup(seed: u64, setup: &Setup) -> LocalSession {
        let mut s = LocalSession {
            endpoint: ClientEndpoint::with_setup(seed, setup),
            host: ServerHost::new(seed, SimTime::ZERO),
            now: SimTime::ZERO,
        };
        s.step(0.0, Vec2::ZERO, false, false);
        s
    }

    /// Advances by one client frame of `dt` seconds with this input, in
    /// UE's frame order (network input before the character ticks, the
    /// frame drawn after the replay): the host runs through each of its
    /// wake-ups up to the new time and its frames reach the client stamped
    /// with their own arrival times; then the client replays any
    /// correction, predicts and sends. What a caller draws after `step` is
    /// never a snapped-but-not-replayed state.
    ///
    /// `fire` is the rollback arena's action button (the CMC model has
    /// none).
    pub fn step(&mut self, dt: f64, direction: Vec2, dash: bool, fire: bool) {
        self.now = self.now.plus_micros((dt.max(0.0) * 1e6).round() as u64);
        for (at, frame) in self.host.poll_until(self.now) {
            // Refusals are counted by the endpoint.
            let _ = self.endpoint.receive_frame(at, &frame);
        }
        // The packet trace, if the endpoint asked (as the relay sends it).
        for batch in self.host.take_trace() {
            let frame = codec::encode(&ServerMsg::Trace(Box::new(batch)));
            let _ = self.endpoint.receive_frame(self.now, &frame);
        }
        for frame in self.endpoint.frame(self.now, dt, direction, dash, fire) {
            // Frames built by the endpoint always decode; an error here is
            // still answered by the host, never a panic.
            let _ = self.host.receive_frame(self.now, &frame);
        }
    }

    /// Advances one frame with the bot driving (in either model; it never
    /// fires).
    pub fn step_bot(&mut self, bot: &mut Bot, dt: f64) {
        let (dir, dash) = bot.input(self.endpoint.position(), dt as f32);
        self.step(dt, dir, dash, false);
    }

    /// Advances one frame with a rollback bot player driving (it fires in
    /// bursts; in the CMC model fire does nothing).
    pub fn step_bot_player(&mut self, bot: &mut crate::rollback::BotPlayer, dt: f64) {
        let (dir, buttons) = bot.input(self.endpoint.position(), dt as f32);
        let pressed = |b: u16| buttons & b != 0;
        self.step(
            dt,
            dir,
            pressed(crate::rollback::InputCmd::DASH),
            pressed(crate::rollback::InputCmd::FIRE),
        );
    }

    /// Changes a setting mid-run, as a control on the page does; a
    /// [`Setting::Deliver`] goes to the host's conditioner.
    pub fn apply(&mut self, setting: Setting) {
        match setting {
            Setting::Deliver { direction, index } => self.host.rescue(direction, index.into()),
            _ => self.endpoint.apply(setting),
        }
    }

    /// Keeps the inspector's records from now on, the newest `capacity` of
    /// each: every packet's fate ([`ServerHost::inspect`]) and both ends'
    /// account of each move and rollback ([`ClientEndpoint::inspect`]).
    pub fn inspect(&mut self, capacity: usize) {
        self.host.inspect(capacity);
        self.endpoint.inspect(capacity);
    }

    /// The virtual clock.
    pub fn now(&self) -> SimTime {
        self.now
    }
}
