//! The server end of one rollback connection, sans IO, in quinn-proto's
//! shape like [`crate::ServerHost`]: the uplink link conditioner, the
//! authority ([`RollbackServer`] on the [`Arena`]), the bot player whose
//! inputs only the server knows, and the downlink conditioner.
//!
//! ```text
//! receive_frame ─► decode ─► Join: Start (at once) │ Inputs ─► uplink conditioner
//! poll(now): uplink ─► ids check ─► input ring
//!            each tick due: bot input ─► advance ─► Ack (every tick)
//!                                                 ─► State (every k ticks) ─► downlink
//! ```

use super::arena::Arena;
use super::bot::BotPlayer;
use super::config::RollbackConfig;
use super::server::{InputCounters, RollbackServer};
use super::snapshot::Snapshot;
use super::wire::{
    AckMsg, IdentityError, Ids, InputPacket, RollbackClientMsg, RollbackServerMsg, StartMsg,
    StateMsg,
};
use crate::net::codec::{self, DecodeError};
use crate::net::conditioner::{LinkConditioner, LinkConditions};
use crate::net::protocol::{NetSettings, SettingsError};
use crate::time::SimTime;
use thiserror::Error;

/// The connecting client's player index.
pub const CLIENT_PLAYER: usize = 0;
/// The bot's player index.
pub const BOT_PLAYER: usize = 1;
/// Waypoint of the arena tour the bot starts at (the CMC host's proxy
/// starts there too).
const BOT_TOUR_START: usize = 6;

/// A frame the host refused; counted, and the match goes on.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RollbackHostError {
    /// The bytes did not decode.
    #[error("bad frame: {0}")]
    Decode(#[from] DecodeError),
    /// The ids did not match this session's match.
    #[error("rejected: {0}")]
    Identity(#[from] IdentityError),
    /// More inputs than an input packet may carry.
    #[error("input packet with {0} inputs")]
    TooManyInputs(usize),
}

/// Frames the host refused, by reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HostCounters {
    /// Did not decode.
    pub decode_errors: u64,
    /// Failed an identity check (after the uplink, as a real server would
    /// see them).
    pub identity_rejected: u64,
    /// Carried too many inputs.
    pub malformed: u64,
}

/// The server end of one rollback connection.
#[derive(Debug, Clone)]
pub struct RollbackHost {
    config: RollbackConfig,
    session: u32,
    match_id: u32,
    server: RollbackServer<Arena>,
    bot: BotPlayer,
    uplink: LinkConditioner<InputPacket>,
    downlink: LinkConditioner<Vec<u8>>,
    /// When the match's tick 0 started.
    origin: SimTime,
    ticks_run: u64,
    joined: bool,
    immediate: Vec<Vec<u8>>,
    counters: HostCounters,
}

