//! The server's half of one rollback match, driven by
//! [`crate::endpoints::host::ServerHost`] when it runs the rollback model:
//! a two-player [`MatchServer`] whose second seat is the bot (whose inputs
//! only the server knows) and the match's tick clock — the same authority
//! a rollback match of real players runs. The host owns the
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
use crate::rollback::arena::{Arena, BOT_PLAYER, CLIENT_PLAYER, PLAYERS};
use crate::rollback::bot::BotPlayer;
use crate::rollback::config::RollbackConfig;
use crate::rollback::match_server::{clip, MatchServer, PacketRefused};
use crate::rollback::server::{InputCounters, RollbackServer};
use crate::rollback::snapshot::Snapshot;
use crate::rollback::wire::{
    IdentityError, InputPacket, ObservedTick, RollbackObserver, RollbackServerMsg,
    RollbackServerTotals,
};

/// Waypoint of the arena tour the bot starts at (the CMC host's proxy
/// starts there too).
const BOT_TOUR_START: usize = 6;

/// The server's half of a rollback match.
#[derive(Debug, Clone)]
pub struct RollbackAuthority {
    /// The client in seat [`CLIENT_PLAYER`], the bot in [`BOT_PLAYER`].
    game: MatchServer,
    /// When the match's tick 0 started (moved on by pauses).
    origin: SimTime,
    /// The client said Hello: Start, Acks and States go to it.
    joined: bool,
    /// Ticks since the last observer view.
    observed: Vec<ObservedTick>,
    /// Messages of the tick being run (kept for its allocation).
    out: Vec<(usize, RollbackServerMsg)>,
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
        let mut game = MatchServer::new(config, PLAYERS, match_id).map_err(|e| match e {
            crate::rollback::match_server::MatchError::Settings(s) => s,
            crate::rollback::match_server::MatchError::PlayerCount(_) => {
                unreachable!("the bot match has two players")
            }
        })?;
        // The session id only has to differ between connections.
        let session = crate::foundation::hash::Fnv64::new().u64(seed).finish() as u32;
        let seated = game.join(session).map(|s| usize::from(s.ids.player));
        let bot = game.add_bot(BotPlayer::new(BOT_TOUR_START));
        debug_assert_eq!((seated, bot), (Ok(CLIENT_PLAYER), Ok(BOT_PLAYER)));
        Ok(RollbackAuthority {
            game,
            origin: now,
            joined: false,
            observed: Vec::new(),
            out: Vec::new(),
        })
    }

    /// The client is here (its Hello, or a model switch after it): Start
    /// goes out at once, then Acks and States.
    pub fn join(&mut self, link: &mut HostLink<ClientMsg>) {
        self.joined = true;
        if let Some(start) = self.game.start_msg(CLIENT_PLAYER) {
            link.send_now(&ServerMsg::Rollback(RollbackServerMsg::Start(start)));
        }
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
        if self.game.config().restarts_match(&config) {
            self.game.restart(config)?;
            self.origin = now;
            self.observed.clear();
            if self.joined {
                self.join(link);
            }
        } else {
            self.game.set_config(config)?;
        }
        Ok(())
    }

    /// Takes one input packet the uplink delivered. A packet for another
    /// session, match or player is refused and counted; the match goes on.
    ///
    /// # Errors
    /// The [`IdentityError`] that refused it (a packet claiming the bot's
    /// seat: [`IdentityError::Player`]).
    pub fn deliver(&mut self, p: &InputPacket) -> Result<(), IdentityError> {
        match self.game.deliver(p) {
            Ok(_) => Ok(()),
            Err(PacketRefused::Identity(e)) => Err(e),
            Err(PacketRefused::NoSuchPlayer(_)) => Err(IdentityError::Player),
        }
    }

    fn tick_due(&self) -> SimTime {
        let rate = self.game.config().tick_rate;
        self.origin
            .plus_micros(rate.micros_at(self.game.ticks_run() + 1))
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
        let missed_before = self.client_inputs().missed();
        self.out.clear();
        self.game.run_tick(&mut self.out);
        if self.observed.len() < RollbackObserver::MAX_TICKS {
            self.observed.push(ObservedTick {
                position: self.game.state().players[CLIENT_PLAYER].position,
                missed: self.client_inputs().missed() > missed_before,
            });
        }
        if !self.joined {
            return;
        }
        for (_, msg) in self.out.drain(..) {
            link.send(now, &ServerMsg::Rollback(msg));
        }
    }

    /// The observer view numbered `seq` (the ticks since the last one).
    pub fn observer(&mut self, seq: u32, link: LinkTotals) -> RollbackObserver {
        let c = self.client_inputs();
        RollbackObserver {
            seq,
            snapshot: self.game.state().clone(),
            ticks: std::mem::take(&mut self.observed),
            totals: RollbackServerTotals {
                ticks: clip(self.game.ticks_run()),
                received: clip(c.received),
                duplicates: clip(c.duplicates),
                late: clip(c.late),
                out_of_window: clip(c.out_of_window),
                held: clip(c.held),
                defaulted: clip(c.defaulted),
                identity_rejected: clip(self.identity_rejected()),
            },
            link,
        }
    }

    /// The server's true state (the Authoritative panel).
    pub fn snapshot(&self) -> &Snapshot {
        self.game.state()
    }

    /// The authority itself.
    pub fn server(&self) -> &RollbackServer<Arena> {
        self.game.server()
    }

    /// The match: seats, ids, refusals.
    pub fn game(&self) -> &MatchServer {
        &self.game
    }

    /// The client player's input counters (`missed-inputs` = `missed()`).
    pub fn client_inputs(&self) -> InputCounters {
        self.game.inputs(CLIENT_PLAYER)
    }

    /// Input packets refused for their ids so far.
    pub fn identity_rejected(&self) -> u64 {
        self.game.refused_total()
    }

    /// Settings in force.
    pub fn config(&self) -> RollbackConfig {
        self.game.config()
    }

    /// The current match's number (the next match on this connection takes
    /// the one after).
    pub fn match_id(&self) -> u32 {
        self.game.match_id()
    }
}
