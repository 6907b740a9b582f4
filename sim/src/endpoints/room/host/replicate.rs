//! The room's server tick: bots step, the frame history is saved (with
//! the velocity the net updates carry, and a respawn marked), and the
//! net updates due go out (`000_…` §7.1 replicated movement; `003_…`
//! `SaveFramePackagePerTick`), each one's fate noted for a recording.

use super::wrap;
use super::RoomHost;
use crate::cmc::wire::NetPosition;
use crate::endpoints::room::player::Driver;
use crate::endpoints::room::recording::NetUpdateFate;
use crate::foundation::time::SimTime;
use crate::net::conditioner::Fate;
use crate::room::history::FramePackage;
use crate::room::hitbox::HitBoxes;
use crate::room::replication::{MovementMode, NetVelocity, ProxyBatch, ReplicatedMovement};
use crate::room::wire::RoomServerMsg;
use crate::room::Seq;

impl RoomHost {
    /// One server tick at `t`: bots step, every character's boxes are
    /// saved, and the net updates due go out.
    pub(super) fn run_tick(&mut self, t: SimTime) {
        let max_record_us = u64::from(self.config.max_record_time_ms) * 1000;
        for p in &mut self.players {
            if let Driver::Bot(bot) = &mut p.driver {
                bot.step_until(t, &self.params, &self.world);
            }
            let frame = FramePackage {
                time: t,
                boxes: HitBoxes::at(p.state().position, self.params.radius),
                velocity: NetVelocity::quantize(p.state().velocity).to_vec2(),
                teleported: std::mem::take(&mut p.teleported),
            };
            p.history.save(frame, max_record_us);
        }
        let everyone: Vec<ReplicatedMovement> = self
            .players
            .iter()
            .map(|p| ReplicatedMovement {
                id: p.id,
                position: NetPosition::quantize(p.state().position),
                velocity: NetVelocity::quantize(p.state().velocity),
                mode: MovementMode::of(p.state(), &self.params),
            })
            .collect();
        let seq = Seq(self.tick as u32);
        let mut fates = Vec::new();
        for p in &mut self.players {
            let (id, interval) = (p.id, p.settings.net_update_interval_us());
            let Some(link) = p.link_mut() else { continue };
            // A quiet player (a hidden tab) gets no net updates until it
            // sends again (`QUIET_CLIENT_MS`), as a single-player session.
            if t < link.next_net_update || !link.conn.listening(t) {
                continue;
            }
            // On the rate's grid; after a pause (a quiet player, a rate
            // change) a new grid from now, never a burst to catch up.
            let next = link.next_net_update.plus_micros(interval);
            link.next_net_update = if next > t {
                next
            } else {
                t.plus_micros(interval)
            };
            let batch = ProxyBatch {
                seq,
                server_time: t,
                characters: everyone.iter().filter(|c| c.id != id).copied().collect(),
            };
            let fate = link.conn.send(t, &wrap(RoomServerMsg::Proxies(batch)));
            fates.push(NetUpdateFate {
                to: id,
                sent: t,
                arrived: match fate {
                    Fate::Delivered { at, .. } => Some(at),
                    Fate::Lost { .. } | Fate::Overflowed => None,
                },
            });
        }
        for fate in fates {
            self.note_net_update(fate);
        }
    }
}
