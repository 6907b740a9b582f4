//! What the loop draws and writes each frame: the panels (from the live
//! endpoint, or from a frozen copy while a relay run is paused) in the
//! model the endpoint runs, the A/B view's second column, the timeline,
//! the Replayed panel's log, the controls' read-outs, the Metrics and Link
//! cards, and the CSV download.

use super::App;
use crate::canvas;
use crate::canvas::view::warm_fonts;
use crate::clock::now;
use crate::cmc::captions;
use crate::cmc::controls::Achieved;
use crate::cmc::readouts::Extra;
use crate::controls::frame_health::FrameHealth;
use crate::download;
use crate::panels::column::ColumnState;
use crate::timeline::samples::{PerSecond, Timeline, SNAP_JUMP_CM};
use macroquad::prelude::*;
use sim::{ClientEndpoint, NetSettings, SimTime, Vec2 as SimVec2};

/// How often the text read-outs are rewritten, ms.
const READOUTS_EVERY_MS: u64 = 100;

/// The view's own state.
pub struct ViewState {
    /// The main column's own state (column A in the A/B view).
    pub column: ColumnState,
    timeline: Timeline,
    /// A relay run's endpoint as it was when the view was paused.
    frozen: Option<Box<ClientEndpoint>>,
    frames: u64,
    fps: PerSecond,
    frame_health: FrameHealth,
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
            column: ColumnState::default(),
            timeline: Timeline::default(),
            frozen: None,
            frames: 0,
            fps: PerSecond::default(),
            frame_health: FrameHealth::default(),
            send_rate: PerSecond::default(),
            achieved: Achieved::default(),
            measured: None,
            next_readouts: SimTime::ZERO,
            dpi: 0.0,
        }
    }

    /// Forgets the run's history (a new run).
    pub fn reset(&mut self) {
        self.column.reset();
        self.timeline.clear();
        self.frozen = None;
        self.send_rate = PerSecond::default();
        self.measured = None;
        self.readouts_due();
    }

    /// The text read-outs are rewritten this frame (a new run or a changed
    /// control), so they never show what came before next to what is now
    /// in force for up to `READOUTS_EVERY_MS`.
    pub fn readouts_due(&mut self) {
        self.next_readouts = SimTime::ZERO;
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
        // While inspecting, everything shows the run at the playhead.
        let m = match self.inspector.shown_metrics() {
            Some(m) => m,
            None => self.driver.metrics(t),
        };
        let v = &mut self.view;
        v.frames += 1;
        v.frame_health.record(t);
        if let Some(fps) = v.fps.record(t, v.frames) {
            v.achieved.fps = Some(fps);
        }
        v.achieved.moves_per_s = v.send_rate.record(run_now, m.moves_sent);
        match v.measured {
            Some((s, _)) if s == self.settings => {}
            _ => v.measured = Some((self.settings, run_now)),
        }
        let live = self.driver.endpoint();
        // The run at the playhead while inspecting, else the live one.
        let inspecting = self.inspector.inspecting;
        let shown = (self.inspector.scrub.as_ref())
            .filter(|_| inspecting)
            .map(|s| s.run());
        let relay = (self.inspector.relay.as_ref()).filter(|_| inspecting);
        let ep: &ClientEndpoint = (shown.map(|r| r.endpoint()))
            .or(relay.map(|r| r.at().endpoint()))
            .or(v.frozen.as_deref())
            .unwrap_or(live);
        let dt = run_dt.unwrap_or(0.0) as f32;
        let threshold_cm = f32::from(self.rules.max_position_error_tenth_cm) / 10.0;
        v.column.update(ep, threshold_cm, dt);
        if !self.inspector.inspecting {
            v.timeline.record(run_now, &m, v.column.offsets(live));
        }
        let (older, newer) = self.chrome.take_steps();
        v.column.step(ep.rollback().is_some(), older, newer);

        // The panels.
        let dpi = screen_dpi_scale();
        if dpi != v.dpi {
            v.dpi = dpi;
            warm_fonts(dpi);
        }
        let zoom = self.chrome.zoom();
        let follow = v.column.follow(ep, zoom, dt);
        let mesh_offsets = v.timeline.around_last_snap(SNAP_JUMP_CM);
        let size = (screen_width(), screen_height());
        let layout = self.chrome.layout(size);
        canvas::clear();
        let shown_now = match relay {
            Some(r) => r.at().now(),
            None => shown.map_or(run_now, |r| r.now()),
        };
        let ages = &mut self.inspector.correction_ages;
        ages.update(ep.server_corrections(), shown_now);
        let show = self.inspector.show_corrections;
        v.column
            .frame(
                ep,
                input,
                self.rules.server_effects,
                follow,
                mesh_offsets.as_deref(),
            )
            .with_corrections(
                ages.drawn(show, self.inspector.correction_lifetime_s, shown_now),
                show,
            )
            .draw(&layout);
        self.ab.draw_twin(
            size,
            input,
            self.rules.server_effects,
            zoom,
            dt,
            threshold_cm,
        );
        if v.frozen.is_none() {
            self.plots.draw(
                &v.timeline,
                t,
                threshold_cm,
                f32::from(self.rollback.input_buffer),
                self.settings.rtt_ms() as f32,
            );
        }
        self.model_view.show(live.model().name());
        self.net_controls.write(&self.settings);
        self.model_controls
            .write(&self.rules, &self.client_config, v.achieved);
        self.rollback_controls
            .write(&self.driver.endpoint().model(), &self.rollback);
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
        let inspected = self.inspector.shown_run();
        let live = (self.inspector.shown_endpoint()).unwrap_or(self.driver.endpoint());
        let ep: &ClientEndpoint = match self.inspector.shown_endpoint() {
            Some(e) => e,
            None => v.frozen.as_deref().unwrap_or(live),
        };
        self.chrome.text(
            "predicted-sub",
            &captions::predicted_sub(banner.as_deref(), self.bot_driving),
        );
        self.chrome
            .mark("predicted-sub", self.state.label(self.time.paused));
        let texts = v.column.texts(ep);
        self.chrome.text("predicted-foot", &texts.predicted_foot);
        self.chrome
            .text("authoritative-foot", &texts.authoritative_foot);
        let sub = if self.inspector.show_corrections {
            texts.replayed_sub
        } else {
            "corrections hidden (p.NetShowCorrections 0)".to_owned()
        };
        self.chrome.text("replayed-sub", &sub);
        self.chrome.text("replayed-foot", &texts.replayed_foot);
        self.chrome.show("replayed-empty", texts.empty);
        self.chrome.set_steppable(texts.older, texts.newer);
        self.readouts.write_metrics(
            m,
            &Extra {
                smoothing: live.smoothing(),
                counters: live.cmc().map(|c| c.counters()).unwrap_or_default(),
                server: live.server_totals(),
                mesh_offset_cm: v.timeline.newest().map_or(0.0, |s| s.mesh_offset_cm),
                proxy_offset_peak_cm: v.timeline.peak(|s| s.proxy_offset_cm),
                proxy_extrapolation_peak_cm: v.timeline.peak(|s| s.proxy_extrapolation_cm),
                key_delay_ms: live.cmc().and_then(|c| c.key_delay_ms()),
            },
        );
        self.rollback_readouts
            .write(m.rollback.as_ref(), v.column.resim.last_us());
        let since = v
            .measured
            .map_or(0.0, |(_, at)| self.driver.now(t).secs_since(at));
        let relay_settings = (self.inspector.relay.as_ref())
            .filter(|_| self.inspector.inspecting)
            .map(|r| r.ins.settings_at(r.frames()));
        let (settings, transport) = inspected
            .map(|r| r.settings())
            .or(relay_settings)
            .map_or((self.settings, self.transport), |s| (s.net, s.transport));
        self.link_card.write(&settings, transport, m, since);
        self.write_run_bar();
        let health = &self.view.frame_health;
        let ms = |v: Option<f64>| v.map_or("–".to_owned(), |ms| format!("{ms:.1}"));
        self.panel.metric("frame-ms", &ms(health.interval_ms()));
        self.panel.metric("frame-worst-ms", &ms(health.worst_ms()));
        self.panel
            .metric("frame-warning", &health.warning().unwrap_or_default());
        self.inspector.write_playhead(self.driver.run());
        self.ab.write_readouts(m, self.view.column.resim.mean_us());
    }

    /// The run bar's read-outs: state, progress, trajectory hash.
    fn write_run_bar(&mut self) {
        self.panel
            .metric("scenario-state", self.state.label(self.time.paused));
        let (hash, progress) = match self.driver.run_mut() {
            Some(run) => {
                let secs = run.elapsed_secs();
                let progress = match &self.playback {
                    Some(p) => format!(
                        "frame {} · {secs:.2} / {:.2} s",
                        run.frame_index(),
                        p.original.duration_secs()
                    ),
                    None => format!("{secs:.1} s"),
                };
                (format!("{:016x}", run.trajectory_hash()), progress)
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
