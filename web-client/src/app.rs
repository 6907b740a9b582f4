//! The page's main loop: read controls and input, run the client end, move
//! frames through the transport, draw, and write the metrics.
//!
//! Mode: `?mode=local` runs the authoritative host inside the page; by
//! default the page connects to the relay that served it, and falls back to
//! local mode if no relay answers (a static copy of the page still works).

use crate::dom::Dom;
use crate::net::{LinkState, Transport};
use crate::net_controls::NetControls;
use crate::plots::Plots;
use crate::render::{self, Frame};
use macroquad::prelude::*;
use sim::{
    Bot, ClientConfig, ClientEndpoint, NetSettings, ServerRules, SimTime, SmoothingMode,
    Vec2 as SimVec2,
};

/// How often the DOM metrics are rewritten, ms.
const METRICS_EVERY_MS: u64 = 100;

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
    net_controls: NetControls,
    plots: Plots,
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
}

impl App {
    fn new(dom: Dom) -> App {
        let local = query_param("mode").as_deref() == Some("local");
        let transport = if local { None } else { Transport::connect() };
        let net_controls = NetControls::new(dom.document());
        let mut app = App {
            settings: net_controls.settings(dom.net_settings()),
            plots: Plots::new(dom.document()),
            net_controls,
            transport: transport.unwrap_or_else(|| Transport::local(local_seed(), now())),
            endpoint: ClientEndpoint::new(),
            ever_open: false,
            bot: Bot::new(),
            bot_driving: true,
            rules: dom.server_rules(),
            client_config: dom.client_config(),
            smoothing: dom.smoothing(),
            next_metrics: SimTime::ZERO,
            font_scale: 0.0,
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
        self.plots.clear();
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
        self.transport.send(t, out);
        for (arrived, f) in self.transport.receive(t) {
            match self.endpoint.receive_frame(arrived, &f) {
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
        let m = self.endpoint.metrics(t);
        self.plots.record(t, &m);
        self.plots.draw(
            t,
            f32::from(self.rules.max_position_error_tenth_cm) / 10.0,
            self.settings.rtt_ms() as f32,
        );
        if t >= self.next_metrics {
            self.next_metrics = t.plus_millis(METRICS_EVERY_MS);
            self.dom.write_metrics(&m, self.endpoint.smoothing());
            self.net_controls.write(&self.settings, &m);
        }
    }

    /// Tracks the socket; falls back to local mode if the relay is gone.
    fn watch_link(&mut self, t: SimTime) {
        let state = self.transport.state();
        let remote = matches!(self.transport, Transport::Remote { .. });
        if remote && state == LinkState::Open && !self.ever_open {
            self.ever_open = true;
            self.show_mode();
        }
        if state == LinkState::Closed {
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

    fn read_controls(&mut self) {
        self.net_controls.apply_picked_preset();
        let s = self.net_controls.settings(self.dom.net_settings());
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
        if let Some(spike) = self.net_controls.take_lag_spike() {
            self.endpoint.start_lag_spike(spike);
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
