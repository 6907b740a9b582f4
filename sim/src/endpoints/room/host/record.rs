//! The host's side of a [`RoomRecording`]: turning recording on, noting
//! each input as the host takes it and each tick's state hash, and the
//! two entry points a replay drives the host by (a recorded poll, a
//! what-if rule applied to every player).

use super::RoomHost;
use crate::endpoints::room::player::Driver;
use crate::endpoints::room::recording::{
    Detail, JudgedShot, NetUpdateFate, RecordedEvent, Recorder, RecordingError, RoomRecording,
    ShotDetail, TickBodies,
};
use crate::foundation::hash::Fnv64;
use crate::foundation::time::SimTime;
use crate::protocol::ClientMsg;
use crate::room::config::PlayerSettings;
use crate::room::replication::PlayerId;
use crate::room::wire::{RoomClientMsg, Shot, ShotResult};

impl RoomHost {
    /// Records the room from now on, at most `max_events` inputs (then it
    /// stops, and the recording is the shorter room up to there). Only a
    /// new room can be recorded: a replay starts from an empty one.
    ///
    /// # Errors
    /// [`RecordingError::AlreadyStarted`] once a tick has run or anyone
    /// has joined.
    pub fn record(&mut self, max_events: usize) -> Result<(), RecordingError> {
        if self.tick > 0 || self.next_id != 1 {
            return Err(RecordingError::AlreadyStarted);
        }
        self.recorder = Some(Box::new(Recorder::new(
            self.config,
            self.seed,
            self.created,
            Some(max_events),
        )));
        Ok(())
    }

    /// Keeps each tick's state hash and each verdict, not the inputs: how
    /// a replay, fed a recording's inputs, runs; with `detail`, also
    /// every tick's bodies and every shot's ray and views (a playback).
    pub(crate) fn record_outcome(&mut self, detail: bool) {
        let mut r = Recorder::new(self.config, self.seed, self.created, None);
        r.detail = detail.then(Detail::default);
        self.recorder = Some(Box::new(r));
    }

    /// The recording so far, if [`RoomHost::record`] was called.
    pub fn recording(&self) -> Option<&RoomRecording> {
        self.recorder.as_ref().map(|r| &r.recording)
    }

    /// The verdicts given while recording, in the order judged (empty
    /// when not recording): with [`RoomRecording::tick_hashes`], the live
    /// host's [`crate::endpoints::room::replay::ReplayOutcome`], which a
    /// replay of the recording must give.
    pub fn recorded_shots(&self) -> &[JudgedShot] {
        self.recorder.as_ref().map_or(&[], |r| &r.shots)
    }

    /// Notes an input, if recording.
    pub(super) fn note(&mut self, event: impl FnOnce() -> RecordedEvent) {
        if let Some(r) = self.recorder.as_mut().filter(|r| r.takes_events()) {
            r.event(event());
        }
    }

    /// Notes a poll at `now` that delivers `inbox` (by player index) if it
    /// changes anything: something delivered (pings aside), a tick due, or
    /// a forced position update due.
    pub(super) fn note_poll(&mut self, now: SimTime, inbox: &[(usize, ClientMsg)]) {
        if !self.recorder.as_ref().is_some_and(|r| r.takes_events()) {
            return;
        }
        let received: Vec<(PlayerId, ClientMsg)> = inbox
            .iter()
            .filter(|(_, m)| !matches!(m, ClientMsg::Ping { .. }))
            .map(|(i, m)| (self.players[*i].id, m.clone()))
            .collect();
        let forced = self.players.iter().any(|p| match &p.driver {
            Driver::Remote { character, .. } => character.forced_update_due(now),
            Driver::Bot(_) => false,
        });
        if received.is_empty() && !forced && self.tick_time(self.tick) > now {
            return;
        }
        self.note(|| RecordedEvent::Poll { at: now, received });
    }

    /// Notes a net update's fate: an event if recording, and kept for a
    /// fork that redraws from its own net updates.
    pub(super) fn note_net_update(&mut self, fate: NetUpdateFate) {
        self.note(|| RecordedEvent::NetUpdate(fate));
        if let Some(kept) = self.recorder.as_mut().and_then(|r| r.net_updates.as_mut()) {
            kept.push(fate);
        }
    }

    /// A fork's host keeps its own net updates' fates from now on.
    pub(crate) fn keep_net_updates(&mut self) {
        if let Some(r) = &mut self.recorder {
            r.net_updates = Some(Vec::new());
        }
    }

