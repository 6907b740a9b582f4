//! The page's main loop: read controls and input, run the client end, move
//! frames through the transport, draw, and write the metrics.
//!
//! Mode: `?mode=local` runs the authoritative host inside the page; by
//! default the page connects to the relay that served it, and falls back to
//! local mode if no relay answers (a static copy of the page still works).
//! When an open connection drops, the page reconnects with backoff and
//! resumes its session (reference `003_…` §六 断线重连) for as long as the
//! relay keeps it (its grace period, 10 s); a relay that no longer knows
//! the session (restarted) starts a new one; only when no relay answers
//! within the grace period does the page fall back to local mode.

use crate::dom::Dom;
use crate::net::{LinkState, Transport};
use crate::render::{self, Frame};
use macroquad::prelude::*;
use sim::{
    Bot, ClientConfig, ClientEndpoint, NetSettings, ServerRules, SimTime, SmoothingMode,
    Vec2 as SimVec2,
};

/// How often the DOM metrics are rewritten, ms.
const METRICS_EVERY_MS: u64 = 100;
/// First reconnect delay, ms; doubled per attempt up to
/// [`RECONNECT_MAX_DELAY_MS`].
const RECONNECT_FIRST_DELAY_MS: u64 = 250;
/// Longest delay between two reconnect attempts, ms.
const RECONNECT_MAX_DELAY_MS: u64 = 2000;

/// Reconnecting after the relay connection dropped.
#[derive(Debug, Clone, Copy)]
struct Reconnect {
    /// When the connection dropped.
    since: SimTime,
    /// Attempts so far.
    attempt: u32,
    /// When to try next.
    next_try: SimTime,
}

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

/// Everything the loop owns.
struct App {
    dom: Dom,
    transport: Transport,
    endpoint: ClientEndpoint,
    ever_open: bool,
    bot: Bot,
    bot_driving: bool,
    settings: NetSettings,
    rules: ServerRules,
    client_config: ClientConfig,
    smoothing: SmoothingMode,
    next_metrics: SimTime,
    font_scale: f32,
    /// Set from the drop of an open connection until the session is back.
    reconnect: Option<Reconnect>,
}

impl App {
    fn new(dom: Dom) -> App {
        let local = query_param("mode").as_deref() == Some("local");
        let transport = if local { None } else { Transport::connect() };
        let mut app = App {
            transport: transport.unwrap_or_else(|| Transport::local(local_seed(), now())),
            endpoint: ClientEndpoint::new(),
            ever_open: false,
            bot: Bot::new(),
            bot_driving: true,
            settings: dom.net_settings(),
            rules: dom.server_rules(),
            client_config: dom.client_config(),
            smoothing: dom.smoothing(),
            next_metrics: SimTime::ZERO,
            font_scale: 0.0,
            reconnect: None,
            dom,
        };
        app.start_endpoint();
        app.show_mode();
        app
    }

    /// A fresh client end with the current controls applied.
    fn start_endpoint(&mut self) {
        self.endpoint = ClientEndpoint::with_seed(local_seed());
        self.endpoint.set_net_settings(self.settings);
        self.endpoint.set_server_rules(self.rules);
        self.endpoint.set_client_config(self.client_config);
        self.endpoint.set_smoothing(self.smoothing);
        self.bot = Bot::new();
    }

    fn show_mode(&mut self) {
        match (&self.transport, self.transport.state()) {
            (Transport::Local(_), _) => {
                self.dom.set_mode("local (host in page)");
                self.dom.set_status("local", "local");
            }
            (_, LinkState::Open) => {
                self.dom.set_mode("relay");
                self.dom.set_status("connected", "connected");
            }
            (_, LinkState::Connecting) => {
                self.dom.set_mode("relay");
                self.dom.set_status("connecting", "connecting…");
            }
            (_, LinkState::Closed) => self.dom.set_status("error", "relay closed"),
        }
        self.dom.set_bot_driving(self.bot_driving);
    }

