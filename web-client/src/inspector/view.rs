//! What the inspector draws and writes each frame: the packet timeline's
//! scene (the inspected run and its fork, or the live run's last 10 s —
//! an in-page run's packets, or the relay's trace of this page's link),
//! the card's read-outs (mode, playhead, costs, the packet under the
//! pointer, the list and the story) and the latency budget.

use super::lane_paint::{BandKind, Lane, MarkSpec, Scene};
use super::lanes::{self, burst_bands, spike_bands};
use super::mode::LaneMode;
use super::story_view::{packet_text, row};
use super::Inspector;
use crate::runbar::playback::STEP_DT;
use sim::endpoints::trace::RelayTrace;
use sim::inspect::{Corrected, Correction, LatencyBudget, RelayCost};
use sim::net::trace::PacketLog;
use sim::protocol::Setup;
use sim::{ScenarioRun, SimTime};
use std::collections::VecDeque;

/// How often the latency budget is recomputed, ms of page time.
const BUDGET_EVERY_MS: u64 = 500;

/// What the live timeline shows when nothing is inspected.
pub struct Live<'a> {
    /// The in-page run (its packets, lag spikes and frame times).
    pub run: Option<&'a ScenarioRun>,
    /// The relay's trace of this page's link (a relay run or a room).
    pub trace: Option<&'a RelayTrace>,
    /// Marks on the live lanes (a room's events).
    pub marks: Vec<MarkSpec>,
    /// The run's clock now, µs (the page's on the relay).
    pub now_us: u64,
    /// In a room, and which.
    pub room: Option<LiveRoom>,
    /// The span the lanes hold instead of following the run, µs (a room's
    /// lanes, held to click in).
    pub held: Option<(u64, u64)>,
    /// A second lane under the live one: a room fork's title ("B · what
    /// if: rewind off") and its marks (the shots it judged).
    pub fork: Option<(String, Vec<MarkSpec>)>,
}

/// The shared room a live run's lanes belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveRoom {
    /// A CMC room: the marks are its shots and jumps.
    Cmc,
    /// A rollback match (issue 22): the marks are the rebases remote
    /// players' inputs caused.
    Match,
}

impl Live<'_> {
    /// The packets to draw live.
    fn log(&self) -> Option<&PacketLog> {
        match (self.run, self.trace) {
            (Some(run), _) => run.host().packets(),
            (None, Some(t)) => Some(t.log()),
            (None, None) => None,
        }
    }
}

/// No records (a lane of nothing).
pub static NONE: VecDeque<sim::net::trace::PacketRecord> = VecDeque::new();

impl Inspector {
    /// The timeline's extent in `mode`, µs: the inspected run's whole
    /// span, else the last [`lanes::LIVE_SPAN_US`] of the live run.
    pub fn extent(&self, mode: LaneMode, now_us: u64) -> (u64, u64) {
        match (self.inspected_extent(), mode) {
            (Some(e), LaneMode::Playback | LaneMode::Inspect) => e,
            _ => (now_us.saturating_sub(lanes::LIVE_SPAN_US), now_us),
        }
    }

