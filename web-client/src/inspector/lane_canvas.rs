//! The packet timeline's canvas (`<canvas id="lanes">`, the 2D API): a
//! ruler, then per branch a client row and a server row with every packet
//! as a line between them ([`super::lanes`]), correction marks on the
//! client row, loss-burst and lag-spike bands behind, and the playhead.
//! Pointer, wheel and keys go through [`super::gesture`]; zoom and pan
//! stay here, everything else is returned to the inspector as an
//! [`Action`].
//!
//! The window's span and plot edges are mirrored on the canvas as
//! `data-from-us`, `data-to-us`, `data-left`, `data-right` (read by the
//! browser tests to aim at a time).

use super::gesture::{self, Action, Gesture, Mark, Target};
use super::lanes::{self, Band, End, Rows, Segment, Style, Window};
use super::pointer::{Events, Input};
use super::story_view::PacketRef;
use crate::dom::write_attr;
use sim::net::trace::PacketRecord;
use std::collections::VecDeque;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, Document, HtmlCanvasElement};

/// Left gutter for the row labels, CSS px.
const LEFT: f64 = 128.0;
/// Right margin, CSS px.
const RIGHT: f64 = 14.0;
/// The ruler's height, CSS px.
const RULER: f64 = 22.0;
/// A branch's height: client row, packets, server row, CSS px.
const LANE: f64 = 62.0;
/// Space between branches, CSS px.
const LANE_GAP: f64 = 12.0;
/// Least time between two redraws of a live timeline, µs of page time
/// (as the plots: the canvas is CPU-drawn).
const LIVE_REDRAW_US: u64 = 50_000;
/// Packets sent this long before the window may still land in it, µs.
const LOOK_BACK_US: u64 = 3_000_000;

const BG: &str = "#161b22";
const ROW: &str = "#2a313b";
const TEXT: &str = "#aeb7c1";
const FAINT: &str = "#8b949e";
const LOST: &str = "#f85149";
const BURST: &str = "rgba(248, 81, 73, 0.14)";
const SPIKE: &str = "rgba(163, 113, 247, 0.18)";
const PLAYHEAD: &str = "#e6edf3";
const CAUSE: &str = "#ffe64d";

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

/// A correction to mark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarkSpec {
    /// When it was applied, µs.
    pub t_us: u64,
    /// Its index in its branch's corrections.
    pub index: usize,
    /// Redundant (an echo of the one before): drawn hollow.
    pub hollow: bool,
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

/// The canvas and its state.
pub struct LaneCanvas {
    canvas: Option<HtmlCanvasElement>,
    ctx: Option<CanvasRenderingContext2d>,
    events: Events,
    gesture: Gesture,
    window: Window,
    fitted_extent: Option<(u64, u64)>,
    /// What the last draw put where (for hit tests).
    drawn: Vec<Vec<Segment>>,
    marks: Vec<Mark>,
    playhead_x: Option<f64>,
    /// The packet under the pointer (branch, record).
    pub hover: Option<(usize, usize)>,
    signature: u64,
    next_live_draw: u64,
}

impl LaneCanvas {
    /// Finds `#lanes` and listens on it.
    pub fn new(doc: &Document) -> LaneCanvas {
        let canvas: Option<HtmlCanvasElement> = doc
            .get_element_by_id("lanes")
            .and_then(|e| e.dyn_into().ok());
        let ctx = canvas
            .as_ref()
            .and_then(|c| c.get_context("2d").ok().flatten())
            .and_then(|c| c.dyn_into().ok());
        let events = canvas
            .as_ref()
            .map_or_else(Events::default, |c| Events::on(c));
        LaneCanvas {
            canvas,
            ctx,
            events,
            gesture: Gesture::default(),
            window: Window::new(0, lanes::LIVE_SPAN_US, LEFT, LEFT + 100.0),
            fitted_extent: None,
            drawn: Vec::new(),
            marks: Vec::new(),
            playhead_x: None,
            hover: None,
            signature: 0,
            next_live_draw: 0,
        }
    }

    /// Shows the whole run again.
    pub fn fit(&mut self) {
        if let Some(extent) = self.fitted_extent {
            self.window.from_us = extent.0;
            self.window.to_us = extent.1.max(extent.0 + 1);
            self.signature = 0;
        }
    }

    /// Shows `from_us..to_us` (an opened correction's episode).
    pub fn focus(&mut self, from_us: u64, to_us: u64, extent: (u64, u64)) {
        self.window.focus(from_us, to_us, extent);
        self.signature = 0;
    }

