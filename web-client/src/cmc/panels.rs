//! What each of the three panels draws inside its body in the CMC model
//! (the titles, legends and counters around it are HTML:
//! `crate::panels::chrome`).
//!
//! * Predicted: the character as the client predicts and draws it, its
//!   trail, the unacknowledged SavedMoves, the other character (simulated
//!   proxy), the server's position as a ghost, the input arrow, and an
//!   inset plotting the mesh offset (drawn − collision position) over the
//!   last second — where the smoothing modes differ.
//! * Authoritative: the server's character, every move it simulated, its
//!   corrections (fading with age), the client's position for comparison.
//! * Replayed: one correction zoomed — the discarded prediction, the snap
//!   point, the replayed path — with the redundant ones of its burst faint,
//!   and an inset plotting the mesh offset (drawn − collision position)
//!   around the last snap: how smoothing hid it, where the modes differ.

use super::corrections::Group;
use crate::canvas::arena::{self, character, outline};
use crate::canvas::view::{
    text, text_right, with_alpha, RectF, View, CYAN, GREEN, LABEL, ORANGE, PURPLE, RED, YELLOW,
};
use crate::canvas::{Frame, Layout};
use crate::timeline::plots::nice;
use crate::timeline::samples::{SNAP_AFTER_S, SNAP_BEFORE_S};
use macroquad::prelude::*;
use sim::{CorrectionRecord, Vec2 as SimVec2};

/// What the CMC panels draw besides the [`Frame`].
#[derive(Clone, Copy)]
pub struct CmcDraw<'a> {
    /// How many of the server's newest corrections the Authoritative
    /// panel draws (UE `p.NetShowCorrections` / `p.NetCorrectionLifetime`).
    pub server_corrections: usize,
    /// The correction the Replayed panel shows.
    pub correction: Option<&'a Group>,
    /// The local character's mesh offset around its last snap: (s since
    /// the snap, cm), oldest first; `None` before the first snap.
    pub mesh_offsets: Option<&'a [(f32, f32)]>,
}

/// Draws the three panels into `layout`'s bodies (those with room).
pub fn draw(f: &Frame, c: &CmcDraw, layout: &Layout) {
    if layout.predicted.is_drawable() {
        predicted(f, layout.predicted);
    }
    if layout.authoritative.is_drawable() {
        authoritative(f, c, layout.authoritative);
    }
    if layout.replayed.is_drawable() {
        replayed(f, c, layout.replayed);
    }
}

/// The Predicted panel.
fn predicted(f: &Frame, area: RectF) {
    let ep = f.endpoint;
    let Some(client) = ep.cmc() else {
        return;
    };
    let world = ep.world();
    let v = View::arena(area, world.size, f.follow);
    arena::floor(&v, world);
    arena::push_zones(&v, world, f.push_zones);
    arena::trail(&v, ep.predicted_trail(), CYAN);
    // Unacknowledged SavedMoves: a tick at each move's end position.
    for m in client.saved_moves().iter() {
        v.dot(m.end.position, 1.8, with_alpha(WHITE, 0.9));
    }
    if let Some(proxy) = ep.proxy().filter(|p| p.is_visible()) {
        outline(&v, proxy.position(), with_alpha(PURPLE, 0.5), 1.0);
        character(&v, proxy.drawn_position(), PURPLE);
    }
    if let Some(p) = ep.server_position() {
        outline(&v, p, with_alpha(ORANGE, 0.85), 2.0);
    }
    arena::local_character(
        &v,
        client.state().position,
        client.drawn_position(),
        f.input,
    );
    if f.follow.is_some() {
        arena::scale_bar(&v);
    }
}

