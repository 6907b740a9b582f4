//! Draws the three panels with macroquad: Predicted, Authoritative and
//! Replayed, side by side on one canvas. Pure presentation: everything
//! drawn comes from [`sim::ClientEndpoint`].

use macroquad::prelude::*;
use sim::{ClientEndpoint, CorrectionRecord, Vec2 as SimVec2, World};

/// Page background.
const BG: Color = Color::new(0.055, 0.063, 0.082, 1.0);
const PANEL_BG: Color = Color::new(0.082, 0.094, 0.122, 1.0);
const GRID: Color = Color::new(1.0, 1.0, 1.0, 0.035);
const WALL: Color = Color::new(0.30, 0.33, 0.40, 1.0);
const TEXT: Color = Color::new(0.86, 0.89, 0.94, 1.0);
const MUTED: Color = Color::new(0.55, 0.60, 0.68, 1.0);
/// Predicted (client) colour.
pub const CYAN: Color = Color::new(0.25, 0.85, 1.0, 1.0);
/// Authoritative (server) colour.
pub const ORANGE: Color = Color::new(1.0, 0.62, 0.20, 1.0);
/// Replayed path colour.
pub const GREEN: Color = Color::new(0.35, 0.92, 0.45, 1.0);
/// Discarded prediction colour.
pub const RED: Color = Color::new(1.0, 0.33, 0.36, 1.0);
const PURPLE: Color = Color::new(0.75, 0.52, 1.0, 1.0);
const YELLOW: Color = Color::new(1.0, 0.9, 0.3, 1.0);

/// What the renderer needs besides the endpoint.
pub struct Frame<'a> {
    /// The client end with all views.
    pub endpoint: &'a ClientEndpoint,
    /// `true` while the bot drives.
    pub bot_driving: bool,
    /// Replaces the "who drives" line while a scenario records or plays
    /// (e.g. `▶ REPLAY 2.3 / 5.5 s · 4×`), with its colour.
    pub banner: Option<(String, Color)>,
    /// The input direction this frame (for the arrow).
    pub input: SimVec2,
    /// Server-only push zones are on (drawn in every panel).
    pub push_zones: bool,
    /// The server's error threshold, cm (labels redundant corrections).
    pub threshold_cm: f32,
}

#[derive(Clone, Copy)]
struct RectF {
    x: f32,
    y: f32,
    w: f32,
    h: f32,
}

impl RectF {
    fn contains(&self, p: (f32, f32)) -> bool {
        p.0 >= self.x && p.0 <= self.x + self.w && p.1 >= self.y && p.1 <= self.y + self.h
    }
}

/// World → screen mapping for one panel.
struct View {
    clip: RectF,
    origin: SimVec2,
    scale: f32,
    ox: f32,
    oy: f32,
}

