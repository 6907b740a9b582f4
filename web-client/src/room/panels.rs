//! The three panels in a shared room (issue #13), from a [`RoomFrame`]:
//!
//! * Predicted: you as predicted and drawn, and every other player as a
//!   simulated proxy — the body where it is drawn (the smoothing mode),
//!   a ring at its collision position — named; the aim, and your newest
//!   shot's ray coloured by its verdict.
//! * Authoritative: the others where the newest net update put them
//!   (neither extrapolated nor smoothed), you for comparison.
//! * Replayed: the **four views of one shot** — 1 where you saw the
//!   target, 2 where it is on the server as the verdict is made, 3 the
//!   (rewound) boxes the server tested, head and body, 4 where the target
//!   saw itself — with the ray.

use super::rules::{self, Outcome};
use crate::canvas::arena::{self, character, outline, CHARACTER_RADIUS_CM};
use crate::canvas::labels::Tags;
use crate::canvas::view::{
    text, with_alpha, RectF, View, CYAN, GREEN, LABEL, ORANGE, PURPLE, RED, YELLOW,
};
use crate::canvas::Layout;
use macroquad::prelude::*;
use sim::endpoints::room::RoomEndpoint;
use sim::room::hitbox::HEAD_RADIUS;
use sim::room::shots::ShotRecord;
use sim::room::PlayerId;
use sim::{Vec2 as SimVec2, World};
use std::collections::VecDeque;

/// How long a shot's ray stays in the Predicted panel, s.
pub const RAY_FADE_S: f32 = 0.6;

/// What the room's panels draw.
pub struct RoomFrame<'a> {
    /// The room's client end.
    pub endpoint: &'a RoomEndpoint,
    /// Where you were drawn, oldest first.
    pub trail: &'a VecDeque<SimVec2>,
    /// The input direction this frame.
    pub input: SimVec2,
    /// Server-only push zones are on.
    pub push_zones: bool,
    /// The Predicted panel's follow camera (centre, zoom).
    pub follow: Option<(SimVec2, f32)>,
    /// Where a click would fire (the mouse over the Predicted panel), cm.
    pub aim: Option<SimVec2>,
    /// The shot the Replayed panel shows.
    pub shot: Option<&'a ShotRecord>,
    /// The newest shot and its age, s (its ray fades out).
    pub newest_shot: Option<(&'a ShotRecord, f32)>,
}

/// Draws the three panels.
pub fn draw(f: &RoomFrame, layout: &Layout) {
    if layout.predicted.is_drawable() {
        predicted(f, layout.predicted);
    }
    if layout.authoritative.is_drawable() {
        authoritative(f, layout.authoritative);
    }
    if layout.replayed.is_drawable() {
        if let Some(shot) = f.shot {
            let e = f.endpoint;
            shot_panel(shot, e.world(), &|id| name(e, id), layout.replayed);
        }
    }
}

/// A player's name: `P2`, or `bot 3`.
pub fn name(e: &RoomEndpoint, id: PlayerId) -> String {
    let bot = e.roster().iter().any(|r| r.id == id && r.bot);
    if bot {
        format!("bot {}", id.0)
    } else {
        format!("P{}", id.0)
    }
}

/// A character's name beside it, where no other tag of the panel is.
pub(super) fn tag(v: &View, tags: &mut Tags, at: SimVec2, label: &str, color: Color) {
    let (x, y) = v.pt(at);
    let r = v.len(CHARACTER_RADIUS_CM).max(4.0);
    let size = (measure_text(label, None, 12, 1.0).width, 10.0);
    if v.clip.contains((x, y)) {
        if let Some((tx, ty)) = tags.place((x, y), r, size, v.clip) {
            text(label, tx, ty, 12.0, color);
        }
    }
}

pub(super) fn outcome_color(o: Outcome) -> Color {
    match o {
        Outcome::Hit => GREEN,
        Outcome::Miss => RED,
        Outcome::Rejected => LABEL,
        Outcome::Pending => WHITE,
    }
}

