//! The built-in bot: drives a character around the arena along waypoints,
//! with turns, stops and dashes, so the page is alive before anyone
//! touches a key and scripted test runs exercise every kind of move.
//!
//! It only *produces input* from the character's state and the frame time:
//! the same start state and frame times give the same inputs.

use crate::foundation::math::Vec2;
use crate::foundation::movement::{perform_movement, CharacterState, MoveInput, MovementParams};
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use serde::{Deserialize, Serialize};

/// A waypoint: where to go, what to do on the way and on arrival.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Waypoint {
    /// Target, cm.
    pub target: Vec2,
    /// Dash once at the start of this leg.
    pub dash: bool,
    /// Stand still this long on arrival, s.
    pub pause: f32,
}

const fn wp(x: f32, y: f32, dash: bool, pause: f32) -> Waypoint {
    Waypoint {
        target: Vec2::new(x, y),
        dash,
        pause,
    }
}

/// The default tour of [`crate::foundation::world::World::arena`]: a loop around the centre
/// wall with right-angle turns, three stops, a 180° reversal and two
/// dashes. Every leg keeps at least 60 cm of clearance from the pillars, so
/// the bot never grazes a corner: a corner graze turns a harmless
/// sub-threshold prediction error into a correction, which the playground
/// should show when a *person* does it, not on every lap of the demo.
pub const ARENA_TOUR: [Waypoint; 10] = [
    wp(300.0, 250.0, false, 0.0),
    wp(1000.0, 250.0, false, 0.0),
    wp(2100.0, 250.0, true, 0.4),
    wp(2100.0, 750.0, false, 0.0),
    wp(1450.0, 750.0, false, 0.3),
    wp(1450.0, 1300.0, false, 0.0),
    wp(450.0, 1300.0, true, 0.0),
    wp(450.0, 750.0, false, 0.0),
    wp(950.0, 750.0, false, 0.5),
    wp(300.0, 750.0, false, 0.0),
];

/// Distance at which a waypoint counts as reached, cm.
const ARRIVE_RADIUS: f32 = 60.0;
/// A leg that takes longer than this (stuck on a wall) is skipped, s.
const LEG_TIMEOUT: f32 = 6.0;

/// The bot's progress along its tour (serde: a room recording keeps each
/// bot as it was put in).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bot {
    tour: Vec<Waypoint>,
    index: usize,
    pausing: f32,
    leg_time: f32,
    dash_pending: bool,
}

impl Bot {
    /// A bot on [`ARENA_TOUR`], starting at its first waypoint.
    pub fn new() -> Bot {
        Bot::with_tour(ARENA_TOUR.to_vec())
    }

    /// A bot on a custom tour starting at waypoint `start`.
    ///
    /// # Panics
    /// If `tour` is empty.
    pub fn with_tour(tour: Vec<Waypoint>) -> Bot {
        assert!(!tour.is_empty(), "a bot needs at least one waypoint");
        let dash_pending = tour[0].dash;
        Bot {
            tour,
            index: 0,
            pausing: 0.0,
            leg_time: 0.0,
            dash_pending,
        }
    }

    /// Starts the tour at waypoint `index` (modulo its length).
    pub fn starting_at(mut self, index: usize) -> Bot {
        self.index = index % self.tour.len();
        self.dash_pending = self.tour[self.index].dash;
        self
    }

    /// The input for a frame of `dt` seconds for a character at `position`:
    /// a direction (length ≤ 1) and whether to dash.
    pub fn input(&mut self, position: Vec2, dt: f32) -> (Vec2, bool) {
        if self.pausing > 0.0 {
            self.pausing -= dt;
            return (Vec2::ZERO, false);
        }
        let wp = self.tour[self.index];
        let to = wp.target - position;
        self.leg_time += dt;
        if to.length_squared() < ARRIVE_RADIUS * ARRIVE_RADIUS || self.leg_time > LEG_TIMEOUT {
            self.pausing = wp.pause;
            self.index = (self.index + 1) % self.tour.len();
            self.leg_time = 0.0;
            self.dash_pending = self.tour[self.index].dash;
            return (Vec2::ZERO, false);
        }
        let dash = std::mem::take(&mut self.dash_pending);
        (to.safe_normal(), dash)
    }

    /// Index of the waypoint being approached.
    pub fn waypoint_index(&self) -> usize {
        self.index
    }
}

impl Default for Bot {
    fn default() -> Self {
        Bot::new()
    }
}

/// A bot's fixed simulation step, ms.
const BOT_STEP_MS: u16 = 16;

/// A server-driven character: a [`Bot`] steering a [`CharacterState`] in
/// fixed 16 ms steps on the server's clock. The one-bot host's
/// simulated proxy and a room's bot players.
#[derive(Debug, Clone, PartialEq)]
pub struct BotCharacter {
    state: CharacterState,
    bot: Bot,
    clock: SimTime,
}

impl BotCharacter {
    /// A bot standing at `position` (cm) whose clock starts at `now`.
    pub fn new(bot: Bot, position: Vec2, now: SimTime) -> BotCharacter {
        BotCharacter {
            state: CharacterState::at(position),
            bot,
            clock: now,
        }
    }

    /// Runs every whole step that fits before `now`.
    pub fn step_until(&mut self, now: SimTime, params: &MovementParams, world: &World) {
        let step_us = u64::from(BOT_STEP_MS) * 1000;
        while now.micros_since(self.clock) >= step_us {
            self.clock = self.clock.plus_micros(step_us);
            let dt = f32::from(BOT_STEP_MS) / 1000.0;
            let (dir, dash) = self.bot.input(self.state.position, dt);
            let input = MoveInput::from_direction(dir, dash);
            perform_movement(&mut self.state, &input, dt, params, world);
        }
    }

    /// The character's state.
    pub fn state(&self) -> &CharacterState {
        &self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tour_visits_every_waypoint_within_30_s() {
        let (w, p) = (World::arena(), MovementParams::default());
        let mut s = CharacterState::at(w.spawn);
        let mut bot = Bot::new();
        let mut visited = 0;
        let mut last = bot.waypoint_index();
        let mut dashes = 0;
        for _ in 0..(30 * 60) {
            let (dir, dash) = bot.input(s.position, 1.0 / 60.0);
            let ev = perform_movement(
                &mut s,
                &MoveInput::from_direction(dir, dash),
                1.0 / 60.0,
                &p,
                &w,
            );
            dashes += u32::from(ev.dashed);
            if bot.waypoint_index() != last {
                visited += 1;
                last = bot.waypoint_index();
            }
        }
        assert!(visited >= ARENA_TOUR.len(), "visited {visited}");
        assert!(dashes >= 2, "dashes {dashes}");
    }
}
