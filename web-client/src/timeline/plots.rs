//! The timeline's drawing: the last 10 s of position error (predicted vs
//! authoritative), SavedMove queue length, measured RTT, adjustments per
//! second and packets the conditioner dropped — in the rollback model
//! their analogues: ticks ahead of the last State, the input buffer at the
//! server, measured RTT, visible rollbacks per second, drops — from the
//! [`Timeline`], on the page's `<canvas id="plots">` with the 2D API
//! (beside macroquad's WebGL canvas).
//!
//! Behind all strips, red bands mark when the host's conditioner was in a
//! Gilbert–Elliott loss burst and violet bands a lag spike; a yellow line
//! crosses every strip where an adjustment arrived. So a loss burst is seen
//! turning into dropped packets, a queue spike, an error and an adjustment.
//!
//! In a shared room (no observer view, so no position error) the first
//! strip is the ammo counter as shown, and every jump a server update made
//! in it is marked: red up, violet down.

use super::samples::{Sample, Timeline};
use crate::dom::{clear_2d, in_viewport};
use sim::SimTime;
use wasm_bindgen::JsValue;
use web_sys::{CanvasRenderingContext2d, Document, HtmlCanvasElement};

/// Time shown, µs.
const SPAN_US: u64 = 10_000_000;
/// Minimum time between redraws, ms (the canvas is CPU-drawn; 20 Hz is
/// smooth enough and leaves the main thread to the network).
const DRAW_EVERY_MS: u64 = 50;
/// Minimum time between redraws while the canvas is scrolled out of view,
/// ms: nothing is drawn then, only the check is repeated.
const CHECK_HIDDEN_EVERY_MS: u64 = 250;
/// Left margin for the strip titles, CSS px.
const LEFT: f64 = 118.0;
/// Right margin for the current values, CSS px.
const RIGHT: f64 = 70.0;

const BG: &str = "#161b22";
const GRID: &str = "#2a313b";
/// Labels: ≥ 4.5:1 on the background.
const TEXT: &str = "#a8b1bb";
const FAINT: &str = "#8b949e";
const BURST: &str = "rgba(248, 81, 73, 0.16)";
const SPIKE: &str = "rgba(163, 113, 247, 0.20)";
const ADJ: &str = "rgba(255, 230, 77, 0.75)";
/// Downlink drops (uplink drops use the strip's red).
const DOWN: &str = "#db61a2";
/// An ammo jump up (the naive counter's 9 → 10) and down.
const JUMP_UP: &str = "#ff7b72";
const JUMP_DOWN: &str = "#bf85ff";

/// Reads a yes/no from a sample (in a burst, in a spike).
type Flag = fn(&Sample) -> bool;

/// A strip: title, unit, colour, how to read a sample, lowest y-range.
struct Strip {
    title: &'static str,
    unit: &'static str,
    colour: &'static str,
    value: fn(&Sample) -> Option<f32>,
    min_range: f32,
    /// Highest y-range: larger values are clipped at the top, so one
    /// outlier does not flatten the rest.
    max_range: f32,
    bars: bool,
    /// A dashed reference line (threshold, configured RTT).
    reference: Option<f32>,
}

/// The timeline's canvas.
pub struct Plots {
    canvas: Option<HtmlCanvasElement>,
    ctx: Option<CanvasRenderingContext2d>,
    next_draw: SimTime,
}

impl Plots {
    /// Finds `#plots`; without it, drawing does nothing.
    pub fn new(doc: &Document) -> Plots {
        let (canvas, ctx) = crate::dom::canvas_2d(doc, "plots");
        Plots {
            canvas,
            ctx,
            next_draw: SimTime::ZERO,
        }
    }