impl View {
    /// Fits the world rectangle `min..max` (cm) into `clip`, centred.
    fn fit(clip: RectF, min: SimVec2, max: SimVec2) -> View {
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

    fn pt(&self, p: SimVec2) -> (f32, f32) {
        (
            self.ox + (p.x - self.origin.x) * self.scale,
            self.oy + (p.y - self.origin.y) * self.scale,
        )
    }

    fn len(&self, cm: f32) -> f32 {
        cm * self.scale
    }

    /// Draws a world-space rectangle clipped to the panel.
    fn rect(&self, min: SimVec2, max: SimVec2, color: Color) {
        let (x0, y0) = self.pt(min);
        let (x1, y1) = self.pt(max);
        let c = self.clip;
        let (x0, y0) = (x0.max(c.x), y0.max(c.y));
        let (x1, y1) = (x1.min(c.x + c.w), y1.min(c.y + c.h));
        if x1 > x0 && y1 > y0 {
            draw_rectangle(x0, y0, x1 - x0, y1 - y0, color);
        }
    }

    fn line(&self, a: SimVec2, b: SimVec2, thickness: f32, color: Color) {
        let (pa, pb) = (self.pt(a), self.pt(b));
        if self.clip.contains(pa) && self.clip.contains(pb) {
            draw_line(pa.0, pa.1, pb.0, pb.1, thickness, color);
        }
    }

    fn circle(&self, c: SimVec2, radius_px: f32, color: Color) {
        let p = self.pt(c);
        if self.clip.contains(p) {
            draw_circle(p.0, p.1, radius_px, color);
        }
    }

    /// A small square dot (2 triangles; a circle costs 20).
    fn dot(&self, c: SimVec2, half_px: f32, color: Color) {
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

    fn ring(&self, c: SimVec2, radius_px: f32, thickness: f32, color: Color) {
        let p = self.pt(c);
        if self.clip.contains(p) {
            draw_circle_lines(p.0, p.1, radius_px, thickness, color);
        }
    }
}

fn with_alpha(c: Color, a: f32) -> Color {
    Color::new(c.r, c.g, c.b, a)
}

/// UI scale from the canvas height (fonts, line widths), in steps of 1/4
/// so the set of font sizes stays small and can be cached up front.
pub fn ui() -> f32 {
    ((screen_height() / 420.0).clamp(0.75, 2.5) * 4.0).round() / 4.0
}

/// Font sizes (before scaling) the panels use.
const FONT_SIZES: [f32; 5] = [13.0, 14.0, 15.0, 16.0, 20.0];

/// Rasterizes every glyph the panels use at every size for scale `u`.
/// Call before drawing whenever [`ui`] changes: macroquad grows its glyph
/// atlas lazily and re-creates the texture, which breaks draw calls
/// already batched in the same frame ("glBindTexture called with an
/// already deleted texture").
pub fn warm_fonts(u: f32) {
    let chars: Vec<char> = (' '..='~').chain(['·', '—', '…', '→', '±']).collect();
    let font = get_default_font();
    for size in FONT_SIZES {
        font.populate_font_cache(&chars, (size * u) as u16);
    }
}

fn text(s: &str, x: f32, y: f32, size: f32, color: Color) {
    draw_text(s, x, y, size, color);
}

fn text_right(s: &str, right: f32, y: f32, size: f32, color: Color) {
    let w = measure_text(s, None, size as u16, 1.0).width;
    draw_text(s, right - w, y, size, color);
}

/// Draws the whole canvas.
///
/// Fill rate matters: on software WebGL (SwiftShader) every blended
/// full-panel rectangle costs ~10 ms a frame, and a slow frame delays the
/// page's WebSocket callbacks (measured RTT). So the panel colour is the
/// clear colour, only the thin gaps between panels are painted, and the
/// floor is not filled.
pub fn draw(f: &Frame) {
    clear_background(PANEL_BG);
    let u = ui();
    let margin = 8.0 * u;
    let (sw, sh) = (screen_width(), screen_height());
    let pw = (sw - margin * 4.0) / 3.0;
    let ph = sh - margin * 2.0;
    draw_rectangle(0.0, 0.0, sw, margin, BG);
    draw_rectangle(0.0, sh - margin, sw, margin, BG);
    for i in 0..4 {
        draw_rectangle((pw + margin) * i as f32, margin, margin, ph, BG);
    }
    let panel = |i: usize| RectF {
        x: margin + (pw + margin) * i as f32,
        y: margin,
        w: pw,
        h: ph,
    };
    predicted_panel(f, panel(0), u);
    authoritative_panel(f, panel(1), u);
    replayed_panel(f, panel(2), u);
}

/// Text of a panel's header, subtitle strip and footer.
struct Labels<'a> {
    title: &'a str,
    accent: Color,
    legend: &'a [(&'a str, Color)],
    /// Left and (optional) right text of the strip under the title.
    subtitle: (&'a str, Color),
    subtitle_right: &'a str,
    footer: &'a str,
}

