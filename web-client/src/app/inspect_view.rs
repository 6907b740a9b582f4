//! What the inspector draws and writes each frame: the packet timeline's
//! scene (the run and its fork, or the live run's last 10 s, or why the
//! relay has none), the card's read-outs (mode, playhead, costs, the
//! packet under the pointer, the list and the story) and the latency
//! budget.

use super::inspect::LaneMode;
use super::App;
use crate::inspector::lane_paint::{BandKind, Lane, MarkSpec, Scene};
use crate::inspector::lanes::{self, burst_bands, spike_bands};
use crate::inspector::story_view::{packet_text, row};
use sim::inspect::{Corrected, LatencyBudget};
use sim::SimTime;

/// How often the latency budget is recomputed, ms of page time.
const BUDGET_EVERY_MS: u64 = 500;

impl App {
    pub(super) fn draw_lanes(&mut self, mode: LaneMode, t: SimTime) {
        let extent = self.lane_extent(mode);
        let transit = u64::from(self.settings.uplink.latency_ms) * 1000;
        let relay = if self.room.is_some() {
            "A shared room runs on the relay: its packets are out of the page's sight \
             (leave the room to inspect a run)."
        } else {
            "On the relay the link conditioner is out of the page's sight: run in the \
             page (below) to see every packet."
        };
        let (scrub, open, comparison) = (
            &self.inspector.scrub,
            &self.inspector.open,
            &self.inspector.comparison,
        );
        let highlight: &[_] = &[];
        let cause_refs: Vec<_> = open
            .as_ref()
            .map(|o| o.view.packets().collect())
            .unwrap_or_default();
        let mut scene = Scene {
            lanes: Vec::new(),
            extent,
            live: mode == LaneMode::Live,
            playhead_us: None,
            bands: Vec::new(),
            message: (mode == LaneMode::Relay).then_some(relay),
            selected: self.inspector.selected,
            open: open.as_ref().map(|o| (o.branch, o.index)),
            default_transit_us: transit,
        };
        let titles = ["A · the run", "B · what if"];
        match (scrub, mode) {
            (_, LaneMode::Relay) => {}
            (Some(s), LaneMode::Playback | LaneMode::Inspect) => {
                scene.playhead_us = Some(if mode == LaneMode::Playback {
                    self.driver.run().map_or(0, |r| r.now().0)
                } else {
                    s.time_us()
                });
                for (b, branch) in s.branches().iter().enumerate() {
                    let Some(log) = branch.ins.run().host().packets() else {
                        continue;
                    };
                    let scenario = branch.ins.scenario();
                    let marks = branch
                        .ins
                        .corrections()
                        .iter()
                        .enumerate()
                        .map(|(index, c)| MarkSpec {
                            t_us: c.at.0,
                            index,
                            hollow: match &c.what {
                                Corrected::Move(r) => {
                                    let limit = scenario.settings_at(c.frame).rules;
                                    r.is_redundant(
                                        f32::from(limit.max_position_error_tenth_cm) / 10.0,
                                    )
                                }
                                Corrected::Rollback(_) => false,
                            },
                        })
                        .collect();
                    // The causes in the story's branch, and the same
                    // packets in the other (a fork sends what the run
                    // sent until they part).
                    let open_here = open.is_some();
                    scene.lanes.push(Lane {
                        title: titles[b.min(1)],
                        records: log.records(),
                        marks,
                        highlight: if open_here { &cause_refs } else { highlight },
                        rollbacks: branch
                            .ins
                            .corrections()
                            .iter()
                            .filter_map(|c| match &c.what {
                                Corrected::Rollback(e) => Some((e.from, e.to)),
                                Corrected::Move(_) => None,
                            })
                            .collect(),
                        divergence_us: (b == 1)
                            .then(|| comparison.as_ref()?.first_difference)
                            .flatten()
                            .map(|f| s.time_after(f + 1)),
                    });
                }
                let a = s.original();
                scene.bands.extend(
                    burst_bands(
                        a.run()
                            .host()
                            .packets()
                            .into_iter()
                            .flat_map(|l| l.records()),
                    )
                    .into_iter()
                    .map(|b| (b, BandKind::Burst)),
                );
                scene.bands.extend(
                    spike_bands(&a.scenario().changes, |f| s.time_after(f))
                        .into_iter()
                        .map(|b| (b, BandKind::Spike)),
                );
            }
            _ => {
                if let Some(run) = self.driver.run() {
                    if let Some(log) = run.host().packets() {
                        let frames = &run.scenario().frames;
                        let start = |f: usize| -> u64 {
                            frames[..f.min(frames.len())]
                                .iter()
                                .map(|fr| u64::from(fr.dt_us))
                                .sum()
                        };
                        scene.bands.extend(
                            burst_bands(log.between(SimTime(extent.0), SimTime(extent.1)))
                                .into_iter()
                                .map(|b| (b, BandKind::Burst)),
                        );
                        scene.bands.extend(
                            spike_bands(&run.scenario().changes, start)
                                .into_iter()
                                .map(|b| (b, BandKind::Spike)),
                        );
                        scene.lanes.push(Lane {
                            title: "live",
                            records: log.records(),
                            marks: Vec::new(),
                            highlight,
                            divergence_us: None,
                            rollbacks: Vec::new(),
                        });
                    }
                }
            }
        }
        self.inspector.lanes.draw(&scene, t.0);
    }

