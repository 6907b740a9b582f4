//! The server's half of the CMC model, driven by [`super::ServerHost`]:
//! the authoritative [`ServerCharacter`], a bot-driven second character
//! replicated as a simulated proxy, the server's stall checks and the moves
//! gathered for the observer view. The host owns the link and hands this
//! half the ServerMoves that came through it.

use crate::cmc::rules::ServerRules;
use crate::cmc::server::{ProcessedMove, ServerCharacter, ServerConfig};
use crate::cmc::wire::{ObservedMove, ObserverSnapshot, ProxyUpdate, ServerMove, ServerTotals};
use crate::endpoints::link::HostLink;
use crate::foundation::bot::{Bot, BotCharacter};
use crate::foundation::math::Vec2;
use crate::foundation::movement::MovementParams;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use crate::net::totals::LinkTotals;
use crate::protocol::{ClientMsg, ServerMsg};

/// Period of the server's check for a silent client
/// ([`ServerCharacter::force_position_update`]), ms: 30 Hz, UE's default
/// dedicated-server tick (`NetServerMaxTickRate`). The checks fall on a
/// grid from the half's creation, and the host wakes for one only when it
/// would act.
pub const STALL_CHECK_INTERVAL_MS: u64 = 33;
/// Where the proxy character starts, cm: it runs the same tour half a lap
/// ahead of the player.
const NPC_START: Vec2 = Vec2::new(1450.0, 1300.0);
/// Waypoint of the tour the proxy starts at.
const NPC_TOUR_START: usize = 6;

/// The CMC model's server half.
#[derive(Debug, Clone)]
pub(crate) struct CmcAuthority {
    pub(crate) player: ServerCharacter,
    npc: BotCharacter,
    /// Origin of the stall-check grid.
    created: SimTime,
    /// The latest advance.
    last_poll: SimTime,
    /// What the server did with moves since the last observer view.
    observed: Vec<ObservedMove>,
}

impl CmcAuthority {
    /// A fresh character at the arena's spawn under `rules`, made at `now`;
    /// its forced-adjustment rolls draw from `seed`.
    pub(crate) fn new(
        seed: u64,
        now: SimTime,
        world: &World,
        params: MovementParams,
        rules: ServerRules,
    ) -> CmcAuthority {
        let config = rules.apply_to(ServerConfig::default());
        CmcAuthority {
            player: ServerCharacter::with_seed(params, config, world.spawn, seed),
            npc: BotCharacter::new(Bot::new().starting_at(NPC_TOUR_START), NPC_START, now),
            created: now,
            last_poll: now,
            observed: Vec::new(),
        }
    }

    /// New rules, applied at once.
    pub(crate) fn set_rules(&mut self, rules: ServerRules) {
        self.player.set_config(rules.apply_to(self.player.config()));
    }

    /// A ServerMove the uplink delivered at `now`.
    pub(crate) fn deliver(&mut self, now: SimTime, m: &ServerMove, world: &World) {
        let processed = self.player.receive_server_move(m, now, world);
        self.observe(&processed);
    }

    /// Advances to `now`: held moves, a forced position update, the
    /// response (≤ 1 per interval), the proxy character, and the proxy
    /// update when `net_update` carries the update's counter.
    pub(crate) fn advance(
        &mut self,
        now: SimTime,
        link: &mut HostLink<ClientMsg>,
        world: &World,
        params: &MovementParams,
        net_update: Option<u32>,
    ) {
        self.last_poll = self.last_poll.max(now);
        let released = self.player.release_held_moves(now, world);
        self.observe(&released);
        if self.player.force_position_update(now, world)
            && self.observed.len() < ObserverSnapshot::MAX_MOVES
        {
            self.observed.push(ObservedMove {
                position: self.player.state().position,
                corrected_from: None,
            });
        }
        if let Some(r) = self.player.flush(now) {
            link.send(now, &ServerMsg::MoveResponse(r));
        }
        self.npc.step_until(now, params, world);
        if let Some(seq) = net_update {
            let update = ProxyUpdate {
                id: 1,
                seq,
                position: self.npc.state().position,
                velocity: self.npc.state().velocity,
            };
            link.send(now, &ServerMsg::Proxy(update));
        }
    }

    /// Adds what the server did with moves to the next observer snapshot.
    fn observe(&mut self, processed: &[ProcessedMove]) {
        for p in processed {
            if self.observed.len() < ObserverSnapshot::MAX_MOVES {
                self.observed.push(ObservedMove {
                    position: p.position,
                    corrected_from: p.client_error_from,
                });
            }
        }
    }

    /// The observer snapshot numbered `seq` (the moves since the last one).
    pub(crate) fn observer(&mut self, seq: u32, link: LinkTotals) -> ObserverSnapshot {
        let c = self.player.counters();
        let clip = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        ObserverSnapshot {
            seq,
            player: *self.player.state(),
            last_time_stamp: self.player.current_time_stamp(),
            moves: std::mem::take(&mut self.observed),
            others: vec![self.npc.state().position],
            totals: ServerTotals {
                moves: clip(c.moves_simulated),
                acks: clip(c.acks_sent),
                adjustments: clip(c.adjustments_sent),
                ignored: clip(c.moves_ignored),
                rejected: clip(c.time_stamps_rejected),
                clamped: clip(c.moves_clamped),
                time_discrepancy_events: clip(c.time_discrepancy_events),
                forced_updates: clip(c.forced_updates),
            },
            link,
        }
    }

    /// When the half next has work of its own: held moves due, or a stall
    /// check that would act.
    pub(crate) fn next_wakeup(&self) -> Option<SimTime> {
        [self.player.held_moves_due(), self.next_stall_check()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The first point of the stall-check grid after the latest advance at
    /// which a forced position update would act, if any.
    fn next_stall_check(&self) -> Option<SimTime> {
        let tick = STALL_CHECK_INTERVAL_MS * 1000;
        let from = self
            .player
            .forced_update_from()?
            .max(self.last_poll.plus_micros(1));
        let ticks = from.micros_since(self.created).div_ceil(tick);
        let mut at = self.created.plus_micros(ticks * tick);
        // `from` is at most a tick early: the second grid point is due.
        for _ in 0..3 {
            if self.player.forced_update_due(at) {
                return Some(at);
            }
            at = at.plus_micros(tick);
        }
        debug_assert!(false, "forced_update_from is more than a tick early");
        None
    }
}