fn predicted(f: &RoomFrame, area: RectF) {
    let e = f.endpoint;
    let world = e.world();
    let v = View::arena(area, world.size, f.follow);
    arena::floor(&v, world);
    arena::push_zones(&v, world, f.push_zones);
    arena::trail(&v, f.trail, CYAN);
    let client = e.client();
    for m in client.saved_moves().iter() {
        v.dot(m.end.position, 1.8, with_alpha(WHITE, 0.9));
    }
    let mut tags = Tags::default();
    for p in e.proxies().iter() {
        outline(&v, p.position(), with_alpha(PURPLE, 0.55), 1.0);
        character(&v, p.drawn_position(), PURPLE);
        tag(&v, &mut tags, p.drawn_position(), &name(e, p.id()), LABEL);
    }
    if let Some((shot, age)) = f.newest_shot.filter(|(_, age)| *age < RAY_FADE_S) {
        let alpha = 1.0 - age / RAY_FADE_S;
        let c = outcome_color(rules::outcome(shot));
        ray(&v, shot, 2.0, with_alpha(c, alpha));
    }
    arena::local_character(
        &v,
        client.state().position,
        client.drawn_position(),
        f.input,
    );
    if let Some(aim) = f.aim {
        let (x, y) = v.pt(aim);
        if v.clip.contains((x, y)) {
            draw_circle_lines(x, y, 7.0, 1.5, YELLOW);
            draw_line(x - 11.0, y, x - 4.0, y, 1.5, YELLOW);
            draw_line(x + 4.0, y, x + 11.0, y, 1.5, YELLOW);
            draw_line(x, y - 11.0, x, y - 4.0, 1.5, YELLOW);
            draw_line(x, y + 4.0, x, y + 11.0, 1.5, YELLOW);
        }
    }
    if f.follow.is_some() {
        arena::scale_bar(&v);
    }
}

fn authoritative(f: &RoomFrame, area: RectF) {
    let e = f.endpoint;
    let world = e.world();
    let v = View::fit(area, SimVec2::ZERO, world.size);
    arena::floor(&v, world);
    arena::push_zones(&v, world, f.push_zones);
    let mut tags = Tags::default();
    for p in e.proxies().iter() {
        character(&v, p.replicated(), ORANGE);
        tag(&v, &mut tags, p.replicated(), &name(e, p.id()), LABEL);
    }
    outline(&v, e.client().state().position, with_alpha(CYAN, 0.6), 1.5);
}

/// The segment `a`–`b` (cm) cut to what the view shows (Liang–Barsky), if
/// any of it is in view.
fn clip_segment(v: &View, a: SimVec2, b: SimVec2) -> Option<(SimVec2, SimVec2)> {
    let inset = 1.0;
    let lo = v.to_world((v.clip.x + inset, v.clip.y + inset));
    let hi = v.to_world((v.clip.x + v.clip.w - inset, v.clip.y + v.clip.h - inset));
    let d = b - a;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (p, q) in [
        (-d.x, a.x - lo.x),
        (d.x, hi.x - a.x),
        (-d.y, a.y - lo.y),
        (d.y, hi.y - a.y),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
            continue;
        }
        let r = q / p;
        if p < 0.0 {
            t0 = t0.max(r);
        } else {
            t1 = t1.min(r);
        }
        if t0 > t1 {
            return None;
        }
    }
    Some((a + d * t0, a + d * t1))
}

/// A shot's ray as the shooter traced it (walls applied).
pub(super) fn ray(v: &View, shot: &ShotRecord, thickness: f32, color: Color) {
    let r = shot.ray;
    if let Some((a, b)) = clip_segment(v, r.origin, r.origin + r.direction * r.length) {
        v.line(a, b, thickness, color);
    }
}

/// A view around the points of one shot, at least 4 m across.
fn shot_view(area: RectF, points: &[SimVec2]) -> View {
    View::framing(area, points.iter().copied(), 1.4)
}

