//! The three panels in the rollback model (`001_…`): the whole world —
//! both players, projectiles, HP and hit-stun — in each.
//!
//! * Predicted: what the client draws — the local player (cyan) and the
//!   bot predicted by hold-last (purple), each at its smoothed drawn
//!   position with a ring at the snapshot's when smoothing keeps an offset
//!   (display smoothing never touches the snapshot, `001_…` §9.2), the
//!   projectiles in flight, HP bars, a yellow ring while stunned, the
//!   server's player as a ghost, the input arrow.
//! * Authoritative: the server's true snapshot (observer view): both
//!   players, projectiles, HP, stun, a dot per server tick of the local
//!   player, and where the client predicts it now.
//! * Replayed: the last rebase that changed the prediction, zoomed: the
//!   discarded predicted ticks (red, dashed), the restored State (white
//!   rings, its projectiles white), the re-simulated ticks (green; the
//!   bot's lighter), each path's last tick marked.

use super::log::{ends, Entry, Why};
use super::smoothing::DisplaySmoothing;
use crate::canvas::arena::{self, character, outline, CHARACTER_RADIUS_CM};
use crate::canvas::view::{
    with_alpha, RectF, View, CYAN, GREEN, LABEL, ORANGE, PURPLE, RED, YELLOW,
};
use crate::canvas::{Frame, Layout};
use macroquad::prelude::*;
use sim::rollback::arena::{BOT_PLAYER, CLIENT_PLAYER};
use sim::rollback::arena::{MAX_HP, PROJECTILE_RADIUS_MM};
use sim::rollback::snapshot::{PlayerState, Projectile};
use sim::rollback::{RollbackPredictor, Snapshot};
use sim::Vec2 as SimVec2;

/// What the rollback panels need besides the endpoint.
#[derive(Clone, Copy)]
pub struct RollbackDraw<'a> {
    /// The players' display offsets.
    pub smoothing: &'a DisplaySmoothing,
    /// The rebase the Replayed panel shows.
    pub shown: Option<&'a Entry>,
}

/// Draws the three panels of predictor `p` into `layout`'s bodies (those
/// with room).
pub fn draw(f: &Frame, p: &RollbackPredictor, r: &RollbackDraw, layout: &Layout) {
    if layout.predicted.is_drawable() {
        predicted(f, p, r, layout.predicted);
    }
    if layout.authoritative.is_drawable() {
        authoritative(f, p, layout.authoritative);
    }
    if layout.replayed.is_drawable() {
        replayed(f, r, layout.replayed);
    }
}

/// Colour of player `p` (local cyan, bot purple).
fn player_colour(p: usize) -> Color {
    if p == CLIENT_PLAYER {
        CYAN
    } else {
        PURPLE
    }
}

/// The Predicted panel.
fn predicted(f: &Frame, r: &RollbackPredictor, d: &RollbackDraw, area: RectF) {
    let ep = f.endpoint;
    let world = ep.world();
    let v = View::arena(area, world.size, f.follow);
    arena::floor(&v, world);
    arena::trail(&v, ep.predicted_trail(), CYAN);
    let Some(s) = r.predicted() else {
        return;
    };
    projectiles(&v, &s.projectiles, 1.0);
    if let Some(server) = r
        .server_snapshot()
        .and_then(|s| s.players.get(CLIENT_PLAYER))
    {
        outline(&v, server.position.to_cm(), with_alpha(ORANGE, 0.85), 2.0);
    }
    // The bot first, so the local player is drawn on top.
    for p in [BOT_PLAYER, CLIENT_PLAYER] {
        let Some(st) = s.players.get(p) else { continue };
        let at = st.position.to_cm();
        let drawn = at + d.smoothing.offset(p);
        arena::offset_outline(&v, at, drawn, player_colour(p));
        player(&v, st, drawn, player_colour(p), 1.0);
        if p == CLIENT_PLAYER {
            arena::input_arrow(&v, drawn, f.input);
        }
    }
    if f.follow.is_some() {
        arena::scale_bar(&v);
    }
}

