//! What the loop draws and writes each frame: the panels (from the live
//! endpoint, or from a frozen copy while a relay run is paused), the
//! timeline, the correction log behind the Replayed panel, the controls'
//! read-outs, the Metrics and Link cards, and the CSV download.

use super::App;
use crate::clock::now;
use crate::corrections::CorrectionLog;
use crate::model_controls::Achieved;
use crate::readouts::Extra;
use crate::render::camera::FollowCamera;
use crate::render::view::warm_fonts;
use crate::render::{self, Frame};
use crate::timeline::{Offsets, PerSecond, Timeline};
use crate::{captions, download};
use macroquad::prelude::*;
use sim::{ClientEndpoint, NetSettings, SimTime, Vec2 as SimVec2};

/// How often the text read-outs are rewritten, ms.
const READOUTS_EVERY_MS: u64 = 100;
/// A mesh offset growing by more than this in one frame is a snap, cm.
const SNAP_JUMP_CM: f32 = 1.0;

/// The view's own state.
pub struct ViewState {
    /// The Replayed panel's corrections.
    pub corrections: CorrectionLog,
    timeline: Timeline,
    camera: FollowCamera,
    /// A relay run's endpoint as it was when the view was paused.
    frozen: Option<Box<ClientEndpoint>>,
    frames: u64,
    fps: PerSecond,
    send_rate: PerSecond,
    achieved: Achieved,
    /// The network settings measured since, and since when (run clock).
    measured: Option<(NetSettings, SimTime)>,
    next_readouts: SimTime,
    dpi: f32,
}

impl ViewState {
    /// A fresh view.
    pub fn new(_doc: &web_sys::Document) -> ViewState {
        ViewState {
            corrections: CorrectionLog::default(),
            timeline: Timeline::default(),
            camera: FollowCamera::default(),
            frozen: None,
            frames: 0,
            fps: PerSecond::default(),
            send_rate: PerSecond::default(),
            achieved: Achieved::default(),
            measured: None,
            next_readouts: SimTime::ZERO,
            dpi: 0.0,
        }
    }

    /// Forgets the run's history (a new run).
    pub fn reset(&mut self) {
        self.corrections.clear();
        self.timeline.clear();
        self.camera.reset();
        self.frozen = None;
        self.send_rate = PerSecond::default();
        self.measured = None;
    }

    /// Freezes the view on a copy of `endpoint` (a paused relay run), or
    /// thaws it.
    pub fn freeze(&mut self, on: bool, endpoint: &ClientEndpoint) {
        self.frozen = on.then(|| Box::new(endpoint.clone()));
    }
}

impl App {
    /// Records, draws and writes this frame. `run_dt` is the time the run
    /// advanced (`None` when it did not).
    pub(super) fn update_view(&mut self, t: SimTime, run_dt: Option<f64>, input: SimVec2) {
        let run_now = self.driver.now(t);
        let m = self.driver.metrics(t);
        let v = &mut self.view;
        v.frames += 1;
        if let Some(fps) = v.fps.record(t, v.frames) {
            v.achieved.fps = Some(fps);
        }
        v.achieved.moves_per_s = v.send_rate.record(run_now, m.moves_sent);
        match v.measured {
            Some((s, _)) if s == self.settings => {}
            _ => v.measured = Some((self.settings, run_now)),
        }
        let live = self.driver.endpoint();
        let offsets = Offsets {
            mesh_cm: live
                .cmc()
                .map_or(0.0, |c| (c.drawn_position() - c.state().position).length()),
            proxy_cm: live
                .proxy()
                .map_or(0.0, |p| (p.drawn_position() - p.position()).length()),
            ..Offsets::default()
        };
        v.timeline.record(run_now, &m, offsets);
        let ep: &ClientEndpoint = v.frozen.as_deref().unwrap_or(live);
        if let Some(c) = ep.cmc() {
            v.corrections.update(
                c.corrections(),
                c.counters().adjustments,
                f32::from(self.rules.max_position_error_tenth_cm) / 10.0,
            );
        }
        let (older, newer) = self.chrome.take_steps();
        for _ in 0..older {
            v.corrections.older();
        }
        for _ in 0..newer {
            v.corrections.newer();
        }

        // The panels.
        let dpi = screen_dpi_scale();
        if dpi != v.dpi {
            v.dpi = dpi;
            warm_fonts(dpi);
        }
        let zoom = self.chrome.zoom();
        let follow = zoom.map(|z| {
            let dt = run_dt.unwrap_or(0.0) as f32;
            let drawn = ep.cmc().map_or(ep.position(), |c| c.drawn_position());
            (v.camera.follow(drawn, dt), z)
        });
        let mesh_offsets = v.timeline.around_last_snap(SNAP_JUMP_CM);
        let layout = self.chrome.layout((screen_width(), screen_height()));
        render::clear();
        render::draw(
            &Frame {
                endpoint: ep,
                input,
                push_zones: self.rules.server_effects,
                follow,
                correction: v.corrections.shown().map(|(g, _, _)| g),
                mesh_offsets: mesh_offsets.as_deref(),
            },
            &layout,
        );
        if v.frozen.is_none() {
            self.plots.draw(
                &v.timeline,
                t,
                f32::from(self.rules.max_position_error_tenth_cm) / 10.0,
                self.settings.rtt_ms() as f32,
            );
        }
        self.net_controls.write(&self.settings);
        self.model_controls
            .write(&self.rules, &self.client_config, v.achieved);
        if t >= v.next_readouts {
            v.next_readouts = t.plus_millis(READOUTS_EVERY_MS);
            self.write_readouts(t, &m);
        }
    }

