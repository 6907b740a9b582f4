//! The player's weapon on the client: a shot traced at what is drawn and
//! sent with the server time of that world; a predicted reload.

use super::{FireError, RoomEndpoint};
use crate::cmc::wire::NetPosition;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::protocol::ClientMsg;
use crate::room::hitbox::{HitBoxes, Ray};
use crate::room::replication::PlayerId;
use crate::room::shots::{LocalHit, ShotRecord};
use crate::room::wire::{DrawnFrom, NetDirection, RoomClientMsg, Shot};
use crate::room::Seq;

impl RoomEndpoint {
    /// Fires at `aim` (cm) at client time `now`: the ray leaves the
    /// character's centre, the counter drops at once, and the shot is
    /// queued with the server time of what is drawn. Returns its action
    /// number.
    ///
    /// # Errors
    /// [`FireError`] when the weapon would refuse (nothing is sent).
    pub fn fire(&mut self, now: SimTime, aim: Vec2) -> Result<Seq, FireError> {
        let at = self.action_time(now)?;
        // Synced, so the shown time is known too (the clock keeps both).
        let shown = self
            .clock
            .shown_time(now)
            .ok_or(FireError::ClockNotSynced)?;
        let (hit_time, drawn) = self.proxies.drawn().unwrap_or((
            shown,
            DrawnFrom::Between {
                from: shown,
                to: shown,
            },
        ));
        if self.ammo.shown() == 0 {
            return Err(FireError::Empty);
        }
        let interval = u64::from(self.weapon.fire_interval_ms) * 1000;
        if self
            .last_shot
            .is_some_and(|t| now.micros_since(t) < interval)
        {
            return Err(FireError::TooSoon);
        }
        let origin = NetPosition::quantize(self.client.state().position);
        let direction = NetDirection::quantize(aim - origin.to_vec2());
        let ray = Ray {
            origin: origin.to_vec2(),
            direction: direction.to_unit(),
            length: f32::from(self.weapon.range_cm),
        }
        .stopped_by_walls(&self.world);
        let saw: Vec<(PlayerId, Vec2)> = self
            .proxies
            .iter()
            .map(|p| (p.id(), p.drawn_position()))
            .collect();
        let local_hit = saw
            .iter()
            .filter_map(|&(id, at)| {
                let (zone, d) = HitBoxes::at(at, self.params.radius).confirm_hit(&ray)?;
                Some((d, LocalHit { id, zone }))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, h)| h);
        let seq = self.take_seq();
        self.last_shot = Some(now);
        self.ammo.spend(now, seq);
        self.shots.push(ShotRecord {
            seq,
            number: self.shots.next_number(),
            fired_at: now,
            hit_time,
            ray,
            saw,
            local_hit,
            result: None,
        });
        let shot = Shot {
            seq,
            at,
            hit_time,
            origin,
            direction,
            drawn,
        };
        self.send_action(now, seq, RoomClientMsg::Fire(shot));
        Ok(seq)
    }

    /// Starts a reload at client time `now`, predicted: the counter fills
    /// when the reload time is over here.
    ///
    /// # Errors
    /// [`FireError`] when not joined, not synced, reloading already or
    /// the magazine is full.
    pub fn reload(&mut self, now: SimTime) -> Result<Seq, FireError> {
        let at = self.action_time(now)?;
        if self.ammo.shown() == self.weapon.magazine {
            return Err(FireError::Full);
        }
        let seq = self.take_seq();
        let until = now.plus_millis(self.weapon.reload_ms.into());
        self.ammo.start_reload(seq, until);
        self.send_action(now, seq, RoomClientMsg::Reload { seq, at });
        Ok(seq)
    }

    /// Sends ammo action `seq` now and keeps it until it is acknowledged.
    fn send_action(&mut self, now: SimTime, seq: Seq, msg: RoomClientMsg) {
        self.queue(now, &ClientMsg::Room(msg.clone()));
        self.actions.sent(now, seq, msg);
    }

    fn take_seq(&mut self) -> Seq {
        let seq = self.next_action;
        self.next_action = seq.next();
        seq
    }

    /// When an ammo action at client time `now` happens in estimated
    /// server time, if the weapon may act at all.
    ///
    /// # Errors
    /// [`FireError::NotJoined`], [`FireError::ClockNotSynced`] or
    /// [`FireError::Reloading`].
    fn action_time(&self, now: SimTime) -> Result<SimTime, FireError> {
        self.me.ok_or(FireError::NotJoined)?;
        let at = self
            .clock
            .server_time(now)
            .ok_or(FireError::ClockNotSynced)?;
        if self.ammo.is_reloading(now) {
            return Err(FireError::Reloading);
        }
        Ok(at)
    }
}
