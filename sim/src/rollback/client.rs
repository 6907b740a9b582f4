//! The predicting client (`001_…` §5.2): samples its input every tick,
//! predicts the remote players by hold-last, and on **every** valid new
//! State restores it and re-simulates to its current tick (`001_…` §8:
//! always rebase; a rollback is *visible* only when the local player's
//! error is — [`Divergence::is_visible`]).
//!
//! ```text
//! receive_state: stale? too far ahead? hash recomputes? ─► reject, counted
//!                desync check (confirmed ticks only) ─► pending (newest wins)
//! advance:       rebase_if_due ─► window full? wait (counted)
//!                ─► local input + hold-last remote inputs ─► Game::step
//! rebase:        restore State at t ─► re-simulate t..now with the kept
//!                local inputs ─► visible? (local player only)
//! ```
//!
//! **Who caused a rebase.** Every accepted State names the inputs the
//! server used for the ticks since the previous one. The client compares
//! each remote player's with the input its own latest prediction of that
//! tick used (hold-last) and counts, per remote player, the mispredicted
//! ticks and the rebases whose State confirmed at least one of them
//! ([`RemoteCounters`]; issue 22). This is bookkeeping only: every valid
//! State is applied whoever caused it, and the *visible* rollback count
//! keeps `001_…` §5.2's definition (only a significant local-player
//! difference counts: "统计口径不等于是否应用权威状态"; §8).
//!
//! A State is applied at the start of the next [`RollbackClient::advance`]
//! or [`RollbackClient::rebase_if_due`] — also while the prediction window
//! holds the client, so a rollback that became due while waiting is never
//! lost — and only the newest of several waiting States is (the older
//! ones' re-simulations would be thrown away at once).
//!
//! **Desync check.** Comparing the server's hash with a *predicted* state
//! would report every misprediction as a desync. The client checks
//! confirmed ticks only: it steps the previous accepted State with the
//! inputs the server says it used and compares the result's hash with the
//! new State's (ggrs's desync detection compares confirmed frames only,
//! too).

use super::config::HISTORY_CAPACITY;
use super::game::{Divergence, Game};
use super::input::{InputCmd, TickRing};
use super::server::StateUpdate;
use super::tick::Tick;
use thiserror::Error;

/// Why a State was not accepted (each is counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum StateRejected {
    /// Not newer than the newest State already accepted (`001_…` §4.4).
    #[error("state for tick {tick:?} is not newer than {newest:?}")]
    Stale {
        /// The State's tick.
        tick: Tick,
        /// The newest accepted.
        newest: Tick,
    },
    /// Further ahead of the client than its history (`001_…` §9.4).
    #[error("state for tick {tick:?} is outside the accepted window")]
    OutOfWindow {
        /// The State's tick.
        tick: Tick,
    },
    /// The recomputed hash disagrees with the one sent (`001_…` §5.2
    /// step 3: corrupt or inconsistent).
    #[error("state hash {sent:#018x} does not match its contents ({computed:#018x})")]
    BadHash {
        /// The hash in the message.
        sent: u64,
        /// The hash of the state as received.
        computed: u64,
    },
}

/// The prediction window is full: the client waits for a State.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("{ticks_ahead} ticks ahead of the last confirmed State: waiting")]
pub struct Stalled {
    /// Ticks ahead of the last confirmed State.
    pub ticks_ahead: u32,
}

/// What the client did so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientCounters {
    /// Ticks predicted (first time, not re-simulations).
    pub ticks: u64,
    /// Ticks the prediction window held the client back.
    pub stalls: u64,
    /// States accepted.
    pub states_accepted: u64,
    /// Accepted States replaced by a newer one before being applied.
    pub states_superseded: u64,
    /// States rejected as stale.
    pub rejected_stale: u64,
    /// States rejected as outside the window.
    pub rejected_window: u64,
    /// States rejected for a hash that does not match their contents.
    pub rejected_hash: u64,
    /// States restored (`rebases`): every applied State.
    pub rebases: u64,
    /// Rebases that moved the local player visibly (`rollbacks`).
    pub rollbacks: u64,
    /// Ticks re-simulated by all rebases (`resimulated-ticks`).
    pub resimulated_ticks: u64,
    /// Confirmed ticks checked against the server's hash.
    pub hash_checks: u64,
    /// Of those, the ones that disagreed: a real desync (`hash-mismatches`).
    pub hash_mismatches: u64,
    /// Rebases that reached further back than the kept local inputs.
    pub history_overflows: u64,
    /// Ticks run with rollback off in which the drawn State was the same
    /// as in the tick before: the picture stood still, waiting for the
    /// server (`frozen-ticks`).
    pub frozen_ticks: u64,
}

