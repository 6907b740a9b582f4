//! The server's half of one rollback match, driven by
//! [`crate::endpoints::host::ServerHost`] when it runs the rollback model: the authority
//! ([`RollbackServer`] on the [`Arena`]), the bot player whose inputs only
//! the server knows, the match's ids and its tick clock. The host owns the
//! link ([`crate::endpoints::link::HostLink`]) and hands this half the input
//! packets that came through it.
//!
//! ```text
//! join ─► Start (control, at once)
//! deliver(packet from the uplink) ─► ids check ─► input ring
//! advance(now): each tick due while the client listens:
//!     bot input ─► RollbackServer::advance ─► Ack (every tick)
//!                                           ─► State (every k ticks) ─► downlink
//! ```
//!
//! **A quiet client's match pauses.** Ticks due after the client went
//! quiet ([`crate::endpoints::link::QUIET_CLIENT_MS`]: a hidden tab runs no
//! frames) are not run; when it sends again the match's clock moves on by
//! the pause ([`RollbackAuthority::resume_after`]), so neither end has a
//! backlog of ticks to catch up and the relay's session sleeps meanwhile.

use crate::endpoints::link::HostLink;
use crate::foundation::control::SettingsError;
use crate::foundation::time::SimTime;
use crate::net::totals::LinkTotals;
use crate::protocol::{ClientMsg, ServerMsg};
use crate::rollback::arena::{Arena, BOT_PLAYER, CLIENT_PLAYER};
use crate::rollback::bot::BotPlayer;
use crate::rollback::config::RollbackConfig;
use crate::rollback::input::InputCmd;
use crate::rollback::server::{InputCounters, RollbackServer};
use crate::rollback::snapshot::Snapshot;
use crate::rollback::wire::{
    AckMsg, IdentityError, Ids, InputPacket, ObservedTick, RollbackObserver, RollbackServerMsg,
    RollbackServerTotals, StartMsg, StateMsg,
};

/// Waypoint of the arena tour the bot starts at (the CMC host's proxy
/// starts there too).
const BOT_TOUR_START: usize = 6;

/// The server's half of a rollback match.
#[derive(Debug, Clone)]
pub struct RollbackAuthority {
    config: RollbackConfig,
    session: u32,
    match_id: u32,
    server: RollbackServer<Arena>,
    bot: BotPlayer,
    /// When the match's tick 0 started (moved on by pauses).
    origin: SimTime,
    ticks_run: u64,
    /// The client said Hello: Start, Acks and States go to it.
    joined: bool,
    identity_rejected: u64,
    /// Ticks since the last observer view.
    observed: Vec<ObservedTick>,
}

impl RollbackAuthority {
    /// A match with `config` starting at `now`, numbered `match_id`, in
    /// the connection whose host drew `seed`.
    ///
    /// # Errors
    /// [`SettingsError`] if `config` is out of range.
    pub fn new(
        seed: u64,
        now: SimTime,
        config: RollbackConfig,
        match_id: u32,
    ) -> Result<Self, SettingsError> {
        config.validate()?;
        Ok(RollbackAuthority {
            config,
            // The session id only has to differ between connections.
            session: crate::foundation::hash::Fnv64::new().u64(seed).finish() as u32,
            match_id,
            server: new_server(&config),
            bot: BotPlayer::new(BOT_TOUR_START),
            origin: now,
            ticks_run: 0,
            joined: false,
            identity_rejected: 0,
            observed: Vec::new(),
        })
    }

    fn start_match(&mut self, now: SimTime) {
        self.match_id = self.match_id.wrapping_add(1);
        self.server = new_server(&self.config);
        self.bot = BotPlayer::new(BOT_TOUR_START);
        self.origin = now;
        self.ticks_run = 0;
        self.observed.clear();
    }

    fn ids(&self) -> Ids {
        Ids::new(self.session, self.match_id, CLIENT_PLAYER as u8)
    }

    /// The client is here (its Hello, or a model switch after it): Start
    /// goes out at once, then Acks and States.
    pub fn join(&mut self, link: &mut HostLink<ClientMsg>) {
        self.joined = true;
        let start = RollbackServerMsg::Start(StartMsg {
            ids: self.ids(),
            tick_rate: self.config.tick_rate,
            snapshot: self.server.state().clone(),
        });
        link.send_now(&ServerMsg::Rollback(start));
    }

    /// Applies new settings at `now`: a new tick rate or start tick starts
    /// a new match (a new match id, Start sent to a joined client); the
    /// hold-last limit and the State interval apply from the next tick.
    ///
    /// # Errors
    /// [`SettingsError`] if out of range; nothing changes.
    pub fn set_config(
        &mut self,
        now: SimTime,
        config: RollbackConfig,
        link: &mut HostLink<ClientMsg>,
    ) -> Result<(), SettingsError> {
        config.validate()?;
        let restart = self.config.restarts_match(&config);
        self.config = config;
        self.server.set_hold_last_limit(config.hold_last_limit);
        if restart {
            self.start_match(now);
            if self.joined {
                self.join(link);
            }
        }
        Ok(())
    }

