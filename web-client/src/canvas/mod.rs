//! The panels' canvas: one macroquad (WebGL) canvas under the page's HTML
//! panels, and what every picture on it is made of. The page's layout
//! gives each panel a body rectangle ([`Layout`], measured by
//! `crate::panels::chrome`); each model's panels draw into them from a
//! [`Frame`] (`crate::cmc::panels`, `crate::rollback::panels`), a shared
//! room's from its own (`crate::room::panels`).
//!
//! | module | holds |
//! |---|---|
//! | `view` | world (cm) → canvas (CSS px) mapping, clipped primitives, colours, text |
//! | `arena` | floor, walls, push zone, trails, characters, the local one's offset and input arrow, scale bar |
//! | `labels` | name tags placed so that none covers another (pure) |
//! | `camera` | the Predicted panel's follow camera (pure) |

pub mod arena;
pub mod camera;
pub mod labels;
pub mod view;

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

/// What one column of panels draws from, in either model (each model's
/// panels take their own part beside it).
#[derive(Clone, Copy)]
pub struct Frame<'a> {
    /// The client end with all views.
    pub endpoint: &'a ClientEndpoint,
    /// The input direction this frame (the arrow).
    pub input: SimVec2,
    /// Server-only push zones are on (drawn in every panel).
    pub push_zones: bool,
    /// The Predicted panel's follow camera: centre (cm) and zoom over the
    /// whole-arena view; `None` shows the whole arena.
    pub follow: Option<(SimVec2, f32)>,
}

/// Clears the canvas (to the panels' colour: on software WebGL every
/// blended full-panel rectangle costs ~10 ms a frame, so nothing else
/// fills the background).
pub fn clear() {
    clear_background(view::PANEL_BG);
}