/// What one remote player's inputs did to this client's predictions
/// (issue 22: "counts, per remote player, the mispredicted ticks and the
/// rebases they caused"). The local player's entry stays zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RemoteCounters {
    /// Confirmed ticks at which the server used another input for this
    /// player than the client's latest prediction of the tick did
    /// (hold-last, `001_…` §5.2), compared by intent (buttons and stick).
    pub mispredicted_ticks: u64,
    /// Applied rebases whose State (or a newer one that superseded it
    /// before it was applied) confirmed at least one of those ticks.
    pub rebases_caused: u64,
}

/// The last rebase, for the Replayed panel.
#[derive(Debug, Clone, PartialEq)]
pub struct RollbackRecord<S> {
    /// The restored State's tick.
    pub from: Tick,
    /// The client's tick, re-simulated up to.
    pub to: Tick,
    /// The predicted states of ticks `from..=to` that were thrown away
    /// (those still in the history), oldest first.
    pub discarded: Vec<S>,
    /// The authoritative state restored.
    pub restored: S,
    /// The re-simulated states of ticks `from + 1..=to`, oldest first.
    pub resimulated: Vec<S>,
    /// How far the local player moved, old prediction vs new, at `to`.
    pub divergence: Divergence,
}

/// The client end of a rollback match for one local player.
#[derive(Debug, Clone)]
pub struct RollbackClient<G: Game> {
    game: G,
    player: usize,
    predicted: G::State,
    confirmed: G::State,
    pending: Option<StateUpdate<G::State>>,
    /// The newest accepted State: the base of the next desync check.
    newest: G::State,
    local_inputs: TickRing<InputCmd>,
    /// Newest known input of every player, what hold-last repeats.
    remote: Vec<InputCmd>,
    history: TickRing<G::State>,
    /// The inputs of every player the latest prediction of each tick
    /// used: what a State's inputs are compared with.
    used: TickRing<Vec<InputCmd>>,
    /// Per player (the local one stays zero).
    remote_counters: Vec<RemoteCounters>,
    /// Players whose mispredictions the waiting State confirmed.
    pending_causes: Vec<bool>,
    max_prediction: Option<u16>,
    /// Ticks between sampling the local input and simulating it (ggrs
    /// `input_delay`, [`super::config::RollbackConfig::input_delay`]).
    input_delay: u32,
    /// Restore and re-simulate on each State
    /// ([`super::config::RollbackConfig::rollback`]); off, the newest
    /// State is what is drawn.
    rollback: bool,
    /// The tick of the State drawn at the previous tick (rollback off).
    drawn_before: Option<Tick>,
    counters: ClientCounters,
    last_rollback: Option<RollbackRecord<G::State>>,
    scratch: Vec<InputCmd>,
}

impl<G: Game> RollbackClient<G> {
    /// A client for `player` starting from the confirmed `initial` state,
    /// predicting at most `max_prediction` ticks ahead of the last
    /// confirmed State (`None`: no limit).
    pub fn new(game: G, initial: G::State, player: usize, max_prediction: Option<u16>) -> Self {
        let mut history = TickRing::new(HISTORY_CAPACITY);
        history.insert(G::tick(&initial), initial.clone());
        let tick = G::tick(&initial);
        RollbackClient {
            remote: vec![InputCmd::empty(tick); game.players()],
            used: TickRing::new(HISTORY_CAPACITY),
            remote_counters: vec![RemoteCounters::default(); game.players()],
            pending_causes: vec![false; game.players()],
            game,
            player,
            predicted: initial.clone(),
            confirmed: initial.clone(),
            newest: initial,
            pending: None,
            local_inputs: TickRing::new(HISTORY_CAPACITY),
            history,
            max_prediction,
            input_delay: 0,
            rollback: true,
            drawn_before: None,
            counters: ClientCounters::default(),
            last_rollback: None,
            scratch: Vec::new(),
        }
    }

    /// Changes the prediction window.
    pub fn set_max_prediction(&mut self, ticks: Option<u16>) {
        self.max_prediction = ticks;
    }

    /// Changes the local input delay, ticks (ggrs `input_delay`): ticks
    /// that no input was sampled for (after a larger delay is set, or at
    /// the start) are simulated with the empty input.
    pub fn set_input_delay(&mut self, ticks: u8) {
        self.input_delay = u32::from(ticks);
    }

    /// Switches rollback on or off. Off, each State is only adopted as the
    /// confirmed state, which [`RollbackClient::predicted`] then returns;
    /// the client's own simulation keeps its tick (the one its inputs are
    /// sampled for) and is restored by the first State after rollback is
    /// on again.
    pub fn set_rollback(&mut self, on: bool) {
        self.rollback = on;
    }