/// The Authoritative panel.
fn authoritative(f: &Frame, r: &RollbackPredictor, area: RectF) {
    let ep = f.endpoint;
    let world = ep.world();
    let v = View::fit(area, SimVec2::ZERO, world.size);
    arena::floor(&v, world);
    arena::server_trail(&v, ep.server_trail());
    outline(&v, ep.position(), with_alpha(CYAN, 0.45), 1.0);
    let Some(s) = r.server_snapshot() else {
        return;
    };
    projectiles(&v, &s.projectiles, 1.0);
    for p in [BOT_PLAYER, CLIENT_PLAYER] {
        if let Some(st) = s.players.get(p) {
            let colour = if p == CLIENT_PLAYER { ORANGE } else { PURPLE };
            player(&v, st, st.position.to_cm(), colour, 0.9);
        }
    }
}

/// The Replayed panel: `d.shown`'s rebase, zoomed.
fn replayed(f: &Frame, d: &RollbackDraw, area: RectF) {
    let Some(e) = d.shown else {
        return;
    };
    let r = &e.record;
    let v = zoomed(area, e);
    arena::floor(&v, f.endpoint.world());
    // Discarded predictions: dashed, the bot's fainter.
    for p in [BOT_PLAYER, CLIENT_PLAYER] {
        let a = if p == CLIENT_PLAYER { 1.0 } else { 0.55 };
        let path: Vec<SimVec2> = positions(r.discarded.iter(), p);
        for (i, w) in path.windows(2).enumerate() {
            if i % 2 == 0 {
                v.line(w[0], w[1], 2.5, with_alpha(RED, a));
            }
        }
        if let Some(end) = path.last() {
            v.circle(*end, 3.0, with_alpha(RED, a));
        }
    }
    if let Some(last) = r.discarded.last() {
        for q in &last.projectiles {
            v.ring(q.position.to_cm(), 3.0, 1.0, with_alpha(RED, 0.8));
        }
    }
    // Re-simulated from the restored State: solid.
    for p in [BOT_PLAYER, CLIENT_PLAYER] {
        let colour = if p == CLIENT_PLAYER {
            GREEN
        } else {
            with_alpha(Color::new(0.7, 0.95, 0.75, 1.0), 0.8)
        };
        let path = positions(std::iter::once(&r.restored).chain(&r.resimulated), p);
        for w in path.windows(2) {
            v.line(w[0], w[1], 2.5, colour);
        }
        if let Some(end) = path.last() {
            v.circle(*end, 3.5, colour);
        }
    }
    if let Some(last) = r.resimulated.last() {
        for q in &last.projectiles {
            v.circle(q.position.to_cm(), 3.0, with_alpha(GREEN, 0.9));
        }
    }
    // The restored State.
    for p in [BOT_PLAYER, CLIENT_PLAYER] {
        if let Some(st) = r.restored.players.get(p) {
            v.ring(st.position.to_cm(), 7.0, 2.0, WHITE);
        }
    }
    for q in &r.restored.projectiles {
        v.dot(q.position.to_cm(), 2.0, WHITE);
    }
    for p in focus(e) {
        let (who, mm) = if p == CLIENT_PLAYER {
            ("you", e.local_mm)
        } else {
            ("bot", e.remote_mm)
        };
        if let Some(st) = r.restored.players.get(p) {
            let (x, y) = v.pt(st.position.to_cm());
            v.label(
                &format!("tick {}", r.from.0),
                x + 10.0,
                y - 10.0,
                12.0,
                LABEL,
            );
        }
        if let Some(end) = r.resimulated.last().and_then(|s| s.players.get(p)) {
            let (x, y) = v.pt(end.position.to_cm());
            let label = format!("tick {} · {who} moved {:.1} cm", r.to.0, mm as f32 / 10.0);
            v.label(&label, x + 10.0, y + 16.0, 13.0, YELLOW);
        }
    }
    arena::scale_bar(&v);
}

