//! The three panels in a rollback room (issue 22), the rollback panels'
//! drawing (`crate::rollback::panels`) for N players, coloured by seat
//! (you cyan):
//!
//! * Predicted: your prediction of everyone — remote players where
//!   hold-last put them — with a faint ring where the last confirmed State
//!   had each, the projectiles in flight, HP bars, the input arrow.
//! * Authoritative: the server's world as its newest State confirmed it.
//! * Replayed: the last rebase, zoomed: the discarded predictions (red,
//!   dashed), the restored State (white rings), the re-simulated ticks
//!   (each player's colour), and which remote player's input was
//!   mispredicted (labelled; the panel's line says it, `match_texts`).
//!
//! An empty seat still stands in the world (at its spawn, the empty
//! input): once the room's Seats says who sits where it is drawn as a
//! faint thin ring, "P5 empty", with no character or HP bar.
//!
//! A spectator (issue 22) has no seat and no prediction: the Predicted and
//! Authoritative panels both draw the newest View's world (the panels'
//! lines say so), coloured by seat with nobody cyan; Replayed stays empty.

use super::match_rules::{name, seat_taken};
use super::match_run::{MatchRun, Replay};
use crate::canvas::arena::{self, outline};
use crate::canvas::view::{with_alpha, RectF, View, CYAN, LABEL, ORANGE, PURPLE, RED, YELLOW};
use crate::canvas::Layout;
use crate::rollback::panels::{player, projectiles_by};
use macroquad::prelude::*;
use sim::foundation::world::World;
use sim::rollback::Snapshot;
use sim::Vec2 as SimVec2;

/// The remote players' colours, by seat order (yours is cyan).
const OTHERS: [Color; 4] = [
    PURPLE,
    ORANGE,
    Color::new(0.45, 0.95, 0.55, 1.0),
    Color::new(1.0, 0.5, 0.75, 1.0),
];

/// Colour of seat `p` as seen by seat `local`.
pub(super) fn colour(p: usize, local: usize) -> Color {
    if p == local {
        CYAN
    } else {
        OTHERS[p % OTHERS.len()]
    }
}

/// Draws the three panels of `run` into `layout`'s bodies (those with
/// room), the local stick `input` as the arrow.
pub fn draw(run: &MatchRun, input: SimVec2, layout: &Layout) {
    if let Some(w) = &run.watched {
        // No seat: every seat in its colour, none as "you".
        let nobody = usize::MAX;
        for area in [layout.predicted, layout.authoritative] {
            if area.is_drawable() {
                authoritative(
                    &w.view.snapshot,
                    &w.world,
                    nobody,
                    w.view.players | w.view.bots,
                    area,
                );
            }
        }
        return;
    }
    let (Some(client), Some(local)) = (run.predictor.client(), run.seat) else {
        return;
    };
    let world = client.game().world();
    if layout.predicted.is_drawable() {
        predicted(run, world, local, input, layout.predicted);
    }
    if layout.authoritative.is_drawable() {
        if let Some(s) = run.predictor.confirmed() {
            authoritative(s, world, local, run.seated(), layout.authoritative);
        }
    }
    if layout.replayed.is_drawable() {
        if let Some(r) = &run.replay {
            replayed(r, world, local, layout.replayed);
        }
    }
}

/// Everyone seated in `s`, the local player last (on top); an empty seat
/// (not in `seated`) as a faint thin ring at its spawn, "P5 empty".
pub(super) fn everyone(v: &View, s: &Snapshot, local: usize, seated: u8, alpha: f32) {
    let order = (0..s.players.len()).filter(|&p| p != local).chain([local]);
    for p in order {
        // (A spectator's `local` is no seat.)
        let Some(st) = s.players.get(p) else {
            continue;
        };
        let at = st.position.to_cm();
        if !seat_taken(seated, p) {
            v.ring(at, 9.0, 1.0, with_alpha(LABEL, 0.3));
            let (x, y) = v.pt(at);
            let label = format!("P{} empty", p + 1);
            v.label(&label, x + 12.0, y + 4.0, 11.0, with_alpha(LABEL, 0.45));
            continue;
        }
        player(v, st, at, colour(p, local), alpha);
        let (x, y) = v.pt(at);
        v.label(&name(p, local), x + 12.0, y + 4.0, 12.0, LABEL);
    }
}