    fn frame(&mut self) {
        let t = now();
        let dt = f64::from(get_frame_time());
        self.watch_link(t);
        self.read_controls();
        let (dir, dash) = self.input(dt as f32);
        // Fresh time stamp: pings sent now are timed from the send itself.
        let t = now();
        let out = self.endpoint.frame(t, dt, dir, dash);
        // While reconnecting, moves are lost like packets (the SavedMoves
        // keep them; the server corrects the client when it is back).
        // (Sending nothing still flushes the Resume queued on the socket.)
        self.transport.send(
            t,
            if self.reconnect.is_none() {
                out
            } else {
                Vec::new()
            },
        );
        for (arrived, f) in self.transport.receive(t) {
            match self.endpoint.receive_frame(arrived, &f) {
                Ok(sim::ClientEvent::Welcomed) if self.reconnect.is_some() => {
                    self.reconnect = None;
                    // The resumed session has the settings of before the
                    // drop: send the controls' current ones.
                    self.endpoint.set_net_settings(self.settings);
                    self.endpoint.set_server_rules(self.rules);
                    self.show_mode();
                    self.dom.set_status("connected", "reconnected");
                }
                Ok(sim::ClientEvent::ResumeRefused(reason)) => {
                    web_sys::console::warn_1(&format!("{reason}: new session").into());
                    self.reconnect = None;
                    self.start_endpoint();
                    self.dom
                        .set_status("connected", "reconnected · new session");
                }
                Ok(sim::ClientEvent::ServerError(reason)) => {
                    web_sys::console::warn_1(&format!("server rejected a frame: {reason}").into());
                    self.dom
                        .set_status("error", &format!("server error: {reason}"));
                }
                Ok(_) => {}
                Err(e) => {
                    web_sys::console::warn_1(&format!("bad frame from server: {e}").into());
                    self.dom
                        .set_status("error", &format!("bad frame from server: {e}"));
                }
            }
        }
        let u = render::ui();
        if u != self.font_scale {
            self.font_scale = u;
            render::warm_fonts(u);
        }
        render::draw(&Frame {
            endpoint: &self.endpoint,
            bot_driving: self.bot_driving,
            input: dir,
            push_zones: self.rules.server_effects,
            threshold_cm: f32::from(self.rules.max_position_error_tenth_cm) / 10.0,
        });
        if t >= self.next_metrics {
            self.next_metrics = t.plus_millis(METRICS_EVERY_MS);
            let m = self.endpoint.metrics(t);
            self.dom.write_metrics(&m, self.endpoint.smoothing());
        }
    }

    /// Tracks the socket; reconnects within the relay's grace period, else
    /// falls back to local mode.
    fn watch_link(&mut self, t: SimTime) {
        let state = self.transport.state();
        let remote = matches!(self.transport, Transport::Remote { .. });
        if remote && state == LinkState::Open && !self.ever_open {
            self.ever_open = true;
            self.show_mode();
        }
        if state == LinkState::Closed && remote && self.ever_open && self.try_reconnect(t) {
            return;
        }
        if state == LinkState::Closed {
            self.reconnect = None;
            self.transport = Transport::local(local_seed(), t);
            self.start_endpoint();
            self.show_mode();
            self.dom.set_status(
                "error",
                if self.ever_open {
                    "relay lost · local"
                } else {
                    "no relay · local"
                },
            );
        }
    }

    /// One step of reconnecting after the connection dropped: a new socket
    /// whose first frame is the session's Resume, with backoff
    /// ([`RECONNECT_FIRST_DELAY_MS`] doubling to [`RECONNECT_MAX_DELAY_MS`]).
    /// Returns `false` when the relay's grace period is over (or the relay
    /// never offered one): time for local mode.
    fn try_reconnect(&mut self, t: SimTime) -> bool {
        let Some(grace) = self.endpoint.resume_grace() else {
            return false;
        };
        let r = self.reconnect.get_or_insert(Reconnect {
            since: t,
            attempt: 0,
            next_try: t,
        });
        if t.micros_since(r.since) > u64::try_from(grace.as_micros()).unwrap_or(u64::MAX) {
            return false;
        }
        if t < r.next_try {
            return true;
        }
        r.attempt += 1;
        let delay = (RECONNECT_FIRST_DELAY_MS << r.attempt.min(8)).min(RECONNECT_MAX_DELAY_MS);
        r.next_try = t.plus_millis(delay);
        let attempt = r.attempt;
        if let Some(mut transport) = Transport::connect() {
            // The socket is still connecting: Resume waits in its queue.
            if let Some(resume) = self.endpoint.resume_frame() {
                transport.send(t, vec![resume]);
            }
            self.transport = transport;
        }
        self.dom.set_status(
            "connecting",
            &format!("relay lost · reconnecting (attempt {attempt})"),
        );
        true
    }

    fn read_controls(&mut self) {
        let s = self.dom.net_settings();
        if s != self.settings {
            self.settings = s;
            self.endpoint.set_net_settings(s);
        }
        let r = self.dom.server_rules();
        if r != self.rules {
            self.rules = r;
            self.endpoint.set_server_rules(r);
        }
        let c = self.dom.client_config();
        if c != self.client_config {
            self.client_config = c;
            self.endpoint.set_client_config(c);
        }
        let m = self.dom.smoothing();
        if m != self.smoothing {
            self.smoothing = m;
            self.endpoint.set_smoothing(m);
        }
        if self.dom.take_bot_clicks() % 2 == 1 {
            self.bot_driving = !self.bot_driving;
            self.dom.set_bot_driving(self.bot_driving);
        }
        if self.dom.take_clear_clicks() > 0 {
            self.endpoint.clear_trails();
        }
    }

    /// Keyboard or bot input for this frame.
    fn input(&mut self, dt: f32) -> (SimVec2, bool) {
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
        if is_key_pressed(KeyCode::B) {
            self.bot_driving = !self.bot_driving;
            self.dom.set_bot_driving(self.bot_driving);
        }
        if self.bot_driving && (!dir.is_zero() || dash) {
            self.bot_driving = false;
            self.dom.set_bot_driving(false);
        }
        if self.bot_driving {
            self.bot.input(self.endpoint.client().state().position, dt)
        } else {
            (dir.safe_normal(), dash)
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