/// Panel chrome; returns the drawing area between the subtitle strip and
/// the footer, so nothing drawn in the arena overlaps the text.
fn chrome(r: RectF, u: f32, l: &Labels) -> RectF {
    draw_rectangle(r.x, r.y, r.w, 3.0 * u, l.accent);
    let header = 30.0 * u;
    let strip = 20.0 * u;
    let footer_h = 20.0 * u;
    text(l.title, r.x + 10.0 * u, r.y + 21.0 * u, 20.0 * u, TEXT);
    // Legend, right-aligned.
    let mut right = r.x + r.w - 10.0 * u;
    for (label, color) in l.legend.iter().rev() {
        let size = 14.0 * u;
        let w = measure_text(label, None, size as u16, 1.0).width;
        text(label, right - w, r.y + 20.0 * u, size, MUTED);
        right -= w + 8.0 * u;
        draw_circle(right, r.y + 16.0 * u, 4.0 * u, *color);
        right -= 12.0 * u;
    }
    text(
        l.subtitle.0,
        r.x + 10.0 * u,
        r.y + header + 12.0 * u,
        14.0 * u,
        l.subtitle.1,
    );
    if !l.subtitle_right.is_empty() {
        text_right(
            l.subtitle_right,
            r.x + r.w - 10.0 * u,
            r.y + header + 12.0 * u,
            14.0 * u,
            MUTED,
        );
    }
    text(
        l.footer,
        r.x + 10.0 * u,
        r.y + r.h - 6.0 * u,
        15.0 * u,
        MUTED,
    );
    RectF {
        x: r.x + 6.0 * u,
        y: r.y + header + strip,
        w: r.w - 12.0 * u,
        h: r.h - header - strip - footer_h,
    }
}

/// Server-only push zones, translucent, with their direction.
fn draw_push_zones(v: &View, world: &World, on: bool, u: f32) {
    if !on {
        return;
    }
    for z in &world.push_zones {
        v.rect(z.min, z.max, Color::new(0.55, 0.35, 1.0, 0.14));
        let c = (z.min + z.max) * 0.5;
        v.line(
            c,
            c + z.acceleration.safe_normal() * 80.0,
            2.0 * u,
            Color::new(0.75, 0.6, 1.0, 0.8),
        );
    }
}

fn draw_floor(v: &View, world: &World) {
    // 1 m grid.
    let step = 100.0;
    let mut x = (v.origin.x / step).ceil() * step;
    let far = v.origin + SimVec2::new(v.clip.w / v.scale, v.clip.h / v.scale);
    while x <= far.x.min(world.size.x) {
        v.rect(
            SimVec2::new(x, 0.0_f32.max(v.origin.y)),
            SimVec2::new(x + 1.0 / v.scale, world.size.y.min(far.y)),
            GRID,
        );
        x += step;
    }
    let mut y = (v.origin.y / step).ceil() * step;
    while y <= far.y.min(world.size.y) {
        v.rect(
            SimVec2::new(0.0_f32.max(v.origin.x), y),
            SimVec2::new(world.size.x.min(far.x), y + 1.0 / v.scale),
            GRID,
        );
        y += step;
    }
    for w in &world.walls {
        v.rect(w.min, w.max, WALL);
    }
}

fn draw_trail<'a>(
    v: &View,
    points: impl Iterator<Item = &'a SimVec2>,
    len: usize,
    color: Color,
    width: f32,
) {
    let mut prev: Option<SimVec2> = None;
    for (i, p) in points.enumerate() {
        if let Some(q) = prev {
            let age = 1.0 - i as f32 / len.max(1) as f32;
            v.line(q, *p, width, with_alpha(color, 0.85 * (1.0 - age * 0.9)));
        }
        prev = Some(*p);
    }
}

fn character(v: &View, pos: SimVec2, radius_cm: f32, color: Color, u: f32) {
    let r = v.len(radius_cm).max(4.0 * u);
    v.circle(pos, r, with_alpha(color, 0.9));
    v.ring(pos, r, 1.5 * u, with_alpha(WHITE, 0.6));
}

