//! Painting the packet timeline on its 2D canvas: the scene a draw is
//! given ([`Scene`], one [`Lane`] per branch) and the strokes — ruler,
//! bands, packet lines, red crosses for lost packets, highlighted causes,
//! correction diamonds, the playhead. Geometry, and where things go on
//! the canvas, come from [`super::lanes`].

use super::gesture::Mark;
use super::lanes::{
    self, tick_states, Band, End, Rows, Segment, Style, TickState, Window, RIGHT, RULER,
};
use super::story_view::PacketRef;
use sim::net::trace::PacketRecord;
use sim::rollback::tick::Tick;
use sim::room::wire::Verdict;
use std::collections::VecDeque;
use web_sys::CanvasRenderingContext2d;

/// Packets sent this long before the window may still land in it, µs.
const LOOK_BACK_US: u64 = 3_000_000;
/// States this long before the window may still confirm its ticks, µs.
const TICK_LOOK_BACK_US: u64 = 10_000_000;
const TICK_PREDICTED: &str = "#22d3ee";
const TICK_REPREDICTED: &str = "#fb923c";
const TICK_CONFIRMED: &str = "rgba(74, 222, 128, 0.8)";

/// The first record sent less than `look_back_us` before the window.
fn first_visible(records: &VecDeque<PacketRecord>, w: &Window, look_back_us: u64) -> usize {
    records.partition_point(|p| p.sent.0 + look_back_us < w.from_us)
}

pub const BG: &str = "#161b22";
const ROW: &str = "#2a313b";
pub const TEXT: &str = "#aeb7c1";
const FAINT: &str = "#8b949e";
const LOST: &str = "#f85149";
const BURST: &str = "rgba(248, 81, 73, 0.14)";
const SPIKE: &str = "rgba(163, 113, 247, 0.18)";
const PLAYHEAD: &str = "#e6edf3";
const CAUSE: &str = "#ffe64d";
const JUMP: &str = "#c084fc";
/// A packet held behind a resent one (the legend's `ln-held`).
const HELD: &str = "#fbbf24";

/// A packet style's stroke colour.
fn colour(style: Style, overtook: bool) -> &'static str {
    if overtook {
        return "#fb923c";
    }
    match style {
        Style::Move => "rgba(34, 211, 238, 0.75)",
        Style::Ack => "rgba(74, 222, 128, 0.85)",
        Style::Adjustment => "#ffe64d",
        Style::State => "rgba(191, 133, 255, 0.9)",
        Style::Probe => "rgba(139, 148, 158, 0.55)",
        Style::Shot => "#f472b6",
        Style::Update => "rgba(139, 148, 158, 0.28)",
    }
}

/// What kind of band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandKind {
    /// A loss burst.
    Burst,
    /// A lag spike.
    Spike,
}

/// What a mark is, and how it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Glyph {
    /// A correction: a ◆ on the client row.
    #[default]
    Correction,
    /// A shot this player fired: a ▲ on the client row, green when it hit,
    /// grey when it missed, red when refused, white while unanswered.
    Shot(Outcome),
    /// A shot judged with this player as the target: a ▼ on the server
    /// row, coloured as a shot.
    ShotAt(Outcome),
    /// A proxy jump: a violet ◆ on the client row.
    Jump,
    /// An ammo jump: an orange bar across the client row.
    AmmoJump,
    /// A net update that arrived late (orange) or as a duplicate (red):
    /// a tick under the client row.
    Stale {
        /// A duplicate, not a late one.
        duplicate: bool,
    },
    /// A tick a rollback server ran without the player's input: a bar on
    /// the server row, orange when it held the last input, red when it
    /// used the empty one (`001_…` §5.1).
    Fill {
        /// The empty input, not the held one.
        empty: bool,
    },
}

impl Glyph {
    /// A number for it, for a drawing's fingerprint.
    pub fn code(self) -> u64 {
        let hit = |h: Outcome| h as u64;
        match self {
            Glyph::Correction => 0,
            Glyph::Shot(h) => 1 + hit(h),
            Glyph::ShotAt(h) => 5 + hit(h),
            Glyph::Jump => 9,
            Glyph::AmmoJump => 10,
            Glyph::Stale { duplicate } => 11 + u64::from(duplicate),
            Glyph::Fill { empty } => 13 + u64::from(empty),
        }
    }
}

