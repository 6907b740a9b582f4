//! The what-ifs of a correction: which one change — deliver a lost
//! packet, redundancy, combining, reconciliation, smoothing, model, ack
//! interval — may
//! make it go the other way ([`crate::scenario::fork`] plays it), and
//! [`Inspection::explain`], which tells a correction's story with them.

use super::scrub::Inspection;
use super::story::{packet_name, Story};
use crate::cmc::rules::ServerRules;
use crate::cmc::smoothing::SmoothingMode;
use crate::net::conditioner::Fate;
use crate::net::trace::{Direction, PacketRecord};
use crate::protocol::{Model, Setting, Setup};
use crate::rollback::RollbackConfig;
use crate::scenario::ForkOption;

/// Packets a story offers to deliver at most.
const DELIVER_OPTIONS: usize = 3;

impl Inspection {
    /// The story of correction `index` of [`Inspection::corrections`], with
    /// the what-ifs that may make it go the other way (`None` if there is
    /// no such correction).
    pub fn explain(&self, index: usize) -> Option<Story> {
        let c = self.corrections().get(index)?;
        let mut story = Story::of(self, c);
        story.forks = options(self, &story, &self.scenario().settings_at(c.frame));
        Some(story)
    }
}

/// `true` if delivering `p` changes something: the link lost it, or held
/// it past its latency and jitter (a lag spike, or the packets a spike
/// held in front of it). A packet that arrived in its normal time after
/// its tick (a rollback input the client sent too late) is not the link's
/// doing; one dropped by a full queue cannot be rescued.
pub fn deliverable(p: &PacketRecord, setup: &Setup) -> bool {
    let link = match p.direction {
        Direction::Up => setup.net.uplink,
        Direction::Down => setup.net.downlink,
    };
    let normal_us = (u64::from(link.latency_ms) + u64::from(link.jitter_ms)) * 1000;
    match p.fate {
        Fate::Lost { .. } => true,
        Fate::Delivered { at, .. } => at.micros_since(p.sent) > normal_us + 1000,
        Fate::Overflowed => false,
    }
}

/// The what-ifs for a story: deliver each packet it names (lost, or on
/// time if it was late), then one change of each kind the issue lists
/// (redundancy, combining, reconciliation, smoothing, model, ack interval)
/// from the start of its episode.
fn options(ins: &Inspection, story: &Story, setup: &Setup) -> Vec<ForkOption> {
    // The packets a cause names that the link lost or held, the first
    // cause first: each can be delivered (on time).
    let mut named: Vec<_> = story
        .cause_packets()
        .filter(|p| deliverable(p, setup))
        .collect();
    let mut seen = Vec::new();
    named.retain(|p| {
        let new = !seen.contains(&(p.direction, p.index));
        seen.push((p.direction, p.index));
        new
    });
    let mut out: Vec<ForkOption> = named
        .into_iter()
        .take(DELIVER_OPTIONS)
        .map(|p| ForkOption {
            label: match p.fate {
                Fate::Delivered { .. } => format!("deliver on time {}", packet_name(p)),
                _ => format!("deliver {}", packet_name(p)),
            },
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
                // Prediction is not offered: off, it changes what is drawn,
                // not what the client sends, so no correction would differ.
                ("reconciliation", c.reconciliation, {
                    let mut t = c;
                    t.reconciliation = !c.reconciliation;
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
            // ggrs's input delay: 8 ticks re-simulate about 8 fewer per
            // State (`sim/tests/teach_rollback.rs`).
            let input_delay = if config.input_delay == 0 { 8 } else { 0 };
            option(
                format!("input delay {input_delay} ticks"),
                Setting::Model(Model::Rollback(RollbackConfig {
                    input_delay,
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