fn predicted_panel(f: &Frame, r: RectF, u: f32) {
    let ep = f.endpoint;
    // The rollback model's panels are the page's to draw (sim's
    // `ClientEndpoint::rollback`); this one draws the CMC model.
    let Some(client) = ep.cmc() else { return };
    let st = client.state();
    let footer = format!(
        "t {:.2} s · v {:4.0} cm/s · SavedMoves {}",
        f64::from(client.time_stamp().0) / 1000.0,
        st.velocity.length(),
        client.saved_moves().len()
    );
    let who = match &f.banner {
        Some((text, colour)) => (text.as_str(), *colour),
        None if f.bot_driving => ("BOT driving · WASD/arrows take over", MUTED),
        None => ("YOU driving · Space dash · B bot", YELLOW),
    };
    let area = chrome(
        r,
        u,
        &Labels {
            title: "Predicted",
            accent: CYAN,
            legend: &[("you", CYAN), ("unacked", WHITE), ("proxy", PURPLE)],
            subtitle: who,
            subtitle_right: "",
            footer: &footer,
        },
    );
    let world = ep.world();
    let v = View::fit(area, SimVec2::ZERO, world.size);
    draw_floor(&v, world);
    draw_push_zones(&v, world, f.push_zones, u);
    let trail = ep.predicted_trail();
    draw_trail(&v, trail.iter(), trail.len(), CYAN, 2.0 * u);
    // Unacknowledged SavedMoves: a tick at each move's end position.
    for m in client.saved_moves().iter() {
        v.dot(m.end.position, 1.8 * u, with_alpha(WHITE, 0.9));
    }
    if let Some(proxy) = ep.proxy().filter(|p| p.is_visible()) {
        v.ring(
            proxy.position(),
            v.len(34.0).max(4.0 * u),
            1.0 * u,
            with_alpha(PURPLE, 0.5),
        );
        character(&v, proxy.drawn_position(), 34.0, PURPLE, u);
    }
    let drawn = client.drawn_position();
    if (drawn - st.position).length() > 0.5 {
        v.ring(
            st.position,
            v.len(34.0).max(4.0 * u),
            1.0 * u,
            with_alpha(CYAN, 0.6),
        );
    }
    character(&v, drawn, 34.0, CYAN, u);
    if !f.input.is_zero() {
        let tip = drawn + f.input * 90.0;
        v.line(drawn, tip, 2.0 * u, YELLOW);
    }
}

fn authoritative_panel(f: &Frame, r: RectF, u: f32) {
    let ep = f.endpoint;
    let t = ep.server_totals();
    let footer = format!(
        "moves {} · acks {} · adj {} · forced upd {}",
        t.moves, t.acks, t.adjustments, t.forced_updates
    );
    let area = chrome(
        r,
        u,
        &Labels {
            title: "Authoritative",
            accent: ORANGE,
            legend: &[
                ("server", ORANGE),
                ("move", with_alpha(ORANGE, 0.6)),
                ("correction", RED),
            ],
            subtitle: ("observer view of the server, 20 Hz, not delayed", MUTED),
            subtitle_right: "",
            footer: &footer,
        },
    );
    let world = ep.world();
    let v = View::fit(area, SimVec2::ZERO, world.size);
    draw_floor(&v, world);
    draw_push_zones(&v, world, f.push_zones, u);
    let trail = ep.server_trail();
    draw_trail(&v, trail.iter(), trail.len(), ORANGE, 2.0 * u);
    // Every simulated move leaves a dot: gaps are lost moves.
    let n = trail.len();
    for (i, p) in trail.iter().enumerate().skip(n.saturating_sub(180)) {
        let a = 0.25 + 0.6 * (i + 180).saturating_sub(n) as f32 / 180.0;
        v.dot(*p, 1.4 * u, with_alpha(ORANGE, a));
    }
    for (server, client) in ep.server_corrections() {
        v.line(*client, *server, 2.0 * u, RED);
        v.ring(*server, 6.0 * u, 1.5 * u, RED);
        v.circle(*client, 2.5 * u, RED);
    }
    for p in ep.server_others() {
        character(&v, *p, 34.0, with_alpha(PURPLE, 0.8), u);
    }
    // Where the client is now, for comparison.
    v.ring(
        ep.position(),
        v.len(34.0).max(4.0 * u),
        1.0 * u,
        with_alpha(CYAN, 0.45),
    );
    if let Some(p) = ep.server_position() {
        character(&v, p, 34.0, ORANGE, u);
    }
}