    /// Handles the queued input against the last draw; returns what the
    /// inspector must do. Zoom and pan are done here.
    pub fn take_actions(&mut self, extent: (u64, u64)) -> Vec<Action> {
        let mut out = Vec::new();
        for input in self.events.take() {
            let action = match input {
                Input::Down(x, y) => {
                    let target = self.hit((x, y));
                    self.gesture.down((x, y), target, &self.window)
                }
                Input::Move(x, y) if self.gesture.active() => {
                    self.gesture.drag((x, y), &self.window)
                }
                Input::Move(x, y) => {
                    self.hover = match self.hit((x, y)) {
                        Target::Packet { branch, record } => Some((branch, record)),
                        _ => None,
                    };
                    None
                }
                Input::Up(x, y) => self.gesture.up((x, y), &self.window),
                Input::Leave => {
                    self.hover = None;
                    None
                }
                Input::Wheel { x, dx, dy, shift } => Some(Gesture::wheel(x, dx, dy, shift)),
                Input::Key(k, shift) => gesture::key(&k, shift, &self.window, extent),
            };
            match action {
                Some(Action::Zoom { x, factor }) => {
                    self.window.zoom(x, factor, extent);
                    self.signature = 0;
                }
                Some(Action::Pan(dx)) => {
                    self.window.pan(dx, extent);
                    self.signature = 0;
                }
                Some(Action::Fit) => {
                    self.window.from_us = extent.0;
                    self.window.to_us = extent.1.max(extent.0 + 1);
                    self.signature = 0;
                }
                Some(a) => out.push(a),
                None => {}
            }
        }
        out
    }