impl RollbackHost {
    /// A host whose conditioners draw from `seed`, starting a match with
    /// `config` at `now`.
    ///
    /// # Errors
    /// [`SettingsError`] if `config` is out of range.
    pub fn new(seed: u64, now: SimTime, config: RollbackConfig) -> Result<Self, SettingsError> {
        config.validate()?;
        let mut host = RollbackHost {
            config,
            // The session id only has to differ between connections.
            session: crate::hash::Fnv64::new().u64(seed).finish() as u32,
            match_id: 0,
            server: new_server(&config),
            bot: BotPlayer::new(BOT_TOUR_START),
            uplink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ 0x5550_4c49_4e4b),
            downlink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ 0x444f_574e_4c4e),
            origin: now,
            ticks_run: 0,
            joined: false,
            immediate: Vec::new(),
            counters: HostCounters::default(),
        };
        host.start_match(now);
        Ok(host)
    }

    fn start_match(&mut self, now: SimTime) {
        self.match_id = self.match_id.wrapping_add(1);
        self.server = new_server(&self.config);
        self.bot = BotPlayer::new(BOT_TOUR_START);
        self.origin = now;
        self.ticks_run = 0;
        if self.joined {
            self.send_start();
        }
    }

    fn ids(&self) -> Ids {
        Ids::new(self.session, self.match_id, CLIENT_PLAYER as u8)
    }

    fn send_start(&mut self) {
        let start = RollbackServerMsg::Start(StartMsg {
            ids: self.ids(),
            tick_rate: self.config.tick_rate,
            snapshot: self.server.state().clone(),
        });
        self.immediate.push(codec::encode(&start));
    }

    /// Applies new link settings to both conditioners.
    ///
    /// # Errors
    /// [`SettingsError`] if out of range; nothing changes.
    pub fn set_net_settings(&mut self, s: NetSettings) -> Result<(), SettingsError> {
        s.validate()?;
        self.uplink.set_conditions(s.uplink.conditions());
        self.downlink.set_conditions(s.downlink.conditions());
        Ok(())
    }

    /// Applies new settings at `now`: a new tick rate or start tick starts
    /// a new match (a new match id, Start sent to the client); the rest
    /// apply from the next tick.
    ///
    /// # Errors
    /// [`SettingsError`] if out of range; nothing changes.
    pub fn set_config(
        &mut self,
        now: SimTime,
        config: RollbackConfig,
    ) -> Result<(), SettingsError> {
        config.validate()?;
        let restart = self.config.restarts_match(&config);
        self.config = config;
        self.server.set_hold_last_limit(config.hold_last_limit);
        if restart {
            self.start_match(now);
        }
        Ok(())
    }

    /// Takes one frame from the client at `now`: Join is answered at once
    /// (control, like the CMC Welcome); inputs enter the uplink.
    ///
    /// # Errors
    /// [`RollbackHostError::Decode`] (counted); nothing changes.
    pub fn receive_frame(&mut self, now: SimTime, frame: &[u8]) -> Result<(), RollbackHostError> {
        let msg = codec::decode::<RollbackClientMsg>(frame).inspect_err(|_| {
            self.counters.decode_errors += 1;
        })?;
        match msg {
            RollbackClientMsg::Join => {
                self.joined = true;
                self.send_start();
            }
            RollbackClientMsg::Inputs(p) => {
                self.uplink.send(now, frame.len(), p);
            }
        }
        Ok(())
    }

    fn deliver(&mut self, p: InputPacket) -> Result<(), RollbackHostError> {
        p.ids.check(&self.ids()).inspect_err(|_| {
            self.counters.identity_rejected += 1;
        })?;
        let len = p.inputs.len();
        let Some(cmds) = p.cmds() else {
            self.counters.malformed += 1;
            return Err(RollbackHostError::TooManyInputs(len));
        };
        let cmds: Vec<_> = cmds.collect();
        // CLIENT_PLAYER exists in every arena.
        let _ = self.server.receive_inputs(CLIENT_PLAYER, &cmds);
        Ok(())
    }

    fn tick_due(&self) -> SimTime {
        let rate = self.config.tick_rate;
        self.origin.plus_micros(rate.micros_at(self.ticks_run + 1))
    }

    fn run_tick(&mut self, now: SimTime) {
        let bot = &self.server.state().players[BOT_PLAYER];
        let tick = self.server.tick();
        let (dir, buttons) = self
            .bot
            .input(bot.position.to_cm(), self.config.tick_rate.dt());
        let cmd = super::input::InputCmd::from_direction(tick, dir, buttons);
        let _ = self.server.receive_inputs(BOT_PLAYER, &[cmd]);
        self.server.advance();
        self.ticks_run += 1;
        if !self.joined {
            return;
        }
        let ids = self.ids();
        if let Ok(a) = self.server.ack(CLIENT_PLAYER) {
            let clip = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
            let ack = AckMsg {
                ids,
                tick: a.tick,
                newest_input: a.newest_input,
                buffer: a.buffer.map(|b| b.clamp(-128, 127) as i8),
                missed: clip(a.missed),
                late: clip(a.late),
            };
            self.send_down(now, &RollbackServerMsg::Ack(ack));
        }
        let interval = u64::from(self.config.state_interval);
        if self.ticks_run % interval == 0 {
            let update = self.server.state_update(interval as u32);
            self.send_down(now, &RollbackServerMsg::State(StateMsg::new(ids, &update)));
        }
    }

    fn send_down(&mut self, now: SimTime, msg: &RollbackServerMsg) {
        let frame = codec::encode(msg);
        self.downlink.send(now, frame.len(), frame);
    }

    /// Advances the host to `now` and returns the frames to send: delivers
    /// due inputs, runs every tick due, then hands out due downlink frames
    /// (Start first).
    pub fn poll(&mut self, now: SimTime) -> Vec<Vec<u8>> {
        while let Some(p) = self.uplink.poll(now) {
            // Refused packets are counted; the match goes on.
            let _ = self.deliver(p);
        }
        while self.tick_due() <= now {
            self.run_tick(now);
        }
        let mut out = std::mem::take(&mut self.immediate);
        while let Some(f) = self.downlink.poll(now) {
            out.push(f);
        }
        out
    }

    /// When [`RollbackHost::poll`] next has something to do: the next tick,
    /// uplink delivery or downlink delivery.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        [
            Some(self.tick_due()),
            self.uplink.next_delivery(),
            self.downlink.next_delivery(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Runs [`RollbackHost::poll`] at every wake-up up to `now` and at
    /// `now`, returning each frame with the time it left.
    pub fn poll_until(&mut self, now: SimTime) -> Vec<(SimTime, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some(t) = self.next_wakeup().filter(|&t| t < now) {
            out.extend(self.poll(t).into_iter().map(|f| (t, f)));
        }
        out.extend(self.poll(now).into_iter().map(|f| (now, f)));
        out
    }

    /// The server's true state (the Authoritative panel).
    pub fn snapshot(&self) -> &Snapshot {
        self.server.state()
    }

    /// The authority itself.
    pub fn server(&self) -> &RollbackServer<Arena> {
        &self.server
    }

    /// The client player's input counters (`missed-inputs` = `missed()`).
    pub fn client_inputs(&self) -> InputCounters {
        self.server.counters(CLIENT_PLAYER).unwrap_or_default()
    }

    /// Frames refused so far.
    pub fn counters(&self) -> HostCounters {
        self.counters
    }

    /// Settings in force.
    pub fn config(&self) -> RollbackConfig {
        self.config
    }

    /// What the uplink conditioner did so far.
    pub fn uplink_stats(&self) -> crate::net::conditioner::ConditionerStats {
        self.uplink.stats()
    }
}

fn new_server(config: &RollbackConfig) -> RollbackServer<Arena> {
    let arena = Arena::new(config.tick_rate);
    let initial = arena.initial(config.start_tick);
    RollbackServer::new(arena, initial, config.hold_last_limit)
}