    /// Draws the packet timeline in `mode` at page time `t`: the
    /// inspected run (and its fork), else the `live` run's last 10 s.
    /// `transit_us` is the configured one-way latency (drawn for packets
    /// whose arrival is not known yet).
    pub fn draw_lanes(&mut self, mode: LaneMode, live: &Live, transit_us: u64, t: SimTime) {
        let extent = live.held.unwrap_or_else(|| self.extent(mode, live.now_us));
        let waiting = if live.room.is_some() {
            "Waiting for the room's packet trace…"
        } else {
            "Waiting for the relay's packet trace…"
        };
        let (scrub, relay, open, comparison) =
            (&self.scrub, &self.relay, &self.open, &self.comparison);
        let cause_refs: Vec<_> = open
            .as_ref()
            .map(|o| o.view.packets().collect())
            .unwrap_or_default();
        let highlight: &[_] = if open.is_some() { &cause_refs } else { &[] };
        let mut scene = Scene {
            lanes: Vec::new(),
            extent,
            live: matches!(mode, LaneMode::Live | LaneMode::Relay) && live.held.is_none(),
            playhead_us: None,
            bands: Vec::new(),
            message: None,
            selected: self.selected,
            open: (open.as_ref().map(|o| (o.branch, o.index))).or(self.room_open.map(|i| (0, i))),
            default_transit_us: transit_us,
        };
        let titles = ["A · the run", "B · what if"];
        match (scrub, relay, mode) {
            (Some(s), _, LaneMode::Playback | LaneMode::Inspect) => {
                scene.playhead_us = Some(if mode == LaneMode::Playback {
                    live.run.map_or(0, |r| r.now().0)
                } else {
                    s.time_us()
                });
                for (b, branch) in s.branches().iter().enumerate() {
                    let Some(log) = branch.ins.run().host().packets() else {
                        continue;
                    };
                    let scenario = branch.ins.scenario();
                    let limit = |frame| {
                        f32::from(
                            scenario
                                .settings_at(frame)
                                .rules
                                .max_position_error_tenth_cm,
                        ) / 10.0
                    };
                    scene.lanes.push(Lane {
                        title: titles[b.min(1)],
                        records: log.records(),
                        marks: correction_marks(branch.ins.corrections(), limit),
                        highlight,
                        rollbacks: rollbacks(branch.ins.corrections()),
                        divergence_us: (b == 1)
                            .then(|| comparison.as_ref()?.first_difference)
                            .flatten()
                            .map(|f| s.time_after(f + 1)),
                    });
                }
                let a = s.original();
                let packets = a.run().host().packets();
                scene.bands.extend(bands_of(packets, extent));
                scene.bands.extend(
                    spike_bands(&a.scenario().changes, |f| s.time_after(f))
                        .into_iter()
                        .map(|b| (b, BandKind::Spike)),
                );
            }
            (None, Some(r), LaneMode::Inspect) => {
                scene.playhead_us = Some(r.time_us());
                let limit = |frame| {
                    f32::from(r.ins.settings_at(frame).rules.max_position_error_tenth_cm) / 10.0
                };
                scene.lanes.push(Lane {
                    title: "the relay",
                    records: r.ins.packets().map_or(&NONE, PacketLog::records),
                    marks: correction_marks(r.ins.corrections(), limit),
                    highlight,
                    rollbacks: rollbacks(r.ins.corrections()),
                    divergence_us: None,
                });
                scene.bands.extend(bands_of(r.ins.packets(), extent));
            }
            _ => match live.log() {
                Some(log) if !log.records().is_empty() || live.run.is_some() => {
                    scene.bands.extend(bands_of(Some(log), extent));
                    if let Some(run) = live.run {
                        let frames = &run.scenario().frames;
                        let start = |f: usize| -> u64 {
                            frames[..f.min(frames.len())]
                                .iter()
                                .map(|fr| u64::from(fr.dt_us))
                                .sum()
                        };
                        scene.bands.extend(
                            spike_bands(&run.scenario().changes, start)
                                .into_iter()
                                .map(|b| (b, BandKind::Spike)),
                        );
                    }
                    scene.lanes.push(Lane {
                        title: match (live.run, live.room) {
                            (Some(_), _) => "live",
                            (None, None) => "the relay",
                            (None, Some(_)) => "you",
                        },
                        records: log.records(),
                        marks: live.marks.clone(),
                        highlight: &[],
                        divergence_us: None,
                        rollbacks: Vec::new(),
                    });
                    if let Some((title, marks)) = &live.fork {
                        scene.lanes.push(Lane {
                            title,
                            records: &NONE,
                            marks: marks.clone(),
                            highlight: &[],
                            divergence_us: None,
                            rollbacks: Vec::new(),
                        });
                    }
                }
                _ => scene.message = Some(waiting),
            },
        }
        self.lanes.draw(&scene, t.0);
    }