/// How a shot ended: its lane mark's colour, the room's shot log and its
/// `data-verdict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// No answer yet.
    Pending,
    /// Head or body hit.
    Hit,
    /// Judged, struck no one.
    Miss,
    /// Not judged (too old, fire rate, …).
    Rejected,
}

impl Outcome {
    /// The outcome of a shot answered with `verdict` (`None`: no answer yet).
    pub fn of(verdict: Option<Verdict>) -> Outcome {
        match verdict {
            None => Outcome::Pending,
            Some(v) if v.is_hit() => Outcome::Hit,
            Some(Verdict::Miss) => Outcome::Miss,
            Some(_) => Outcome::Rejected,
        }
    }

    /// Its name in `data-verdict`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Hit => "hit",
            Outcome::Miss => "miss",
            Outcome::Rejected => "rejected",
        }
    }
}

/// Something marked on a lane: a correction, or a room's event.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MarkSpec {
    /// When it happened, µs.
    pub t_us: u64,
    /// Its index among what a click opens (the corrections, a room's
    /// list); `None`: not clickable.
    pub index: usize,
    /// Redundant (an echo of the one before): drawn hollow.
    pub hollow: bool,
    /// What it is.
    pub glyph: Glyph,
    /// A shot's rewind: from how far back the server looked, µs (on the
    /// server row, dashed when refused as older than the cap).
    pub rewound_from_us: Option<u64>,
}

impl MarkSpec {
    /// Whether a click on it opens something.
    pub fn clickable(&self) -> bool {
        !matches!(
            self.glyph,
            Glyph::AmmoJump | Glyph::Stale { .. } | Glyph::Fill { .. }
        )
    }
}

/// One branch to draw.
pub struct Lane<'a> {
    /// "A · the run", "B · what if: …".
    pub title: &'a str,
    /// Its packets, oldest first.
    pub records: &'a VecDeque<PacketRecord>,
    /// Its corrections.
    pub marks: Vec<MarkSpec>,
    /// Packets to highlight (an open story's causes).
    pub highlight: &'a [PacketRef],
    /// Where it parts from the first branch, µs.
    pub divergence_us: Option<u64>,
    /// The rollback model's visible rollbacks (from, to): with them the
    /// input ticks are coloured predicted / re-predicted / confirmed.
    pub rollbacks: Vec<(Tick, Tick)>,
}

/// Everything one draw needs.
pub struct Scene<'a> {
    /// The branches, the run first.
    pub lanes: Vec<Lane<'a>>,
    /// The run's extent, µs (live: the last 10 s).
    pub extent: (u64, u64),
    /// Live: the window follows the run's end.
    pub live: bool,
    /// The playhead, µs (`None` live).
    pub playhead_us: Option<u64>,
    /// Bands behind every branch.
    pub bands: Vec<(Band, BandKind)>,
    /// Instead of lanes: why there are none (relay mode).
    pub message: Option<&'a str>,
    /// The selected packet (branch, record).
    pub selected: Option<(usize, usize)>,
    /// The open correction (branch, index).
    pub open: Option<(usize, usize)>,
    /// The configured one-way latency, µs (a lost packet's reach when no
    /// packet of its direction arrived).
    pub default_transit_us: u64,
}

/// The ruler: round times along the top, a faint line down from each.
pub fn ruler(ctx: &CanvasRenderingContext2d, w: &Window, h: f64) {
    let (step, times) = lanes::ticks(w, 70.0);
    ctx.set_text_baseline("middle");
    ctx.set_text_align("left");
    ctx.set_line_width(1.0);
    for t in times {
        let x = w.x_of(t).round() + 0.5;
        ctx.set_stroke_style_str(ROW);
        ctx.begin_path();
        ctx.move_to(x, RULER - 5.0);
        ctx.line_to(x, h);
        ctx.stroke();
        ctx.set_fill_style_str(FAINT);
        let _ = ctx.fill_text(&lanes::tick_label(t, step), x + 3.0, RULER / 2.0);
    }
    ctx.set_stroke_style_str(ROW);
    ctx.begin_path();
    ctx.move_to(0.0, RULER + 0.5);
    ctx.line_to(w.right + RIGHT, RULER + 0.5);
    ctx.stroke();
}

