//! The page's main loop: read controls and input, run the client end, move
//! frames through the transport, draw, and write the metrics.
//!
//! Drivers: by default the page connects to the relay that served it
//! ([`Driver::Remote`]). `?mode=local`, a missing relay, Record, and
//! scenario links run the authoritative host inside the page instead
//! ([`Driver::Local`]): a [`ScenarioRun`] on a virtual clock advanced by
//! each frame's (quantized) time, so any local run can be recorded and
//! played back bit for bit. A real socket's timing cannot be replayed,
//! which is why recording always runs locally.
//!
//! When an open relay connection drops, the page reconnects with backoff
//! and resumes its session (reference `003_…` §六 断线重连) for as long as
//! the relay keeps it (its grace period, 10 s); a relay that no longer
//! knows the session (restarted) starts a new one; only when no relay
//! answers within the grace period does the page fall back to local mode.
//!
//! The Scenario bar's side (record, save, links, playback) is in
//! `app/scenario.rs`.

mod scenario;

use crate::dom::Dom;
use crate::net::{try_reconnect, LinkState, Reconnect, Transport};
use crate::net_controls::NetControls;
use crate::plots::Plots;
use crate::render::{self, Frame};
use crate::scenario_panel::ScenarioPanel;
use crate::share::{self, Mailbox, Reply};
use macroquad::prelude::*;
use sim::scenario::{Setting, Setup};
use sim::{
    Bot, ClientConfig, ClientEndpoint, NetSettings, Scenario, ScenarioRun, ServerRules, SimTime,
    SmoothingMode, Vec2 as SimVec2,
};

/// How often the DOM metrics are rewritten, ms.
const METRICS_EVERY_MS: u64 = 100;
/// Most recorded frames played in one page frame (4× speed of a 240 Hz
/// recording on a 60 Hz screen needs 16).
const MAX_PLAYBACK_STEPS: usize = 64;
/// The page clock (`performance.now()`) as a [`SimTime`].
pub fn now() -> SimTime {
    let ms = web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0);
    SimTime::from_secs_f64(ms / 1000.0)
}

fn query_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
}

/// Who runs the authority.
enum Driver {
    /// The relay over a WebSocket, on the page clock.
    Remote {
        transport: Transport,
        endpoint: Box<ClientEndpoint>,
        ever_open: bool,
        /// Set while reconnecting after the connection dropped.
        reconnect: Option<Reconnect>,
    },
    /// The host in the page, on the run's virtual clock.
    Local(Box<ScenarioRun>),
}

/// A scenario being played back.
struct Playback {
    original: Scenario,
    paused: bool,
    /// Page time owed to the recording, µs (× speed).
    budget_us: f64,
    finished: bool,
    /// This is the run just recorded, frozen at its end after Stop.
    just_recorded: bool,
}

/// Everything the loop owns.
struct App {
    dom: Dom,
    net_controls: NetControls,
    plots: Plots,
    panel: ScenarioPanel,
    driver: Driver,
    playback: Option<Playback>,
    /// The last recording, or the scenario a link opened: what ▶ Replay
    /// and Restart play.
    recorded: Option<Scenario>,
    /// `recorded` was recorded in this page (a link's scenario is not
    /// saved again: its link is shown instead).
    saveable: bool,
    /// Name, description and id of the last save of `recorded`, so that
    /// pressing Save twice does not store it twice.
    saved: Option<(String, String, String)>,
    /// Name and description of the save in flight.
    saving: Option<(String, String)>,
    /// The `#s=` fragment last acted on (a changed one is opened).
    last_fragment: Option<String>,
    /// Settings last moved onto the controls by playback.
    shown: Setup,
    mailbox: Mailbox<Reply>,
    bot: Bot,
    bot_driving: bool,
    settings: NetSettings,
    rules: ServerRules,
    client_config: ClientConfig,
    smoothing: SmoothingMode,
    next_metrics: SimTime,
    font_scale: f32,
}

impl App {
    fn new(dom: Dom) -> App {
        let fragment = share::fragment();
        let shared_id = share::id_from_path();
        let local = query_param("mode").as_deref() == Some("local")
            || fragment.is_some()
            || shared_id.is_some();
        let panel = ScenarioPanel::new(dom.document());
        let net_controls = NetControls::new(dom.document());
        let mut app = App {
            settings: net_controls.settings(dom.net_settings()),
            plots: Plots::new(dom.document()),
            net_controls,
            driver: Driver::Local(Box::new(ScenarioRun::play(Scenario::new(
                "live",
                0,
                Setup::default(),
            )))),
            playback: None,
            recorded: None,
            saveable: false,
            saved: None,
            saving: None,
            last_fragment: fragment.clone(),
            shown: Setup::default(),
            mailbox: Mailbox::default(),
            bot: Bot::new(),
            bot_driving: true,
            rules: dom.server_rules(),
            client_config: dom.client_config(),
            smoothing: dom.smoothing(),
            next_metrics: SimTime::ZERO,
            font_scale: 0.0,
            panel,
            dom,
        };
        match (local, Transport::connect()) {
            (false, Some(transport)) => app.start_remote(transport),
            _ => app.start_local_live(),
        }
        if let Some(text) = fragment {
            app.open_fragment(&text);
        } else if let Some(id) = shared_id {
            app.panel
                .message("info", &format!("Loading scenario {id}…"));
            share::load(id, app.mailbox.clone());
        }
        app.show_mode();
        app.show_recorder();
        app
    }

