//! Test fixtures: the golden suite's scenarios.

use sim::Scenario;

/// A scenario of the golden suite (`scenarios/<name>.json`).
pub fn golden(name: &str) -> Scenario {
    let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("golden scenario");
    serde_json::from_str(&text).expect("a scenario")
}
