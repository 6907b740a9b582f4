//! What if: a scenario with one change, to play beside the original (the
//! A/B view: same seed, same input, one difference). Because a run is
//! deterministic, a fork with no change replays the original bit for bit,
//! and every difference between the branches comes from the change.

use super::scrub::Inspection;
use super::story::{packet_name, Story};
use crate::model::Model;
use crate::net::conditioner::Fate;
use crate::net::protocol::ServerRules;
use crate::rollback::RollbackConfig;
use crate::scenario::{Change, Scenario, Setting, Setup};
use crate::smoothing::SmoothingMode;

/// Lost packets a story offers to deliver at most.
const DELIVER_OPTIONS: usize = 3;

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
    full.chars().take(crate::scenario::MAX_NAME_CHARS).collect()
}

/// The what-ifs for a story: deliver each lost packet it names, then one
/// change of each kind the issue lists (redundancy, combining, smoothing,
/// model, ack interval) from the start of its episode.
pub(super) fn options(ins: &Inspection, story: &Story, setup: &Setup) -> Vec<ForkOption> {
    let mut out: Vec<ForkOption> = story
        .cause_packets()
        .filter(|p| matches!(p.fate, Fate::Lost { .. }))
        .take(DELIVER_OPTIONS)
        .map(|p| ForkOption {
            label: format!("deliver {}", packet_name(p)),
            frame: ins.frame_of(p.sent) as u32,
            setting: Setting::Deliver {
                direction: p.direction,
                index: p.index as u32,
            },
        })
        .collect();
    let frame = ins.frame_of(story.from) as u32;
    let mut option = |label: String, setting: Setting| {
        out.push(ForkOption {
            label,
            frame,
            setting,
        });
    };
    match setup.model {
        Model::Cmc => {
            let c = setup.client;
            let switches = [
                ("old-move redundancy", c.old_move_redundancy, {
                    let mut t = c;
                    t.old_move_redundancy = !c.old_move_redundancy;
                    t
                }),
                ("move combining", c.combine_moves, {
                    let mut t = c;
                    t.combine_moves = !c.combine_moves;
                    t
                }),
            ];
            for (name, on, toggled) in switches {
                let to = if on { "off" } else { "on" };
                option(format!("{name} {to}"), Setting::Client(toggled));
            }
            let ack_interval_ms = if setup.rules.ack_interval_ms > 0 {
                0
            } else {
                ServerRules::default().ack_interval_ms
            };
            option(
                format!("ack interval {ack_interval_ms} ms"),
                Setting::Rules(ServerRules {
                    ack_interval_ms,
                    ..setup.rules
                }),
            );
            option(
                "rollback model".to_owned(),
                Setting::Model(Model::Rollback(RollbackConfig::default())),
            );
        }
        Model::Rollback(config) => {
            let redundancy = if config.redundancy > 1 {
                1
            } else {
                RollbackConfig::default().redundancy
            };
            option(
                format!("input redundancy {redundancy}"),
                Setting::Model(Model::Rollback(RollbackConfig {
                    redundancy,
                    ..config
                })),
            );
            option("CMC model".to_owned(), Setting::Model(Model::Cmc));
        }
    }
    let smoothing = if setup.smoothing == SmoothingMode::Disabled {
        SmoothingMode::Exponential
    } else {
        SmoothingMode::Disabled
    };
    option(
        format!("smoothing {}", smoothing.name()),
        Setting::Smoothing(smoothing),
    );
    out
}
