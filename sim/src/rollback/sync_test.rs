//! A determinism checker like ggrs's `SyncTestSession`: every tick it
//! steps forward once, then rewinds `check_distance` ticks, re-simulates
//! them with the same inputs and compares each re-simulated state's hash
//! with the one recorded the first time. Any difference means the step
//! reads something outside the state and its inputs (`001_…` §4.1), or
//! the state misses a field (`001_…` §9.1).

use super::arena::{Arena, PLAYERS};
use super::client::RollbackClient;
use super::game::Game;
use super::input::{InputCmd, TickRing};
use super::server::{RollbackServer, StateUpdate};
use super::snapshot::Snapshot;
use super::tick::{Tick, TickRate};
use crate::foundation::math::Vec2;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;

/// A tick whose re-simulation disagreed with its first simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// The tick the state is at.
    pub tick: Tick,
    /// Hash of the first simulation.
    pub first: u64,
    /// Hash of the re-simulation.
    pub resimulated: u64,
}

/// The sync test.
#[derive(Debug, Clone)]
pub struct SyncTest<G: Game> {
    game: G,
    check_distance: u32,
    state: G::State,
    states: TickRing<G::State>,
    hashes: TickRing<u64>,
    inputs: TickRing<Vec<InputCmd>>,
    checks: u64,
    mismatches: Vec<Mismatch>,
}

impl<G: Game> SyncTest<G> {
    /// A sync test from `initial` rewinding `check_distance` ticks (ggrs's
    /// `with_check_distance`; 0 only steps).
    pub fn new(game: G, initial: G::State, check_distance: u32) -> SyncTest<G> {
        let cap = check_distance as usize + 2;
        let mut s = SyncTest {
            game,
            check_distance,
            states: TickRing::new(cap),
            hashes: TickRing::new(cap),
            inputs: TickRing::new(cap),
            state: initial,
            checks: 0,
            mismatches: Vec::new(),
        };
        let t = G::tick(&s.state);
        s.states.insert_from(t, &s.state);
        s.hashes.insert(t, G::state_hash(&s.state));
        s
    }

    /// Steps one tick with `inputs` (one per player), then rewinds and
    /// re-simulates up to `check_distance` ticks, comparing hashes.
    pub fn advance(&mut self, inputs: &[InputCmd]) {
        let t = G::tick(&self.state);
        let kept = self.inputs.entry(t);
        kept.clear();
        kept.extend_from_slice(inputs);
        self.game.step_in_place(&mut self.state, inputs);
        let now = G::tick(&self.state);
        self.states.insert_from(now, &self.state);
        self.hashes.insert(now, G::state_hash(&self.state));
        let from = now.minus(self.check_distance);
        let Some(mut s) = self.states.get(from).cloned() else {
            return; // not that many ticks yet
        };
        for tick in from.until(now) {
            let Some(inputs) = self.inputs.get(tick) else {
                return;
            };
            self.game.step_in_place(&mut s, inputs);
            let (first, resimulated) = (self.hashes.get(tick.next()).copied(), G::state_hash(&s));
            self.checks += 1;
            if let Some(first) = first.filter(|&f| f != resimulated) {
                self.mismatches.push(Mismatch {
                    tick: tick.next(),
                    first,
                    resimulated,
                });
            }
            self.states.insert_from(tick.next(), &s);
        }
        self.state = s;
    }

    /// The current state.
    pub fn state(&self) -> &G::State {
        &self.state
    }

    /// Re-simulated ticks compared so far.
    pub fn checks(&self) -> u64 {
        self.checks
    }

    /// Every disagreement found.
    pub fn mismatches(&self) -> &[Mismatch] {
        &self.mismatches
    }
}

