//! One player of a room on the server: their character (a CMC
//! [`ServerCharacter`] fed by their moves, or a server-driven bot), frame
//! history, weapon, switches and counters.

use super::config::PlayerSettings;
use super::history::FrameHistory;
use super::link::PlayerLink;
use super::weapon::{ActionOutcome, WeaponState};
use super::wire::{PlayerId, RejectReason, Verdict};
use crate::bot::BotCharacter;
use crate::movement::CharacterState;
use crate::server::ServerCharacter;

/// What the server did with one player's shots and reloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShotCounters {
    /// Shots judged (accepted by the weapon).
    pub judged: u64,
    /// Head hits.
    pub hit_head: u64,
    /// Body hits.
    pub hit_body: u64,
    /// Misses.
    pub missed: u64,
    /// Rejected as older than the rewind cap or the history.
    pub too_old: u64,
    /// Rejected by fire-rate validation (`ServerFire_Validate`).
    pub fire_rate: u64,
    /// Rejected during a reload.
    pub reloading: u64,
    /// Rejected with an empty magazine.
    pub no_ammo: u64,
    /// Rejected for claiming a time in the server's future.
    pub clock_ahead: u64,
    /// Reloads started.
    pub reloads: u64,
    /// Actions ignored for a sequence number not newer than one handled.
    pub stale: u64,
}

impl ShotCounters {
    /// Counts a weapon outcome.
    pub(crate) fn count_action(&mut self, outcome: ActionOutcome) {
        match outcome {
            ActionOutcome::Accepted => {}
            ActionOutcome::Stale => self.stale += 1,
            ActionOutcome::Rejected(r) => self.count_reject(r),
        }
    }

    /// Counts a verdict on a judged shot.
    pub(crate) fn count_verdict(&mut self, verdict: Verdict) {
        self.judged += 1;
        match verdict {
            Verdict::HitHead => self.hit_head += 1,
            Verdict::HitBody => self.hit_body += 1,
            Verdict::Miss => self.missed += 1,
            Verdict::Rejected(r) => self.count_reject(r),
        }
    }

    fn count_reject(&mut self, r: RejectReason) {
        *match r {
            RejectReason::TooOld => &mut self.too_old,
            RejectReason::FireRate => &mut self.fire_rate,
            RejectReason::Reloading => &mut self.reloading,
            RejectReason::NoAmmo => &mut self.no_ammo,
            RejectReason::ClockAhead => &mut self.clock_ahead,
        } += 1;
    }
}

/// Who moves a character.
#[derive(Debug, Clone)]
pub(crate) enum Driver {
    /// A person (or a test's client) over their own link.
    Remote {
        character: Box<ServerCharacter>,
        link: Box<PlayerLink>,
    },
    /// The server.
    Bot(BotCharacter),
}

/// One player.
#[derive(Debug, Clone)]
pub(crate) struct Player {
    pub(crate) id: PlayerId,
    pub(crate) driver: Driver,
    pub(crate) settings: PlayerSettings,
    pub(crate) history: FrameHistory,
    pub(crate) weapon: WeaponState,
    pub(crate) shots: ShotCounters,
}

impl Player {
    /// The authoritative state of the character.
    pub(crate) fn state(&self) -> &CharacterState {
        match &self.driver {
            Driver::Remote { character, .. } => character.state(),
            Driver::Bot(bot) => bot.state(),
        }
    }

    /// The link, for a remote player.
    pub(crate) fn link_mut(&mut self) -> Option<&mut PlayerLink> {
        match &mut self.driver {
            Driver::Remote { link, .. } => Some(link),
            Driver::Bot(_) => None,
        }
    }

    /// The link, for a remote player.
    pub(crate) fn link(&self) -> Option<&PlayerLink> {
        match &self.driver {
            Driver::Remote { link, .. } => Some(link),
            Driver::Bot(_) => None,
        }
    }
}
