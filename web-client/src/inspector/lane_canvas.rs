//! The packet timeline's canvas (`<canvas id="lanes">`, the 2D API): its
//! height (a ruler, then per branch a client row and a server row, sized
//! in [`super::lanes`]), the window shown (following a live run, fitted to
//! a new one, zoomed and panned), when to redraw, and the pointer. Painting is
//! [`super::lane_paint`]; pointer, wheel and keys go through
//! [`super::gesture`]; zoom and pan stay here, everything else is returned
//! to the inspector as an [`Action`].
//!
//! The window's span and plot edges are mirrored on the canvas as
//! `data-from-us`, `data-to-us`, `data-left`, `data-right` (read by the
//! browser tests to aim at a time), and what the first lane shows as
//! `data-moves`, `data-acks`, `data-lost` (packet lines in the window)
//! and `data-shots` (shots marked; `data-shots-b` in the second lane),
//! `data-lanes` (the lanes' titles, ` | ` apart), and `data-lost-updates`: where the
//! lines of the newest lost net updates (and other updates) are halfway,
//! `x,y` CSS px apart by spaces, to aim a click at; `data-playhead-x` is
//! where the playhead was drawn, CSS px (empty: off the window or none).

use super::gesture::{self, Action, Gesture, Mark, Target};
use super::lane_paint::{self as paint, Scene, BG, TEXT};
use super::lanes::{self, Rows, Segment, Window, LANE, LANE_GAP, LEFT, RIGHT, RULER};
use super::pointer::{Events, Input};
use crate::dom::{clear_2d, in_viewport, write_attr};
use web_sys::{CanvasRenderingContext2d, Document, HtmlCanvasElement};

/// Lost net updates whose lines `data-lost-updates` lists, at most (the
/// newest).
const LOST_UPDATES_LISTED: usize = 20;

/// Least time between two redraws of a live timeline, µs of page time
/// (as the plots: the canvas is CPU-drawn).
const LIVE_REDRAW_US: u64 = 50_000;

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
        LaneCanvas::on(doc, "lanes")
    }

    /// Finds the canvas `#id` and listens on it (`#lanes`, or a room
    /// playback's `#recorded-lanes`).
    pub fn on(doc: &Document, id: &str) -> LaneCanvas {
        let (canvas, ctx) = crate::dom::canvas_2d(doc, id);
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

    /// A press or a drag on the empty lanes seeks instead of panning
    /// ([`Gesture::seek_in_lanes`]).
    pub fn seek_in_lanes(&mut self) {
        self.gesture.seek_in_lanes = true;
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
        // Scrolled out of view: nothing to draw (checked again later, the
        // signature kept stale so the next visible frame draws).
        if !in_viewport(&win, canvas) {
            self.signature = 0;
            return;
        }
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
        clear_2d(canvas, ctx, (w, h), dpr, BG);
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
        paint::ruler(ctx, &w_, h);
        paint::bands(ctx, &w_, &scene.bands, h);
        self.drawn.clear();
        self.marks.clear();
        for (i, lane) in scene.lanes.iter().enumerate() {
            let top = RULER + 6.0 + i as f64 * (LANE + LANE_GAP);
            let rows = Rows {
                client_y: top + 8.0,
                server_y: top + LANE - 8.0,
            };
            let (segments, marks) = paint::lane(ctx, &w_, scene, i, lane, rows, self.hover);
            self.drawn.push(segments);
            self.marks.extend(marks);
        }
        self.count(canvas, scene);
        self.playhead_x = scene.playhead_us.map(|t| w_.x_of(t));
        let shown = self.playhead_x.filter(|x| (w_.left..=w_.right).contains(x));
        if let Some(x) = shown {
            paint::playhead(ctx, x, h);
        }
        write_attr(
            canvas,
            "data-playhead-x",
            &shown.map_or(String::new(), |x| format!("{x:.1}")),
        );
    }

    /// Mirrors what the first lane shows on the canvas (for the browser
    /// tests).
    fn count(&self, canvas: &HtmlCanvasElement, scene: &Scene) {
        use super::lane_paint::Glyph;
        use super::lanes::{End, Style};
        let segments = self.drawn.first().map_or(&[][..], Vec::as_slice);
        let of = |f: &dyn Fn(&Segment) -> bool| segments.iter().filter(|s| !s.copy && f(s)).count();
        let shots = |lane: usize| {
            scene.lanes.get(lane).map_or(0, |l| {
                l.marks
                    .iter()
                    .filter(|m| matches!(m.glyph, Glyph::Shot(_) | Glyph::ShotAt(_)))
                    .count()
            })
        };
        for (name, n) in [
            ("data-moves", of(&|s| s.style == Style::Move)),
            ("data-acks", of(&|s| s.style == Style::Ack)),
            ("data-lost", of(&|s| s.end != End::Arrived)),
            ("data-shots", shots(0)),
            ("data-shots-b", shots(1)),
        ] {
            write_attr(canvas, name, &n.to_string());
        }
        let titles: Vec<&str> = scene.lanes.iter().map(|l| l.title).collect();
        write_attr(canvas, "data-lanes", &titles.join(" | "));
        let lost_updates: Vec<String> = segments
            .iter()
            .filter(|s| !s.copy && s.style == Style::Update && s.end != End::Arrived)
            .rev()
            .take(LOST_UPDATES_LISTED)
            .map(|s| {
                let mid = |a: f64, b: f64| (a + b) / 2.0;
                format!("{:.0},{:.0}", mid(s.from.0, s.to.0), mid(s.from.1, s.to.1))
            })
            .collect();
        write_attr(canvas, "data-lost-updates", &lost_updates.join(" "));
    }

    /// A cheap fingerprint of what a draw would show.
    fn signature_of(&self, scene: &Scene, width: f64) -> u64 {
        let mut h = sim::foundation::hash::Fnv64::new();
        h.u64(self.window.from_us);
        h.u64(self.window.to_us);
        h.u64(width.to_bits());
        h.u64(scene.playhead_us.unwrap_or(u64::MAX));
        for l in &scene.lanes {
            h.u64(l.records.len() as u64);
            h.u64(l.records.back().map_or(0, |r| r.sent.0));
            h.u64(l.marks.len() as u64);
            for m in &l.marks {
                h.u64(m.t_us);
                h.u64(m.glyph.code());
            }
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