    pub(super) fn write_inspector(&mut self, mode: LaneMode, t: SimTime) {
        let i = &mut self.inspector;
        i.panel
            .show_body(matches!(mode, LaneMode::Inspect | LaneMode::Playback) && i.scrub.is_some());
        let note = match mode {
            LaneMode::Relay => "relay · no packet timeline",
            LaneMode::Live => "live · last 10 s · pause (or click the timeline) to inspect",
            LaneMode::Playback => "scenario · whole run · click to jump, pause to inspect",
            LaneMode::Inspect => "paused · whole run · drag the playhead, ← → or , . step a frame",
        };
        i.panel.metric("lanes-mode", note);
        i.panel.offer_local(mode == LaneMode::Relay);
        let cost = |v: Option<f64>| v.map_or("–".to_owned(), |ms| format!("{ms:.1}"));
        i.panel.metric("inspect-ms", &cost(i.costs.inspect_ms));
        i.panel.metric("seek-ms", &cost(i.costs.seek_ms));
        i.panel.metric("fork-ms", &cost(i.costs.fork_ms));
        if let Some(s) = &i.scrub {
            let rows: Vec<_> = s.original().corrections().iter().map(row).collect();
            let open = i.open.as_ref().filter(|o| o.branch == 0).map(|o| o.index);
            let gone = i.comparison.as_ref().map_or(&[][..], |c| &c.gone[..]);
            i.panel.write_list(&rows, open, gone);
        }
        i.panel.write_story(
            i.open.as_ref().map(|o| (o.branch, &o.view)),
            i.fork_view.as_ref(),
        );
        if std::mem::take(&mut i.reveal) {
            i.panel.reveal_story();
        }
        let packet = i.lanes.hover.or(i.selected).and_then(|(b, r)| {
            let log = match &i.scrub {
                Some(s) if mode != LaneMode::Live => s.branch(b)?.ins.run().host().packets(),
                _ => self.driver.run()?.host().packets(),
            };
            log?.records().get(r).map(packet_text)
        });
        i.panel.metric(
            "lane-tip",
            packet
                .as_deref()
                .unwrap_or("hover a packet for its fate · click a ◆ correction for its story"),
        );
        if t >= i.next_budget {
            i.next_budget = t.plus_millis(BUDGET_EVERY_MS);
            self.write_budget(mode);
        }
    }

    /// The playhead read-out, written with the metrics (so the browser
    /// tests read a frame and the metrics of that frame together).
    pub(super) fn write_playhead(&self) {
        let (frames, secs) = match (&self.inspector.scrub, self.inspector.inspecting) {
            (Some(s), true) => (s.frames(), s.time_us() as f64 / 1e6),
            _ => self
                .driver
                .run()
                .map_or((0, 0.0), |r| (r.frame_index(), r.elapsed_secs())),
        };
        // The frame just played (the story's numbering), "start" before it.
        let frame = frames
            .checked_sub(1)
            .map_or_else(|| "start".to_owned(), |f| f.to_string());
        self.inspector.panel.metric("playhead-frame", &frame);
        self.inspector
            .panel
            .metric("playhead-time", &format!("{secs:.3}"));
    }

    fn write_budget(&mut self, mode: LaneMode) {
        let frame_dt = self.view_frame_dt().unwrap_or(crate::playback::STEP_DT);
        let (budget, what) = match (&self.inspector.scrub, mode) {
            (_, LaneMode::Relay) => (
                LatencyBudget::new(&self.setup(), frame_dt, None, SimTime::ZERO, SimTime::ZERO),
                "expected only: the relay's packets are out of the page's sight",
            ),
            (Some(s), LaneMode::Inspect | LaneMode::Playback) => {
                let run = s.original().run();
                let to = SimTime(s.time_us());
                let from = SimTime(to.0.saturating_sub(lanes::LIVE_SPAN_US));
                let setup = s.original().scenario().settings_at(s.frames());
                (
                    LatencyBudget::new(&setup, frame_dt, run.host().packets(), from, to),
                    "measured over the 10 s before the playhead",
                )
            }
            _ => {
                let Some(run) = self.driver.run() else {
                    return;
                };
                let to = run.now();
                let from = SimTime(to.0.saturating_sub(lanes::LIVE_SPAN_US));
                (
                    LatencyBudget::new(&run.settings(), frame_dt, run.host().packets(), from, to),
                    "measured over the last 10 s",
                )
            }
        };
        self.inspector.budget.write(&budget, what);
    }

    /// The page's mean frame time, s, from the run (its recorded frames).
    fn view_frame_dt(&self) -> Option<f64> {
        let frames = &self.driver.run()?.scenario().frames;
        let recent = &frames[frames.len().saturating_sub(120)..];
        (!recent.is_empty()).then(|| {
            recent.iter().map(|f| f64::from(f.dt_us)).sum::<f64>() / recent.len() as f64 / 1e6
        })
    }
}
