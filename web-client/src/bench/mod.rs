//! What the browser tests and `scripts/bench.sh` call inside the wasm
//! besides the page. Compiled only into the bench page (`web-client`'s
//! feature `bench`: `scripts/build-web.sh --bench` builds it into
//! `target/dist-bench/`) and into the unit tests: the page users load
//! leaves these exports and the sample runs they pull in out (23 kB of its
//! 500 kB gzip budget, measured 2026-12-02).
//!
//! | module | what |
//! |---|---|
//! | `golden` | wasm gives what native gives: scenario, conditioner, arena, room and match fingerprints and replays |
//! | `timing` | the hot paths' costs in wasm beside the native benches |
//! | `scrub` | the inspector's costs in wasm: building an inspection, seeking |

pub mod golden;
pub mod scrub;
pub mod timing;