/// One branch: its labels and rows, its packets (faint kinds first), the
/// lost ones' red crosses, the open story's causes and the selected or
/// hovered packet on top, where a fork parts, and its corrections. Returns
/// the segments and marks drawn (for hit tests).
pub fn lane(
    ctx: &CanvasRenderingContext2d,
    w: &Window,
    scene: &Scene,
    branch: usize,
    lane: &Lane,
    rows: Rows,
    hover: Option<(usize, usize)>,
) -> (Vec<Segment>, Vec<Mark>) {
    let w = *w;
    let mut marks = Vec::new();
    // Labels and rows.
    ctx.set_text_align("left");
    ctx.set_text_baseline("middle");
    ctx.set_fill_style_str(TEXT);
    let _ = ctx.fill_text(lane.title, 8.0, (rows.client_y + rows.server_y) / 2.0);
    ctx.set_fill_style_str(FAINT);
    let _ = ctx.fill_text("client", 8.0, rows.client_y);
    let _ = ctx.fill_text("server", 8.0, rows.server_y);
    ctx.set_stroke_style_str(ROW);
    ctx.set_line_width(1.0);
    ctx.begin_path();
    for y in [rows.client_y, rows.server_y] {
        ctx.move_to(w.left, y.round() + 0.5);
        ctx.line_to(w.right, y.round() + 0.5);
    }
    ctx.stroke();
    // Packets sent from a little before the window to its end.
    let first = first_visible(lane.records, &w, LOOK_BACK_US);
    let last = lane.records.partition_point(|p| p.sent.0 <= w.to_us);
    let records = lane
        .records
        .range(first..last)
        .enumerate()
        .map(|(i, p)| (first + i, p));
    let segments = lanes::segments(records, &w, rows, scene.default_transit_us);
    ctx.save();
    ctx.begin_path();
    ctx.rect(
        w.left,
        RULER,
        w.right - w.left,
        rows.server_y + 10.0 - RULER,
    );
    ctx.clip();
    // Faint kinds first, so moves and responses stay on top.
    for style in [
        Style::Update,
        Style::Probe,
        Style::Move,
        Style::Ack,
        Style::State,
        Style::Shot,
        Style::Adjustment,
    ] {
        for overtook in [false, true] {
            for copy in [false, true] {
                let batch = segments
                    .iter()
                    .filter(|s| s.style == style && s.overtook == overtook && s.copy == copy);
                ctx.set_stroke_style_str(colour(style, overtook));
                ctx.set_line_width(if style == Style::Adjustment { 1.6 } else { 1.0 });
                let _ = ctx.set_line_dash(&dash(if copy { &[3.0, 2.0] } else { &[] }));
                ctx.begin_path();
                for s in batch {
                    ctx.move_to(s.from.0, s.from.1);
                    ctx.line_to(s.to.0, s.to.1);
                }
                ctx.stroke();
            }
        }
    }
    let _ = ctx.set_line_dash(&dash(&[]));
    // Lost packets end in a red cross.
    ctx.set_stroke_style_str(LOST);
    ctx.set_line_width(1.5);
    ctx.begin_path();
    for s in segments.iter().filter(|s| s.end != End::Arrived) {
        let (x, y) = s.to;
        ctx.move_to(x - 3.0, y - 3.0);
        ctx.line_to(x + 3.0, y + 3.0);
        ctx.move_to(x - 3.0, y + 3.0);
        ctx.line_to(x + 3.0, y - 3.0);
    }
    ctx.stroke();
    // Reliable-ordered: a resent packet ends in a red ring, one held
    // behind it in an amber dot.
    ctx.begin_path();
    for s in segments.iter().filter(|s| s.resent && !s.copy) {
        let (x, y) = s.to;
        ctx.move_to(x + 3.5, y);
        let _ = ctx.arc(x, y, 3.5, 0.0, std::f64::consts::TAU);
    }
    ctx.stroke();
    ctx.set_fill_style_str(HELD);
    ctx.begin_path();
    for s in segments.iter().filter(|s| s.held && !s.resent && !s.copy) {
        let (x, y) = s.to;
        ctx.move_to(x + 2.0, y);
        let _ = ctx.arc(x, y, 2.0, 0.0, std::f64::consts::TAU);
    }
    ctx.fill();
    // The open story's causes and the selected packet, on top.
    let highlighted = |s: &&Segment| {
        let p = &lane.records[s.record];
        lane.highlight
            .iter()
            .any(|h| h.direction == p.direction && h.index == p.index)
    };
    for s in segments.iter().filter(highlighted) {
        ctx.set_stroke_style_str(CAUSE);
        ctx.set_line_width(3.0);
        ctx.begin_path();
        ctx.move_to(s.from.0, s.from.1);
        ctx.line_to(s.to.0, s.to.1);
        ctx.stroke();
        ctx.begin_path();
        let _ = ctx.arc(s.from.0, s.from.1, 5.0, 0.0, std::f64::consts::TAU);
        ctx.stroke();
    }
    let chosen = [scene.selected, hover];
    for s in segments
        .iter()
        .filter(|s| chosen.contains(&Some((branch, s.record))))
    {
        ctx.set_stroke_style_str(PLAYHEAD);
        ctx.set_line_width(2.5);
        ctx.begin_path();
        ctx.move_to(s.from.0, s.from.1);
        ctx.line_to(s.to.0, s.to.1);
        ctx.stroke();
    }
    ctx.restore();
    // Where the fork parts from the run.
    if let Some(x) = lane.divergence_us.map(|t| w.x_of(t)) {
        if (w.left..=w.right).contains(&x) {
            ctx.set_stroke_style_str(CAUSE);
            ctx.set_line_width(1.0);
            let _ = ctx.set_line_dash(&dash(&[4.0, 3.0]));
            ctx.begin_path();
            ctx.move_to(x, rows.client_y - 8.0);
            ctx.line_to(x, rows.server_y + 8.0);
            ctx.stroke();
            let _ = ctx.set_line_dash(&dash(&[]));
            ctx.set_fill_style_str(CAUSE);
            ctx.set_text_align("left");
            let _ = ctx.fill_text("parts here", x + 4.0, rows.server_y + 1.0);
        }
    }
    // Rollback input ticks, above the client row.
    {
        let playhead = scene.playhead_us.unwrap_or(u64::MAX);
        let records = lane
            .records
            .range(first_visible(lane.records, &w, TICK_LOOK_BACK_US)..);
        for (state, colour) in [
            (TickState::Confirmed, TICK_CONFIRMED),
            (TickState::Repredicted, TICK_REPREDICTED),
            (TickState::Predicted, TICK_PREDICTED),
        ] {
            ctx.set_fill_style_str(colour);
            for (t, _) in tick_states(records.clone(), &lane.rollbacks, playhead)
                .into_iter()
                .filter(|(t, s)| *s == state && *t <= w.to_us)
            {
                ctx.fill_rect(w.x_of(t) - 0.5, rows.client_y - 9.0, 1.5, 5.0);
            }
        }
    }
    // Corrections and a room's events.
    for m in &lane.marks {
        let x = w.x_of(m.t_us);
        if !(w.left - 8.0..=w.right + 8.0).contains(&x) {
            continue;
        }
        let open = scene.open == Some((branch, m.index)) && m.clickable();
        let y = mark(ctx, &w, m, rows, open);
        if m.clickable() {
            marks.push(Mark {
                at: (x, y),
                branch,
                index: m.index,
            });
        }
    }
    (segments, marks)
}