    /// The game being predicted.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The next tick to predict.
    pub fn tick(&self) -> Tick {
        G::tick(&self.predicted)
    }

    /// Ticks predicted beyond the last confirmed State (`ticks-ahead`).
    pub fn ticks_ahead(&self) -> u32 {
        self.tick().diff(G::tick(&self.confirmed)).max(0) as u32
    }

    /// What the client draws: the predicted state, or with rollback off
    /// the newest State applied (the confirmed one).
    pub fn predicted(&self) -> &G::State {
        if self.rollback {
            &self.predicted
        } else {
            &self.confirmed
        }
    }

    /// The last confirmed (applied) State.
    pub fn confirmed(&self) -> &G::State {
        &self.confirmed
    }

    /// The last rebase, if any.
    pub fn last_rollback(&self) -> Option<&RollbackRecord<G::State>> {
        self.last_rollback.as_ref()
    }

    /// Counters so far.
    pub fn counters(&self) -> ClientCounters {
        self.counters
    }

    /// Per player, what its inputs did to this client's predictions
    /// (player order; the local player's entry is zero).
    pub fn remote_counters(&self) -> &[RemoteCounters] {
        &self.remote_counters
    }

    /// The local input stored for `tick`, if still kept.
    pub fn local_input(&self, tick: Tick) -> Option<InputCmd> {
        self.local_inputs.get(tick).copied()
    }

    /// Predicts one tick with the local `input` sampled now: it is kept
    /// for tick *now* + the input delay (its tick set to that), and the
    /// tick predicted uses the input kept for it (the empty input if none
    /// was). With no delay that is `input` itself. A waiting State is
    /// applied first.
    ///
    /// # Errors
    /// [`Stalled`] when the prediction window is full; nothing advances
    /// and the stall is counted.
    pub fn advance(&mut self, input: InputCmd) -> Result<(), Stalled> {
        self.rebase_if_due();
        let ticks_ahead = self.ticks_ahead();
        if self
            .max_prediction
            .is_some_and(|w| ticks_ahead >= u32::from(w))
        {
            self.counters.stalls += 1;
            return Err(Stalled { ticks_ahead });
        }
        if !self.rollback && self.drawn_before == Some(G::tick(&self.confirmed)) {
            self.counters.frozen_ticks += 1;
        }
        self.drawn_before = Some(G::tick(&self.confirmed));
        let t = self.tick();
        let at = t.plus(self.input_delay);
        self.local_inputs.insert(at, input.at(at));
        let local = self.local_input(t).unwrap_or(InputCmd::empty(t));
        self.fill_inputs(t, local);
        self.used.insert_from(t, &self.scratch);
        self.game.step_in_place(&mut self.predicted, &self.scratch);
        self.history.insert_from(t.next(), &self.predicted);
        self.counters.ticks += 1;
        Ok(())
    }

    fn fill_inputs(&mut self, t: Tick, local: InputCmd) {
        self.scratch.clear();
        for (p, remote) in self.remote.iter().enumerate() {
            self.scratch.push(if p == self.player {
                local
            } else {
                remote.at(t)
            });
        }
    }

    /// Checks a State and keeps it for the next rebase.
    ///
    /// # Errors
    /// [`StateRejected`] (counted); the client is unchanged.
    pub fn receive_state(&mut self, update: StateUpdate<G::State>) -> Result<(), StateRejected> {
        let tick = G::tick(&update.state);
        let newest = G::tick(&self.newest);
        let rejected = if !tick.is_after(newest) {
            self.counters.rejected_stale += 1;
            Some(StateRejected::Stale { tick, newest })
        } else if tick.diff(self.tick()) >= HISTORY_CAPACITY as i32 {
            self.counters.rejected_window += 1;
            Some(StateRejected::OutOfWindow { tick })
        } else {
            let computed = G::state_hash(&update.state);
            (computed != update.hash).then(|| {
                self.counters.rejected_hash += 1;
                StateRejected::BadHash {
                    sent: update.hash,
                    computed,
                }
            })
        };
        if let Some(r) = rejected {
            return Err(r);
        }
        self.check_desync(&update);
        self.note_mispredictions(&update);
        self.newest.clone_from(&update.state);
        self.counters.states_accepted += 1;
        if self.pending.replace(update).is_some() {
            self.counters.states_superseded += 1;
        }
        Ok(())
    }

