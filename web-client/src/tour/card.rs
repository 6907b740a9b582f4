//! The tour's card above the panels: which stop, its sentences with the
//! measured number, the reference, and Back / the stop's control / Next /
//! ×. Usable by keyboard: the buttons are in the tab order, ← and → move
//! between stops and Esc leaves while focus is in the card, and nothing
//! holds the focus there.

use super::texts::{body, number, Words};
use crate::dom::{query, set_flag, write_attr, write_text, Clicks};
use sim::tour::{Found, Reading, Variant};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

/// What the card asks of the page this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Open the tour on its first stop (the header's Tour button).
    Open,
    /// Go to the previous (-1) or next (+1) stop.
    Move(i32),
    /// Turn the stop's control (or back).
    Try,
    /// Leave the tour.
    Close,
}

/// What one stop shows.
pub struct Shown<'a> {
    /// Its place, from 0, and how many stops there are.
    pub index: usize,
    /// Stops in the tour.
    pub count: usize,
    /// Its words.
    pub words: &'a Words,
    /// The run shown.
    pub variant: Variant,
    /// What its number is.
    pub reading: Reading,
    /// The number and where it was read.
    pub found: Found,
}

/// The card and its buttons.
pub struct Card {
    doc: Document,
    root: Option<Element>,
    open: Clicks,
    back: Clicks,
    next: Clicks,
    try_it: Clicks,
    close: Clicks,
    /// A key pressed in the card: -1 ←, +1 →, 2 Esc.
    key: Rc<Cell<i32>>,
    /// The element outlined for the stop.
    target: Option<Element>,
}

impl Card {
    /// The card (hidden) and its listeners.
    pub fn new(doc: &Document) -> Card {
        let root = query(doc, "#tour");
        let key = Rc::new(Cell::new(0));
        if let Some(r) = &root {
            let k = key.clone();
            let cb = Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(
                move |e: web_sys::KeyboardEvent| {
                    let code = match e.key().as_str() {
                        "ArrowLeft" => -1,
                        "ArrowRight" => 1,
                        "Escape" => 2,
                        _ => return,
                    };
                    e.prevent_default();
                    k.set(code);
                },
            );
            let _ = r.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
            // Lives as long as the page.
            cb.forget();
        }
        Card {
            doc: doc.clone(),
            root,
            open: Clicks::on(doc, "tour-open", "click"),
            back: Clicks::on(doc, "tour-back", "click"),
            next: Clicks::on(doc, "tour-next", "click"),
            try_it: Clicks::on(doc, "tour-try", "click"),
            close: Clicks::on(doc, "tour-close", "click"),
            key,
            target: None,
        }
    }

    /// What was asked since the last frame (the first of several).
    pub fn take(&self) -> Option<Ask> {
        let key = self.key.replace(0);
        let asks = [
            (self.open.take() > 0, Ask::Open),
            (self.close.take() > 0 || key == 2, Ask::Close),
            (self.back.take() > 0 || key == -1, Ask::Move(-1)),
            (self.next.take() > 0 || key == 1, Ask::Move(1)),
            (self.try_it.take() > 0, Ask::Try),
        ];
        asks.into_iter().find(|(on, _)| *on).map(|(_, a)| a)
    }

    /// Shows stop `s`; `focus`: move the focus to its heading (a stop
    /// opened by the card's own buttons keeps the focus on them).
    pub fn show(&mut self, s: &Shown, focus: bool) {
        let Some(root) = &self.root else {
            return;
        };
        set_flag(root, "hidden", false);
        let w = s.words;
        let n = number(s.reading, s.found.value);
        let t = s.found.t_us as f64 / 1e6;
        let tried = s.variant == Variant::Tried;
        for (key, text) in [
            ("step", format!("Stop {} of {}", s.index + 1, s.count)),
            ("title", w.title.to_owned()),
            ("reference", format!("Reference {}", w.reference)),
            ("body", body(w, s.variant, &n)),
            ("number", n.clone()),
            (
                "moment",
                format!("paused at {t:.2} s, frame {}", s.found.frame),
            ),
        ] {
            if let Some(e) = self.part(key) {
                write_text(&e, &text);
            }
        }
        if let Some(e) = self.part("number") {
            let raw = s.found.value.map_or(String::new(), |v| format!("{v}"));
            write_attr(&e, "data-value", &raw);
            write_attr(&e, "data-stop", w.key);
            write_attr(&e, "data-variant", if tried { "tried" } else { "shown" });
        }
        if let Some(b) = self.doc.get_element_by_id("tour-try") {
            write_text(&b, if tried { w.untry_label } else { w.try_label });
            write_attr(&b, "aria-pressed", if tried { "true" } else { "false" });
        }
        for (id, off) in [
            ("tour-back", s.index == 0),
            ("tour-next", s.index + 1 == s.count),
        ] {
            if let Some(b) = self.doc.get_element_by_id(id) {
                set_flag(&b, "disabled", off);
            }
        }
        self.point_at(query(&self.doc, w.target));
        if focus {
            if let Some(h) = self
                .part("title")
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = h.focus();
            }
        }
    }

    /// Hides the card and the outline.
    pub fn hide(&mut self) {
        if let Some(r) = &self.root {
            set_flag(r, "hidden", true);
        }
        self.point_at(None);
    }

    fn part(&self, key: &str) -> Option<Element> {
        query(&self.doc, &format!("#tour [data-tour=\"{key}\"]"))
    }

    fn point_at(&mut self, target: Option<Element>) {
        if let Some(old) = self.target.take() {
            let _ = old.class_list().remove_1("tour-target");
        }
        if let Some(t) = &target {
            let _ = t.class_list().add_1("tour-target");
        }
        self.target = target;
    }
}
