//! UE's console on the page (`#console`): a text input where Enter runs
//! the line, ↑ / ↓ walk back through the lines run, and the answers
//! ([`super::console_text::answer`]) are echoed under it (`#console-out`,
//! the newest [`KEPT_LINES`]).

use super::console_text::Tone;
use crate::dom::input;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, KeyboardEvent};

/// Lines kept under the input.
pub const KEPT_LINES: u32 = 80;

#[derive(Default)]
struct Shared {
    /// Lines entered, not yet run.
    pending: Vec<String>,
    /// Lines run, oldest first, and the one ↑ / ↓ shows.
    history: Vec<String>,
    cursor: usize,
}

/// The console's input and output.
pub struct ConsoleLine {
    doc: Document,
    out: Option<Element>,
    shared: Rc<RefCell<Shared>>,
}

impl ConsoleLine {
    /// Finds `#console` and `#console-out` and listens for keys.
    pub fn new(doc: &Document) -> ConsoleLine {
        let shared: Rc<RefCell<Shared>> = Rc::default();
        if let Some(field) = input(doc, "console") {
            let s = shared.clone();
            let f = field.clone();
            let cb = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
                let mut s = s.borrow_mut();
                match e.key().as_str() {
                    "Enter" => {
                        e.prevent_default();
                        let line = f.value();
                        if !line.trim().is_empty() {
                            s.history.push(line.clone());
                        }
                        s.cursor = s.history.len();
                        s.pending.push(line);
                        f.set_value("");
                    }
                    "ArrowUp" | "ArrowDown" if !s.history.is_empty() => {
                        e.prevent_default();
                        let n = s.history.len();
                        s.cursor = if e.key() == "ArrowUp" {
                            s.cursor.saturating_sub(1)
                        } else {
                            (s.cursor + 1).min(n)
                        };
                        f.set_value(s.history.get(s.cursor).map_or("", String::as_str));
                    }
                    _ => {}
                }
            });
            let _ = field.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
            cb.forget();
        }
        ConsoleLine {
            doc: doc.clone(),
            out: doc.get_element_by_id("console-out"),
            shared,
        }
    }

    /// The lines entered since the last call.
    pub fn take_lines(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.borrow_mut().pending)
    }

    /// Echoes `lines` under the input, the newest at the bottom, scrolled
    /// into view.
    pub fn echo(&self, lines: &[(Tone, String)]) {
        let Some(out) = &self.out else {
            return;
        };
        for (tone, text) in lines {
            if let Ok(p) = self.doc.create_element("div") {
                let _ = p.set_attribute("data-tone", tone.name());
                p.set_text_content(Some(text));
                let _ = out.append_child(&p);
            }
        }
        while out.child_element_count() > KEPT_LINES {
            if let Some(first) = out.first_element_child() {
                first.remove();
            }
        }
        out.set_scroll_top(out.scroll_height());
    }
}
