//! Draws the three panels' bodies with macroquad on one canvas, into the
//! rectangles the page's layout gives them (`crate::panels` measures the
//! HTML panels over the canvas). Pure presentation: everything drawn comes
//! from the [`Frame`], so a second column of panels (an A/B view) is a
//! second call with another endpoint and other rectangles.
//!
//! | module | draws |
//! |---|---|
//! | `view` | world → canvas mapping, clipped primitives, colours |
//! | `arena` | floor, walls, push zone, trails, characters, scale bar |
//! | `panels` | Predicted, Authoritative and Replayed contents (CMC) |
//! | `rollback` | the same three in the rollback model |
//! | `camera` | the Predicted panel's follow camera |
//! | `room` | the three panels in a shared room: the others, shots, the four views of one |

pub mod arena;
pub mod camera;
pub mod panels;
pub mod rollback;
pub mod room;
pub mod view;

use crate::corrections::Group;
use macroquad::prelude::*;
use sim::{ClientEndpoint, Vec2 as SimVec2};
use view::RectF;

/// Where the three panels' bodies are on the canvas, CSS px.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Layout {
    /// Predicted.
    pub predicted: RectF,
    /// Authoritative.
    pub authoritative: RectF,
    /// Replayed.
    pub replayed: RectF,
}

/// What one column of panels draws.
pub struct Frame<'a> {
    /// The client end with all views.
    pub endpoint: &'a ClientEndpoint,
    /// The input direction this frame (the arrow).
    pub input: SimVec2,
    /// Server-only push zones are on (drawn in every panel).
    pub push_zones: bool,
    /// How many of the server's newest corrections the Authoritative
    /// panel draws (UE `p.NetShowCorrections` / `p.NetCorrectionLifetime`).
    pub server_corrections: usize,
    /// The Predicted panel's follow camera: centre (cm) and zoom over the
    /// whole-arena view; `None` shows the whole arena.
    pub follow: Option<(SimVec2, f32)>,
    /// The correction the Replayed panel shows.
    pub correction: Option<&'a Group>,
    /// The local character's mesh offset around its last snap: (s since
    /// the snap, cm), oldest first; `None` before the first snap.
    pub mesh_offsets: Option<&'a [(f32, f32)]>,
    /// What the rollback model's panels need (unused in the CMC model).
    pub rollback: rollback::RollbackDraw<'a>,
}

impl Frame<'_> {
    /// The same frame drawing only the `server_corrections` newest of the
    /// server's corrections, and the Replayed panel's correction only when
    /// `show` (UE `p.NetShowCorrections` / `p.NetCorrectionLifetime`).
    #[must_use]
    pub fn with_corrections(self, server_corrections: usize, show: bool) -> Self {
        Frame {
            server_corrections,
            correction: self.correction.filter(|_| show),
            ..self
        }
    }
}

/// Clears the canvas (to the panels' colour: on software WebGL every
/// blended full-panel rectangle costs ~10 ms a frame, so nothing else
/// fills the background).
pub fn clear() {
    clear_background(view::PANEL_BG);
}

/// Draws one column of panels, in the model its endpoint runs.
pub fn draw(f: &Frame, layout: &Layout) {
    if let Some(r) = f.endpoint.rollback() {
        if layout.predicted.is_drawable() {
            rollback::predicted(f, r, layout.predicted);
        }
        if layout.authoritative.is_drawable() {
            rollback::authoritative(f, r, layout.authoritative);
        }
        if layout.replayed.is_drawable() {
            rollback::replayed(f, layout.replayed);
        }
        return;
    }
    if layout.predicted.is_drawable() {
        panels::predicted(f, layout.predicted);
    }
    if layout.authoritative.is_drawable() {
        panels::authoritative(f, layout.authoritative);
    }
    if layout.replayed.is_drawable() {
        panels::replayed(f, layout.replayed);
    }
}