    /// Redraws `timeline` (at most every [`DRAW_EVERY_MS`] of the page
    /// clock `page_now`, and only while the canvas is scrolled into view:
    /// the main thread also receives the packets whose arrival times the
    /// RTT read-out measures) with the error threshold (cm) — in the
    /// rollback model the target input buffer (ticks) — and the
    /// configured RTT (ms) as reference lines.
    pub fn draw(
        &mut self,
        timeline: &Timeline,
        page_now: SimTime,
        threshold_cm: f32,
        buffer_target: f32,
        configured_rtt_ms: f32,
    ) {
        if page_now < self.next_draw {
            return;
        }
        let now = timeline.newest().map_or(SimTime::ZERO, |s| s.t);
        let samples: Vec<&Sample> = timeline.last(SPAN_US).collect();
        let (Some(canvas), Some(ctx), Some(window)) = (&self.canvas, &self.ctx, web_sys::window())
        else {
            return;
        };
        if !in_viewport(&window, canvas) {
            self.next_draw = page_now.plus_millis(CHECK_HIDDEN_EVERY_MS);
            return;
        }
        self.next_draw = page_now.plus_millis(DRAW_EVERY_MS);
        let (w, h) = (
            f64::from(canvas.client_width()),
            f64::from(canvas.client_height()),
        );
        clear_2d(canvas, ctx, (w, h), window.device_pixel_ratio(), BG);

        let rollback = samples.last().is_some_and(|s| s.rollback);
        let room = samples.iter().any(|s| s.ammo.is_some());
        let rtt = Strip {
            title: "measured RTT",
            unit: "ms",
            colour: "#4ade80",
            value: |s| s.rtt_ms,
            min_range: configured_rtt_ms * 1.4 + 10.0,
            max_range: f32::INFINITY,
            bars: false,
            reference: Some(configured_rtt_ms),
        };
        let corrections = Strip {
            title: if rollback { "rollbacks" } else { "adjustments" },
            unit: "/s",
            colour: "#ffe64d",
            value: |s| Some(s.adjustments_per_s),
            min_range: 4.0,
            max_range: f32::INFINITY,
            bars: false,
            reference: None,
        };
        let dropped = Strip {
            title: "dropped",
            unit: "pkts",
            colour: "#f85149",
            value: |s| Some((s.dropped_up + s.dropped_down) as f32),
            min_range: 3.0,
            max_range: f32::INFINITY,
            bars: true,
            reference: None,
        };
        let strips = if rollback {
            [
                Strip {
                    title: "ticks ahead",
                    unit: "ticks",
                    colour: "#fb923c",
                    value: |s| Some(s.queue as f32),
                    min_range: 12.0,
                    max_range: f32::INFINITY,
                    bars: false,
                    reference: None,
                },
                Strip {
                    title: "input buffer",
                    unit: "ticks",
                    colour: "#22d3ee",
                    value: |s| s.input_buffer,
                    min_range: buffer_target * 2.0 + 2.0,
                    max_range: f32::INFINITY,
                    bars: false,
                    reference: Some(buffer_target),
                },
                rtt,
                corrections,
                dropped,
            ]
        } else {
            [
                if room {
                    Strip {
                        title: "ammo",
                        unit: "rounds",
                        colour: "#fb923c",
                        value: |s| s.ammo.map(f32::from),
                        min_range: 30.0,
                        max_range: f32::INFINITY,
                        bars: false,
                        reference: None,
                    }
                } else {
                    Strip {
                        title: "position error",
                        unit: "cm",
                        colour: "#22d3ee",
                        value: |s| s.error_cm,
                        min_range: threshold_cm * 1.5,
                        max_range: threshold_cm * 6.0,
                        bars: false,
                        reference: Some(threshold_cm),
                    }
                },
                Strip {
                    title: "SavedMove queue",
                    unit: "moves",
                    colour: "#fb923c",
                    value: |s| Some(s.queue as f32),
                    min_range: 12.0,
                    max_range: f32::INFINITY,
                    bars: false,
                    reference: None,
                },
                rtt,
                corrections,
                dropped,
            ]
        };
        let axis = 18.0;
        let gap = 6.0;
        let strip_h = (h - axis - gap * strips.len() as f64) / strips.len() as f64;
        let plot_w = (w - LEFT - RIGHT).max(10.0);
        let x_of = |t: SimTime| {
            let age = now.micros_since(t).min(SPAN_US) as f64;
            LEFT + plot_w * (1.0 - age / SPAN_US as f64)
        };
        let top = gap;
        let bottom = top + strips.len() as f64 * (strip_h + gap) - gap;

        // Bands: bursts and spikes, behind every strip.
        let bands: [(Flag, &str); 2] = [(|s| s.burst, BURST), (|s| s.spike, SPIKE)];
        for (flag, colour) in bands {
            ctx.set_fill_style_str(colour);
            let mut start: Option<f64> = None;
            let mut prev_x = LEFT;
            for s in &samples {
                let x = x_of(s.t);
                match (flag(s), start) {
                    (true, None) => start = Some(prev_x.max(LEFT)),
                    (false, Some(x0)) => {
                        ctx.fill_rect(x0, top, x - x0, bottom - top);
                        start = None;
                    }
                    _ => {}
                }
                prev_x = x;
            }
            if let Some(x0) = start {
                ctx.fill_rect(x0, top, LEFT + plot_w - x0, bottom - top);
            }
        }

        ctx.set_font("11px ui-monospace, Menlo, Consolas, monospace");
        for (i, strip) in strips.iter().enumerate() {
            let y0 = top + i as f64 * (strip_h + gap);
            draw_strip(ctx, &samples, strip, y0, strip_h, plot_w, &x_of);
        }

        // Ammo jumps: a mark across the ammo strip.
        for (colour, up) in [(JUMP_UP, true), (JUMP_DOWN, false)] {
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(2.0);
            ctx.begin_path();
            for s in samples
                .iter()
                .filter(|s| s.ammo_jump != 0 && (s.ammo_jump > 0) == up)
            {
                let x = x_of(s.t).round();
                ctx.move_to(x, top);
                ctx.line_to(x, top + strip_h);
            }
            ctx.stroke();
        }

        // Adjustments: a line across every strip.
        ctx.set_stroke_style_str(ADJ);
        ctx.set_line_width(1.0);
        ctx.begin_path();
        for s in samples.iter().filter(|s| s.adjustment) {
            let x = x_of(s.t).round() + 0.5;
            ctx.move_to(x, top);
            ctx.line_to(x, bottom);
        }
        ctx.stroke();

        // Time axis.
        ctx.set_fill_style_str(FAINT);
        ctx.set_text_baseline("alphabetic");
        for k in 0..=10 {
            let x = LEFT + plot_w * f64::from(k) / 10.0;
            let label = if k == 10 {
                "now".to_string()
            } else {
                format!("−{} s", 10 - k)
            };
            ctx.set_text_align(match k {
                0 => "left",
                10 => "right",
                _ => "center",
            });
            if k % 2 == 0 {
                let _ = ctx.fill_text(&label, x, h - 5.0);
            }
        }
    }
}

