//! The built-in [`Bot`] with a trigger: it walks its tour, dashes where the
//! tour says, and holds fire for the first half second of every two, so
//! the client has remote shots to mispredict by hold-last (a burst starts
//! and ends without warning).

use super::input::InputCmd;
use crate::foundation::bot::Bot;
use crate::foundation::math::Vec2;

/// Period of the bot's fire pattern, s.
const FIRE_PERIOD_S: f64 = 2.0;
/// Fire is held for this long at the start of each period, s (two shots
/// at the 250 ms cooldown).
const FIRE_HELD_S: f64 = 0.5;

/// A bot that also shoots.
#[derive(Debug, Clone, PartialEq)]
pub struct BotPlayer {
    bot: Bot,
    elapsed: f64,
}

impl BotPlayer {
    /// A bot on the arena tour starting at waypoint `start`.
    pub fn new(start: usize) -> BotPlayer {
        BotPlayer {
            bot: Bot::new().starting_at(start),
            elapsed: 0.0,
        }
    }

    /// The stick and buttons for the next `dt` seconds for a character at
    /// `position` (cm).
    pub fn input(&mut self, position: Vec2, dt: f32) -> (Vec2, u16) {
        let (dir, dash) = self.bot.input(position, dt);
        let fire = self.elapsed % FIRE_PERIOD_S < FIRE_HELD_S;
        self.elapsed += f64::from(dt);
        let buttons = if fire { InputCmd::FIRE } else { 0 } | if dash { InputCmd::DASH } else { 0 };
        (dir, buttons)
    }
}