    /// The controls' settings now.
    fn setup(&self) -> Setup {
        Setup {
            net: self.settings,
            rules: self.rules,
            client: self.client_config,
            smoothing: self.smoothing,
            model: sim::Model::Cmc,
        }
    }

    fn endpoint(&self) -> &ClientEndpoint {
        match &self.driver {
            Driver::Remote { endpoint, .. } => endpoint,
            Driver::Local(run) => run.endpoint(),
        }
    }

    fn close_remote(&mut self) {
        if let Driver::Remote { transport, .. } = &self.driver {
            transport.close();
        }
    }

    /// A fresh client end for the relay with the controls' settings.
    fn new_endpoint(&self) -> Box<ClientEndpoint> {
        Box::new(ClientEndpoint::with_setup(local_seed(), &self.setup()))
    }

    /// A fresh client end talking to the relay.
    fn start_remote(&mut self, transport: Transport) {
        self.driver = Driver::Remote {
            transport,
            endpoint: self.new_endpoint(),
            ever_open: false,
            reconnect: None,
        };
        self.bot = Bot::new();
        self.plots.clear();
    }

    /// A fresh in-page run, live and unrecorded.
    fn start_local_live(&mut self) {
        self.close_remote();
        let live = Scenario::new("live", local_seed(), self.setup());
        self.driver = Driver::Local(Box::new(ScenarioRun::play(live)));
        self.bot = Bot::new();
        self.plots.clear();
    }

    fn show_mode(&mut self) {
        match &self.driver {
            Driver::Local(run) => {
                let mode = if self.playback.as_ref().is_some_and(|p| p.just_recorded) {
                    "recorded (host in page)"
                } else if self.playback.is_some() {
                    "replay (host in page)"
                } else if run.is_recording() {
                    "recording (host in page)"
                } else {
                    "local (host in page)"
                };
                self.dom.set_mode(mode);
                self.dom.set_status("local", "local");
            }
            Driver::Remote { transport, .. } => {
                self.dom.set_mode("relay");
                match transport.state() {
                    LinkState::Open => self.dom.set_status("connected", "connected"),
                    LinkState::Connecting => self.dom.set_status("connecting", "connecting…"),
                    LinkState::Closed => self.dom.set_status("error", "relay closed"),
                }
            }
        }
        self.dom.set_bot_driving(self.bot_driving);
    }

    fn frame(&mut self) {
        let dt = f64::from(get_frame_time());
        let fragment = share::fragment();
        if fragment != self.last_fragment {
            self.last_fragment = fragment.clone();
            if let Some(text) = fragment {
                self.open_fragment(&text);
            }
        }
        self.watch_link(now());
        self.take_replies();
        self.handle_clicks();
        let changed = self.read_controls();
        let (dir, dash, user) = self.input(dt as f32);
        if self.playback.is_some() && (user || changed) {
            self.take_over();
        }
        // Fresh time stamp: pings sent now are timed from the send itself.
        let t = now();
        let (settings, rules) = (self.settings, self.rules);
        let mut new_session = false;
        match &mut self.driver {
            Driver::Remote {
                transport,
                endpoint,
                reconnect,
                ..
            } => {
                // UE's frame order: network input first, then the
                // character ticks (replaying any correction just received),
                // then the frame is drawn — never a snapped-but-not-
                // replayed state.
                for (arrived, f) in transport.receive() {
                    match endpoint.receive_frame(arrived, &f) {
                        Ok(sim::ClientEvent::Welcomed) if reconnect.is_some() => {
                            *reconnect = None;
                            // The resumed session has the settings of before
                            // the drop: send the controls' current ones.
                            endpoint.set_net_settings(settings);
                            endpoint.set_server_rules(rules);
                            self.dom.set_status("connected", "reconnected");
                        }
                        Ok(sim::ClientEvent::ResumeRefused(reason)) => {
                            web_sys::console::warn_1(&format!("{reason}: new session").into());
                            *reconnect = None;
                            new_session = true;
                        }
                        other => report(&self.dom, other),
                    }
                }
                let out = endpoint.frame(t, dt, dir, dash, false);
                // While reconnecting, moves are lost like packets (the
                // SavedMoves keep them; the server corrects the client when
                // it is back). Sending nothing still flushes the Resume
                // queued on the socket.
                transport.send(if reconnect.is_none() { out } else { Vec::new() });
            }
            Driver::Local(run) => match &mut self.playback {
                Some(p) => {
                    if !p.paused && !p.finished {
                        p.budget_us += dt * 1e6 * self.panel.speed();
                        for _ in 0..MAX_PLAYBACK_STEPS {
                            match run.next_frame_us() {
                                Some(next) if f64::from(next) <= p.budget_us => {
                                    p.budget_us -= f64::from(next);
                                    run.step_recorded();
                                }
                                _ => break,
                            }
                        }
                    }
                }
                None => {
                    let was_recording = run.is_recording();
                    run.step_live(dt, dir, dash, false);
                    if was_recording && !run.is_recording() {
                        self.keep_recording();
                    }
                }
            },
        }
        if new_session {
            let fresh = self.new_endpoint();
            if let Driver::Remote { endpoint, .. } = &mut self.driver {
                *endpoint = fresh;
            }
            self.bot = Bot::new();
            self.plots.clear();
            self.dom
                .set_status("connected", "reconnected · new session");
        }
        self.follow_playback();
        self.draw(dir);
        self.plot(t);
        if t >= self.next_metrics {
            self.next_metrics = t.plus_millis(METRICS_EVERY_MS);
            self.write_metrics();
        }
    }

