//! What a room player's lanes show of the room besides their packets
//! (issue 23), recorded as it happens on this end: every net update as it
//! arrived — applied, late (overtaken) or duplicate — with how far it made
//! a proxy jump; the verdicts on this player's shots as they arrived; the
//! ammo updates. (Shots fired are the [`crate::room::shots::ShotLog`]'s,
//! ammo jumps the [`crate::room::ammo::PredictedAmmo`]'s; the shots that
//! targeted this player come in the relay's trace,
//! [`crate::endpoints::trace::RelayTrace::shots`].)

use super::RoomEndpoint;
use crate::foundation::bounded::Bounded;
use crate::foundation::time::SimTime;
use crate::room::replication::{PlayerId, ProxyBatch};
use crate::room::wire::{AmmoUpdate, ShotResult};
use crate::room::Seq;

/// A net update that moves a proxy's collision position at least this far
/// from where it was extrapolated to is a **proxy jump**, cm: the CMC
/// model's correction threshold (16 cm, `002_…`), the size a player
/// notices.
pub const PROXY_JUMP_CM: f32 = 16.0;
/// Net updates kept (a minute at 20 Hz).
pub const UPDATES_KEPT: usize = 1200;
/// Verdicts and ammo updates kept.
pub const ANSWERS_KEPT: usize = 256;

/// What became of a net update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateFate {
    /// Newer than any before: applied.
    Applied,
    /// Older than one applied (overtaken): ignored.
    Late,
    /// Equal to the newest applied (a duplicate): ignored.
    Duplicate,
}

/// One net update as it arrived.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetUpdateRecord {
    /// When it arrived, this end's clock.
    pub at: SimTime,
    /// Its replication counter.
    pub seq: Seq,
    /// The server time it shows.
    pub server_time: SimTime,
    /// What became of it.
    pub fate: UpdateFate,
    /// The proxy it moved furthest from where it was extrapolated, and how
    /// far, cm (`None`: no proxy was there before it).
    pub jump: Option<(PlayerId, f32)>,
}

impl NetUpdateRecord {
    /// `true` when it made a proxy jump ([`PROXY_JUMP_CM`]).
    pub fn is_jump(&self) -> bool {
        self.jump.is_some_and(|(_, cm)| cm >= PROXY_JUMP_CM)
    }
}

/// The room's events this end saw (see the module doc).
#[derive(Debug, Clone)]
pub struct RoomEvents {
    updates: Bounded<NetUpdateRecord>,
    verdicts: Bounded<(SimTime, ShotResult)>,
    ammo: Bounded<(SimTime, AmmoUpdate)>,
}

impl Default for RoomEvents {
    fn default() -> Self {
        RoomEvents {
            updates: Bounded::new(UPDATES_KEPT),
            verdicts: Bounded::new(ANSWERS_KEPT),
            ammo: Bounded::new(ANSWERS_KEPT),
        }
    }
}

impl RoomEvents {
    /// The net updates, oldest first.
    pub fn updates(&self) -> impl Iterator<Item = &NetUpdateRecord> {
        self.updates.items().iter()
    }

    /// This player's verdicts as they arrived, oldest first.
    pub fn verdicts(&self) -> impl Iterator<Item = &(SimTime, ShotResult)> {
        self.verdicts.items().iter()
    }

    /// The ammo updates as they arrived, oldest first.
    pub fn ammo(&self) -> impl Iterator<Item = &(SimTime, AmmoUpdate)> {
        self.ammo.items().iter()
    }
}

impl RoomEndpoint {
    /// A net update arriving at `now`: applied unless late or a duplicate,
    /// and recorded with the jump it made.
    pub(super) fn take_net_update(&mut self, now: SimTime, batch: &ProxyBatch) {
        let counters = self.proxies.counters();
        let applied = self.proxies.apply(now, batch, self.me, self.smoothing);
        let fate = if applied {
            UpdateFate::Applied
        } else if self.proxies.counters().duplicate > counters.duplicate {
            UpdateFate::Duplicate
        } else {
            UpdateFate::Late
        };
        let jump = applied
            .then(|| {
                (self.proxies.iter())
                    .filter_map(|p| Some((p.id(), p.extrapolation_error()?)))
                    .max_by(|a, b| a.1.total_cmp(&b.1))
            })
            .flatten();
        self.events.updates.push(NetUpdateRecord {
            at: now,
            seq: batch.seq,
            server_time: batch.server_time,
            fate,
            jump,
        });
    }

    /// The verdict on one of this player's shots, arrived at `now`; one
    /// that came before (sent again, or duplicated on the way) is passed
    /// by.
    pub(super) fn take_verdict(&mut self, now: SimTime, result: ShotResult) {
        self.actions.answered(result.seq);
        if self.shots.resolve(result) {
            self.events.verdicts.push((now, result));
        }
    }

    /// An ammo update, arrived at `now`.
    pub(super) fn take_ammo(&mut self, now: SimTime, update: AmmoUpdate) {
        self.events.ammo.push((now, update));
        self.ammo.on_server(now, update.ack, update.ammo);
    }

    /// The room's events this end saw.
    pub fn events(&self) -> &RoomEvents {
        &self.events
    }
}
