//! Pointer, wheel and key events on one element, queued for the main loop
//! ([`Events`]), in CSS px relative to the element. The listeners live as
//! long as the page.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{AddEventListenerOptions, Element, KeyboardEvent, PointerEvent, WheelEvent};

/// One input event.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A primary button press.
    Down(f64, f64),
    /// The pointer moved (pressed or hovering).
    Move(f64, f64),
    /// The press ended.
    Up(f64, f64),
    /// The pointer left the element.
    Leave,
    /// A wheel turn at `x` (`delta_x`, `delta_y` in px, shift held).
    Wheel {
        /// Pointer x.
        x: f64,
        /// Sideways delta.
        dx: f64,
        /// Delta (positive: towards the user).
        dy: f64,
        /// Shift held.
        shift: bool,
    },
    /// A key while the element has focus (`KeyboardEvent.key`, shift).
    Key(String, bool),
}

/// Keys the element takes for itself (the page does not scroll on them).
const OWN_KEYS: [&str; 8] = ["ArrowLeft", "ArrowRight", "Home", "End", "+", "=", "-", "0"];

/// The queue.
#[derive(Clone, Default)]
pub struct Events(Rc<RefCell<Vec<Input>>>);

impl Events {
    /// Listens on `el`.
    pub fn on(el: &Element) -> Events {
        let events = Events::default();
        let push = |q: &Events| {
            let q = q.0.clone();
            move |i: Input| q.borrow_mut().push(i)
        };
        let target = el.clone();
        let p = push(&events);
        listen(el, "pointerdown", false, move |e: PointerEvent| {
            if e.button() == 0 {
                let _ = target.set_pointer_capture(e.pointer_id());
                p(Input::Down(
                    f64::from(e.offset_x()),
                    f64::from(e.offset_y()),
                ));
            }
        });
        let p = push(&events);
        listen(el, "pointermove", false, move |e: PointerEvent| {
            p(Input::Move(
                f64::from(e.offset_x()),
                f64::from(e.offset_y()),
            ));
        });
        let p = push(&events);
        listen(el, "pointerup", false, move |e: PointerEvent| {
            p(Input::Up(f64::from(e.offset_x()), f64::from(e.offset_y())));
        });
        let p = push(&events);
        listen(el, "pointerleave", false, move |_: PointerEvent| {
            p(Input::Leave)
        });
        let p = push(&events);
        listen(el, "wheel", true, move |e: WheelEvent| {
            e.prevent_default();
            p(Input::Wheel {
                x: f64::from(e.offset_x()),
                dx: e.delta_x(),
                dy: e.delta_y(),
                shift: e.shift_key(),
            });
        });
        let p = push(&events);
        listen(el, "keydown", true, move |e: KeyboardEvent| {
            let key = e.key();
            if OWN_KEYS.contains(&key.as_str()) {
                e.prevent_default();
                p(Input::Key(key, e.shift_key()));
            }
        });
        events
    }

    /// The events since the last call, oldest first.
    pub fn take(&self) -> Vec<Input> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

/// Adds a listener for `event` that casts the event to `E`; `active`: it
/// may call `preventDefault` (a non-passive wheel listener).
fn listen<E: JsCast + 'static>(el: &Element, event: &str, active: bool, f: impl Fn(E) + 'static) {
    let cb = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        if let Ok(e) = e.dyn_into::<E>() {
            f(e);
        }
    });
    let options = AddEventListenerOptions::new();
    options.set_passive(!active);
    let _ = el.add_event_listener_with_callback_and_add_event_listener_options(
        event,
        cb.as_ref().unchecked_ref(),
        &options,
    );
    cb.forget();
}
