//! Test fixtures: the golden suite's scenarios.

use sim::Scenario;

/// A scenario of the golden suite (`scenarios/<name>.json`), upgraded
/// from the version it was saved as.
pub fn golden(name: &str) -> Scenario {
    let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("golden scenario");
    sim::scenario::codec::open_file(&bytes)
        .expect("a scenario")
        .scenario
}