    /// Takes one input packet the uplink delivered. A packet for another
    /// session, match or player is refused and counted; the match goes on.
    ///
    /// # Errors
    /// The [`IdentityError`] that refused it.
    pub fn deliver(&mut self, p: &InputPacket) -> Result<(), IdentityError> {
        p.ids.check(&self.ids()).inspect_err(|_| {
            self.identity_rejected += 1;
        })?;
        let cmds: Vec<_> = p.cmds().collect();
        // CLIENT_PLAYER exists in every arena.
        let _ = self.server.receive_inputs(CLIENT_PLAYER, &cmds);
        Ok(())
    }

    fn tick_due(&self) -> SimTime {
        let rate = self.config.tick_rate;
        self.origin.plus_micros(rate.micros_at(self.ticks_run + 1))
    }

    /// Runs every tick due by `now` while the client listens, sending Acks
    /// and States through `link`.
    pub fn advance(&mut self, now: SimTime, link: &mut HostLink<ClientMsg>) {
        while self.tick_due() <= now && link.listening(self.tick_due()) {
            self.run_tick(now, link);
        }
    }

    /// When [`RollbackAuthority::advance`] next has a tick to run: `None`
    /// while the client is quiet.
    pub fn next_tick(&self, link: &HostLink<ClientMsg>) -> Option<SimTime> {
        let due = self.tick_due();
        link.listening(due).then_some(due)
    }

    /// The client, quiet since `quiet_from`, sent again at `now`: the
    /// match's clock moves on by the pause so that no tick of it is owed.
    pub fn resume_after(&mut self, quiet_from: SimTime, now: SimTime) {
        if now > quiet_from {
            self.origin = self.origin.plus_micros(now.micros_since(quiet_from));
        }
    }

    fn run_tick(&mut self, now: SimTime, link: &mut HostLink<ClientMsg>) {
        let bot = &self.server.state().players[BOT_PLAYER];
        let tick = self.server.tick();
        let (dir, buttons) = self
            .bot
            .input(bot.position.to_cm(), self.config.tick_rate.dt());
        let cmd = InputCmd::from_direction(tick, dir, buttons);
        let _ = self.server.receive_inputs(BOT_PLAYER, &[cmd]);
        let missed_before = self.client_inputs().missed();
        self.server.advance();
        self.ticks_run += 1;
        if self.observed.len() < RollbackObserver::MAX_TICKS {
            self.observed.push(ObservedTick {
                position: self.server.state().players[CLIENT_PLAYER].position,
                missed: self.client_inputs().missed() > missed_before,
            });
        }
        if !self.joined {
            return;
        }
        let ids = self.ids();
        if let Ok(a) = self.server.ack(CLIENT_PLAYER) {
            let ack = AckMsg {
                ids,
                tick: a.tick,
                newest_input: a.newest_input,
                buffer: a.buffer.map(|b| b.clamp(-128, 127) as i8),
                missed: clip(a.missed),
                late: clip(a.late),
            };
            link.send(now, &ServerMsg::Rollback(RollbackServerMsg::Ack(ack)));
        }
        let interval = u64::from(self.config.state_interval);
        if self.ticks_run % interval == 0 {
            let update = self.server.state_update(interval as u32);
            let state = RollbackServerMsg::State(StateMsg::new(ids, &update));
            link.send(now, &ServerMsg::Rollback(state));
        }
    }

    /// The observer view numbered `seq` (the ticks since the last one).
    pub fn observer(&mut self, seq: u32, link: LinkTotals) -> RollbackObserver {
        let c = self.client_inputs();
        RollbackObserver {
            seq,
            snapshot: self.server.state().clone(),
            ticks: std::mem::take(&mut self.observed),
            totals: RollbackServerTotals {
                ticks: clip(self.ticks_run),
                received: clip(c.received),
                duplicates: clip(c.duplicates),
                late: clip(c.late),
                out_of_window: clip(c.out_of_window),
                held: clip(c.held),
                defaulted: clip(c.defaulted),
                identity_rejected: clip(self.identity_rejected),
            },
            link,
        }
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

    /// Input packets refused for their ids so far.
    pub fn identity_rejected(&self) -> u64 {
        self.identity_rejected
    }

    /// Settings in force.
    pub fn config(&self) -> RollbackConfig {
        self.config
    }

    /// The current match's number (the next match on this connection takes
    /// the one after).
    pub fn match_id(&self) -> u32 {
        self.match_id
    }
}

fn clip(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn new_server(config: &RollbackConfig) -> RollbackServer<Arena> {
    let arena = Arena::new(config.tick_rate);
    let initial = arena.initial(config.start_tick);
    RollbackServer::new(arena, initial, config.hold_last_limit)
}