/// The colour of a shot's outcome.
fn hit_colour(hit: Outcome) -> &'static str {
    match hit {
        Outcome::Pending => PLAYHEAD,
        Outcome::Hit => "#4ade80",
        Outcome::Miss => FAINT,
        Outcome::Rejected => LOST,
    }
}

/// Draws mark `m` (`open`: its story is open); returns the y it is hit at.
fn mark(ctx: &CanvasRenderingContext2d, w: &Window, m: &MarkSpec, rows: Rows, open: bool) -> f64 {
    let x = w.x_of(m.t_us);
    let diamond = |y: f64, r: f64, colour: &str, hollow: bool| {
        ctx.begin_path();
        ctx.move_to(x, y - r);
        ctx.line_to(x + r, y);
        ctx.line_to(x, y + r);
        ctx.line_to(x - r, y);
        ctx.close_path();
        ctx.set_fill_style_str(if hollow { BG } else { colour });
        ctx.fill();
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(1.5);
        ctx.stroke();
    };
    let triangle = |y: f64, down: bool, colour: &str| {
        let (tip, base) = if down {
            (y + 6.0, y - 5.0)
        } else {
            (y - 6.0, y + 5.0)
        };
        ctx.begin_path();
        ctx.move_to(x, tip);
        ctx.line_to(x + 5.5, base);
        ctx.line_to(x - 5.5, base);
        ctx.close_path();
        ctx.set_fill_style_str(colour);
        ctx.fill();
    };
    let y = match m.glyph {
        Glyph::Correction => {
            diamond(rows.client_y, if open { 7.0 } else { 5.5 }, CAUSE, m.hollow);
            rows.client_y
        }
        Glyph::Jump => {
            diamond(rows.client_y, if open { 7.0 } else { 5.5 }, JUMP, false);
            rows.client_y
        }
        Glyph::Shot(hit) => {
            triangle(rows.client_y, false, hit_colour(hit));
            rows.client_y
        }
        Glyph::ShotAt(hit) => {
            triangle(rows.server_y, true, hit_colour(hit));
            rows.server_y
        }
        Glyph::AmmoJump => {
            ctx.set_fill_style_str("#fb923c");
            ctx.fill_rect(x - 1.0, rows.client_y - 10.0, 2.0, 20.0);
            rows.client_y
        }
        Glyph::Stale { duplicate } => {
            ctx.set_fill_style_str(if duplicate { LOST } else { "#fb923c" });
            ctx.fill_rect(x - 1.0, rows.client_y + 4.0, 2.0, 7.0);
            rows.client_y
        }
        Glyph::Fill { empty } => {
            ctx.set_fill_style_str(if empty { LOST } else { "#fb923c" });
            ctx.fill_rect(x - 1.0, rows.server_y - 6.0, 2.0, 12.0);
            rows.server_y
        }
    };
    if let Some(from) = m.rewound_from_us {
        // How far back the server looked, on its row.
        let refused = matches!(
            m.glyph,
            Glyph::Shot(Outcome::Rejected) | Glyph::ShotAt(Outcome::Rejected)
        );
        ctx.set_stroke_style_str(if refused { LOST } else { JUMP });
        ctx.set_line_width(2.0);
        let _ = ctx.set_line_dash(&dash(if refused { &[3.0, 2.0] } else { &[] }));
        ctx.begin_path();
        ctx.move_to(w.x_of(from), rows.server_y - 4.0);
        ctx.line_to(w.x_of(m.t_us), rows.server_y - 4.0);
        ctx.stroke();
        let _ = ctx.set_line_dash(&dash(&[]));
    }
    if open {
        ctx.set_stroke_style_str(PLAYHEAD);
        ctx.set_line_width(1.5);
        ctx.begin_path();
        let _ = ctx.arc(x, y, 11.0, 0.0, std::f64::consts::TAU);
        ctx.stroke();
    }
    y
}

