//! Determinism of the arena game: the sync test (ggrs's
//! `SyncTestSession`), the pinned state hash, and a run across the tick
//! wrap.

use rand_core::SeedableRng;
use rand_pcg::Pcg32;
use sim::protocol::Setup;
use sim::rollback::sync_test::{arena_fingerprint, random_input};
use sim::rollback::{
    Arena, BotPlayer, Divergence, Game, InputCmd, RollbackConfig, Snapshot, SyncTest, Tick,
    TickRate,
};
use sim::{LocalSession, Model, NetSettings};
use std::cell::Cell;

fn random_inputs(rng: &mut Pcg32, tick: Tick) -> [InputCmd; 2] {
    [random_input(rng, tick), random_input(rng, tick)]
}

#[test]
fn the_sync_test_finds_no_mismatch_in_10_000_ticks_of_random_input_at_every_distance() {
    let mut all_hits = 0;
    for k in 1..=8u32 {
        let arena = Arena::new(TickRate::Hz60);
        let initial = arena.initial(Tick(0));
        let mut sync = SyncTest::new(arena, initial, k);
        let mut rng = Pcg32::seed_from_u64(u64::from(k));
        let (mut shots, mut hits) = (0, 0);
        for _ in 0..10_000 {
            let before = sync.state().clone();
            sync.advance(&random_inputs(&mut rng, before.tick));
            let after = sync.state();
            shots += after
                .players
                .iter()
                .zip(&before.players)
                .filter(|(a, b)| a.fire_cooldown > b.fire_cooldown)
                .count();
            hits += after
                .players
                .iter()
                .zip(&before.players)
                .filter(|(a, b)| a.stun > b.stun)
                .count();
        }
        assert_eq!(sync.mismatches(), [], "check distance {k}");
        // Every tick from tick k on re-simulates k ticks.
        assert_eq!(sync.checks(), u64::from(k) * (10_000 - u64::from(k) + 1));
        assert_eq!(sync.state().tick, Tick(10_000));
        // The random input really exercises the weapon.
        assert!(shots > 1_000, "k {k}: {shots} shots");
        all_hits += hits;
    }
    // Random walks rarely line up; a few hits per run still reach the
    // HP, stun and respawn code.
    assert!(all_hits > 20, "{all_hits} hits");
}

/// A game that reads something outside its state: the sync test must
/// catch it.
struct Leaky {
    inner: Arena,
    calls: Cell<u32>,
}

impl Game for Leaky {
    type State = Snapshot;
    fn players(&self) -> usize {
        2
    }
    fn tick(s: &Snapshot) -> Tick {
        s.tick
    }
    fn step(&self, s: &Snapshot, inputs: &[InputCmd]) -> Snapshot {
        self.calls.set(self.calls.get() + 1);
        let mut next = self.inner.step(s, inputs);
        next.players[0].position.x += (self.calls.get() % 3) as i32;
        next
    }
    fn state_hash(s: &Snapshot) -> u64 {
        s.state_hash()
    }
    fn divergence(&self, a: &Snapshot, b: &Snapshot, p: usize) -> Divergence {
        self.inner.divergence(a, b, p)
    }
}

#[test]
fn the_sync_test_catches_a_step_that_reads_outside_its_state() {
    let inner = Arena::new(TickRate::Hz60);
    let initial = inner.initial(Tick(0));
    let mut sync = SyncTest::new(
        Leaky {
            inner,
            calls: Cell::new(0),
        },
        initial,
        8,
    );
    let mut rng = Pcg32::seed_from_u64(1);
    for t in 0..100 {
        sync.advance(&random_inputs(&mut rng, Tick(t)));
    }
    assert!(sync.mismatches().len() > 100, "{}", sync.mismatches().len());
}

/// The pinned value: the page's wasm build must give the same.
const FINGERPRINT_SEED_7_3600_TICKS: u64 = 0x7d67_cea5_2987_4cdf;

#[test]
fn the_arena_hash_is_stable_across_runs_and_pinned() {
    assert_eq!(arena_fingerprint(7, 3600), arena_fingerprint(7, 3600));
    assert_ne!(arena_fingerprint(7, 3600), arena_fingerprint(8, 3600));
    assert_eq!(arena_fingerprint(7, 3600), FINGERPRINT_SEED_7_3600_TICKS);
    let arena = Arena::new(TickRate::Hz60);
    assert_eq!(arena.initial(Tick(0)).state_hash(), 0x107c_23f5_57b9_a6f3);
}

#[test]
fn a_run_across_the_tick_wrap_rejects_nothing_and_plays_like_one_at_tick_0() {
    // Start 2 s before the wrap at 60 Hz, run 4 s; the same run from tick 0
    // must play out identically.
    let run = |start: u32| {
        let config = RollbackConfig {
            start_tick: Tick(start),
            ..RollbackConfig::default()
        };
        let mut s = LocalSession::with_setup(
            3,
            &Setup {
                net: NetSettings::symmetric(100, 10, 2),
                model: Model::Rollback(config),
                ..Setup::default()
            },
        );
        let mut bot = BotPlayer::new(0);
        for _ in 0..240 {
            s.step_bot_player(&mut bot, 1.0 / 60.0);
        }
        let now = s.now();
        (
            s.endpoint.metrics(now).rollback.unwrap(),
            s.endpoint.rollback().unwrap().predicted().unwrap().clone(),
            s,
        )
    };
    let (wrapped, state_w, s) = run(u32::MAX - 120);
    let (plain, state_p, _) = run(0);
    assert_eq!(wrapped.states_rejected, 0);
    assert_eq!(
        s.endpoint.rollback().unwrap().counters().identity_rejected,
        0
    );
    assert_eq!(s.host.rollback().unwrap().client_inputs().out_of_window, 0);
    assert!(wrapped.hash_checks > 100, "{}", wrapped.hash_checks);
    assert_eq!(wrapped.hash_mismatches, 0);
    // Past the wrap: the tick counts from 0 again.
    assert!(state_w.tick.0 < 200, "{:?}", state_w.tick);
    assert_eq!(
        state_w.tick.diff(Tick(u32::MAX - 120)),
        state_p.tick.diff(Tick(0))
    );
    assert_eq!(state_w.players, state_p.players);
    assert_eq!(state_w.projectiles, state_p.projectiles);
    assert_eq!(
        (
            wrapped.rollbacks,
            wrapped.rebases,
            wrapped.resimulated_ticks,
            wrapped.missed_inputs
        ),
        (
            plain.rollbacks,
            plain.rebases,
            plain.resimulated_ticks,
            plain.missed_inputs
        )
    );
}
