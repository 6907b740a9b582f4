//! One player of a room on the server: their character (a CMC
//! [`ServerCharacter`] fed by their moves, or a server-driven bot), frame
//! history, weapon, switches and counters.

use super::link::PlayerLink;
use crate::cmc::server::ServerCharacter;
use crate::foundation::bot::BotCharacter;
use crate::foundation::movement::CharacterState;
use crate::foundation::time::SimTime;
use crate::room::actions::{ActionInbox, AnswersToRepeat};
use crate::room::config::PlayerSettings;
use crate::room::history::FrameHistory;
use crate::room::replication::PlayerId;
use crate::room::weapon::RejectReason;
use crate::room::weapon::{ActionOutcome, WeaponState};
use crate::room::wire::{Shot, ShotResult, Verdict};

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
    /// Actions ignored as repeats of one already handled: the redundant
    /// copies, resends and duplicates ([`crate::room::actions`]).
    pub stale: u64,
}

impl ShotCounters {
    /// Counts a weapon outcome.
    pub(crate) fn count_action(&mut self, outcome: ActionOutcome) {
        if let ActionOutcome::Rejected(r) = outcome {
            self.count_reject(r);
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

/// An ammo action as the server takes it in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AmmoAction {
    /// A shot.
    Fire(Shot),
    /// A reload claimed at this server time.
    Reload(SimTime),
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
    /// The next frame saved was reached by a teleport (a respawn).
    pub(crate) teleported: bool,
    /// Shots and reloads, handed on once and in order.
    pub(crate) actions: ActionInbox<AmmoAction>,
    /// The verdicts of the newest shots, to send again on a repeat.
    pub(crate) answers: AnswersToRepeat<ShotResult>,
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
