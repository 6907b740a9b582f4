//! What the page shows of each model: `www/index.html` marks the
//! elements that belong to one model with `data-model="cmc"` or
//! `data-model="rollback"` (metric rows, legend entries, the Replayed
//! panel's empty text) and the words that change with it with
//! `data-label-rollback` (a CMC counter whose rollback analogue is shown
//! under its own name). [`ModelView::show`] applies a model: elements of
//! the other model are hidden, except the control sections, which fold
//! and say why (`data-inactive`) so they can still be opened.

use crate::dom::{query_all, set_flag, write_attr, write_text};
use wasm_bindgen::JsCast;
use web_sys::{Document, HtmlDetailsElement};

/// See the module docs.
pub struct ModelView {
    doc: Document,
    shown: Option<&'static str>,
}

impl ModelView {
    /// Nothing applied yet.
    pub fn new(doc: &Document) -> ModelView {
        ModelView {
            doc: doc.clone(),
            shown: None,
        }
    }

    /// Shows the page for `model` (`cmc` or `rollback`); does nothing when
    /// it is already shown.
    pub fn show(&mut self, model: &'static str) {
        if self.shown == Some(model) {
            return;
        }
        self.shown = Some(model);
        if let Some(root) = self.doc.document_element() {
            write_attr(&root, "data-model", model);
        }
        for el in query_all(&self.doc, "[data-model]") {
            let mine = el.get_attribute("data-model").as_deref() == Some(model);
            match el.dyn_ref::<HtmlDetailsElement>() {
                Some(section) => {
                    section.set_open(mine);
                    set_flag(&el, "data-inactive", !mine);
                }
                None => set_flag(&el, "hidden", !mine),
            }
        }
        for el in query_all(&self.doc, "[data-label-rollback]") {
            if el.get_attribute("data-label-cmc").is_none() {
                let cmc = el.text_content().unwrap_or_default();
                write_attr(&el, "data-label-cmc", &cmc);
            }
            let attr = if model == "rollback" {
                "data-label-rollback"
            } else {
                "data-label-cmc"
            };
            if let Some(text) = el.get_attribute(attr) {
                write_text(&el, &text);
            }
        }
    }
}