    /// The text read-outs: panels' lines, Metrics and Link cards, the run
    /// bar.
    fn write_readouts(&mut self, t: SimTime, m: &sim::Metrics) {
        let banner = self.banner();
        let v = &self.view;
        let live = self.driver.endpoint();
        let ep: &ClientEndpoint = v.frozen.as_deref().unwrap_or(live);
        self.chrome.text(
            "predicted-sub",
            &captions::predicted_sub(banner.as_deref(), self.bot_driving),
        );
        self.chrome
            .mark("predicted-sub", self.state.label(self.time.paused));
        self.chrome.text(
            "predicted-foot",
            &ep.cmc().map_or_else(
                || {
                    format!(
                        "rollback model · tick {}",
                        ep.rollback().and_then(|r| r.tick()).map_or(0, |t| t.0)
                    )
                },
                |c| captions::predicted_foot(c, ep.smoothing()),
            ),
        );
        self.chrome.text(
            "authoritative-foot",
            &captions::authoritative_foot(&ep.server_totals()),
        );
        let shown = v.corrections.shown();
        self.chrome
            .text("replayed-sub", &captions::replayed_sub(shown));
        self.chrome.text(
            "replayed-foot",
            &captions::replayed_foot(shown.map(|(g, _, _)| g)),
        );
        self.chrome.show("replayed-empty", shown.is_none());
        let pos = shown.map_or(0, |(_, i, _)| i);
        self.chrome
            .set_steppable(pos > 1, !v.corrections.follows_newest());
        let peak = |f: fn(&crate::timeline::Sample) -> f32| {
            v.timeline.last(1_000_000).map(f).fold(0.0, f32::max)
        };
        self.readouts.write_metrics(
            m,
            &Extra {
                smoothing: live.smoothing(),
                counters: live.cmc().map(|c| c.counters()).unwrap_or_default(),
                server: live.server_totals(),
                mesh_offset_cm: v.timeline.newest().map_or(0.0, |s| s.mesh_offset_cm),
                proxy_offset_peak_cm: peak(|s| s.proxy_offset_cm),
            },
        );
        let since = v
            .measured
            .map_or(0.0, |(_, at)| self.driver.now(t).secs_since(at));
        self.link_card.write(&self.settings, m, since);
        self.write_run_bar();
    }

    /// The run bar's read-outs: state, progress, trajectory hash.
    fn write_run_bar(&mut self) {
        self.panel
            .metric("scenario-state", self.state.label(self.time.paused));
        let (hash, progress) = match self.driver.run_mut() {
            Some(run) => {
                let secs = run.elapsed_secs();
                let o = run.outcome();
                let progress = match &self.playback {
                    Some(p) => format!(
                        "frame {} · {secs:.2} / {:.2} s",
                        o.frames,
                        p.original.duration_secs()
                    ),
                    None => format!("{secs:.1} s"),
                };
                (format!("{:016x}", o.trajectory_hash), progress)
            }
            None => ("–".to_owned(), "–".to_owned()),
        };
        self.panel.metric("trajectory-hash", &hash);
        self.panel.metric("scenario-progress", &progress);
    }

    /// Downloads the timeline (the last minute of the run's clock) as CSV.
    pub(super) fn download_csv(&self) {
        let name = format!(
            "netcode-timeline-{:.0}s.csv",
            now().secs_since(SimTime::ZERO)
        );
        download::text_file(&name, "text/csv", &self.view.timeline.csv());
    }
}
