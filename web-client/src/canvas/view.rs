//! The mapping from the world (cm) to a panel's rectangle on the canvas
//! (CSS px, which is macroquad's unit with `high_dpi`), the drawing
//! primitives clipped to it, and the colours every panel shares.

use macroquad::prelude::*;
use sim::Vec2 as SimVec2;

/// Predicted (client) colour.
pub const CYAN: Color = Color::new(0.25, 0.85, 1.0, 1.0);
/// Authoritative (server) colour.
pub const ORANGE: Color = Color::new(1.0, 0.62, 0.20, 1.0);
/// Replayed path colour.
pub const GREEN: Color = Color::new(0.35, 0.92, 0.45, 1.0);
/// Discarded prediction and correction colour.
pub const RED: Color = Color::new(1.0, 0.33, 0.36, 1.0);
/// The other character (simulated proxy).
pub const PURPLE: Color = Color::new(0.75, 0.52, 1.0, 1.0);
/// Input arrow and error lines.
pub const YELLOW: Color = Color::new(1.0, 0.9, 0.3, 1.0);
/// Canvas background = the panels' background.
pub const PANEL_BG: Color = Color::new(0.082, 0.094, 0.122, 1.0);
/// Faint grid lines (1 m).
pub const GRID: Color = Color::new(1.0, 1.0, 1.0, 0.035);
/// Walls and pillars.
pub const WALL: Color = Color::new(0.30, 0.33, 0.40, 1.0);
/// Labels drawn in the arena (≥ 4.5:1 on the panel background).
pub const LABEL: Color = Color::new(0.72, 0.76, 0.82, 1.0);

/// A rectangle on the canvas, CSS px.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RectF {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
}

impl RectF {
    /// `true` when `p` lies inside.
    pub fn contains(&self, p: (f32, f32)) -> bool {
        p.0 >= self.x && p.0 <= self.x + self.w && p.1 >= self.y && p.1 <= self.y + self.h
    }

    /// `true` when there is something to draw into.
    pub fn is_drawable(&self) -> bool {
        self.w >= 8.0 && self.h >= 8.0
    }
}

/// World → screen mapping for one panel.
pub struct View {
    /// The panel's drawing area.
    pub clip: RectF,
    /// World point at the area's top-left (after centring).
    pub origin: SimVec2,
    /// Pixels per cm.
    pub scale: f32,
    ox: f32,
    oy: f32,
}

impl View {
    /// Fits the world rectangle `min..max` (cm) into `clip`, centred.
    pub fn fit(clip: RectF, min: SimVec2, max: SimVec2) -> View {
        let (ww, wh) = ((max.x - min.x).max(1.0), (max.y - min.y).max(1.0));
        let scale = (clip.w / ww).min(clip.h / wh);
        View {
            clip,
            origin: min,
            scale,
            ox: clip.x + (clip.w - ww * scale) / 2.0,
            oy: clip.y + (clip.h - wh * scale) / 2.0,
        }
    }

    /// A view of `clip` framing `points` (cm): their bounding box grown by
    /// `margin` (1.35 = 35 %) around its centre, at least 4 m across, at
    /// the clip's aspect. The Replayed panels' zoom on one correction,
    /// rebase or shot; an empty `points` frames the origin.
    pub fn framing(clip: RectF, points: impl IntoIterator<Item = SimVec2>, margin: f32) -> View {
        let mut points = points.into_iter();
        let first = points.next().unwrap_or(SimVec2::ZERO);
        let (min, max) = points.fold((first, first), |(min, max), p| {
            (
                SimVec2::new(min.x.min(p.x), min.y.min(p.y)),
                SimVec2::new(max.x.max(p.x), max.y.max(p.y)),
            )
        });
        let centre = (min + max) * 0.5;
        let aspect = clip.w / clip.h.max(1.0);
        let mut half = (max - min) * 0.5 * margin;
        half = SimVec2::new(half.x.max(200.0), half.y.max(200.0));
        if half.x / half.y < aspect {
            half.x = half.y * aspect;
        } else {
            half.y = half.x / aspect;
        }
        View::fit(clip, centre - half, centre + half)
    }

    /// The Predicted panel's mapping: the whole arena of `size` (cm), or
    /// the follow camera's `(centre, zoom over the whole-arena scale)`.
    pub fn arena(clip: RectF, size: SimVec2, follow: Option<(SimVec2, f32)>) -> View {
        let whole = View::fit(clip, SimVec2::ZERO, size);
        match follow {
            Some((centre, zoom)) => View::centred(clip, centre, whole.scale * zoom),
            None => whole,
        }
    }

    /// `scale` px per cm with `centre` (cm) in the middle of `clip`.
    pub fn centred(clip: RectF, centre: SimVec2, scale: f32) -> View {
        let half = SimVec2::new(clip.w / 2.0 / scale, clip.h / 2.0 / scale);
        View {
            clip,
            origin: centre - half,
            scale,
            ox: clip.x,
            oy: clip.y,
        }
    }