fn draw_strip(
    ctx: &CanvasRenderingContext2d,
    samples: &[&Sample],
    strip: &Strip,
    y0: f64,
    strip_h: f64,
    plot_w: f64,
    x_of: &dyn Fn(SimTime) -> f64,
) {
    let values = samples.iter().filter_map(|s| (strip.value)(s));
    let max = values
        .fold(strip.min_range.max(1.0), f32::max)
        .min(strip.max_range.max(1.0));
    let range = f64::from(nice(max));
    let y_of = |v: f32| y0 + strip_h - (f64::from(v) / range).min(1.0) * strip_h;

    // Frame and mid grid line.
    ctx.set_stroke_style_str(GRID);
    ctx.set_line_width(1.0);
    ctx.stroke_rect(LEFT + 0.5, y0 + 0.5, plot_w - 1.0, strip_h - 1.0);
    ctx.begin_path();
    let mid = (y0 + strip_h / 2.0).round() + 0.5;
    ctx.move_to(LEFT, mid);
    ctx.line_to(LEFT + plot_w, mid);
    let _ = ctx.set_line_dash(&dash(&[2.0, 4.0]));
    ctx.stroke();
    let _ = ctx.set_line_dash(&dash(&[]));

    // Title and unit on the left; the scale's top on the right, above
    // the current value.
    ctx.set_text_align("left");
    ctx.set_text_baseline("top");
    ctx.set_fill_style_str(strip.colour);
    let _ = ctx.fill_text(strip.title, 8.0, y0 + 3.0);
    ctx.set_fill_style_str(FAINT);
    let _ = ctx.fill_text(strip.unit, 8.0, y0 + 17.0);
    if strip.bars {
        // The unit line names the two colours: uplink, then downlink.
        ctx.set_fill_style_str(strip.colour);
        let _ = ctx.fill_text("↑ up", 44.0, y0 + 17.0);
        ctx.set_fill_style_str(DOWN);
        let _ = ctx.fill_text("↓ down", 78.0, y0 + 17.0);
        ctx.set_fill_style_str(FAINT);
    }
    let _ = ctx.fill_text(
        &format!("max {}", fmt(range as f32)),
        LEFT + plot_w + 8.0,
        y0 + 1.0,
    );

    if let Some(r) = strip.reference.filter(|r| *r > 0.0) {
        ctx.set_stroke_style_str(strip.colour);
        ctx.set_global_alpha(0.45);
        let _ = ctx.set_line_dash(&dash(&[5.0, 4.0]));
        ctx.begin_path();
        let y = y_of(r).round() + 0.5;
        ctx.move_to(LEFT, y);
        ctx.line_to(LEFT + plot_w, y);
        ctx.stroke();
        let _ = ctx.set_line_dash(&dash(&[]));
        ctx.set_global_alpha(1.0);
    }

    ctx.set_stroke_style_str(strip.colour);
    ctx.set_fill_style_str(strip.colour);
    ctx.set_line_width(1.5);
    if strip.bars {
        // Stacked: uplink drops in the strip's colour, downlink above.
        for s in samples.iter().filter(|s| s.dropped_up + s.dropped_down > 0) {
            let x = x_of(s.t) - 1.0;
            let y_up = y_of(s.dropped_up as f32);
            let y_all = y_of((s.dropped_up + s.dropped_down) as f32);
            ctx.set_fill_style_str(strip.colour);
            ctx.fill_rect(x, y_up, 2.5, y0 + strip_h - y_up);
            ctx.set_fill_style_str(DOWN);
            ctx.fill_rect(x, y_all, 2.5, y_up - y_all);
        }
    } else {
        ctx.begin_path();
        let mut pen_down = false;
        for s in samples {
            match (strip.value)(s) {
                Some(v) => {
                    let (x, y) = (x_of(s.t), y_of(v));
                    if pen_down {
                        ctx.line_to(x, y);
                    } else {
                        ctx.move_to(x, y);
                        pen_down = true;
                    }
                }
                None => pen_down = false,
            }
        }
        ctx.stroke();
    }

    // Current value.
    let last = samples.last().and_then(|s| (strip.value)(s));
    // At the strip's foot, clear of the scale's top.
    ctx.set_text_align("left");
    ctx.set_text_baseline("bottom");
    ctx.set_fill_style_str(if last.is_some() { strip.colour } else { TEXT });
    let text = last.map_or("–".to_string(), fmt);
    let _ = ctx.fill_text(&text, LEFT + plot_w + 8.0, y0 + strip_h);
}

/// The next 1, 2 or 5 × 10ⁿ at or above `v` (a plot's top).
pub fn nice(v: f32) -> f32 {
    let p = 10f32.powf(v.max(1e-3).log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * p)
}

fn fmt(v: f32) -> String {
    if v >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn dash(segments: &[f64]) -> JsValue {
    let a = js_sys::Array::new();
    for s in segments {
        a.push(&JsValue::from_f64(*s));
    }
    a.into()
}
