//! What the endpoint does with each server message: the Welcome that
//! names the model, the model's own messages routed to its half, the
//! observer views, Pongs, errors and the resume token.

use super::cmc::CmcPredictor;
use super::{
    push_bounded, ClientEndpoint, ClientEvent, Predictor, SERVER_CORRECTIONS_KEPT, TRAIL_LEN,
};
use crate::cmc::client::Client;
use crate::foundation::movement::MovementParams;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use crate::net::codec::{self, DecodeError};
use crate::protocol::Model;
use crate::protocol::ServerMsg;
use crate::rollback::arena::CLIENT_PLAYER;
use crate::rollback::RollbackPredictor;

impl ClientEndpoint {
    /// Takes one frame from the server at `now`.
    ///
    /// # Errors
    /// [`DecodeError`] if the frame does not decode; nothing changes.
    pub fn receive_frame(
        &mut self,
        now: SimTime,
        frame: &[u8],
    ) -> Result<ClientEvent, DecodeError> {
        let msg = codec::decode::<ServerMsg>(frame)?;
        if !matches!(
            msg,
            ServerMsg::Observer(_) | ServerMsg::RollbackObserver(_) | ServerMsg::Trace(_)
        ) {
            self.link.received(now, frame.len());
        }
        Ok(match (msg, &mut self.predictor) {
            (
                ServerMsg::Welcome {
                    world,
                    params,
                    model,
                    ..
                },
                _,
            ) => self.welcome(world, params, model),
            (ServerMsg::SessionToken { token, grace_ms }, _) => {
                self.resume.offered(token, grace_ms);
                ClientEvent::Applied
            }
            (ServerMsg::MoveResponse(r), Predictor::Cmc(c)) => {
                c.client.handle_move_response(&r, &self.world);
                ClientEvent::Applied
            }
            (ServerMsg::Proxy(u), Predictor::Cmc(c)) => {
                c.proxy.on_update(&u, self.smoothing);
                ClientEvent::Applied
            }
            (ServerMsg::Observer(s), Predictor::Cmc(c)) if self.observer_updates.accept(s.seq) => {
                for m in &s.moves {
                    push_bounded(&mut self.server_trail, m.position, TRAIL_LEN);
                    if let Some(from) = m.corrected_from {
                        push_bounded(
                            &mut self.server_corrections,
                            (m.position, from),
                            SERVER_CORRECTIONS_KEPT,
                        );
                    }
                }
                c.observe(&s);
                self.server_position = Some(s.player.position);
                self.others = s.others;
                self.link.on_totals(s.link);
                ClientEvent::Applied
            }
            (ServerMsg::RollbackObserver(v), Predictor::Rollback(r))
                if self.observer_updates.accept(v.seq) =>
            {
                for t in &v.ticks {
                    push_bounded(&mut self.server_trail, t.position.to_cm(), TRAIL_LEN);
                }
                let players = &v.snapshot.players;
                self.server_position = players.get(CLIENT_PLAYER).map(|p| p.position.to_cm());
                self.others = players
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != CLIENT_PLAYER)
                    .map(|(_, p)| p.position.to_cm())
                    .collect();
                self.link.on_totals(v.link);
                r.observe(v);
                ClientEvent::Applied
            }
            (ServerMsg::Rollback(m), Predictor::Rollback(r)) => match r.receive(m) {
                Ok(()) => ClientEvent::Applied,
                Err(e) => ClientEvent::Refused(e),
            },
            (ServerMsg::Pong { id, received }, _) => {
                self.link.on_pong(now, id, received);
                if let Some(t) = &mut self.trace {
                    t.pong_arrived(id, now);
                }
                ClientEvent::Applied
            }
            (ServerMsg::Trace(batch), _) => {
                if let Some(t) = &mut self.trace {
                    t.receive(now, &batch, frame.len());
                }
                ClientEvent::Applied
            }
            (ServerMsg::Error { reason }, _) => {
                self.last_error = Some(reason.clone());
                // While resuming, only the Resume frame is out.
                if self.resume.refused() {
                    ClientEvent::ResumeRefused(reason)
                } else {
                    ClientEvent::ServerError(reason)
                }
            }
            // Another model's message (in flight across a switch), or an
            // observer view older than one applied.
            _ => ClientEvent::Applied,
        })
    }

    /// A Welcome: the world, and the half of the model it names. A resumed
    /// CMC session keeps its predicted character (the server corrects it
    /// with its next response); otherwise the model starts afresh, and a
    /// switch of model clears the panels' trails. A rollback half takes
    /// the rollback settings last asked for when there are some: settings
    /// changed after a SetModel but before its Welcome reach the host
    /// live (no second Welcome), so the Welcome's may be older than the
    /// client-side ones (redundancy, prediction window, input buffer);
    /// the tick rate comes from the match's Start either way.
    fn welcome(&mut self, world: World, params: MovementParams, model: Model) -> ClientEvent {
        let resumed = self.resume.greeted();
        let switched = self.model() != model;
        match model {
            Model::Cmc if resumed && !switched => {}
            Model::Cmc => {
                let client =
                    Client::with_config(params, world.spawn, self.client_config, self.seed);
                self.predictor = Predictor::Cmc(Box::new(CmcPredictor::new(client)));
            }
            Model::Rollback(welcomed) => match RollbackPredictor::new(match self.requested {
                Model::Rollback(asked) => asked,
                Model::Cmc => welcomed,
            }) {
                Ok(r) => self.predictor = Predictor::Rollback(Box::new(r)),
                Err(e) => return ClientEvent::ServerError(e.to_string()),
            },
        }
        self.keep_logs();
        if switched {
            self.clear_trails();
            self.server_position = None;
            self.others.clear();
        }
        self.world = world;
        self.welcomed = true;
        ClientEvent::Welcomed
    }
}