/// The Replayed panel: `shot`'s four views (three when the shooter's
/// own drawing is not known, as in a playback) in `world`, each character
/// named by `name`.
pub fn shot_panel(
    shot: &ShotRecord,
    world: &World,
    name: &dyn Fn(PlayerId) -> String,
    area: RectF,
) {
    let views = shot.views();
    // The target's four points, or (no target judged) what the shooter saw.
    let points: Vec<SimVec2> = match &views {
        Some(w) => [
            Some(w.server_now),
            Some(w.tested),
            Some(w.target_saw),
            w.shooter_saw,
        ]
        .into_iter()
        .flatten()
        .collect(),
        None => {
            let mut p: Vec<SimVec2> = shot.saw.iter().map(|&(_, at)| at).collect();
            p.push(shot.ray.origin);
            p
        }
    };
    let v = shot_view(area, &points);
    arena::floor(&v, world);
    let verdict = rules::outcome(shot);
    ray(&v, shot, 2.0, with_alpha(YELLOW, 0.9));
    let r = v.len(CHARACTER_RADIUS_CM).max(4.0);
    // Each view's label goes away from the middle of the marks sideways
    // (its own default side when it is in the middle) and above (1, 2) or
    // below (3, 4): marks that coincide — a confirmed hit, 1 on 3; at a
    // symmetric link, 4 on 2 — keep readable labels.
    let middle = points.iter().fold(SimVec2::ZERO, |acc, &p| acc + p) * (1.0 / points.len() as f32);
    let label = |at: SimVec2, s: &str, corner: (f32, f32), color: Color| {
        let (x, y) = v.pt(at);
        let side = at.x - middle.x;
        let corner = (
            if v.len(side.abs()) > r * 0.5 {
                side
            } else {
                corner.0
            },
            corner.1,
        );
        if v.clip.contains((x, y)) {
            let w = measure_text(s, None, 12, 1.0).width;
            let lx = if corner.0 < 0.0 {
                x - r - 4.0 - w
            } else {
                x + r + 4.0
            };
            // Inside the panel, whatever side of the mark.
            let lx = lx.clamp(area.x + 4.0, (area.x + area.w - w - 4.0).max(area.x + 4.0));
            let ly = if corner.1 < 0.0 {
                y - r * 0.6
            } else {
                y + r * 0.6 + 10.0
            };
            text(s, lx, ly, 12.0, color);
        }
    };
    match views {
        Some(w) => {
            character(&v, w.server_now, with_alpha(ORANGE, 0.55));
            label(w.server_now, "2 server now", (1.0, -1.0), ORANGE);
            if let Some(saw) = w.shooter_saw {
                character(&v, saw, with_alpha(PURPLE, 0.55));
                label(saw, "1 you saw", (-1.0, -1.0), PURPLE);
            }
            v.ring(w.tested, r, 2.0, RED);
            v.ring(w.tested, v.len(HEAD_RADIUS).max(2.0), 2.0, RED);
            label(w.tested, "3 tested", (-1.0, 1.0), RED);
            outline(&v, w.target_saw, CYAN, 2.0);
            label(w.target_saw, "4 target saw", (1.0, 1.0), CYAN);
        }
        None => {
            let mut tags = Tags::default();
            for &(id, at) in &shot.saw {
                character(&v, at, with_alpha(PURPLE, 0.55));
                tag(&v, &mut tags, at, &name(id), LABEL);
            }
        }
    }
    let head = match shot.result {
        Some(res) => {
            let mut s = rules::verdict_text(res.verdict).to_owned();
            if let Some(w) = &views {
                s.push_str(&format!(" · {} · rewound {} ms", name(w.id), res.rewind_ms));
            }
            s
        }
        None => "waiting for the server's verdict…".to_owned(),
    };
    text(
        &head,
        area.x + 8.0,
        area.y + 16.0,
        13.0,
        outcome_color(verdict),
    );
    arena::scale_bar(&v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ray_is_cut_to_the_view_and_one_outside_it_is_not_drawn() {
        let area = RectF {
            x: 0.0,
            y: 0.0,
            w: 100.0,
            h: 100.0,
        };
        let v = View::fit(area, SimVec2::ZERO, SimVec2::new(100.0, 100.0));
        let (a, b) =
            clip_segment(&v, SimVec2::new(-50.0, 50.0), SimVec2::new(150.0, 50.0)).unwrap();
        assert!(
            (a.x - 1.0).abs() < 1e-3 && (b.x - 99.0).abs() < 1e-3,
            "{a:?} {b:?}"
        );
        assert_eq!(a.y, 50.0);
        assert!(clip_segment(&v, SimVec2::new(-50.0, -5.0), SimVec2::new(150.0, -5.0)).is_none());
        // The inverse mapping.
        let p = v.to_world(v.pt(SimVec2::new(37.0, 12.0)));
        assert!((p - SimVec2::new(37.0, 12.0)).length() < 1e-3);
    }
}
