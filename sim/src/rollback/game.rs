//! The contract between the rollback machinery and a game, ggrs-style: a
//! state, one deterministic step, a stable hash. The client, the server
//! and the sync test are generic over it; the reference run of `001_…` §3
//! plugs in a 1-D world, the product plugs in [`crate::rollback::Arena`].

use super::input::InputCmd;
use super::tick::Tick;

/// A deterministic fixed-tick game (`001_…` §4.1: the same start state, the
/// same inputs and the same `dt` give the same result).
pub trait Game {
    /// Everything that affects the future, and the tick it is at
    /// (`001_…` §4.2). Restoring it must be exact: a state decoded from the
    /// wire steps like the one that was sent.
    type State: Clone + PartialEq + core::fmt::Debug;

    /// Number of players; `step` takes one input per player in player
    /// order.
    fn players(&self) -> usize;

    /// The tick `state` is at: the next tick whose inputs it consumes.
    fn tick(state: &Self::State) -> Tick;

    /// The state one tick later. The only way a state advances, run by the
    /// client to predict and re-simulate and by the server to decide. It
    /// must not read `inputs[i].tick` (a held input carries an older one).
    fn step(&self, state: &Self::State, inputs: &[InputCmd]) -> Self::State;

    /// [`Game::step`] in place: `state` becomes the state one tick later.
    /// The client, the server and the sync test step this way, so a game
    /// whose state owns buffers can reuse them instead of allocating a new
    /// state every tick; the default steps and replaces.
    fn step_in_place(&self, state: &mut Self::State, inputs: &[InputCmd]) {
        *state = self.step(state, inputs);
    }

    /// A 64-bit hash over a stable byte order of the whole state
    /// ([`crate::foundation::hash::Fnv64`]): equal on every machine and target for
    /// equal states (`001_…` §7).
    fn state_hash(state: &Self::State) -> u64;

    /// How differently `player` stands in two states of the same tick: what
    /// a rollback changed on screen for the local player (`001_…` §8).
    fn divergence(&self, a: &Self::State, b: &Self::State, player: usize) -> Divergence;
}

/// How much one player differs between two states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Divergence {
    /// Distance between the two positions, mm.
    pub position_mm: u32,
    /// A discrete part differs (HP, action state, a respawn): always
    /// visible.
    pub discrete: bool,
}

impl Divergence {
    /// A local-player error the player would see, so a rollback that
    /// causes it counts as *visible* (`001_…` §8: only "larger position
    /// errors, HP, action" count; every State is applied either way).
    /// Position threshold [`VISIBLE_ERROR_MM`].
    pub fn is_visible(&self) -> bool {
        self.discrete || self.position_mm > VISIBLE_ERROR_MM
    }
}

/// A local-player position error above this counts as a visible rollback,
/// mm: 16 cm, the CMC model's correction threshold (`002_…`: error² > 256
/// cm²), so the A/B view compares rollbacks and adjustments on one
/// yardstick. `001_…` §8 names no number ("larger position error"); one
/// missed tick at walk speed moves 10 cm and stays below it.
pub const VISIBLE_ERROR_MM: u32 = 160;