    /// Feeds and draws the timeline, on the run's own clock (the virtual
    /// one in local mode, so a 4× replay scrolls 4× as fast).
    fn plot(&mut self, t: SimTime) {
        let (now, m) = match &mut self.driver {
            Driver::Remote { endpoint, .. } => (t, endpoint.metrics(t)),
            Driver::Local(run) => (run.now(), run.metrics()),
        };
        self.plots.record(now, &m);
        self.plots.draw(
            now,
            f32::from(self.rules.max_position_error_tenth_cm) / 10.0,
            self.settings.rtt_ms() as f32,
        );
    }

    fn draw(&mut self, input: SimVec2) {
        let u = render::ui();
        if u != self.font_scale {
            self.font_scale = u;
            render::warm_fonts(u);
        }
        render::draw(&Frame {
            endpoint: self.endpoint(),
            bot_driving: self.bot_driving,
            banner: self.banner(),
            input,
            push_zones: self.rules.server_effects,
            threshold_cm: f32::from(self.rules.max_position_error_tenth_cm) / 10.0,
        });
    }

    /// Tracks the socket; reconnects within the relay's grace period, else
    /// falls back to local mode.
    fn watch_link(&mut self, t: SimTime) {
        let Driver::Remote {
            transport,
            endpoint,
            ever_open,
            reconnect,
        } = &mut self.driver
        else {
            return;
        };
        match transport.state() {
            LinkState::Open if !*ever_open => {
                *ever_open = true;
                self.show_mode();
            }
            LinkState::Closed => {
                let closed_by = transport
                    .close_reason()
                    .map(|(code, reason)| format!(" (closed {code}: {reason})"))
                    .unwrap_or_default();
                if *ever_open {
                    if let Some(attempt) = try_reconnect(transport, endpoint, reconnect, t) {
                        if attempt > 0 {
                            self.dom.set_status(
                                "connecting",
                                &format!(
                                    "relay lost{closed_by} · reconnecting (attempt {attempt})"
                                ),
                            );
                        }
                        return;
                    }
                }
                let was_open = *ever_open;
                self.start_local_live();
                self.show_mode();
                let what = if was_open { "relay lost" } else { "no relay" };
                self.dom
                    .set_status("error", &format!("{what}{closed_by} · local"));
            }
            _ => {}
        }
    }

    /// Applies control changes; `true` if the user touched any (a change
    /// or the bot button).
    fn read_controls(&mut self) -> bool {
        let mut changes = Vec::new();
        self.net_controls.apply_picked_preset();
        let s = self.net_controls.settings(self.dom.net_settings());
        if s != self.settings {
            self.settings = s;
            changes.push(Setting::Net(s));
        }
        let r = self.dom.server_rules();
        if r != self.rules {
            self.rules = r;
            changes.push(Setting::Rules(r));
        }
        let c = self.dom.client_config();
        if c != self.client_config {
            self.client_config = c;
            changes.push(Setting::Client(c));
        }
        let m = self.dom.smoothing();
        if m != self.smoothing {
            self.smoothing = m;
            changes.push(Setting::Smoothing(m));
        }
        if let Some(spike) = self.net_controls.take_lag_spike() {
            changes.push(Setting::LagSpike(spike));
        }
        for &change in &changes {
            match &mut self.driver {
                Driver::Remote { endpoint, .. } => endpoint.apply(change),
                Driver::Local(run) => run.change(change),
            }
        }
        let mut touched = !changes.is_empty();
        if self.dom.take_bot_clicks() % 2 == 1 {
            self.bot_driving = !self.bot_driving;
            self.dom.set_bot_driving(self.bot_driving);
            touched = true;
        }
        if self.dom.take_clear_clicks() > 0 {
            match &mut self.driver {
                Driver::Remote { endpoint, .. } => endpoint.clear_trails(),
                Driver::Local(run) => run.clear_trails(),
            }
        }
        touched
    }

