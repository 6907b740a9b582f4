//! What this player does in a room each frame: its room switches and the
//! room's `MaxRecordTime` to the server, bots added, shots fired (a click
//! on the Predicted panel fires there, F at the mouse or the nearest
//! player), reloads (R), the frame's moves sent, the CSV download, and
//! ◀ ▶ through the shots for the Replayed panel.

use super::controls::RoomControls;
use super::link::RoomRun;
use super::rules;
use super::view::Sight;
use crate::canvas::view::View;
use crate::canvas::Layout;
use crate::download;
use macroquad::prelude::*;
use sim::room::{RoomClientMsg, Seq};
use sim::{SimTime, Vec2 as SimVec2};

/// What the page hands a room's frame besides its controls.
pub struct Turn<'a> {
    /// The page clock now.
    pub t: SimTime,
    /// The page frame's length, s.
    pub dt: f64,
    /// The stick (the user's or the bot's).
    pub dir: SimVec2,
    /// Dash pressed.
    pub dash: bool,
    /// Where the panels' bodies are.
    pub layout: &'a Layout,
    /// The Predicted panel's zoom (`None`: the whole arena).
    pub zoom: Option<f32>,
    /// ◀ and ▶ presses since the last frame.
    pub steps: (u32, u32),
    /// The CSV download was clicked.
    pub csv: bool,
}

impl RoomRun {
    /// Plays this player's frame (see the module docs); returns where the
    /// Predicted panel looks and where a click there would fire.
    pub fn play(&mut self, turn: &Turn, controls: &mut RoomControls) -> Sight {
        let Turn {
            t,
            dt: page_dt,
            dir,
            dash,
            layout,
            zoom,
            steps: (older, newer),
            csv,
        } = *turn;
        // This player's room switches and the room's MaxRecordTime.
        let wanted = controls.player_settings();
        if self.sent != Some(wanted) && self.endpoint.me().is_some() {
            self.endpoint.set_player_settings(wanted);
            self.sent = Some(wanted);
        }
        let (heard, mine) = self.record_time;
        let in_force = self.endpoint.max_record_time_ms();
        let shown = controls.max_record_time_ms();
        if in_force != heard {
            self.record_time = (in_force, in_force);
            controls.show_max_record_time(in_force);
        } else if shown != mine {
            self.record_time = (heard, shown);
            self.endpoint
                .send(&RoomClientMsg::SetMaxRecordTime { ms: shown });
        }
        self.endpoint.set_ammo_mode(controls.ammo_mode());
        for _ in 0..controls.take_add_bot() {
            self.endpoint.send(&RoomClientMsg::AddBot);
        }
        // Where a click fires: the mouse over the Predicted panel.
        let follow = zoom.map(|z| {
            let drawn = self.endpoint.client().drawn_position();
            (self.camera.follow(drawn, page_dt as f32), z)
        });
        let view = View::arena(layout.predicted, self.endpoint.world().size, follow);
        let mouse = mouse_position();
        let aim = layout
            .predicted
            .contains(mouse)
            .then(|| view.to_world(mouse));
        let clicked = is_mouse_button_pressed(MouseButton::Left)
            .then_some(aim)
            .flatten();
        let pressed = u32::from(is_key_pressed(KeyCode::F)) + controls.take_fire();
        let me = self.endpoint.client().state().position;
        let nearest = || {
            rules::nearest(
                me,
                self.endpoint
                    .proxies()
                    .iter()
                    .map(|p| (p.id(), p.drawn_position())),
            )
        };
        let target = clicked.or_else(|| (pressed > 0).then(|| aim.or_else(nearest)).flatten());
        if let Some(at) = target {
            if let Err(e) = self.endpoint.fire(t, at) {
                controls.note(&format!("not fired: {e}"), false);
            }
        }
        if is_key_pressed(KeyCode::R) || controls.take_reload() > 0 {
            if let Err(e) = self.endpoint.reload(t) {
                controls.note(&format!("no reload: {e}"), false);
            }
        }
        let frames = self.endpoint.frame(t, page_dt, dir, dash);
        self.link.send(frames);
        if csv {
            let name = format!(
                "netcode-room-{}-{:.0}s.csv",
                self.name,
                t.secs_since(SimTime::ZERO)
            );
            download::text_file(&name, "text/csv", &self.timeline.csv());
        }
        // The Replayed panel's shot.
        if let Some(seq) = controls.take_picked_shot() {
            self.cursor.pick(seq);
        }
        let seqs: Vec<Seq> = self.endpoint.shots().iter().map(|s| s.seq).collect();
        for _ in 0..older {
            self.cursor.older(&seqs);
        }
        for _ in 0..newer {
            self.cursor.newer(&seqs);
        }
        Sight { follow, aim }
    }
}
