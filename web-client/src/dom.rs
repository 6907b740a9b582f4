//! Small helpers over web-sys shared by the page's parts. Inputs are
//! polled once per frame and compared with the last applied values, so a
//! slider drag applies live without event plumbing; buttons count clicks
//! ([`Clicks`]).

use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, HtmlInputElement, HtmlSelectElement};

/// The `<input>` with this id, if there is one.
pub fn input(doc: &Document, id: &str) -> Option<HtmlInputElement> {
    doc.get_element_by_id(id).and_then(|e| e.dyn_into().ok())
}

/// The `<select>` with this id, if there is one.
pub fn select(doc: &Document, id: &str) -> Option<HtmlSelectElement> {
    doc.get_element_by_id(id).and_then(|e| e.dyn_into().ok())
}

/// The `<canvas>` with this id and its 2D context, each if there is one.
pub fn canvas_2d(
    doc: &Document,
    id: &str,
) -> (
    Option<web_sys::HtmlCanvasElement>,
    Option<web_sys::CanvasRenderingContext2d>,
) {
    let canvas: Option<web_sys::HtmlCanvasElement> =
        doc.get_element_by_id(id).and_then(|e| e.dyn_into().ok());
    let ctx = canvas
        .as_ref()
        .and_then(|c| c.get_context("2d").ok().flatten())
        .and_then(|c| c.dyn_into().ok());
    (canvas, ctx)
}

/// The first element matching a CSS selector.
pub fn query(doc: &Document, selector: &str) -> Option<Element> {
    doc.query_selector(selector).ok().flatten()
}

/// Sets an element's text if it differs (no needless DOM writes).
pub fn write_text(el: &Element, text: &str) {
    if el.text_content().as_deref() != Some(text) {
        el.set_text_content(Some(text));
    }
}

/// Sets an attribute if it differs.
pub fn write_attr(el: &Element, name: &str, value: &str) {
    if el.get_attribute(name).as_deref() != Some(value) {
        let _ = el.set_attribute(name, value);
    }
}

/// Sets or removes a boolean attribute (`hidden`, `disabled`, `open`).
pub fn set_flag(el: &Element, name: &str, on: bool) {
    if el.has_attribute(name) != on {
        if on {
            let _ = el.set_attribute(name, "");
        } else {
            let _ = el.remove_attribute(name);
        }
    }
}

/// Tells the page's scripts a control changed.
pub fn notify(e: &web_sys::EventTarget) {
    if let Ok(ev) = Event::new("input") {
        let _ = e.dispatch_event(&ev);
    }
}

/// A select's value, if it exists.
pub fn select_value(e: &Option<HtmlSelectElement>) -> Option<String> {
    e.as_ref().map(|e| e.value())
}

/// Counts `event`s (e.g. `click`) on element `id`.
#[derive(Clone, Default)]
pub struct Clicks(Rc<Cell<u32>>);

impl Clicks {
    /// Counts `event` on `#id` (nothing if there is no such element).
    pub fn on(doc: &Document, id: &str, event: &str) -> Clicks {
        let c = Clicks::default();
        if let Some(el) = doc.get_element_by_id(id) {
            let counter = c.0.clone();
            let cb = Closure::<dyn FnMut()>::new(move || counter.set(counter.get() + 1));
            let _ = el.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref());
            // Lives as long as the page.
            cb.forget();
        }
        c
    }

    /// Events since the last call.
    pub fn take(&self) -> u32 {
        self.0.replace(0)
    }

    /// Counts one event by hand (a key press a listener filtered).
    pub fn bump(&self) {
        self.0.set(self.0.get() + 1);
    }
}
