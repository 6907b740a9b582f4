//! A page control bound to its entry in [`sim::controls`]: a [`Slider`]
//! (range or number input) or a [`Toggle`] (checkbox). At start the
//! control takes its min, max, step and default from the table; then the
//! value it shows is the value in force — written back by the page when a
//! preset or a scenario sets it, and its read-out (`#<id>-value`), track
//! fill and note (`[data-note="<id>"]`) follow — or it is disabled with
//! the reason.

use crate::dom::{input, write_text};
use sim::controls::{Range, Switch};
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement, HtmlInputElement};

/// A slider or number input (see the module docs).
pub struct Slider {
    spec: Range,
    input: Option<HtmlInputElement>,
    output: Option<Element>,
    note: Option<Element>,
}

impl Slider {
    /// Finds `#<id>` (with `prefix` before the spec's id, e.g. `up-`) and
    /// writes the table's min, max, step and default onto it.
    pub fn new(doc: &Document, spec: Range, prefix: &str) -> Slider {
        let id = format!("{prefix}{}", spec.id);
        let input = input(doc, &id);
        if let Some(e) = &input {
            for (name, v) in [
                ("min", spec.min),
                ("max", spec.max),
                ("step", spec.step),
                ("value", spec.default),
            ] {
                let _ = e.set_attribute(name, &format_number(v));
            }
        }
        Slider {
            spec,
            output: doc.get_element_by_id(&format!("{id}-value")),
            note: doc
                .query_selector(&format!("[data-note=\"{id}\"]"))
                .ok()
                .flatten(),
            input,
        }
    }

    /// The value shown, clamped to the range (the default when the input
    /// is missing or empty).
    pub fn value(&self) -> f64 {
        self.spec.clamp(
            self.input
                .as_ref()
                .map(|e| e.value_as_number())
                .filter(|v| v.is_finite())
                .unwrap_or(self.spec.default),
        )
    }

    /// Shows `v` (if it differs, so that typing is not disturbed).
    pub fn show(&self, v: f64) {
        if let Some(e) = &self.input {
            if e.value_as_number() != v {
                e.set_value_as_number(v);
            }
        }
    }

    /// Writes the read-out (`text`, or the value with the table's step
    /// precision) and the range's fill.
    pub fn write_readout(&self, text: Option<&str>) {
        let v = self.value();
        if let Some(out) = &self.output {
            match text {
                Some(t) => write_text(out, t),
                None => write_text(out, &format_number(v)),
            }
        }
        if let Some(e) = self.input.as_ref().and_then(|e| e.dyn_ref::<HtmlElement>()) {
            let fill = (v - self.spec.min) / (self.spec.max - self.spec.min) * 100.0;
            let fill = format!("{fill:.1}%");
            let style = e.style();
            if style.get_property_value("--fill").ok().as_deref() != Some(fill.as_str()) {
                let _ = style.set_property("--fill", &fill);
            }
        }
    }

    /// Writes the note under the control (the UE setting it mirrors in
    /// force, or why it is disabled).
    pub fn write_note(&self, text: &str) {
        if let Some(n) = &self.note {
            write_text(n, text);
        }
    }

    /// Enables the control, or disables it with `reason` as its tooltip
    /// and note.
    pub fn set_disabled(&self, reason: Option<&str>) {
        if let Some(e) = &self.input {
            let off = reason.is_some();
            if e.disabled() != off {
                e.set_disabled(off);
            }
            match reason {
                Some(r) => {
                    let _ = e.set_attribute("aria-description", r);
                }
                None => {
                    let _ = e.remove_attribute("aria-description");
                }
            }
        }
        if let Some(r) = reason {
            self.write_note(r);
        }
    }
}

/// A checkbox bound to its [`Switch`].
pub struct Toggle {
    spec: Switch,
    input: Option<HtmlInputElement>,
}

impl Toggle {
    /// Finds `#<id>`; its default state comes from the table.
    pub fn new(doc: &Document, spec: Switch) -> Toggle {
        let input = input(doc, spec.id);
        if let Some(e) = &input {
            e.set_default_checked(spec.default);
        }
        Toggle { spec, input }
    }

    /// Checked now (the default when missing).
    pub fn on(&self) -> bool {
        self.input
            .as_ref()
            .map_or(self.spec.default, |e| e.checked())
    }

    /// Shows `on`.
    pub fn show(&self, on: bool) {
        if let Some(e) = &self.input {
            if e.checked() != on {
                e.set_checked(on);
            }
        }
    }
}

/// A number as the page writes it: no trailing zeros (`0.1`, `16`,
/// `0.05`).
pub fn format_number(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn numbers_are_written_without_trailing_zeros() {
        assert_eq!(format_number(16.0), "16");
        assert_eq!(format_number(0.1), "0.1");
        assert_eq!(format_number(0.05), "0.05");
        assert_eq!(format_number(1000.0), "1000");
        assert_eq!(format_number(-0.0), "0");
    }
}