/// Player `p`'s positions through `states`, cm.
fn positions<'a>(states: impl Iterator<Item = &'a Snapshot>, p: usize) -> Vec<SimVec2> {
    states
        .filter_map(|s| s.players.get(p))
        .map(|st| st.position.to_cm())
        .collect()
}

/// The players a rebase is about: those it moved, else the one whose
/// input was mispredicted (a shot appearing is the bot's).
fn focus(e: &Entry) -> Vec<usize> {
    let mut players = Vec::new();
    if e.local_mm > 0 {
        players.push(CLIENT_PLAYER);
    }
    if e.remote_mm > 0 {
        players.push(BOT_PLAYER);
    }
    if players.is_empty() {
        players.push(if e.why == Why::RemoteInput {
            BOT_PLAYER
        } else {
            CLIENT_PLAYER
        });
    }
    players
}

/// A view around the paths of the players the rebase is about and the
/// projectiles it changed, at least 4 m across, with the panel's aspect.
fn zoomed(area: RectF, e: &Entry) -> View {
    let r = &e.record;
    let all = || {
        r.discarded
            .iter()
            .chain(&r.resimulated)
            .chain([&r.restored])
    };
    let mut pts: Vec<SimVec2> = focus(e)
        .into_iter()
        .flat_map(|p| positions(all(), p))
        .collect();
    let (old, new) = ends(r);
    if old.map(|o| &o.projectiles) != Some(&new.projectiles) {
        let shots = old.into_iter().chain([new]).flat_map(|s| &s.projectiles);
        pts.extend(shots.map(|q| q.position.to_cm()));
    }
    View::framing(area, pts, 1.35)
}

/// Projectiles in flight, coloured by who fired them.
fn projectiles(v: &View, shots: &[Projectile], alpha: f32) {
    projectiles_by(v, shots, alpha, player_colour);
}

/// Projectiles in flight, each in `colour` of its owner (a rollback
/// room's panels colour by seat, `crate::room::match_panels`).
pub fn projectiles_by(v: &View, shots: &[Projectile], alpha: f32, colour: impl Fn(usize) -> Color) {
    let r = v.len(PROJECTILE_RADIUS_MM as f32 / 10.0).max(2.5);
    for q in shots {
        let c = colour(usize::from(q.owner));
        let at = q.position.to_cm();
        let tail = at - q.velocity.to_cm().safe_normal() * (r * 3.0 / v.scale);
        v.line(tail, at, 2.0, with_alpha(c, 0.5 * alpha));
        v.circle(at, r, with_alpha(c, alpha));
        v.ring(at, r, 1.0, with_alpha(WHITE, 0.8 * alpha));
    }
}

/// A player drawn at `drawn`: its disc, an HP bar above it, a yellow ring
/// while hit-stunned.
pub fn player(v: &View, st: &PlayerState, drawn: SimVec2, colour: Color, alpha: f32) {
    character(v, drawn, with_alpha(colour, alpha));
    let radius = v.len(CHARACTER_RADIUS_CM).max(4.0);
    if st.stun > 0 {
        v.ring(drawn, radius + 3.0, 2.0, YELLOW);
    }
    let (x, y) = v.pt(drawn);
    if !v.clip.contains((x, y)) {
        return;
    }
    let w = (radius * 2.0).max(14.0);
    let top = y - radius - 7.0;
    let frac = f32::from(st.hp) / f32::from(MAX_HP);
    draw_rectangle(x - w / 2.0, top, w, 3.0, Color::new(0.2, 0.22, 0.26, 0.9));
    let fill = if frac > 0.5 {
        GREEN
    } else if frac > 0.25 {
        YELLOW
    } else {
        RED
    };
    draw_rectangle(x - w / 2.0, top, w * frac, 3.0, fill);
}
