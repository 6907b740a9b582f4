//! `sim` is built in one-way layers, declared once here ([`SIM`]); a file
//! may import only from its own layer or lower ones. Within a layer
//! folder, its top-level modules follow a declared order: a module imports
//! only the ones before it. Anywhere else, modules beside each other
//! (children of one module) may not import each other in a circle. A
//! module's own file (`mod.rs`) and the files below it may use each other:
//! that is one module split over files (`imports/rules.rs`).
//!
//! The code is read as text (`imports/`): `use` declarations and paths
//! written in the code, resolved to the file that defines what they name
//! (through `pub use`). Doc links and comments do not count.

mod imports;

use imports::rules::{violations, Plan};
use imports::Crate;
use std::path::Path;

/// The layers of `sim` from the bottom up: each a name and its top-level
/// modules, in their order within the layer; then the order of the
/// top-level modules inside each layer folder (and each model), bottom
/// first.
const SIM: Plan = Plan {
    layers: LAYERS,
    order: ORDER,
};

const LAYERS: &[(&str, &[&str])] = &[
    ("foundation", &["foundation"]),
    ("net", &["net"]),
    ("models", &["cmc", "rollback", "room"]),
    ("protocol", &["protocol"]),
    ("endpoints", &["endpoints"]),
    ("scenario", &["scenario"]),
    ("tools", &["inspect", "console", "tour"]),
    ("controls", &["controls"]),
];

const ORDER: &[(&str, &[&str])] = &[
    (
        "foundation",
        &[
            "hash",
            "math",
            "time",
            "bounded",
            "control",
            "interpolation",
            "world",
            "movement",
            "bot",
        ],
    ),
    (
        "net",
        &[
            "codec",
            "newest_wins",
            "gilbert_elliott",
            "transport",
            "conditioner",
            "totals",
            "link_stats",
            "link_meter",
            "trace",
            "trace_wire",
            "trace_stream",
            "controls",
            "settings",
            "preset",
        ],
    ),
    (
        "cmc",
        &[
            "controls",
            "smoothing",
            "saved_move",
            "wire",
            "client_config",
            "proxy",
            "server",
            "rules",
            "client",
        ],
    ),
    (
        "rollback",
        &[
            "controls",
            "tick",
            "input",
            "game",
            "snapshot",
            "arena",
            "config",
            "server",
            "client",
            "time_sync",
            "sync_test",
            "wire",
            "log",
            "predictor",
            "bot",
            "recording",
            "playback",
            "seats",
            "match_server",
        ],
    ),
    (
        "room",
        &[
            "seq",
            "hitbox",
            "history",
            "replication",
            "clock",
            "weapon",
            "config",
            "controls",
            "wire",
            "actions",
            "ammo",
            "rewind",
            "shots",
            "proxies",
        ],
    ),
    ("protocol", &["model", "setup", "trace"]),
    (
        "endpoints",
        &[
            "metrics",
            "link",
            "resume",
            "trace",
            "host",
            "client",
            "session",
            "room",
            "rollback_room",
            "match_sample",
        ],
    ),
    (
        "scenario",
        &[
            "error", "outcome", "migrate", "codec", "fork", "run", "validate", "tape",
        ],
    ),
    (
        "inspect",
        &[
            "sample", "budget", "scrub", "origin", "story", "relay", "fork",
        ],
    ),
];

/// Every `.rs` file under `dir`, as (path under it, text).
fn read_tree(dir: &Path, under: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 file name");
        let rel = if under.is_empty() {
            name.to_owned()
        } else {
            format!("{under}/{name}")
        };
        if path.is_dir() {
            read_tree(&path, &rel, out);
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((rel, text));
        }
    }
}

fn sim_crate() -> Crate {
    let mut files = Vec::new();
    read_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut files,
    );
    Crate::parse(files.iter().map(|(p, t)| (p.as_str(), t.as_str())))
}

#[test]
fn sim_imports_only_downward_and_in_no_circle() {
    let krate = sim_crate();
    let imports = krate.imports();
    // The reader sees the crate: it found its files and their imports.
    assert!(krate.files.len() > 80, "{} files", krate.files.len());
    assert!(imports.len() > 300, "{} imports", imports.len());
    let found = violations(&SIM, &krate);
    assert!(
        found.is_empty(),
        "{} layering violations:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// A small crate laid out like `sim`, to show what the check reports.
fn toy(extra: &[(&str, &str)]) -> Vec<String> {
    let mut files: Vec<(&str, &str)> = vec![
        (
            "lib.rs",
            "pub mod foundation; pub mod net; pub use net::codec::encode;",
        ),
        ("foundation/mod.rs", "pub mod hash; pub mod math;"),
        ("foundation/hash.rs", "pub fn fnv() {}"),
        (
            "foundation/math.rs",
            "use super::hash::fnv; pub struct Vec2;",
        ),
        ("net/mod.rs", "pub mod codec;"),
        (
            "net/codec.rs",
            "use crate::foundation::math::Vec2; pub fn encode() {}",
        ),
    ];
    files.extend(extra);
    violations(&SIM, &Crate::parse(files))
        .into_iter()
        .filter(|v| {
            !v.contains("declared order")
                && !v.contains("does not exist")
                && !v.contains("in no layer")
        })
        .collect()
}

#[test]
fn the_check_names_an_upward_import_and_a_circle() {
    assert_eq!(toy(&[]), Vec::<String>::new());
    // foundation (layer 1) reaching up to net (layer 2), through the
    // crate root's re-export, in a unit test.
    let up = toy(&[(
        "foundation/time.rs",
        "#[cfg(test)] mod tests { use crate::encode; }",
    )]);
    assert_eq!(
        up,
        [
            "sim/src/foundation/time.rs -> sim/src/net/codec.rs (`crate::encode`): layer `foundation` (foundation) imports the higher layer `net` (net)",
            // …which closes a circle with net's import of foundation.
            "circle: sim/src/foundation/time.rs -> sim/src/net/codec.rs (`crate::encode`); sim/src/net/codec.rs -> sim/src/foundation/math.rs (`crate::foundation::math::Vec2`)",
        ]
    );
    // hash (declared first) importing math, which imports hash.
    let circle = toy(&[(
        "foundation/hash.rs",
        "pub fn fnv() { let _ = super::math::Vec2; }",
    )]);
    assert_eq!(
        circle,
        [
            "sim/src/foundation/hash.rs -> sim/src/foundation/math.rs (`super::math::Vec2`): `foundation::hash` imports `math`, declared after it",
            "circle: sim/src/foundation/hash.rs -> sim/src/foundation/math.rs (`super::math::Vec2`); sim/src/foundation/math.rs -> sim/src/foundation/hash.rs (`super::hash::fnv`)",
        ]
    );
}

#[test]
fn a_module_and_its_own_parts_may_use_each_other() {
    let parts = toy(&[
        (
            "net/link/mod.rs",
            "mod meter; pub struct Link { m: meter::Meter }",
        ),
        ("net/link/meter.rs", "use super::Link; pub struct Meter;"),
    ]);
    assert_eq!(parts, Vec::<String>::new());
    // …but the parts beside each other may not.
    let circle = toy(&[
        ("net/link/mod.rs", "mod a; mod b;"),
        ("net/link/a.rs", "use super::b::B; pub struct A;"),
        ("net/link/b.rs", "use super::a::A; pub struct B;"),
    ]);
    assert_eq!(circle.len(), 1, "{circle:?}");
    assert!(
        circle[0].starts_with("circle: sim/src/net/link/a.rs -> sim/src/net/link/b.rs"),
        "{circle:?}"
    );
}
