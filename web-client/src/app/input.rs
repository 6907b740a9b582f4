//! One frame's input: the keyboard's (WASD / arrows steer, Space dashes,
//! F or J fires, B hands control to the bot) or the bot's, when it
//! drives.

use super::{App, Input};
use macroquad::prelude::*;
use sim::rollback::InputCmd;
use sim::{Model, Vec2 as SimVec2};

impl App {
    /// Keyboard or bot input for a frame of `dt` s of the run. Keys reach
    /// the game only while the canvas has focus (the page's loader sees to
    /// that): WASD / arrows steer, Space dashes, F (or J) fires, B hands
    /// control to the bot.
    pub(super) fn input(&mut self, dt: f64) -> Input {
        let key = |a: KeyCode, b: KeyCode| is_key_down(a) || is_key_down(b);
        let mut dir = SimVec2::ZERO;
        if key(KeyCode::A, KeyCode::Left) {
            dir.x -= 1.0;
        }
        if key(KeyCode::D, KeyCode::Right) {
            dir.x += 1.0;
        }
        if key(KeyCode::W, KeyCode::Up) {
            dir.y -= 1.0;
        }
        if key(KeyCode::S, KeyCode::Down) {
            dir.y += 1.0;
        }
        let dash = is_key_pressed(KeyCode::Space);
        // Held, or pressed and released within this frame (a tap shorter
        // than a frame still fires once).
        let fire =
            key(KeyCode::F, KeyCode::J) || is_key_pressed(KeyCode::F) || is_key_pressed(KeyCode::J);
        let pressed = !dir.is_zero() || dash || fire;
        let mut user = pressed;
        if is_key_pressed(KeyCode::B) {
            user = true;
            self.bot_driving = !self.bot_driving;
            self.header.set_bot_driving(self.bot_driving);
        }
        if self.bot_driving && pressed {
            self.bot_driving = false;
            self.header.set_bot_driving(false);
        }
        if self.bot_driving && self.waiting_for_relay() {
            // The bot starts its tour when the relay answers, so the
            // opening's spike meets it where `sim::OPENING` was measured.
            Input {
                dir: SimVec2::ZERO,
                dash: false,
                fire: false,
                user,
            }
        } else if self.bot_driving {
            let position = match (&self.room, &self.match_run) {
                (Some(room), _) => room.endpoint.client().state().position,
                (None, Some(run)) => run.position(),
                (None, None) => self.driver.endpoint().position(),
            };
            let (dir, buttons) = self.bot.input(position, dt as f32);
            let held = |b: u16| buttons & b != 0;
            Input {
                dir,
                dash: held(InputCmd::DASH),
                // The CMC model has no action button: its bot never fires.
                fire: held(InputCmd::FIRE)
                    && (matches!(self.model, Model::Rollback(_)) || self.match_run.is_some()),
                user,
            }
        } else {
            Input {
                dir: dir.safe_normal(),
                dash,
                fire,
                user,
            }
        }
    }
}
