//! The server side of one connection, sans IO: the link
//! ([`HostLink`]: two link conditioners, settings, lag spikes, Ping/Pong,
//! the quiet-client rule) and the authority of the prediction model in
//! force — the CMC model's [`ServerCharacter`] with a bot-driven proxy
//! character, or the rollback model's [`RollbackAuthority`] with its bot
//! player — plus the observer stream for the Authoritative panel. The
//! relay drives it with wall time; the page's local mode and the tests
//! drive it with a virtual clock — the same code.
//!
//! ```text
//! receive_frame ─► decode ─► control? act now (Hello, settings, rules, lag spike, model, trace)
//!                         └► uplink conditioner (ServerMove │ Inputs │ Ping)
//! poll(now): uplink ─► Ping: Pong │ ServerMove ─► CMC │ Inputs ─► rollback
//!            CMC: flush (≤ 1 per interval), proxy character, proxy update
//!            rollback: each tick due: Ack, State every k ─► downlink
//!            ◄── control frames, downlink's due frames, observer view (20 Hz)
//! take_trace: the packet trace's batches made by the polls, for the
//!            driver to stamp with its own processing times and send (issue 23)
//! ```
//!
//! **One host, two models: an enum, not a trait.** The models share the
//! link, the settings, the net-update clock and the connection's life
//! (Hello, resume, errors), and differ in everything they simulate and
//! send. An enum inside the host (`Authority`) keeps the shared part
//! written once, lets a model switch replace the authority in place —
//! without dropping the connection, the conditioners' queues, the measured
//! link or the resume token — and lets callers that care reach each
//! model's own state ([`ServerHost::cmc`], [`ServerHost::rollback`])
//! without downcasting; the set of models is closed, which is what an enum
//! is for. The relay and the page see one `ServerHost` whatever runs.

mod cmc;
mod rollback;

pub use cmc::STALL_CHECK_INTERVAL_MS;
pub use rollback::RollbackAuthority;

use crate::cmc::rules::ServerRules;
use crate::cmc::server::ServerCharacter;
use crate::endpoints::link::{HostLink, Traffic};
use crate::foundation::control::SettingsError;
use crate::foundation::movement::MovementParams;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use crate::net::codec::{self, DecodeError};
use crate::net::settings::NetSettings;
use crate::net::trace::{Direction, PacketLog};
use crate::net::trace_wire::{TraceRequest, TraceStart};
use crate::protocol::trace::TraceFrame;
use crate::protocol::Model;
use crate::protocol::{ClientMsg, ServerMsg};
use crate::rollback::wire::MAX_INPUTS_PER_PACKET;
use cmc::CmcAuthority;
use thiserror::Error;

/// Interval between the host's net updates, ms (20 Hz): each one sends
/// the observer view and, in the CMC model, the simulated proxy's update
/// ("servers usually broadcast simulated proxies at 30 Hz or less",
/// `000_…` §7.2) together, so a driver that sends what one
/// [`ServerHost::poll`] returns in one write wakes once per update for
/// both streams.
pub const NET_UPDATE_INTERVAL_MS: u64 = 50;