/// The Predicted panel.
fn predicted(run: &MatchRun, world: &World, local: usize, input: SimVec2, area: RectF) {
    let v = View::fit(area, SimVec2::ZERO, world.size);
    arena::floor(&v, world);
    let Some(s) = run.predictor.predicted() else {
        return;
    };
    let seated = run.seated();
    if let Some(c) = run.predictor.confirmed() {
        let taken = c
            .players
            .iter()
            .enumerate()
            .filter(|(p, _)| seat_taken(seated, *p));
        for (p, st) in taken {
            outline(
                &v,
                st.position.to_cm(),
                with_alpha(colour(p, local), 0.35),
                1.0,
            );
        }
    }
    projectiles_by(&v, &s.projectiles, 1.0, |p| colour(p, local));
    everyone(&v, s, local, seated, 1.0);
    if let Some(me) = s.players.get(local) {
        arena::input_arrow(&v, me.position.to_cm(), input);
    }
}

/// The Authoritative panel: the newest confirmed State.
pub(super) fn authoritative(s: &Snapshot, world: &World, local: usize, seated: u8, area: RectF) {
    let v = View::fit(area, SimVec2::ZERO, world.size);
    arena::floor(&v, world);
    projectiles_by(&v, &s.projectiles, 1.0, |p| colour(p, local));
    everyone(&v, s, local, seated, 0.9);
    v.label(
        &format!("tick {}", s.tick.0),
        area.x + 8.0,
        area.y + 16.0,
        12.0,
        LABEL,
    );
}

/// Player `p`'s positions through `states`, cm.
fn path<'a>(states: impl Iterator<Item = &'a Snapshot>, p: usize) -> Vec<SimVec2> {
    states
        .filter_map(|s| s.players.get(p))
        .map(|st| st.position.to_cm())
        .collect()
}

/// The Replayed panel: the last rebase, framed on every player's paths.
fn replayed(r: &Replay, world: &World, local: usize, area: RectF) {
    let rec = &r.record;
    let players = rec.restored.players.len();
    let all = || {
        rec.discarded
            .iter()
            .chain(&rec.resimulated)
            .chain([&rec.restored])
    };
    // Framed on the players the rebase is about: who caused it and whose
    // path it changed (empty seats stand still); else everyone.
    let changed = |p: usize| {
        let end = |s: Option<&Snapshot>| s.and_then(|s| s.players.get(p)).map(|st| st.position);
        end(rec.discarded.last()) != end(rec.resimulated.last())
    };
    let mut about: Vec<usize> = (0..players)
        .filter(|&p| r.caused_by.contains(&p) || changed(p))
        .collect();
    if about.is_empty() {
        about = (0..players).collect();
    }
    let pts: Vec<SimVec2> = about.iter().flat_map(|&p| path(all(), p)).collect();
    let v = View::framing(area, pts, 1.35);
    arena::floor(&v, world);
    for p in 0..players {
        let discarded = path(rec.discarded.iter(), p);
        for (i, w) in discarded.windows(2).enumerate() {
            if i % 2 == 0 {
                v.line(w[0], w[1], 2.0, with_alpha(RED, 0.8));
            }
        }
        let redone = path(std::iter::once(&rec.restored).chain(&rec.resimulated), p);
        for w in redone.windows(2) {
            v.line(w[0], w[1], 2.5, colour(p, local));
        }
        if let Some(end) = redone.last() {
            v.circle(*end, 3.5, colour(p, local));
        }
        if let Some(st) = rec.restored.players.get(p) {
            v.ring(st.position.to_cm(), 7.0, 2.0, WHITE);
        }
    }
    for &p in &r.caused_by {
        if let Some(st) = rec.restored.players.get(p) {
            let (x, y) = v.pt(st.position.to_cm());
            let label = format!("{} mispredicted", name(p, local));
            v.label(&label, x + 10.0, y - 10.0, 13.0, YELLOW);
        }
    }
    arena::scale_bar(&v);
}