    /// A world point on the canvas.
    pub fn pt(&self, p: SimVec2) -> (f32, f32) {
        (
            self.ox + (p.x - self.origin.x) * self.scale,
            self.oy + (p.y - self.origin.y) * self.scale,
        )
    }

    /// A label beside a point, baseline at `(x, y)`, kept inside the
    /// panel's area: moved left (and down or up) until it fits, and cut
    /// with "…" where the area is narrower than the text — never drawn
    /// over a neighbouring panel.
    pub fn label(&self, s: &str, x: f32, y: f32, size: f32, color: Color) {
        let c = self.clip;
        let width = |t: &str| measure_text(t, None, size as u16, 1.0).width;
        let mut kept: Vec<char> = s.chars().collect();
        let mut shown = s.to_owned();
        while width(&shown) > c.w && !kept.is_empty() {
            kept.pop();
            while kept.last().is_some_and(|c| matches!(c, ' ' | '·')) {
                kept.pop();
            }
            shown = kept.iter().chain(['…'].iter()).collect();
        }
        let w = width(&shown);
        let x = x.min(c.x + c.w - w).max(c.x);
        let y = y.clamp(c.y + size, (c.y + c.h - 2.0).max(c.y + size));
        draw_text(&shown, x, y, size, color);
    }

    /// The world point (cm) under canvas point `p` (CSS px): the inverse
    /// of [`View::pt`].
    pub fn to_world(&self, p: (f32, f32)) -> SimVec2 {
        SimVec2::new(
            self.origin.x + (p.0 - self.ox) / self.scale,
            self.origin.y + (p.1 - self.oy) / self.scale,
        )
    }

    /// A world length in px.
    pub fn len(&self, cm: f32) -> f32 {
        cm * self.scale
    }

    /// Draws a world-space rectangle clipped to the panel.
    pub fn rect(&self, min: SimVec2, max: SimVec2, color: Color) {
        let (x0, y0) = self.pt(min);
        let (x1, y1) = self.pt(max);
        let c = self.clip;
        let (x0, y0) = (x0.max(c.x), y0.max(c.y));
        let (x1, y1) = (x1.min(c.x + c.w), y1.min(c.y + c.h));
        if x1 > x0 && y1 > y0 {
            draw_rectangle(x0, y0, x1 - x0, y1 - y0, color);
        }
    }

    /// A line whose ends are both inside the panel.
    pub fn line(&self, a: SimVec2, b: SimVec2, thickness: f32, color: Color) {
        let (pa, pb) = (self.pt(a), self.pt(b));
        if self.clip.contains(pa) && self.clip.contains(pb) {
            draw_line(pa.0, pa.1, pb.0, pb.1, thickness, color);
        }
    }

    /// A filled circle of `radius_px`.
    pub fn circle(&self, c: SimVec2, radius_px: f32, color: Color) {
        let p = self.pt(c);
        if self.clip.contains(p) {
            draw_circle(p.0, p.1, radius_px, color);
        }
    }

    /// A small square dot (2 triangles; a circle costs 20).
    pub fn dot(&self, c: SimVec2, half_px: f32, color: Color) {
        let p = self.pt(c);
        if self.clip.contains(p) {
            draw_rectangle(
                p.0 - half_px,
                p.1 - half_px,
                half_px * 2.0,
                half_px * 2.0,
                color,
            );
        }
    }

    /// A circle outline of `radius_px`.
    pub fn ring(&self, c: SimVec2, radius_px: f32, thickness: f32, color: Color) {
        let p = self.pt(c);
        if self.clip.contains(p) {
            draw_circle_lines(p.0, p.1, radius_px, thickness, color);
        }
    }
}

/// `c` with alpha `a`.
pub fn with_alpha(c: Color, a: f32) -> Color {
    Color::new(c.r, c.g, c.b, a)
}

/// Font sizes the canvas labels use, CSS px.
pub const FONT_SIZES: [f32; 2] = [12.0, 13.0];

/// Rasterizes every glyph the canvas labels use at every size for the
/// current device pixel ratio. Call whenever the ratio changes: macroquad
/// grows its glyph atlas lazily and re-creates the texture, which breaks
/// draw calls already batched in the same frame ("glBindTexture called
/// with an already deleted texture").
pub fn warm_fonts(dpi: f32) {
    let chars: Vec<char> = (' '..='~').chain(['·', '—', '…', '→', '±', '×']).collect();
    let font = get_default_font();
    for size in FONT_SIZES {
        font.populate_font_cache(&chars, (size * dpi).ceil() as u16);
    }
}

/// Text at `(x, y)` (baseline), `size` CSS px.
pub fn text(s: &str, x: f32, y: f32, size: f32, color: Color) {
    draw_text(s, x, y, size, color);
}

/// Text ending at `right`.
pub fn text_right(s: &str, right: f32, y: f32, size: f32, color: Color) {
    let w = measure_text(s, None, size as u16, 1.0).width;
    draw_text(s, right - w, y, size, color);
}
