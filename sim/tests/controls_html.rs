//! The page's controls (`www/index.html`) say what `sim::controls` says:
//! every slider and number input has the table's min, max, step and
//! default, every checkbox its default, and the page has no range or
//! checkbox the table does not know. (The wasm also writes the table onto
//! the inputs at start; this keeps the HTML a page shows before the wasm
//! loads, and what a reader of index.html sees, from drifting.)

use sim::controls::{self, Range, DIRECTION_PREFIXES};
use std::collections::BTreeMap;

/// The attributes of every `<input>` with an id, by id.
fn inputs(html: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut rest = html;
    while let Some(start) = rest.find("<input") {
        rest = &rest[start + "<input".len()..];
        let end = rest.find('>').expect("an <input> tag ends");
        let attrs = parse_attributes(&rest[..end]);
        if let Some(id) = attrs.get("id") {
            out.insert(id.clone(), attrs);
        }
        rest = &rest[end..];
    }
    out
}

/// `name="value"` pairs and bare names (value "") of one tag.
fn parse_attributes(tag: &str) -> BTreeMap<String, String> {
    let mut attrs = BTreeMap::new();
    let mut s = tag.trim_start();
    while !s.is_empty() && !s.starts_with('/') {
        let name_end = s
            .find(|c: char| c == '=' || c.is_whitespace() || c == '/')
            .unwrap_or(s.len());
        let name = s[..name_end].to_ascii_lowercase();
        s = &s[name_end..];
        let value = if let Some(v) = s.strip_prefix("=\"") {
            let close = v.find('"').expect("a quoted attribute ends");
            s = &v[close + 1..];
            v[..close].to_owned()
        } else {
            String::new()
        };
        attrs.insert(name, value);
        s = s.trim_start();
    }
    attrs
}

fn number(attrs: &BTreeMap<String, String>, name: &str, id: &str) -> f64 {
    attrs
        .get(name)
        .unwrap_or_else(|| panic!("#{id} has no {name}"))
        .parse()
        .unwrap_or_else(|e| panic!("#{id} {name}: {e}"))
}

fn check_range(found: &BTreeMap<String, BTreeMap<String, String>>, id: &str, r: &Range) {
    let attrs = found
        .get(id)
        .unwrap_or_else(|| panic!("index.html has no input #{id}"));
    for (name, want) in [
        ("min", r.min),
        ("max", r.max),
        ("step", r.step),
        ("value", r.default),
    ] {
        let got = number(attrs, name, id);
        assert!(
            (got - want).abs() < 1e-9,
            "#{id} {name}: index.html says {got}, sim::controls says {want}"
        );
    }
}

/// Inputs of the page that are not settings of a run, so `sim::controls`
/// has no range for them: the room recording's playhead (its range is the
/// recording's length, set when one opens).
const NOT_SETTINGS: [&str; 1] = ["recorded-seek"];

#[test]
fn index_html_agrees_with_the_controls_table() {
    let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../www/index.html"))
        .expect("www/index.html");
    let found = inputs(&html);
    let mut known = Vec::new();
    for r in controls::PAGE_RANGES {
        check_range(&found, r.id, r);
        known.push(r.id.to_owned());
    }
    for r in controls::PER_DIRECTION {
        for prefix in DIRECTION_PREFIXES {
            let id = format!("{prefix}{}", r.id);
            check_range(&found, &id, r);
            known.push(id);
        }
    }
    for s in controls::PAGE_SWITCHES {
        let attrs = found
            .get(s.id)
            .unwrap_or_else(|| panic!("index.html has no checkbox #{}", s.id));
        assert_eq!(
            attrs.get("type").map(String::as_str),
            Some("checkbox"),
            "#{}",
            s.id
        );
        assert_eq!(
            attrs.contains_key("checked"),
            s.default,
            "#{} checked: sim::controls says {}",
            s.id,
            s.default
        );
        known.push(s.id.to_owned());
    }
    for r in controls::ROLLBACK_RANGES {
        check_range(&found, r.id, r);
        known.push(r.id.to_owned());
    }
    for id in NOT_SETTINGS {
        assert!(found.contains_key(id), "index.html has no #{id} any more");
        known.push(id.to_owned());
    }
    let unknown: Vec<&String> = found
        .iter()
        .filter(|(_, a)| {
            matches!(
                a.get("type").map(String::as_str),
                Some("range" | "number" | "checkbox")
            )
        })
        .map(|(id, _)| id)
        .filter(|id| !known.contains(id))
        .collect();
    assert!(
        unknown.is_empty(),
        "inputs in index.html that sim::controls does not define: {unknown:?}"
    );
}

#[test]
fn the_attribute_parser_reads_quoted_and_bare_attributes() {
    let a = parse_attributes(r#" type="checkbox" id="x" checked min="0.5">"#.trim_end_matches('>'));
    assert_eq!(a.get("id").map(String::as_str), Some("x"));
    assert!(a.contains_key("checked"));
    assert_eq!(a.get("min").map(String::as_str), Some("0.5"));
}

/// The `value`s of the `<option>`s of `<select id="{id}">`, and which one
/// is `selected`.
fn select_options(html: &str, id: &str) -> (Vec<String>, Option<String>) {
    let start = html
        .find(&format!("<select id=\"{id}\""))
        .unwrap_or_else(|| panic!("index.html has no select #{id}"));
    let body = &html[start..];
    let body = &body[..body.find("</select>").expect("the select ends")];
    let mut values = Vec::new();
    let mut selected = None;
    let mut rest = body;
    while let Some(at) = rest.find("<option") {
        rest = &rest[at + "<option".len()..];
        let end = rest.find('>').expect("an <option> tag ends");
        let attrs = parse_attributes(&rest[..end]);
        let value = attrs.get("value").cloned().unwrap_or_default();
        if attrs.contains_key("selected") {
            selected = Some(value.clone());
        }
        values.push(value);
    }
    (values, selected)
}

#[test]
fn the_tick_rate_select_offers_every_rate_and_starts_at_the_default() {
    use sim::rollback::{RollbackConfig, TickRate};
    let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../www/index.html"))
        .expect("www/index.html");
    let (values, selected) = select_options(&html, "rollback-tick-rate");
    let want: Vec<String> = TickRate::ALL.iter().map(|r| r.hz().to_string()).collect();
    assert_eq!(values, want);
    assert_eq!(
        selected,
        Some(RollbackConfig::default().tick_rate.hz().to_string())
    );
    let (models, selected) = select_options(&html, "model");
    assert_eq!(models, ["cmc", "rollback"]);
    assert_eq!(selected.as_deref(), Some(sim::Model::default().name()));
}