/// A frame the host refused. The session goes on; the client is told why
/// with a [`ServerMsg::Error`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HostError {
    /// The bytes did not decode.
    #[error("bad frame: {0}")]
    Decode(#[from] DecodeError),
    /// A setting was out of range; nothing was changed.
    #[error("bad settings: {0}")]
    Settings(#[from] SettingsError),
    /// A [`ClientMsg::Resume`] reached a host: sessions are kept by the
    /// relay, not by a host on its own (local mode).
    #[error("resume is not available here")]
    ResumeUnavailable,
    /// A rollback input packet with more inputs than
    /// [`MAX_INPUTS_PER_PACKET`].
    #[error("input packet with {0} inputs: at most {MAX_INPUTS_PER_PACKET} per packet")]
    TooManyInputs(usize),
    /// A shared room's message ([`ClientMsg::Room`]) reached a
    /// single-player host: rooms are joined with `/ws?room=NAME`.
    #[error("room messages need a shared room (connect to /ws?room=NAME)")]
    NotARoom,
}

/// The authority of the model in force.
#[derive(Debug, Clone)]
enum Authority {
    /// UE's CharacterMovementComponent model.
    Cmc(Box<CmcAuthority>),
    /// Fixed-tick input/snapshot rollback.
    Rollback(Box<RollbackAuthority>),
}

/// The server end of one connection.
#[derive(Debug, Clone)]
pub struct ServerHost {
    world: World,
    params: MovementParams,
    rules: ServerRules,
    /// Seeds the conditioners, the CMC forced-adjustment rolls and the
    /// rollback session id.
    seed: u64,
    link: HostLink<ClientMsg>,
    authority: Authority,
    /// The client said Hello: model switches are announced with a Welcome.
    greeted: bool,
    /// When the next net update (observer view, proxy update) is due.
    next_net_update: SimTime,
    /// The replication counter of the latest net update (newest wins).
    net_update_seq: u32,
    /// The last rollback match number used on this connection: a new
    /// match's packets never pass for an old one's.
    last_match: u32,
    /// Records kept per log while inspecting ([`ServerHost::inspect`]).
    inspect: Option<usize>,
    /// When the host was made (a trace's start says it).
    made: SimTime,
}

impl ServerHost {
    /// A host for the default arena running the CMC model, whose
    /// conditioners draw from `seed`.
    pub fn new(seed: u64, now: SimTime) -> ServerHost {
        let world = World::arena();
        let params = MovementParams::default();
        let rules = ServerRules::default();
        ServerHost {
            authority: Authority::Cmc(Box::new(CmcAuthority::new(
                seed, now, &world, params, rules,
            ))),
            link: HostLink::new(seed, now),
            next_net_update: now,
            net_update_seq: 0,
            greeted: false,
            last_match: 0,
            inspect: None,
            made: now,
            seed,
            world,
            params,
            rules,
        }
    }

    /// Takes one frame from the client at `now`. Control messages (Hello,
    /// settings, rules, lag spikes, the model) act at once; moves, inputs
    /// and pings enter the uplink conditioner with the frame's size.
    ///
    /// # Errors
    /// [`HostError`] if the frame does not decode or a setting is out of
    /// range. An Error message is queued for the client either way; nothing
    /// else changes.
    pub fn receive_frame(&mut self, now: SimTime, frame: &[u8]) -> Result<(), HostError> {
        match codec::decode::<ClientMsg>(frame) {
            Ok(msg) => self.receive_msg(now, frame.len(), msg),
            Err(e) => {
                self.heard(now, frame.len());
                let e = HostError::from(e);
                self.send_error(e.to_string());
                Err(e)
            }
        }
    }

    /// Takes one already decoded message at `now` (for a driver that
    /// decodes first, e.g. to rate-limit by message kind): the second half
    /// of [`ServerHost::receive_frame`]. `frame_len` is the size of the
    /// frame it came in, bytes: the uplink's bandwidth cap counts it for
    /// the messages that cross the uplink (ServerMove, Inputs, Ping).
    ///
    /// # Errors
    /// [`HostError::Settings`] if a setting is out of range; an Error
    /// message is queued for the client and nothing else changes.
    pub fn receive_msg(
        &mut self,
        now: SimTime,
        frame_len: usize,
        msg: ClientMsg,
    ) -> Result<(), HostError> {
        self.heard(now, frame_len);
        let traced = (msg.is_control()
            && (self.link.streams_trace() || matches!(msg, ClientMsg::Trace(_))))
        .then(|| msg.clone());
        let result = self.receive(now, frame_len, msg);
        match (&result, traced) {
            (Err(e), _) => self.send_error(e.to_string()),
            (Ok(()), Some(msg)) => self.link.trace_control(now, msg),
            (Ok(()), None) => {}
        }
        result
    }

    /// The client sent a frame: a rollback match paused while it was quiet
    /// moves on by the pause.
    fn heard(&mut self, now: SimTime, bytes: usize) {
        if let Authority::Rollback(a) = &mut self.authority {
            if !self.link.listening(now) {
                a.resume_after(self.link.quiet_from(), now);
            }
        }
        self.link.heard(now, bytes);
    }

    /// Queues a [`ServerMsg::Error`] with `reason` for the next
    /// [`ServerHost::poll`]. At most [`crate::endpoints::link::MAX_IMMEDIATE`] control messages
    /// wait between two polls; an error beyond that is dropped.
    pub fn send_error(&mut self, reason: String) {
        self.link.send_now(&ServerMsg::Error { reason });
    }

    fn receive(&mut self, now: SimTime, frame_len: usize, msg: ClientMsg) -> Result<(), HostError> {
        match msg {
            ClientMsg::Hello => {
                self.greeted = true;
                self.welcome();
            }
            ClientMsg::SetNetSettings(s) => self.link.set_net_settings(s)?,
            ClientMsg::SetTransport(t) => self.link.set_transport(t),
            ClientMsg::SetServerRules(r) => {
                r.validate()?;
                self.rules = r;
                if let Authority::Cmc(a) = &mut self.authority {
                    a.set_rules(r);
                }
            }
            ClientMsg::LagSpike(spike) => self.link.start_lag_spike(now, spike)?,
            ClientMsg::SetModel(m) => self.set_model(now, m)?,
            ClientMsg::Resume { .. } => return Err(HostError::ResumeUnavailable),
            ClientMsg::Room(_) | ClientMsg::SeatReport(_) => return Err(HostError::NotARoom),
            ClientMsg::Trace(request) => {
                request.validate()?;
                self.stream_trace(now, request);
            }
            ClientMsg::Inputs(p) if p.inputs.len() > MAX_INPUTS_PER_PACKET => {
                return Err(HostError::TooManyInputs(p.inputs.len()));
            }
            msg @ (ClientMsg::ServerMove(_) | ClientMsg::Inputs(_) | ClientMsg::Ping { .. }) => {
                self.link.send_up(now, frame_len, msg);
            }
        }
        Ok(())
    }

    /// The Welcome naming the model in force; in the rollback model the
    /// match's Start follows it.
    fn welcome(&mut self) {
        self.link.send_now(&ServerMsg::Welcome {
            world: self.world.clone(),
            params: self.params,
            settings: self.link.settings(),
            rules: self.rules,
            model: self.model(),
        });
        if let Authority::Rollback(a) = &mut self.authority {
            a.join(&mut self.link);
        }
    }

    /// Switches to `model` at `now`, or changes the rollback settings. The
    /// link, its settings and the rules carry over; a new model starts its
    /// world afresh and a greeted client is sent a Welcome naming it.
    fn set_model(&mut self, now: SimTime, model: Model) -> Result<(), SettingsError> {
        match (&mut self.authority, model) {
            (Authority::Cmc(_), Model::Cmc) => return Ok(()),
            (Authority::Rollback(a), Model::Rollback(config)) => {
                return a.set_config(now, config, &mut self.link);
            }
            (Authority::Rollback(a), Model::Cmc) => {
                self.last_match = a.match_id();
                let mut cmc =
                    CmcAuthority::new(self.seed, now, &self.world, self.params, self.rules);
                if let Some(capacity) = self.inspect {
                    cmc.player.keep_move_log(capacity);
                }
                self.authority = Authority::Cmc(Box::new(cmc));
            }
            (Authority::Cmc(_), Model::Rollback(config)) => {
                let match_id = self.last_match.wrapping_add(1);
                let a = RollbackAuthority::new(self.seed, now, config, match_id)?;
                self.authority = Authority::Rollback(Box::new(a));
            }
        }
        if self.greeted {
            self.welcome();
        }
        Ok(())
    }

    /// Advances the host to `now` and returns the frames to send, in order:
    /// delivers due uplink messages, lets the model act (CMC: response,
    /// proxy character and proxy update; rollback: every tick due), then
    /// control frames, due downlink frames, and the net update's observer
    /// view.
    pub fn poll(&mut self, now: SimTime) -> Vec<Vec<u8>> {
        while let Some(msg) = self.link.poll_up(now) {
            match (msg, &mut self.authority) {
                (ClientMsg::Ping { id }, _) => {
                    let received = self.link.ping_received(id);
                    self.link.send(now, &ServerMsg::Pong { id, received });
                }
                (ClientMsg::ServerMove(m), Authority::Cmc(a)) => a.deliver(now, &m, &self.world),
                (ClientMsg::Inputs(p), Authority::Rollback(a)) => {
                    // Refused packets are counted; the match goes on.
                    let _ = a.deliver(&p);
                }
                // In flight across a model switch, or control (never
                // queued): nothing to do.
                _ => {}
            }
        }
        let net_update = now >= self.next_net_update && self.link.listening(self.next_net_update);
        if net_update {
            self.next_net_update = now.plus_millis(NET_UPDATE_INTERVAL_MS);
            self.net_update_seq = self.net_update_seq.wrapping_add(1);
        }
        let seq = self.net_update_seq;
        match &mut self.authority {
            Authority::Cmc(a) => a.advance(
                now,
                &mut self.link,
                &self.world,
                &self.params,
                net_update.then_some(seq),
            ),
            Authority::Rollback(a) => a.advance(now, &mut self.link),
        }
        let mut out = self.link.drain(now);
        if net_update {
            let totals = self.link.totals(now);
            let view = match &mut self.authority {
                Authority::Cmc(a) => codec::encode(&ServerMsg::Observer(a.observer(seq, totals))),
                Authority::Rollback(a) => {
                    codec::encode(&ServerMsg::RollbackObserver(a.observer(seq, totals)))
                }
            };
            self.link.count_down(std::slice::from_ref(&view));
            out.push(view);
        }
        out
    }

    /// Runs [`ServerHost::poll`] at every wake-up up to `now` and then at
    /// `now`, and returns each frame with the time it left: a driver that
    /// only gets to run now and then (a page's frame, a session's step)
    /// still sees packets arrive at their own times, so measured RTT is
    /// not rounded up to its frame rate.
    pub fn poll_until(&mut self, now: SimTime) -> Vec<(SimTime, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some(t) = self.next_wakeup().filter(|&t| t < now) {
            out.extend(self.poll(t).into_iter().map(|f| (t, f)));
        }
        out.extend(self.poll(now).into_iter().map(|f| (now, f)));
        out
    }

    /// The earliest time at which [`ServerHost::poll`] has something to do,
    /// or `None` if nothing happens until the client sends a frame (it
    /// has been quiet for [`crate::endpoints::link::QUIET_CLIENT_MS`] and nothing is in flight).
    pub fn next_wakeup(&self) -> Option<SimTime> {
        let model = match &self.authority {
            Authority::Cmc(a) => a.next_wakeup(),
            Authority::Rollback(a) => a.next_tick(&self.link),
        };
        [
            self.link.next_delivery(),
            self.link
                .listening(self.next_net_update)
                .then_some(self.next_net_update),
            model,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The model in force.
    pub fn model(&self) -> Model {
        match &self.authority {
            Authority::Cmc(_) => Model::Cmc,
            Authority::Rollback(a) => Model::Rollback(a.config()),
        }
    }

    /// The authoritative CMC character, when the CMC model runs.
    pub fn cmc(&self) -> Option<&ServerCharacter> {
        match &self.authority {
            Authority::Cmc(a) => Some(&a.player),
            Authority::Rollback(_) => None,
        }
    }

    /// The rollback match, when the rollback model runs.
    pub fn rollback(&self) -> Option<&RollbackAuthority> {
        match &self.authority {
            Authority::Rollback(a) => Some(a),
            Authority::Cmc(_) => None,
        }
    }

    /// Server rules in force (the CMC model's; kept while rollback runs).
    pub fn rules(&self) -> ServerRules {
        self.rules
    }

    /// Link settings in force.
    pub fn settings(&self) -> NetSettings {
        self.link.settings()
    }

    /// What crossed the connection so far.
    pub fn traffic(&self) -> Traffic {
        self.link.traffic()
    }

    /// Keeps, from now on, the newest `capacity` records of every packet's
    /// fate ([`ServerHost::packets`]) and of what the CMC server did with
    /// each move ([`ServerCharacter::move_log`], kept across model
    /// switches): the data of the packet timeline and the correction
    /// inspector ([`crate::inspect`]). Off by default; ~60 bytes a record.
    pub fn inspect(&mut self, capacity: usize) {
        self.inspect = Some(capacity);
        self.link.trace_packets(capacity);
        if let Authority::Cmc(a) = &mut self.authority {
            a.player.keep_move_log(capacity);
        }
    }

    /// Starts, changes or stops the packet trace to the page at `now`
    /// ([`crate::net::trace_stream`]); its first batch names this host's
    /// seed and birth. `request` is validated by the caller.
    pub fn stream_trace(&mut self, now: SimTime, request: TraceRequest) {
        let start = TraceStart {
            seed: self.seed,
            made: self.made,
        };
        self.link.stream_trace(now, request, start);
    }

    /// The trace batches the polls made since the last call (see
    /// [`ServerHost::stream_trace`]): the driver fills in its own
    /// processing times ([`crate::net::trace_wire::RelayTimes`]) and sends
    /// each as a [`ServerMsg::Trace`].
    pub fn take_trace(&mut self) -> Vec<TraceFrame> {
        self.link.take_trace()
    }

    /// The driver's word on the page's reading: `true` while its last
    /// write did not go at once (trace batches wait and thin).
    pub fn trace_congested(&mut self, on: bool) {
        self.link.trace_congested(on);
    }

    /// Every packet's fate since [`ServerHost::inspect`] (`None` before).
    pub fn packets(&self) -> Option<&PacketLog> {
        self.link.packets()
    }

    /// Delivers the packet sent `index`-th in `direction` even if its loss
    /// roll says lost ([`crate::protocol::Setting::Deliver`]).
    pub fn rescue(&mut self, direction: Direction, index: u64) {
        self.link.rescue(direction, index);
    }

    /// The uplink conditioner's counters.
    pub fn uplink_stats(&self) -> crate::net::conditioner::ConditionerStats {
        self.link.uplink_stats()
    }

    /// The arena.
    pub fn world(&self) -> &World {
        &self.world
    }
}