    /// The net updates' fates kept since the last call.
    pub(crate) fn take_net_updates(&mut self) -> Vec<NetUpdateFate> {
        self.recorder
            .as_mut()
            .and_then(|r| r.net_updates.as_mut())
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Notes the state after the tick just run (at `at`), if recording.
    pub(super) fn note_tick(&mut self, at: SimTime) {
        if self.recorder.as_ref().is_some_and(|r| r.on()) {
            let hash = self.state_hash();
            let bodies = self
                .recorder
                .as_ref()
                .and_then(|r| r.detail.as_ref())
                .map(|_| {
                    self.players
                        .iter()
                        .map(|p| (p.id, p.state().position))
                        .collect()
                });
            if let Some(r) = &mut self.recorder {
                r.tick(hash);
                if let (Some(d), Some(bodies)) = (&mut r.detail, bodies) {
                    d.ticks.push(TickBodies { at, bodies });
                }
            }
        }
    }

    /// Notes player `i`'s `shot` answered at `now` with `result`, if
    /// recording.
    pub(super) fn note_shot(&mut self, now: SimTime, i: usize, shot: &Shot, result: &ShotResult) {
        let shooter = self.players[i].id;
        if let Some(r) = self.recorder.as_mut().filter(|r| r.on()) {
            if let Some(d) = &mut r.detail {
                d.shots.push(ShotDetail {
                    shot: shot.clone(),
                    result: *result,
                });
            }
            r.shot(JudgedShot {
                at: now,
                shooter,
                seq: result.seq,
                verdict: result.verdict,
                target: result.target.map(|t| t.id),
                rewind_ms: result.rewind_ms,
            });
        }
    }

    /// The authority's state: the tick, and every player's id, position
    /// and velocity (f32 bits), ammo, newest action handled and shot
    /// counters.
    fn state_hash(&self) -> u64 {
        let mut h = Fnv64::new();
        h.u64(self.tick);
        for p in &self.players {
            let s = p.state();
            h.u32(p.id.0)
                .f32(s.position.x)
                .f32(s.position.y)
                .f32(s.velocity.x)
                .f32(s.velocity.y)
                .u32(p.weapon.ammo().into())
                .u32(p.actions.ack().0);
            let c = &p.shots;
            for v in [
                c.judged,
                c.hit_head,
                c.hit_body,
                c.missed,
                c.too_old,
                c.fire_rate,
                c.reloading,
                c.no_ammo,
                c.clock_ahead,
                c.reloads,
                c.stale,
            ] {
                h.u64(v);
            }
        }
        h.finish()
    }

    /// A recorded poll at `now`: `received` delivered as the uplinks once
    /// did, then the rest of [`RoomHost::poll`]; what is sent is dropped.
    ///
    /// # Errors
    /// [`RecordingError::Invalid`] if a message's sender is not a remote
    /// player of the room.
    pub(crate) fn replay_poll(
        &mut self,
        now: SimTime,
        received: &[(PlayerId, ClientMsg)],
    ) -> Result<(), RecordingError> {
        let mut inbox = Vec::with_capacity(received.len());
        for (id, msg) in received {
            let i = self
                .remote(*id)
                .map_err(|e| RecordingError::Invalid(e.to_string()))?;
            // Heard, as the live host heard the frame that carried it (a
            // little earlier: before its uplink): so the replay sends its
            // net updates to the players the live host sent them to.
            if let Some(link) = self.players[i].link_mut() {
                link.conn.heard(now, 0);
            }
            inbox.push((i, msg.clone()));
        }
        self.step(now, inbox);
        for link in self.players.iter_mut().filter_map(|p| p.link_mut()) {
            link.conn.drain(now);
        }
        Ok(())
    }

    /// Changes every player's room switches by `change` (a what-if fork's
    /// rule).
    pub(crate) fn change_player_settings(&mut self, change: impl Fn(&mut PlayerSettings)) {
        for p in &mut self.players {
            change(&mut p.settings);
        }
    }

    /// Stops recording and hands the recorder over.
    pub(crate) fn take_recorder(&mut self) -> Option<Recorder> {
        self.recorder.take().map(|r| *r)
    }
}

/// Whether a control message changes the authority or a link, so that a
/// recording keeps it.
pub(super) fn recorded_control(msg: &ClientMsg) -> bool {
    matches!(
        msg,
        ClientMsg::SetNetSettings(_)
            | ClientMsg::SetTransport(_)
            | ClientMsg::SetServerRules(_)
            | ClientMsg::LagSpike(_)
            | ClientMsg::Room(
                RoomClientMsg::SetPlayerSettings(_) | RoomClientMsg::SetMaxRecordTime { .. }
            )
    )
}