/// The bands behind every branch, from the ruler down to `h`.
pub fn bands(ctx: &CanvasRenderingContext2d, w: &Window, bands: &[(Band, BandKind)], h: f64) {
    for (band, kind) in bands {
        if band.to_us < w.from_us || band.from_us > w.to_us {
            continue;
        }
        let x0 = w.x_of(band.from_us).max(w.left);
        let x1 = w.x_of(band.to_us).min(w.right).max(x0 + 2.0);
        ctx.set_fill_style_str(match kind {
            BandKind::Burst => BURST,
            BandKind::Spike => SPIKE,
        });
        ctx.fill_rect(x0, RULER, x1 - x0, h - RULER);
    }
}

/// The playhead at `x`: a line down from the ruler and a marker on it.
pub fn playhead(ctx: &CanvasRenderingContext2d, x: f64, h: f64) {
    ctx.set_stroke_style_str(PLAYHEAD);
    ctx.set_line_width(1.5);
    ctx.begin_path();
    ctx.move_to(x, RULER - 6.0);
    ctx.line_to(x, h);
    ctx.stroke();
    ctx.set_fill_style_str(PLAYHEAD);
    ctx.begin_path();
    ctx.move_to(x - 5.0, 0.0);
    ctx.line_to(x + 5.0, 0.0);
    ctx.line_to(x, 7.0);
    ctx.close_path();
    ctx.fill();
}

fn dash(segments: &[f64]) -> wasm_bindgen::JsValue {
    let a = js_sys::Array::new();
    for s in segments {
        a.push(&wasm_bindgen::JsValue::from_f64(*s));
    }
    a.into()
}