    /// Writes the card in `mode` at page time `t`: what the timeline
    /// shows, the costs, the corrections list, the story, the packet
    /// under the pointer, and (every [`BUDGET_EVERY_MS`]) the latency
    /// budget of the `setup` in force over the `live` run.
    pub fn write(&mut self, mode: LaneMode, live: &Live, setup: &Setup, t: SimTime) {
        let i = self;
        let inspected = i.scrub.is_some() || i.relay.is_some();
        i.panel.show_body(
            (matches!(mode, LaneMode::Inspect | LaneMode::Playback) && inspected)
                || live.room.is_some(),
        );
        let note = match (mode, live.run.is_some(), live.room) {
            (_, _, Some(LiveRoom::Cmc)) => {
                "room · your link and the room's events, last 10 s · click a shot or a jump"
            }
            (_, _, Some(LiveRoom::Match)) => {
                "match · your link, last 10 s · ◆ a rebase a remote player's input caused: click it for the Replayed panel"
            }
            (LaneMode::Relay, ..) => {
                "relay · its trace, last 10 s · pause (or click the timeline) to inspect"
            }
            (LaneMode::Live, ..) => "live · last 10 s · pause (or click the timeline) to inspect",
            (LaneMode::Playback, ..) => "scenario · whole run · click to jump, pause to inspect",
            (LaneMode::Inspect, false, _) => {
                "paused · the relay's last minute · drag the playhead, ← → or , . step a frame"
            }
            (LaneMode::Inspect, true, _) => {
                "paused · whole run · drag the playhead, ← → or , . step a frame"
            }
        };
        i.panel.metric("lanes-mode", note);
        i.panel.metric(
            "list-title",
            match live.room {
                Some(LiveRoom::Cmc) => "Shots and jumps",
                Some(LiveRoom::Match) => "Rebases by remote input",
                None => "Corrections",
            },
        );
        i.panel
            .offer_local(live.run.is_none() && live.room.is_none());
        let cost = |v: Option<f64>| v.map_or("–".to_owned(), |ms| format!("{ms:.1}"));
        i.panel.metric("inspect-ms", &cost(i.costs.inspect_ms));
        i.panel.metric("seek-ms", &cost(i.costs.seek_ms));
        i.panel.metric("fork-ms", &cost(i.costs.fork_ms));
        i.panel.metric("trace-note", &trace_note(live.trace));
        let corrections = match (&i.scrub, &i.relay) {
            (Some(s), _) => Some(s.original().corrections()),
            (None, Some(r)) => Some(r.ins.corrections()),
            (None, None) => None,
        };
        if let Some(c) = corrections {
            let rows: Vec<_> = c.iter().map(row).collect();
            let open = i.open.as_ref().filter(|o| o.branch == 0).map(|o| o.index);
            let gone = i.comparison.as_ref().map_or(&[][..], |c| &c.gone[..]);
            i.panel.write_list(&rows, open, gone);
        }
        let view = (i.open.as_ref().map(|o| (o.branch, &o.view)))
            .or(i.room_story.as_ref().map(|v| (0, v)));
        i.panel.write_story(view, i.fork_view.as_ref());
        if std::mem::take(&mut i.reveal) {
            i.panel.reveal_story();
        }
        let packet = i.lanes.hover.or(i.selected).and_then(|(b, r)| {
            let log = match mode {
                LaneMode::Inspect | LaneMode::Playback if inspected => i.packets(b),
                _ => live.log(),
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
            i.write_budget(mode, live, setup);
        }
    }

    /// The playhead read-out, written with the metrics (so the browser
    /// tests read a frame and the metrics of that frame together).
    pub fn write_playhead(&self, run: Option<&ScenarioRun>) {
        let (frames, secs) = match (&self.scrub, &self.relay, self.inspecting) {
            (Some(s), _, true) => (s.frames(), s.time_us() as f64 / 1e6),
            (None, Some(r), true) => (r.frames(), r.time_us() as f64 / 1e6),
            _ => run.map_or((0, 0.0), |r| (r.frame_index(), r.elapsed_secs())),
        };
        // The frame just played (the story's numbering), "start" before it.
        let frame = frames
            .checked_sub(1)
            .map_or_else(|| "start".to_owned(), |f| f.to_string());
        self.panel.metric("playhead-frame", &frame);
        self.panel.metric("playhead-time", &format!("{secs:.3}"));
    }

    fn write_budget(&mut self, mode: LaneMode, live: &Live, setup: &Setup) {
        let frame_dt = frame_dt(live.run).unwrap_or(STEP_DT);
        let window = |to: u64| (SimTime(to.saturating_sub(lanes::LIVE_SPAN_US)), SimTime(to));
        let relay = |trace: &RelayTrace, from, to| RelayCost {
            processing_ms: trace.relay_times(from, to).processing_ms(),
            network_one_way_ms: trace.clock().map_or(0.0, |c| c.delay_us as f64 / 2000.0),
        };
        let (budget, what) = match (&self.scrub, &self.relay, mode) {
            (Some(s), _, LaneMode::Inspect | LaneMode::Playback) => {
                let run = s.original().run();
                let (from, to) = window(s.time_us());
                let setup = s.original().scenario().settings_at(s.frames());
                (
                    LatencyBudget::new(&setup, frame_dt, run.host().packets(), from, to),
                    "measured over the 10 s before the playhead",
                )
            }
            (None, Some(r), LaneMode::Inspect) => {
                let (from, to) = window(r.time_us());
                let setup = r.ins.settings_at(r.frames());
                let trace = r.ins.run().endpoint().trace();
                let budget = LatencyBudget::new(&setup, frame_dt, r.ins.packets(), from, to);
                (
                    match trace {
                        Some(t) => budget.with_relay(relay(t, from, to)),
                        None => budget,
                    },
                    "measured from the relay's trace over the 10 s before the playhead",
                )
            }
            _ => match (live.run, live.trace) {
                (Some(run), _) => {
                    let (from, to) = window(run.now().0);
                    (
                        LatencyBudget::new(
                            &run.settings(),
                            frame_dt,
                            run.host().packets(),
                            from,
                            to,
                        ),
                        "measured over the last 10 s",
                    )
                }
                (None, Some(trace)) => {
                    let (from, to) = window(live.now_us);
                    (
                        LatencyBudget::new(setup, frame_dt, Some(trace.log()), from, to)
                            .with_relay(relay(trace, from, to)),
                        "measured from the relay's trace over the last 10 s",
                    )
                }
                (None, None) => (
                    LatencyBudget::new(setup, frame_dt, None, SimTime::ZERO, SimTime::ZERO),
                    "expected only: no packet trace yet",
                ),
            },
        };
        self.budget.write(&budget, what);
    }
}

/// The corrections as ◆ marks (hollow when one only repeats the one
/// before, under the threshold `limit_cm` in force at its frame).
fn correction_marks(corrections: &[Correction], limit_cm: impl Fn(usize) -> f32) -> Vec<MarkSpec> {
    corrections
        .iter()
        .enumerate()
        .map(|(index, c)| MarkSpec {
            t_us: c.at.0,
            index,
            hollow: match &c.what {
                Corrected::Move(r) => r.is_redundant(limit_cm(c.frame)),
                Corrected::Rollback(_) => false,
            },
            ..MarkSpec::default()
        })
        .collect()
}

/// The visible rollbacks' tick spans.
fn rollbacks(
    corrections: &[Correction],
) -> Vec<(sim::rollback::tick::Tick, sim::rollback::tick::Tick)> {
    corrections
        .iter()
        .filter_map(|c| match &c.what {
            Corrected::Rollback(e) => Some((e.from, e.to)),
            Corrected::Move(_) => None,
        })
        .collect()
}

/// The loss-burst bands of `packets` within `extent`.
fn bands_of(
    packets: Option<&PacketLog>,
    extent: (u64, u64),
) -> impl Iterator<Item = (lanes::Band, BandKind)> {
    let from = SimTime(extent.0.saturating_sub(lanes::BURST_GAP_US));
    let records = packets
        .into_iter()
        .flat_map(move |l| l.between(from, SimTime(extent.1)));
    burst_bands(records)
        .into_iter()
        .map(|b| (b, BandKind::Burst))
}

/// What the relay's trace says of itself: batches, bytes, thinning, the
/// clock.
fn trace_note(trace: Option<&RelayTrace>) -> String {
    let Some(t) = trace else {
        return "–".to_owned();
    };
    let (batches, missed, _, bytes) = t.counts();
    let thinned = t.thinned().total();
    let clock = t.clock().map_or("clock not measured yet".to_owned(), |c| {
        format!("clock ± {:.1} ms", c.delay_us as f64 / 2000.0)
    });
    format!(
        "{batches} batches · {:.1} kB{} · {thinned} thinned · {clock}",
        bytes as f64 / 1000.0,
        if missed > 0 {
            format!(" · {missed} missed")
        } else {
            String::new()
        }
    )
}

/// The page's mean frame time, s, from the in-page `run` (its recorded
/// frames).
fn frame_dt(run: Option<&ScenarioRun>) -> Option<f64> {
    let frames = &run?.scenario().frames;
    let recent = &frames[frames.len().saturating_sub(120)..];
    (!recent.is_empty())
        .then(|| recent.iter().map(|f| f64::from(f.dt_us)).sum::<f64>() / recent.len() as f64 / 1e6)
}