/// A random input for `tick`: one of 9 stick directions (or a random
/// angle), fire held 30 % of ticks, dash 5 %. Drawn from `rng` only, so a
/// seed gives the same inputs everywhere.
pub fn random_input(rng: &mut Pcg32, tick: Tick) -> InputCmd {
    let r = rng.next_u32();
    let dir = match r % 10 {
        9 => Vec2::new(
            (r >> 8 & 0xff) as f32 - 127.5,
            (r >> 16 & 0xff) as f32 - 127.5,
        ),
        k => Vec2::new((k % 3) as f32 - 1.0, (k / 3) as f32 - 1.0),
    };
    let roll = rng.next_u32() % 100;
    let buttons =
        if roll < 30 { InputCmd::FIRE } else { 0 } | if roll >= 95 { InputCmd::DASH } else { 0 };
    InputCmd::from_direction(tick, dir, buttons)
}

/// The state hash of the 60 Hz arena after `ticks` ticks of
/// [`random_input`] for both players drawn from `seed`: the same
/// arguments give the same value natively and in wasm
/// (`sim/tests/rollback_sync.rs` pins it, the page can export it).
pub fn arena_fingerprint(seed: u64, ticks: u32) -> u64 {
    let arena = Arena::new(TickRate::Hz60);
    let mut s = arena.initial(Tick(0));
    let mut rng = Pcg32::seed_from_u64(seed);
    for _ in 0..ticks {
        let inputs: Vec<InputCmd> = (0..PLAYERS)
            .map(|_| random_input(&mut rng, s.tick))
            .collect();
        s = arena.step(&s, &inputs);
    }
    s.state_hash()
}

/// The tick of the State [`rebase_case`]'s client rebases on.
pub const REBASE_STATE_TICK: u32 = 100;
/// Ticks [`rebase_case`]'s rebase re-simulates: its client has predicted
/// [`REBASE_STATE_TICK`] + this many ticks.
pub const REBASE_TICKS: u32 = 8;

/// A client about to rebase, the case the rollback benches time natively
/// (`rollback_rebase/8`, `match_rebase/8` in `sim/benches/rollback.rs`)
/// and in wasm (`bench_rollback`, `bench_match_rebase` in
/// `web-client/src/bench.rs`): the 60 Hz arena of `players` players, each
/// tick's [`random_input`] for every player in turn drawn from seed 12;
/// the server has run [`REBASE_STATE_TICK`] ticks with all of them, and
/// player 0's client has predicted [`REBASE_STATE_TICK`] +
/// [`REBASE_TICKS`] ticks with its own (the others' by hold-last, no
/// prediction limit). Returns the client and the server's State at
/// [`REBASE_STATE_TICK`] with one tick of inputs: taking it (hash check,
/// desync check) and rebasing restores it and re-simulates
/// [`REBASE_TICKS`] ticks. `None` outside `2..=8` players.
pub fn rebase_case(players: usize) -> Option<(RollbackClient<Arena>, StateUpdate<Snapshot>)> {
    let arena = Arena::with_players(TickRate::Hz60, players)?;
    let mut rng = Pcg32::seed_from_u64(12);
    let mut server = RollbackServer::new(arena.clone(), arena.initial(Tick(0)), 6);
    let mut client = RollbackClient::new(arena.clone(), arena.initial(Tick(0)), 0, None);
    for t in 0..REBASE_STATE_TICK + REBASE_TICKS {
        let inputs: Vec<InputCmd> = (0..players)
            .map(|_| random_input(&mut rng, Tick(t)))
            .collect();
        if t < REBASE_STATE_TICK {
            for (p, cmd) in inputs.iter().enumerate() {
                server.receive_inputs(p, &[cmd.at(server.tick())]).ok()?;
            }
            server.advance();
        }
        client.advance(inputs[0]).ok()?;
    }
    Some((client, server.state_update(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rebase_case_re_simulates_eight_ticks_of_every_player() {
        for players in [2, 8] {
            let (mut client, state) = rebase_case(players).unwrap();
            assert_eq!(state.state.players.len(), players);
            assert_eq!(state.state.tick, Tick(REBASE_STATE_TICK));
            client.receive_state(state).unwrap();
            assert!(client.rebase_if_due());
            assert_eq!(client.counters().resimulated_ticks, u64::from(REBASE_TICKS));
        }
        assert!(rebase_case(9).is_none());
    }
}
