//! The HTML around each panel (`<article class="panel">` over the canvas):
//! title, tools, the line under the title, the footer counters — all
//! crisp, wrapping, readable by a screen reader and by the tests — and the
//! body rectangles the renderer draws into, measured from the layout
//! ([`Bodies`], for the main column and the A/B view's B column alike).

use crate::canvas::view::RectF;
use crate::canvas::Layout;
use crate::dom::{query, select, set_flag, write_text, Clicks};
use web_sys::{Document, Element, HtmlSelectElement};

/// Frames between two measurements of the layout (also re-measured when
/// the canvas changes size).
const MEASURE_EVERY: u32 = 30;

/// The `data-panel-text` slots.
pub const SLOTS: [&str; 7] = [
    "predicted-sub",
    "predicted-foot",
    "authoritative-sub",
    "authoritative-foot",
    "replayed-sub",
    "replayed-foot",
    "replayed-empty",
];

/// One column's three panel bodies over the canvas, and where they were
/// last measured: again every [`MEASURE_EVERY`] frames, when the canvas
/// changes size, or after [`Bodies::remeasure`].
pub struct Bodies {
    canvas: Option<Element>,
    bodies: [Option<Element>; 3],
    layout: Layout,
    canvas_size: (f32, f32),
    frames: u32,
}

impl Bodies {
    /// The bodies `[data-panel-body="predicted{suffix}"]`,
    /// `…authoritative{suffix}`, `…replayed{suffix}` over `#glcanvas`
    /// (`suffix` `""` for the main column, `"-b"` for the B column).
    pub fn find(doc: &Document, suffix: &str) -> Bodies {
        let body = |name: &str| query(doc, &format!("[data-panel-body=\"{name}{suffix}\"]"));
        Bodies {
            canvas: doc.get_element_by_id("glcanvas"),
            bodies: [body("predicted"), body("authoritative"), body("replayed")],
            layout: Layout::default(),
            canvas_size: (0.0, 0.0),
            frames: 0,
        }
    }

    /// The bodies on the canvas, CSS px; measured every [`MEASURE_EVERY`]
    /// frames or when the canvas (`size`, CSS px) changes.
    pub fn layout(&mut self, size: (f32, f32)) -> Layout {
        self.frames += 1;
        if size != self.canvas_size || self.frames >= MEASURE_EVERY {
            self.frames = 0;
            self.canvas_size = size;
            if let Some(c) = &self.canvas {
                self.layout = measure(c, &self.bodies);
            }
        }
        self.layout
    }

    /// Measures again at the next [`Bodies::layout`] (the panels moved
    /// without the canvas changing size).
    pub fn remeasure(&mut self) {
        self.frames = MEASURE_EVERY;
    }
}

/// The rectangles of three panel bodies (Predicted, Authoritative,
/// Replayed) on `canvas`, CSS px; a missing body is empty.
fn measure(canvas: &Element, bodies: &[Option<Element>; 3]) -> Layout {
    let origin = canvas.get_bounding_client_rect();
    let rect = |e: &Option<Element>| {
        e.as_ref().map_or(RectF::default(), |e| {
            let r = e.get_bounding_client_rect();
            RectF {
                x: (r.left() - origin.left()) as f32,
                y: (r.top() - origin.top()) as f32,
                w: r.width() as f32,
                h: r.height() as f32,
            }
        })
    };
    Layout {
        predicted: rect(&bodies[0]),
        authoritative: rect(&bodies[1]),
        replayed: rect(&bodies[2]),
    }
}

/// Handles on the panels' HTML.
pub struct PanelChrome {
    bodies: Bodies,
    slots: Vec<(&'static str, Option<Element>)>,
    zoom: Option<HtmlSelectElement>,
    older: Clicks,
    newer: Clicks,
    doc: Document,
}

impl PanelChrome {
    /// Looks the panels up.
    pub fn new(doc: &Document) -> PanelChrome {
        PanelChrome {
            bodies: Bodies::find(doc, ""),
            slots: SLOTS
                .iter()
                .map(|&n| {
                    let el = doc
                        .query_selector(&format!("[data-panel-text=\"{n}\"]"))
                        .ok()
                        .flatten();
                    (n, el)
                })
                .collect(),
            zoom: select(doc, "follow-zoom"),
            older: Clicks::on(doc, "correction-older", "click"),
            newer: Clicks::on(doc, "correction-newer", "click"),
            doc: doc.clone(),
        }
    }

    /// The panels' bodies on the canvas, CSS px; measured every
    /// [`MEASURE_EVERY`] frames or when the canvas (`size`, CSS px)
    /// changes.
    pub fn layout(&mut self, size: (f32, f32)) -> Layout {
        self.bodies.layout(size)
    }

    /// Measures the layout again at the next [`PanelChrome::layout`] (the
    /// panels moved without the canvas changing size: the A/B view).
    pub fn remeasure(&mut self) {
        self.bodies.remeasure();
    }

    /// Writes a text slot.
    pub fn text(&self, slot: &str, text: &str) {
        if let Some((_, Some(el))) = self.slots.iter().find(|(n, _)| *n == slot) {
            write_text(el, text);
        }
    }

    /// Sets a text slot's `data-state` (styles the banner by the run's
    /// state: recording red, replay green).
    pub fn mark(&self, slot: &str, state: &str) {
        if let Some((_, Some(el))) = self.slots.iter().find(|(n, _)| *n == slot) {
            crate::dom::write_attr(el, "data-state", state);
        }
    }

    /// Shows or hides a text slot.
    pub fn show(&self, slot: &str, visible: bool) {
        if let Some((_, Some(el))) = self.slots.iter().find(|(n, _)| *n == slot) {
            set_flag(el, "hidden", !visible);
        }
    }

    /// The follow camera's zoom: `None` for the whole arena.
    pub fn zoom(&self) -> Option<f32> {
        let z: f32 = self.zoom.as_ref()?.value().parse().ok()?;
        (z > 1.0 && z.is_finite()).then_some(z.min(8.0))
    }

    /// ◀ and ▶ presses since the last call.
    pub fn take_steps(&self) -> (u32, u32) {
        (self.older.take(), self.newer.take())
    }

    /// Enables ◀ / ▶ as there are older / newer corrections to show.
    pub fn set_steppable(&self, older: bool, newer: bool) {
        for (id, on) in [("correction-older", older), ("correction-newer", newer)] {
            if let Some(e) = self.doc.get_element_by_id(id) {
                set_flag(&e, "disabled", !on);
            }
        }
    }
}