/// The local character's mesh offset around its last snap (`(s since
/// the snap, cm)`, [`SNAP_BEFORE_S`] before to [`SNAP_AFTER_S`] after) as
/// a small plot in the panel's bottom-left corner: disabled smoothing
/// never leaves an offset, linear takes it away in a straight 0.1 s ramp,
/// exponential in a long tail.
fn mesh_offset_inset(offsets: Option<&[(f32, f32)]>, area: RectF) {
    let (w, h) = (
        (area.w * 0.45).clamp(200.0, 240.0),
        (area.h * 0.32).clamp(52.0, 90.0),
    );
    if area.w < w * 1.3 || area.h < h * 2.0 {
        return;
    }
    let r = RectF {
        x: area.x + 6.0,
        y: area.y + area.h - h - 6.0,
        w,
        h,
    };
    draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.04, 0.05, 0.07, 0.82));
    draw_rectangle_lines(r.x, r.y, r.w, r.h, 1.0, with_alpha(LABEL, 0.35));
    let Some(offsets) = offsets else {
        text("drawn offset: none yet", r.x + 5.0, r.y + 13.0, 12.0, LABEL);
        let teleport = sim::cmc::smoothing::NO_SMOOTH_UPDATE_DISTANCE;
        text(
            &format!("(a snap over {teleport:.0} cm teleports)"),
            r.x + 5.0,
            r.y + 28.0,
            12.0,
            LABEL,
        );
        return;
    };
    let peak = offsets.iter().map(|&(_, cm)| cm).fold(0.0, f32::max);
    let top = nice(peak.max(5.0));
    text(
        "drawn offset since the snap",
        r.x + 5.0,
        r.y + 13.0,
        12.0,
        LABEL,
    );
    text_right(
        &format!("{top:.0} cm"),
        r.x + r.w - 5.0,
        r.y + 13.0,
        12.0,
        LABEL,
    );
    let plot = RectF {
        x: r.x + 5.0,
        y: r.y + 18.0,
        w: r.w - 10.0,
        h: r.h - 23.0,
    };
    let span = SNAP_BEFORE_S + SNAP_AFTER_S;
    let pt = |since: f32, cm: f32| {
        (
            plot.x + plot.w * ((since + SNAP_BEFORE_S) / span).clamp(0.0, 1.0),
            plot.y + plot.h * (1.0 - (cm / top).clamp(0.0, 1.0)),
        )
    };
    let base = plot.y + plot.h;
    draw_line(
        plot.x,
        base,
        plot.x + plot.w,
        base,
        1.0,
        with_alpha(LABEL, 0.4),
    );
    // The snap, and every 0.1 s after it (UE's smoothing time).
    for k in 0..=(SNAP_AFTER_S * 10.0).round() as i32 {
        let (x, _) = pt(k as f32 * 0.1, 0.0);
        let a = if k == 0 { 0.6 } else { 0.18 };
        draw_line(x, plot.y, x, base, 1.0, with_alpha(LABEL, a));
    }
    // Steps: the offset holds for a whole frame, so each mode's decay is
    // drawn as the frames saw it.
    let mut prev: Option<(f32, f32)> = None;
    for &(since, cm) in offsets {
        let p = pt(since, cm);
        if let Some(q) = prev {
            draw_line(q.0, q.1, p.0, q.1, 1.5, CYAN);
            draw_line(p.0, q.1, p.0, p.1, 1.5, CYAN);
        }
        prev = Some(p);
    }
}

/// The Authoritative panel.
fn authoritative(f: &Frame, c: &CmcDraw, area: RectF) {
    let ep = f.endpoint;
    let world = ep.world();
    let v = View::fit(area, SimVec2::ZERO, world.size);
    arena::floor(&v, world);
    arena::push_zones(&v, world, f.push_zones);
    arena::server_trail(&v, ep.server_trail());
    // Corrections fade and thin with age, so a lossy stretch does not
    // bury the path: the newest few have their ring.
    let corrections = ep.server_corrections();
    let n = corrections.len();
    let hidden = n.saturating_sub(c.server_corrections);
    for (i, (server, client)) in corrections.iter().enumerate().skip(hidden) {
        let newness = (i + 1) as f32 / n as f32;
        let alpha = 0.12 + 0.78 * newness * newness;
        v.line(
            *client,
            *server,
            if i + 1 == n { 2.0 } else { 1.0 },
            with_alpha(RED, alpha),
        );
        if i + 4 >= n {
            v.ring(*server, 5.0, 1.5, with_alpha(RED, alpha));
        }
    }
    for p in ep.server_others() {
        character(&v, *p, with_alpha(PURPLE, 0.8));
    }
    // Where the client is now, for comparison.
    outline(&v, ep.position(), with_alpha(CYAN, 0.45), 1.0);
    if let Some(p) = ep.server_position() {
        character(&v, p, ORANGE);
    }
}

/// The Replayed panel: `c.correction`'s correction zoomed (its redundant
/// followers faint).
fn replayed(f: &Frame, c: &CmcDraw, area: RectF) {
    let Some(group) = c.correction else {
        return;
    };
    let lead = &group.lead.record;
    let v = zoomed_view(area, lead);
    arena::floor(&v, f.endpoint.world());
    for e in &group.followers {
        draw_correction(&v, &e.record, 0.25);
    }
    draw_correction(&v, lead, 1.0);
    let (px, py) = v.pt(lead.snap);
    let label = if group.lead.redundant {
        format!("redundant: {:.1} cm on arrival", lead.residual_cm)
    } else {
        format!("moved {:.1} cm", lead.residual_cm)
    };
    v.label(&label, px + 10.0, py - 10.0, 13.0, YELLOW);
    arena::scale_bar(&v);
    mesh_offset_inset(c.mesh_offsets, area);
}

/// A view fitted around one correction, at least 4 m across.
fn zoomed_view(area: RectF, c: &CorrectionRecord) -> View {
    let path = c.discarded.iter().chain(c.replayed.iter());
    View::framing(area, std::iter::once(c.snap).chain(path.copied()), 1.35)
}

fn draw_correction(v: &View, c: &CorrectionRecord, alpha: f32) {
    // Discarded prediction: dashed red.
    for (i, w) in c.discarded.windows(2).enumerate() {
        if i % 2 == 0 {
            v.line(w[0], w[1], 2.5, with_alpha(RED, alpha));
        }
    }
    for w in c.replayed.windows(2) {
        v.line(w[0], w[1], 2.5, with_alpha(GREEN, alpha));
    }
    if let Some(first) = c.discarded.first() {
        v.line(*first, c.snap, 1.5, with_alpha(YELLOW, alpha * 0.9));
        v.circle(*first, 3.0, with_alpha(RED, alpha));
    }
    if let Some(end) = c.replayed.last() {
        v.circle(*end, 3.5, with_alpha(GREEN, alpha));
    }
    v.ring(c.snap, 7.0, 2.0, with_alpha(WHITE, alpha));
}