    /// Keyboard or bot input for this frame, and whether the user (not
    /// the bot) pressed something.
    fn input(&mut self, dt: f32) -> (SimVec2, bool, bool) {
        let key = |a: KeyCode, b: KeyCode| is_key_down(a) || is_key_down(b);
        let mut dir = SimVec2::ZERO;
        if key(KeyCode::A, KeyCode::Left) {
            dir.x -= 1.0;
        }
        if key(KeyCode::D, KeyCode::Right) {
            dir.x += 1.0;
        }
        if key(KeyCode::W, KeyCode::Up) {
            dir.y -= 1.0;
        }
        if key(KeyCode::S, KeyCode::Down) {
            dir.y += 1.0;
        }
        let dash = is_key_pressed(KeyCode::Space);
        let mut user = !dir.is_zero() || dash;
        if is_key_pressed(KeyCode::B) {
            user = true;
            self.bot_driving = !self.bot_driving;
            self.dom.set_bot_driving(self.bot_driving);
        }
        if self.bot_driving && (!dir.is_zero() || dash) {
            self.bot_driving = false;
            self.dom.set_bot_driving(false);
        }
        if self.bot_driving {
            let (d, dash) = self.bot.input(self.endpoint().position(), dt);
            (d, dash, user)
        } else {
            (dir.safe_normal(), dash, user)
        }
    }

    fn write_metrics(&mut self) {
        let t = now();
        let smoothing = self.endpoint().smoothing();
        let (m, run_info) = match &mut self.driver {
            Driver::Remote { endpoint, .. } => (endpoint.metrics(t), None),
            Driver::Local(run) => {
                let o = run.outcome();
                (
                    run.metrics(),
                    Some((o, run.elapsed_secs(), run.is_recording())),
                )
            }
        };
        self.dom.write_metrics(&m, smoothing);
        self.net_controls.write(&self.settings, &m);
        let state = match (&self.playback, run_info) {
            (Some(p), _) if p.just_recorded => "recorded",
            (Some(p), _) if p.finished => "finished",
            (Some(p), _) if p.paused => "paused",
            (Some(_), _) => "playing",
            (None, Some((_, _, true))) => "recording",
            (None, Some(_)) => "local",
            (None, None) => "relay",
        };
        self.panel.metric("scenario-state", state);
        let (hash, progress) = match (run_info, &self.playback) {
            (Some((o, secs, _)), Some(p)) => (
                format!("{:016x}", o.trajectory_hash),
                format!(
                    "frame {} · {secs:.2} / {:.2} s",
                    o.frames,
                    p.original.duration_secs()
                ),
            ),
            (Some((o, secs, _)), None) => (
                format!("{:016x}", o.trajectory_hash),
                format!("{secs:.1} s"),
            ),
            (None, _) => ("–".to_owned(), "–".to_owned()),
        };
        self.panel.metric("trajectory-hash", &hash);
        self.panel.metric("scenario-progress", &progress);
    }
}

/// Shows a server error or a frame that did not decode.
fn report(dom: &Dom, result: Result<sim::ClientEvent, sim::net::codec::DecodeError>) {
    match result {
        Ok(sim::ClientEvent::ServerError(reason)) => {
            web_sys::console::warn_1(&format!("server rejected a frame: {reason}").into());
            dom.set_status("error", &format!("server error: {reason}"));
        }
        Ok(_) => {}
        Err(e) => {
            web_sys::console::warn_1(&format!("bad frame from server: {e}").into());
            dom.set_status("error", &format!("bad frame from server: {e}"));
        }
    }
}

/// Seed for local mode: `?seed=N`, else the clock.
fn local_seed() -> u64 {
    query_param("seed")
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| js_sys::Date::now() as u64)
}

/// The macroquad main loop.
pub async fn run() {
    let Some(dom) = Dom::new() else {
        return;
    };
    let mut app = App::new(dom);
    loop {
        app.frame();
        next_frame().await;
    }
}
