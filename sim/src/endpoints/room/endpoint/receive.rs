//! What the room's client end does with each server message: the room's
//! own ([`ServerMsg::Room`]), the CMC model's responses, and the
//! connection's Pongs, errors and resume token.

use super::{RoomEndpoint, RoomEvent};
use crate::cmc::client::Client;
use crate::foundation::time::SimTime;
use crate::net::codec::{self, DecodeError};
use crate::protocol::ServerMsg;
use crate::room::actions::ActionOutbox;
use crate::room::ammo::PredictedAmmo;
use crate::room::wire::RoomServerMsg;
use crate::room::Seq;

impl RoomEndpoint {
    /// Takes one frame from the room at client time `now`.
    ///
    /// # Errors
    /// [`DecodeError`] if the frame does not decode; nothing changes.
    pub fn receive_frame(&mut self, now: SimTime, frame: &[u8]) -> Result<RoomEvent, DecodeError> {
        let msg = codec::decode::<ServerMsg>(frame)?;
        if !matches!(msg, ServerMsg::Trace(_)) {
            self.link.received(now, frame.len());
        }
        Ok(match msg {
            ServerMsg::Room(m) => self.receive_room(now, m),
            ServerMsg::MoveResponse(r) => {
                self.client.handle_move_response(&r, &self.world);
                RoomEvent::Applied
            }
            ServerMsg::Pong { id, received } => {
                self.link.on_pong(now, id, received);
                if let Some(t) = &mut self.trace {
                    t.pong_arrived(id, now);
                }
                RoomEvent::Applied
            }
            ServerMsg::Trace(batch) => {
                if let Some(t) = &mut self.trace {
                    t.receive(now, &batch, frame.len());
                }
                RoomEvent::Applied
            }
            ServerMsg::SessionToken { token, grace_ms } => {
                self.resume.offered(token, grace_ms);
                RoomEvent::Applied
            }
            ServerMsg::Error { reason } => {
                self.last_error = Some(reason.clone());
                // While resuming, only the Resume frame is out.
                if self.resume.refused() {
                    RoomEvent::ResumeRefused(reason)
                } else {
                    RoomEvent::ServerError(reason)
                }
            }
            // A single-player session's messages: never sent to a room.
            _ => RoomEvent::Applied,
        })
    }

    fn receive_room(&mut self, now: SimTime, msg: RoomServerMsg) -> RoomEvent {
        match msg {
            RoomServerMsg::Joined {
                you,
                spawn,
                world,
                params,
                weapon,
                settings,
                max_record_time_ms,
            } => {
                // A resumed seat keeps its predicted character and ammo
                // (the server corrects them with its next answers).
                let resumed = self.resume.greeted() && self.me == Some(you);
                // A new seat numbers its ammo actions from 1 again.
                if !resumed {
                    self.client = Client::with_config(params, spawn, self.client_config, self.seed);
                    self.ammo = PredictedAmmo::new(weapon.magazine, self.ammo.mode());
                    self.actions = ActionOutbox::default();
                    self.next_action = Seq(1);
                }
                (self.world, self.params, self.weapon, self.settings) =
                    (world, params, weapon, settings);
                self.max_record_time_ms = max_record_time_ms;
                self.me = Some(you);
                RoomEvent::Joined(you)
            }
            RoomServerMsg::Refused { reason } => RoomEvent::Refused(reason),
            RoomServerMsg::Roster {
                players,
                max_record_time_ms,
            } => {
                self.roster = players;
                self.max_record_time_ms = max_record_time_ms;
                RoomEvent::Applied
            }
            RoomServerMsg::Proxies(batch) => {
                self.take_net_update(now, &batch);
                RoomEvent::Applied
            }
            RoomServerMsg::TimeReport {
                client_time,
                server_time,
            } => {
                self.clock.record(client_time, server_time, now);
                RoomEvent::Applied
            }
            RoomServerMsg::ShotResult(r) => {
                self.take_verdict(now, r);
                RoomEvent::Applied
            }
            RoomServerMsg::Ammo(u) => {
                if let Some(r) = u.verdict {
                    self.take_verdict(now, r);
                }
                self.actions.acknowledge(u.ack);
                self.take_ammo(now, u);
                RoomEvent::Applied
            }
        }
    }
}