    fn hit(&self, p: (f64, f64)) -> Target {
        let segments: Vec<(usize, &[Segment])> = self
            .drawn
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.as_slice()))
            .collect();
        gesture::hit(p, &self.marks, self.playhead_x, RULER, &segments)
    }

    /// Draws `scene` if anything changed (a live timeline at most every
    /// [`LIVE_REDRAW_US`] of `page_now_us`).
    pub fn draw(&mut self, scene: &Scene, page_now_us: u64) {
        let (Some(canvas), Some(ctx), Some(win)) =
            (self.canvas.clone(), self.ctx.clone(), web_sys::window())
        else {
            return;
        };
        let (canvas, ctx) = (&canvas, &ctx);
        let lanes_n = scene.lanes.len().max(1) as f64;
        let css_h = RULER + lanes_n * (LANE + LANE_GAP) + 4.0;
        let style = canvas.style();
        let height = format!("{css_h}px");
        if style.get_property_value("height").ok().as_deref() != Some(height.as_str()) {
            let _ = style.set_property("height", &height);
        }
        let dpr = win.device_pixel_ratio();
        let (w, h) = (f64::from(canvas.client_width()), css_h);
        // The window: following the run live, fitted once to a new run.
        if scene.live {
            self.window.from_us = scene.extent.0;
            self.window.to_us = scene.extent.1.max(scene.extent.0 + 1);
            self.fitted_extent = None;
        } else if self.fitted_extent != Some(scene.extent) {
            let grew = self
                .fitted_extent
                .is_some_and(|(from, _)| from == scene.extent.0);
            if !grew {
                self.window.from_us = scene.extent.0;
                self.window.to_us = scene.extent.1.max(scene.extent.0 + 1);
            }
            self.fitted_extent = Some(scene.extent);
        }
        self.window.left = LEFT;
        self.window.right = (w - RIGHT).max(LEFT + 10.0);
        let signature = self.signature_of(scene, w);
        if scene.live {
            if page_now_us < self.next_live_draw && signature == self.signature {
                return;
            }
            self.next_live_draw = page_now_us + LIVE_REDRAW_US;
        } else if signature == self.signature {
            return;
        }
        self.signature = signature;
        let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
        if canvas.width() != pw || canvas.height() != ph {
            canvas.set_width(pw);
            canvas.set_height(ph);
        }
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        ctx.set_fill_style_str(BG);
        ctx.fill_rect(0.0, 0.0, w, h);
        for (name, value) in [
            ("data-from-us", self.window.from_us.to_string()),
            ("data-to-us", self.window.to_us.to_string()),
            ("data-left", format!("{}", self.window.left)),
            ("data-right", format!("{}", self.window.right)),
        ] {
            write_attr(canvas, name, &value);
        }
        ctx.set_font("11px ui-monospace, Menlo, Consolas, monospace");
        if let Some(message) = scene.message {
            ctx.set_fill_style_str(TEXT);
            ctx.set_text_align("left");
            ctx.set_text_baseline("middle");
            let _ = ctx.fill_text(message, 12.0, h / 2.0);
            self.drawn.clear();
            self.marks.clear();
            self.playhead_x = None;
            return;
        }
        let w_ = self.window;
        self.draw_ruler(ctx, &w_, h);
        for (band, kind) in &scene.bands {
            if band.to_us < w_.from_us || band.from_us > w_.to_us {
                continue;
            }
            let x0 = w_.x_of(band.from_us).max(w_.left);
            let x1 = w_.x_of(band.to_us).min(w_.right).max(x0 + 2.0);
            ctx.set_fill_style_str(match kind {
                BandKind::Burst => BURST,
                BandKind::Spike => SPIKE,
            });
            ctx.fill_rect(x0, RULER, x1 - x0, h - RULER);
        }
        self.drawn.clear();
        self.marks.clear();
        for (i, lane) in scene.lanes.iter().enumerate() {
            let top = RULER + 6.0 + i as f64 * (LANE + LANE_GAP);
            let rows = Rows {
                client_y: top + 8.0,
                server_y: top + LANE - 8.0,
            };
            self.draw_lane(ctx, scene, i, lane, rows);
        }
        self.playhead_x = scene.playhead_us.map(|t| w_.x_of(t));
        if let Some(x) = self.playhead_x.filter(|x| (w_.left..=w_.right).contains(x)) {
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
    }

    fn draw_ruler(&self, ctx: &CanvasRenderingContext2d, w: &Window, h: f64) {
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

    fn draw_lane(
        &mut self,
        ctx: &CanvasRenderingContext2d,
        scene: &Scene,
        branch: usize,
        lane: &Lane,
        rows: Rows,
    ) {
        let w = self.window;
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
        let first = lane
            .records
            .partition_point(|p| p.sent.0 + LOOK_BACK_US < w.from_us);
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
        let chosen = [scene.selected, self.hover];
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
        // Corrections: diamonds on the client row.
        for m in &lane.marks {
            let x = w.x_of(m.t_us);
            if !(w.left - 8.0..=w.right + 8.0).contains(&x) {
                continue;
            }
            let y = rows.client_y;
            let open = scene.open == Some((branch, m.index));
            let r = if open { 7.0 } else { 5.5 };
            ctx.begin_path();
            ctx.move_to(x, y - r);
            ctx.line_to(x + r, y);
            ctx.line_to(x, y + r);
            ctx.line_to(x - r, y);
            ctx.close_path();
            ctx.set_fill_style_str(BG);
            ctx.fill();
            ctx.set_stroke_style_str(CAUSE);
            ctx.set_line_width(1.5);
            if !m.hollow {
                ctx.set_fill_style_str(CAUSE);
                ctx.fill();
            }
            ctx.stroke();
            if open {
                ctx.set_stroke_style_str(PLAYHEAD);
                ctx.begin_path();
                let _ = ctx.arc(x, y, r + 4.0, 0.0, std::f64::consts::TAU);
                ctx.stroke();
            }
            self.marks.push(Mark {
                at: (x, y),
                branch,
                index: m.index,
            });
        }
        self.drawn.push(segments);
    }

    /// A cheap fingerprint of what a draw would show.
    fn signature_of(&self, scene: &Scene, width: f64) -> u64 {
        let mut h = sim::hash::Fnv64::new();
        h.u64(self.window.from_us);
        h.u64(self.window.to_us);
        h.u64(width.to_bits());
        h.u64(scene.playhead_us.unwrap_or(u64::MAX));
        for l in &scene.lanes {
            h.u64(l.records.len() as u64);
            h.u64(l.marks.len() as u64);
            h.u64(l.highlight.len() as u64);
        }
        for o in [scene.selected, scene.open, self.hover] {
            let (a, b) = o.unwrap_or((usize::MAX, usize::MAX));
            h.u64(a as u64);
            h.u64(b as u64);
        }
        h.u64(u64::from(scene.message.is_some()));
        h.finish()
    }
}

fn dash(segments: &[f64]) -> wasm_bindgen::JsValue {
    let a = js_sys::Array::new();
    for s in segments {
        a.push(&wasm_bindgen::JsValue::from_f64(*s));
    }
    a.into()
}