    /// Steps the previous accepted State with the server's inputs and
    /// compares hashes, when the inputs span exactly the gap between them.
    fn check_desync(&mut self, update: &StateUpdate<G::State>) {
        let n = self.remote.len();
        let ticks = update.inputs.len() / n;
        let from = G::tick(&update.state).minus(ticks as u32);
        if ticks == 0 || update.inputs.len() % n != 0 || from != G::tick(&self.newest) {
            return;
        }
        let mut s = self.newest.clone();
        for inputs in update.inputs.chunks(n) {
            self.game.step_in_place(&mut s, inputs);
        }
        self.counters.hash_checks += 1;
        if G::state_hash(&s) != update.hash {
            self.counters.hash_mismatches += 1;
        }
    }

    /// Compares the remote inputs the server used with the ones the
    /// client's latest prediction of each tick used, and counts.
    fn note_mispredictions(&mut self, update: &StateUpdate<G::State>) {
        let n = self.remote.len();
        if n == 0 || update.inputs.len() % n != 0 {
            return;
        }
        for used_by_server in update.inputs.chunks(n) {
            let Some(predicted) = self.used.get(used_by_server[0].tick) else {
                // Not predicted yet (the client is behind): nothing to miss.
                continue;
            };
            for (p, (ours, theirs)) in predicted.iter().zip(used_by_server).enumerate() {
                if p != self.player && ours.at(theirs.tick) != *theirs {
                    self.remote_counters[p].mispredicted_ticks += 1;
                    self.pending_causes[p] = true;
                }
            }
        }
    }

    /// Applies the waiting State, if any: restore, re-simulate to the
    /// current tick, count. Returns `true` if one was applied.
    pub fn rebase_if_due(&mut self) -> bool {
        let Some(update) = self.pending.take() else {
            return false;
        };
        let n = self.remote.len();
        if update.inputs.len() >= n {
            let newest = &update.inputs[update.inputs.len() - n..];
            for (p, cmd) in newest.iter().enumerate() {
                if p != self.player {
                    self.remote[p] = *cmd;
                }
            }
        }
        let from = G::tick(&update.state);
        let to = self.tick();
        if !self.rollback {
            // No rollback: the State is drawn as it is, nothing re-run
            // (behind the server, the client's own tick catches up); a
            // misprediction caused no rebase.
            self.pending_causes.iter_mut().for_each(|c| *c = false);
            if from.is_after(to) {
                self.predicted.clone_from(&update.state);
            }
            self.confirmed = update.state;
            return true;
        }
        self.counters.rebases += 1;
        for (c, caused) in self
            .remote_counters
            .iter_mut()
            .zip(&mut self.pending_causes)
        {
            if std::mem::take(caused) {
                c.rebases_caused += 1;
            }
        }
        if from.is_after(to) {
            // Behind the server (start-up, or after a long wait): adopt it.
            self.history.insert_from(from, &update.state);
            self.predicted.clone_from(&update.state);
            self.confirmed = update.state;
            return true;
        }
        let ticks = to.diff(from) as u32;
        if ticks as usize >= HISTORY_CAPACITY {
            self.counters.history_overflows += 1;
        }
        let mut record = self.last_rollback.take().unwrap_or_else(|| RollbackRecord {
            from,
            to,
            discarded: Vec::new(),
            restored: update.state.clone(),
            resimulated: Vec::new(),
            divergence: Divergence::default(),
        });
        record.from = from;
        record.to = to;
        record.restored.clone_from(&update.state);
        let mut kept = 0;
        for t in from.until(to.next()) {
            if let Some(s) = self.history.get(t) {
                set_at(&mut record.discarded, kept, s);
                kept += 1;
            }
        }
        record.discarded.truncate(kept);
        self.history.insert_from(from, &update.state);
        let old = std::mem::replace(&mut self.predicted, update.state.clone());
        for (i, t) in from.until(to).enumerate() {
            let local = self.local_inputs.get(t).copied();
            self.fill_inputs(t, local.unwrap_or(InputCmd::empty(t)));
            self.used.insert_from(t, &self.scratch);
            self.game.step_in_place(&mut self.predicted, &self.scratch);
            self.history.insert_from(t.next(), &self.predicted);
            set_at(&mut record.resimulated, i, &self.predicted);
        }
        record.resimulated.truncate(ticks as usize);
        record.divergence = self.game.divergence(&old, &self.predicted, self.player);
        if record.divergence.is_visible() {
            self.counters.rollbacks += 1;
        }
        self.counters.resimulated_ticks += u64::from(ticks);
        self.confirmed = update.state;
        self.last_rollback = Some(record);
        true
    }
}

/// Writes `value` at `i` reusing the element there (its allocations), or
/// appends it.
fn set_at<S: Clone>(v: &mut Vec<S>, i: usize, value: &S) {
    match v.get_mut(i) {
        Some(slot) => slot.clone_from(value),
        None => v.push(value.clone()),
    }
}
