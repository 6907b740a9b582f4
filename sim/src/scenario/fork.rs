//! What if: a scenario with one change, to play beside the original (the
//! A/B view: same seed, same input, one difference). Because a run is
//! deterministic, a fork with no change replays the original bit for bit,
//! and every difference between the branches comes from the change. The
//! correction inspector offers such changes for each correction it
//! explains.

use super::{Change, Scenario};
use crate::protocol::Setting;

/// One what-if: a setting applied before frame `frame`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForkOption {
    /// What it does, for a button ("deliver ServerMove #57 (lost)").
    pub label: String,
    /// The frame it is applied before: the frame a lost packet was sent
    /// in, or the start of the correction's episode.
    pub frame: u32,
    /// The change.
    pub setting: Setting,
}

/// `scenario` with `option` applied: the change inserted after any other
/// change before the same frame, the name marked, the outcome cleared (the
/// fork's run gives its own). With no change at all a fork would replay
/// the original exactly.
pub fn fork(scenario: &Scenario, option: &ForkOption) -> Scenario {
    let mut s = scenario.clone();
    let at = s.changes.partition_point(|c| c.frame <= option.frame);
    s.changes.insert(
        at,
        Change {
            frame: option.frame,
            setting: option.setting,
        },
    );
    s.name = fork_name(&s.name, &option.label);
    s.outcome = None;
    s
}

/// "name — what if: label", cut to the scenario name limit.
fn fork_name(name: &str, label: &str) -> String {
    let full = format!("{name} — what if: {label}");
    full.chars().take(super::MAX_NAME_CHARS).collect()
}
