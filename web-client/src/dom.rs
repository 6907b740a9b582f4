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

/// `true` while `el` is at least partly inside the window's viewport
/// (a canvas scrolled out of view need not be drawn).
pub fn in_viewport(window: &web_sys::Window, el: &Element) -> bool {
    let view_h = window
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    let rect = el.get_bounding_client_rect();
    rect.bottom() > 0.0 && rect.top() < view_h
}

/// Readies a 2D canvas of `w` × `h` CSS px for a draw at `dpr` device
/// pixels per CSS px: its backing store resized (only when that size
/// changed), CSS px mapped onto it, and filled with `background`.
pub fn clear_2d(
    canvas: &web_sys::HtmlCanvasElement,
    ctx: &web_sys::CanvasRenderingContext2d,
    (w, h): (f64, f64),
    dpr: f64,
    background: &str,
) {
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str(background);
    ctx.fill_rect(0.0, 0.0, w, h);
}

/// List `#id` emptied for a rebuild when `signature` (what it would
/// show) differs from `shown` (what it shows, then updated); `None` when
/// nothing changed or there is no such list.
pub fn emptied(doc: &Document, id: &str, shown: &mut String, signature: String) -> Option<Element> {
    if signature == *shown {
        return None;
    }
    *shown = signature;
    let list = doc.get_element_by_id(id)?;
    list.set_text_content(None);
    Some(list)
}

/// Appends to `list` an item with a button carrying `attrs`, marked
/// `current` (`aria-current`), holding a span per part (its class, its
/// text); `false` if the elements could not be made.
pub fn append_button(
    doc: &Document,
    list: &Element,
    attrs: &[(&str, &str)],
    current: bool,
    parts: &[(Option<&str>, &str)],
) -> bool {
    let (Ok(li), Ok(button)) = (doc.create_element("li"), doc.create_element("button")) else {
        return false;
    };
    let _ = button.set_attribute("type", "button");
    for (name, value) in attrs {
        let _ = button.set_attribute(name, value);
    }
    let _ = button.set_attribute("aria-current", if current { "true" } else { "false" });
    for (class, text) in parts {
        if let Ok(span) = doc.create_element("span") {
            if let Some(class) = class {
                let _ = span.set_attribute("class", class);
            }
            span.set_text_content(Some(text));
            let _ = button.append_child(&span);
        }
    }
    let _ = li.append_child(&button);
    let _ = list.append_child(&li);
    true
}

/// Read-outs `[data-metric="<name>"]` looked up once by name (the tests
/// read them by the same names); a missing one is skipped.
pub struct MetricSlots(Vec<(&'static str, Option<Element>)>);

impl MetricSlots {
    /// Looks up the read-outs `names` in `doc`.
    pub fn find(doc: &Document, names: &[&'static str]) -> MetricSlots {
        MetricSlots(
            names
                .iter()
                .map(|&n| (n, query(doc, &format!("[data-metric=\"{n}\"]"))))
                .collect(),
        )
    }

    /// Writes each read-out found with `text(name)`, if it has one.
    pub fn write(&self, text: impl Fn(&str) -> Option<String>) {
        for (name, el) in &self.0 {
            let Some(el) = el else { continue };
            if let Some(text) = text(name) {
                write_text(el, &text);
            }
        }
    }
}

/// The first element matching a CSS selector.
pub fn query(doc: &Document, selector: &str) -> Option<Element> {
    doc.query_selector(selector).ok().flatten()
}

/// Every element matching a CSS selector, in document order.
pub fn query_all(doc: &Document, selector: &str) -> Vec<Element> {
    let Ok(list) = doc.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .collect()
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