fn replayed_panel(f: &Frame, r: RectF, u: f32) {
    let ep = f.endpoint;
    let Some(client) = ep.cmc() else { return };
    let corrections = client.corrections();
    let counters = client.counters();
    let threshold = f.threshold_cm;
    let (subtitle, footer) = match corrections.back() {
        Some(c) => (
            format!(
                "#{} · {} · {} moves replayed",
                counters.adjustments,
                c.reason.label(),
                c.moves_replayed
            ),
            format!(
                "server saw {:.1} cm · {:.1} cm on arrival{}",
                c.error_cm,
                c.residual_cm,
                if c.is_redundant(threshold) {
                    " · redundant"
                } else {
                    ""
                }
            ),
        ),
        None => ("no adjustment yet".to_string(), String::new()),
    };
    let area = chrome(
        r,
        u,
        &Labels {
            title: "Replayed",
            accent: GREEN,
            legend: &[("discarded", RED), ("snap", WHITE), ("replayed", GREEN)],
            subtitle: (&subtitle, MUTED),
            subtitle_right: "",
            footer: &footer,
        },
    );
    let world = ep.world();
    let Some(last) = corrections.back() else {
        let lines = [
            "No adjustment yet: prediction and server agree.",
            "Drag Packet loss up (or RTT + jitter) and watch",
            "each correction: the discarded prediction, the",
            "authoritative snap point and the replayed path.",
        ];
        for (i, l) in lines.iter().enumerate() {
            let size = 16.0 * u;
            let w = measure_text(l, None, size as u16, 1.0).width;
            text(
                l,
                area.x + (area.w - w) / 2.0,
                area.y + area.h / 2.0 - 24.0 * u + i as f32 * 20.0 * u,
                size,
                MUTED,
            );
        }
        return;
    };
    let v = zoomed_view(area, last);
    draw_floor(&v, world);
    // The two before it, faint, when they fall in view.
    for c in corrections.iter().rev().skip(1).take(2) {
        draw_correction(&v, c, 0.2, u);
    }
    draw_correction(&v, last, 1.0, u);
    let (px, py) = v.pt(last.snap);
    let label = if last.is_redundant(f.threshold_cm) {
        format!("redundant: {:.1} cm now", last.residual_cm)
    } else {
        format!("{:.1} cm", last.error_cm)
    };
    text(&label, px + 10.0 * u, py - 10.0 * u, 16.0 * u, YELLOW);
    scale_bar(&v, area, u);
}

/// A view fitted around one correction, at least 4 m across.
fn zoomed_view(area: RectF, c: &CorrectionRecord) -> View {
    let mut min = c.snap;
    let mut max = c.snap;
    for p in c.discarded.iter().chain(c.replayed.iter()) {
        min = SimVec2::new(min.x.min(p.x), min.y.min(p.y));
        max = SimVec2::new(max.x.max(p.x), max.y.max(p.y));
    }
    let centre = (min + max) * 0.5;
    let aspect = area.w / area.h.max(1.0);
    let mut half = (max - min) * 0.5 * 1.35;
    half = SimVec2::new(half.x.max(200.0), half.y.max(200.0));
    if half.x / half.y < aspect {
        half.x = half.y * aspect;
    } else {
        half.y = half.x / aspect;
    }
    View::fit(area, centre - half, centre + half)
}

fn draw_correction(v: &View, c: &CorrectionRecord, alpha: f32, u: f32) {
    // Discarded prediction: dashed red.
    for (i, w) in c.discarded.windows(2).enumerate() {
        if i % 2 == 0 {
            v.line(w[0], w[1], 2.5 * u, with_alpha(RED, alpha));
        }
    }
    for w in c.replayed.windows(2) {
        v.line(w[0], w[1], 2.5 * u, with_alpha(GREEN, alpha));
    }
    if let Some(first) = c.discarded.first() {
        v.line(*first, c.snap, 1.5 * u, with_alpha(YELLOW, alpha * 0.9));
        v.circle(*first, 3.0 * u, with_alpha(RED, alpha));
    }
    if let Some(end) = c.replayed.last() {
        v.circle(*end, 3.5 * u, with_alpha(GREEN, alpha));
    }
    v.ring(c.snap, 7.0 * u, 2.0 * u, with_alpha(WHITE, alpha));
}

fn scale_bar(v: &View, area: RectF, u: f32) {
    let px = v.len(100.0);
    let x = area.x + area.w - px - 12.0 * u;
    let y = area.y + area.h - 10.0 * u;
    draw_line(x, y, x + px, y, 2.0 * u, MUTED);
    draw_line(x, y - 4.0 * u, x, y + 4.0 * u, 2.0 * u, MUTED);
    draw_line(x + px, y - 4.0 * u, x + px, y + 4.0 * u, 2.0 * u, MUTED);
    text_right("1 m", x - 6.0 * u, y + 5.0 * u, 14.0 * u, MUTED);
}
