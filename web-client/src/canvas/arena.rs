//! What every panel draws of the world: the floor's 1 m grid, walls and
//! pillars, the server-only push zone, trails (the server's with a dot
//! per simulated move), characters, the local one with its offset and
//! input arrow, and the scale bar.

use super::view::{text_right, with_alpha, View, CYAN, GRID, LABEL, ORANGE, WALL, YELLOW};
use macroquad::prelude::*;
use sim::{Vec2 as SimVec2, World};
use std::collections::VecDeque;

/// Character radius, cm (UE's capsule).
pub const CHARACTER_RADIUS_CM: f32 = 34.0;

/// Server-only push zones, translucent, with their direction.
pub fn push_zones(v: &View, world: &World, on: bool) {
    if !on {
        return;
    }
    for z in &world.push_zones {
        v.rect(z.min, z.max, Color::new(0.55, 0.35, 1.0, 0.14));
        let c = (z.min + z.max) * 0.5;
        v.line(
            c,
            c + z.acceleration.safe_normal() * 80.0,
            2.0,
            Color::new(0.75, 0.6, 1.0, 0.8),
        );
    }
}

/// The 1 m grid and the walls in view.
pub fn floor(v: &View, world: &World) {
    let step = 100.0;
    let far = v.origin + SimVec2::new(v.clip.w / v.scale, v.clip.h / v.scale);
    // Fewer than 3 px between lines is noise: skip the grid then.
    if v.len(step) >= 3.0 {
        let mut x = (v.origin.x.max(0.0) / step).ceil() * step;
        while x <= far.x.min(world.size.x) {
            v.rect(
                SimVec2::new(x, v.origin.y.max(0.0)),
                SimVec2::new(x + 1.0 / v.scale, world.size.y.min(far.y)),
                GRID,
            );
            x += step;
        }
        let mut y = (v.origin.y.max(0.0) / step).ceil() * step;
        while y <= far.y.min(world.size.y) {
            v.rect(
                SimVec2::new(v.origin.x.max(0.0), y),
                SimVec2::new(world.size.x.min(far.x), y + 1.0 / v.scale),
                GRID,
            );
            y += step;
        }
    }
    for w in &world.walls {
        v.rect(w.min, w.max, WALL);
    }
}

/// A trail (oldest first), 2 px wide, fading with age.
pub fn trail(v: &View, points: &VecDeque<SimVec2>, color: Color) {
    let mut prev: Option<SimVec2> = None;
    for (i, p) in points.iter().enumerate() {
        if let Some(q) = prev {
            let age = 1.0 - i as f32 / points.len().max(1) as f32;
            v.line(q, *p, 2.0, with_alpha(color, 0.85 * (1.0 - age * 0.9)));
        }
        prev = Some(*p);
    }
}

/// The server's trail with a dot for each of its last 180 simulated
/// moves (fading with age): gaps between dots are lost moves.
pub fn server_trail(v: &View, trail: &VecDeque<SimVec2>) {
    self::trail(v, trail, ORANGE);
    let n = trail.len();
    for (i, p) in trail.iter().enumerate().skip(n.saturating_sub(180)) {
        let a = 0.25 + 0.6 * (i + 180).saturating_sub(n) as f32 / 180.0;
        v.dot(*p, 1.4, with_alpha(ORANGE, a));
    }
}

/// The local character as drawn (`drawn`, cyan) with its `input`
/// direction, and where it is (`at`) outlined when the two differ.
pub fn local_character(v: &View, at: SimVec2, drawn: SimVec2, input: SimVec2) {
    offset_outline(v, at, drawn, CYAN);
    character(v, drawn, CYAN);
    input_arrow(v, drawn, input);
}

/// Where a character is (`at`), outlined in `color` when it is drawn
/// more than 0.5 cm away (`drawn`: a mesh or display offset).
pub fn offset_outline(v: &View, at: SimVec2, drawn: SimVec2, color: Color) {
    if (drawn - at).length() > 0.5 {
        outline(v, at, with_alpha(color, 0.7), 1.0);
    }
}

/// The stick's direction as an arrow from the drawn character's edge
/// (none while it is released).
pub fn input_arrow(v: &View, drawn: SimVec2, input: SimVec2) {
    if !input.is_zero() {
        let tip = drawn + input * (CHARACTER_RADIUS_CM + 56.0);
        v.line(drawn, tip, 2.0, YELLOW);
    }
}

/// A character's disc, at least 4 px across.
pub fn character(v: &View, pos: SimVec2, color: Color) {
    let r = v.len(CHARACTER_RADIUS_CM).max(4.0);
    v.circle(pos, r, with_alpha(color, 0.9));
    v.ring(pos, r, 1.5, with_alpha(WHITE, 0.6));
}

/// A hollow ring of a character's size: a collision position, a ghost.
pub fn outline(v: &View, pos: SimVec2, color: Color, thickness: f32) {
    v.ring(pos, v.len(CHARACTER_RADIUS_CM).max(4.0), thickness, color);
}

/// A 1 m bar (or 10 cm when zoomed in far enough) in the bottom-right
/// corner.
pub fn scale_bar(v: &View) {
    let cm = if v.len(100.0) > v.clip.w * 0.6 {
        10.0
    } else {
        100.0
    };
    let px = v.len(cm);
    let x = v.clip.x + v.clip.w - px - 10.0;
    let y = v.clip.y + v.clip.h - 9.0;
    draw_line(x, y, x + px, y, 2.0, LABEL);
    draw_line(x, y - 4.0, x, y + 4.0, 2.0, LABEL);
    draw_line(x + px, y - 4.0, x + px, y + 4.0, 2.0, LABEL);
    let label = if cm >= 100.0 { "1 m" } else { "10 cm" };
    text_right(label, x - 6.0, y + 4.0, 12.0, LABEL);
}
