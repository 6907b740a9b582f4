//! The A/B view's HTML: the `#ab` toggle, the difference (`#ab-knob`,
//! `#ab-value`), the column headers, the B column's panels (their text
//! slots and the bodies the renderer draws into) and the table of paired
//! numbers (`data-metric="ab-a-…"`, `ab-b-…`, `ab-ratio-…`).

use super::difference::{Difference, Knob};
use super::paired::Paired;
use crate::canvas::Layout;
use crate::dom::{query, select, set_flag, write_attr, write_text, Clicks};
use crate::panels::chrome::Bodies;
use sim::Model;
use web_sys::{Document, HtmlSelectElement};

/// See the module docs.
pub struct AbChrome {
    doc: Document,
    toggle: Clicks,
    knob: Option<HtmlSelectElement>,
    value: Option<HtmlSelectElement>,
    /// The knob whose choices `#ab-value` lists.
    listed: Option<Knob>,
    /// The B column's panel bodies.
    bodies: Bodies,
}

impl AbChrome {
    /// Looks the view's elements up.
    pub fn new(doc: &Document) -> AbChrome {
        let chrome = AbChrome {
            doc: doc.clone(),
            toggle: Clicks::on(doc, "ab", "click"),
            knob: select(doc, "ab-knob"),
            value: select(doc, "ab-value"),
            listed: None,
            bodies: Bodies::find(doc, "-b"),
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
        self.bodies.remeasure();
    }

    /// The B column's panel bodies on the canvas, CSS px (see
    /// [`Bodies::layout`]).
    pub fn layout(&mut self, size: (f32, f32)) -> Layout {
        self.bodies.layout(size)
    }

    /// Writes the `data-panel-text` slot `slot` (a B-column panel line, a
    /// column header, the note).
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
