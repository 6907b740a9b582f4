//! The A/B view's HTML: the `#ab` toggle, the difference (`#ab-knob`,
//! `#ab-value`), the column headers, the B column's panels (their text
//! slots and the bodies the renderer draws into) and the table of paired
//! numbers (`data-metric="ab-a-…"`, `ab-b-…`, `ab-ratio-…`).

use crate::ab::{Difference, Knob};
use crate::dom::{query, select, set_flag, write_attr, write_text, Clicks};
use crate::paired::Paired;
use crate::panel_chrome::measure;
use crate::render::Layout;
use sim::Model;
use web_sys::{Document, Element, HtmlSelectElement};

/// Frames between two measurements of the B column's layout.
const MEASURE_EVERY: u32 = 30;

/// See the module docs.
pub struct AbChrome {
    doc: Document,
    toggle: Clicks,
    knob: Option<HtmlSelectElement>,
    value: Option<HtmlSelectElement>,
    /// The knob whose choices `#ab-value` lists.
    listed: Option<Knob>,
    canvas: Option<Element>,
    bodies: [Option<Element>; 3],
    layout: Layout,
    size: (f32, f32),
    frames: u32,
}

impl AbChrome {
    /// Looks the view's elements up.
    pub fn new(doc: &Document) -> AbChrome {
        let body = |name: &str| query(doc, &format!("[data-panel-body=\"{name}\"]"));
        let chrome = AbChrome {
            doc: doc.clone(),
            toggle: Clicks::on(doc, "ab", "click"),
            knob: select(doc, "ab-knob"),
            value: select(doc, "ab-value"),
            listed: None,
            canvas: doc.get_element_by_id("glcanvas"),
            bodies: [
                body("predicted-b"),
                body("authoritative-b"),
                body("replayed-b"),
            ],
            layout: Layout::default(),
            size: (0.0, 0.0),
            frames: 0,
        };
        if let Some(k) = &chrome.knob {
            while k.length() > 0 {
                k.remove_with_index(0);
            }
            for knob in Knob::ALL {
                let label = match knob {
                    Knob::Model => "the other model".to_owned(),
                    k => k.name().to_owned(),
                };
                add_option(doc, k, knob.id(), &label);
            }
            k.set_value(Knob::Model.id());
        }
        chrome
    }

    /// `true` when `#ab` was pressed an odd number of times since the
    /// last call.
    pub fn toggled(&self) -> bool {
        self.toggle.take() % 2 == 1
    }

    /// The difference the selects show (the value list follows the knob:
    /// a new knob lists its choices and picks its default B value).
    pub fn difference(&mut self) -> Difference {
        let knob = self
            .knob
            .as_ref()
            .and_then(|k| Knob::parse(&k.value()))
            .unwrap_or(Knob::Model);
        if self.listed != Some(knob) {
            self.listed = Some(knob);
            if let Some(v) = &self.value {
                while v.length() > 0 {
                    v.remove_with_index(0);
                }
                for c in knob.choices() {
                    let label = match knob {
                        Knob::Model => "B runs the other model".to_owned(),
                        k => format!("B: {}", k.format(c)),
                    };
                    add_option(&self.doc, v, &c.to_string(), &label);
                }
                v.set_value(&knob.default_b().to_string());
                set_flag(v, "disabled", knob == Knob::Model);
            }
        }
        let b = self
            .value
            .as_ref()
            .and_then(|v| v.value().parse().ok())
            .unwrap_or(knob.default_b());
        Difference { knob, b }
    }

    /// Disables the knobs that change nothing in `model`.
    pub fn offer_for(&self, model: &Model) {
        if let Some(k) = &self.knob {
            let options = k.options();
            for i in 0..options.length() {
                let Some(o) = options.item(i) else { continue };
                let applies = o
                    .get_attribute("value")
                    .and_then(|v| Knob::parse(&v))
                    .is_some_and(|knob| knob.applies_to(model));
                set_flag(&o, "disabled", !applies);
            }
        }
    }

    /// Picks `knob` in the select (when the one picked stopped applying).
    pub fn pick(&mut self, knob: Knob) {
        if let Some(k) = &self.knob {
            k.set_value(knob.id());
        }
    }

    /// Shows or hides the view: the B column, the headers, the table.
    pub fn set_on(&mut self, on: bool) {
        if let Some(e) = self.doc.get_element_by_id("ab") {
            write_attr(&e, "aria-pressed", if on { "true" } else { "false" });
        }
        if let Some(p) = self.doc.get_element_by_id("panels") {
            set_flag(&p, "data-ab", on);
        }
        for sel in ["[data-column=\"b\"]", "#ab-compare"] {
            if let Some(e) = query(&self.doc, sel) {
                set_flag(&e, "hidden", !on);
            }
        }
        self.frames = MEASURE_EVERY;
    }

    /// The B column's panel bodies on the canvas, CSS px (re-measured
    /// every [`MEASURE_EVERY`] frames or when the canvas changes size).
    pub fn layout(&mut self, size: (f32, f32)) -> Layout {
        self.frames += 1;
        if size != self.size || self.frames >= MEASURE_EVERY {
            self.frames = 0;
            self.size = size;
            if let Some(c) = &self.canvas {
                self.layout = measure(c, &self.bodies);
            }
        }
        self.layout
    }

    /// Writes one of [`SLOTS`].
    pub fn text(&self, slot: &str, text: &str) {
        if let Some(el) = query(&self.doc, &format!("[data-panel-text=\"{slot}\"]")) {
            write_text(&el, text);
        }
    }

    /// Writes the paired numbers.
    pub fn write_table(&self, rows: &[Paired]) {
        for r in rows {
            for (side, text) in [("a", &r.a), ("b", &r.b), ("ratio", &r.ratio)] {
                let sel = format!("[data-metric=\"ab-{side}-{}\"]", r.id);
                if let Some(el) = query(&self.doc, &sel) {
                    write_text(&el, text);
                }
            }
        }
    }
}

fn add_option(doc: &Document, select: &HtmlSelectElement, value: &str, label: &str) {
    if let Ok(o) = doc.create_element("option") {
        let _ = o.set_attribute("value", value);
        o.set_text_content(Some(label));
        let _ = select.append_child(&o);
    }
}
