//! The page's main loop and its one state machine: read controls and
//! input, advance the run, draw, and write the read-outs — and switch
//! between what the page is doing: a run on the relay or in the page
//! ([`RunState`]: live, recording, playing, finished, recorded), paused
//! and inspected, with the A/B view, or a shared room instead. Each
//! thing the page shows is its own folder (see the crate's Layout);
//! here are the transitions between them and the state they share.
//!
//! | module | holds |
//! |---|---|
//! | `driver` | who runs the authority: the relay (with reconnects) or the host in the page |
//! | `playback` | pause / step / speed for every run, scenarios playing back: opening links, controls following the recording, the end and its verdict, taking over |
//! | `recorder` | Record / Stop, Save, share links, the scenario API's replies, the run bar's clicks |
//! | `inspect` | pausing to inspect, the playhead moving a scenario's run, the timeline's and the card's clicks, the console line |
//! | `ab` | the A/B toggle and difference read into the loop; starting the pair |
//! | `room` | entering and leaving a shared room, its frame in the loop, its connection's events |
//! | `recorded` | a saved recording opened by `?room-recording=ID` (a CMC room's) or `?match-recording=ID` (a rollback match's): loaded, played back instead of the page's run, closed |
//! | `view` | what is drawn and written each frame of a single-player run: panels, timeline, read-outs, CSV |
//! | `input` | the frame's input: keys, or the bot when it drives |
//! | `header` | the mode, the connection pill, the bot button |
//!
//! By default the page connects to the relay that served it. `?mode=local`,
//! a missing relay, Record and scenario links run the authoritative host
//! inside the page instead: a [`sim::ScenarioRun`] on a virtual clock
//! advanced by each frame's (quantized) time, so any local run can be
//! recorded and played back bit for bit. A real socket's timing cannot be
//! replayed, which is why recording always runs locally.

mod ab;
mod driver;
mod header;
mod input;
mod inspect;
mod match_room;
mod playback;
mod recorded;
mod recorder;
mod room;
mod tour;
mod view;

use crate::ab::twin::AbView;
use crate::clock::{clock_ms, now, query_pairs, query_param};
use crate::cmc::controls::ModelControls;
use crate::cmc::readouts::Readouts;
use crate::controls::link::NetControls;
use crate::controls::link_card::LinkCard;
use crate::controls::model_view::ModelView;
use crate::controls::opening::{Ask, Opening};
use crate::dom::Clicks;
use crate::inspector::Inspector;
use crate::panels::chrome::PanelChrome;
use crate::rollback::controls::RollbackControls;
use crate::rollback::readouts::RollbackReadouts;
use crate::room::controls::RoomControls;
use crate::room::link::RoomRun;
use crate::room::match_card::MatchCard;
use crate::room::match_run::MatchRun;
use crate::runbar::fixed_step::FixedStep;
use crate::runbar::playback::{Playback, RunState, TimeControl, STEP_DT};
use crate::runbar::recorder::Recorder;
use crate::runbar::scenario_panel::ScenarioPanel;
use crate::runbar::share::{self, Mailbox, Reply};
use crate::timeline::plots::Plots;
use driver::{Driver, LinkEvent};
use header::Header;
use macroquad::prelude::*;
use sim::net::transport::LinkTransport;
use sim::protocol::{Setting, Setup};
use sim::rollback::{BotPlayer, RollbackConfig};
use sim::{ClientConfig, Model, NetSettings, ServerRules, SmoothingMode, Vec2 as SimVec2};
use view::ViewState;

/// One frame's input: the stick, dash pressed, fire held, and whether the
/// user (not the bot) pressed something.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Input {
    /// The stick's direction (zero when released).
    pub dir: SimVec2,
    /// Dash pressed this frame.
    pub dash: bool,
    /// Fire held (the rollback arena's action button, a room's shot).
    pub fire: bool,
    /// The user, not the bot, pressed something.
    pub user: bool,
}

/// Everything the loop owns.
struct App {
    header: Header,
    readouts: Readouts,
    net_controls: NetControls,
    /// What a bare link opens on: the bad link's strip and its one spike.
    opening: Opening,
    model_controls: ModelControls,
    rollback_controls: RollbackControls,
    rollback_readouts: RollbackReadouts,
    model_view: ModelView,
    ab: AbView,
    link_card: LinkCard,
    chrome: PanelChrome,
    plots: Plots,
    panel: ScenarioPanel,
    driver: Driver,
    /// The shared room the page is in, if any: it runs instead of the
    /// driver while it lasts.
    room: Option<Box<RoomRun>>,
    room_controls: RoomControls,
    /// The Room section's What if row (a fork of the relay's recording).
    room_fork: crate::room::fork::RoomFork,
    /// The Room section's Save link (the relay keeps the room's
    /// recording).
    room_save: crate::room::save::RoomSave,
    /// A saved recording open in the page, if any: it runs instead of
    /// everything else while it lasts.
    recorded: Option<recorded::Opened>,
    /// The kind and id of the recording asked for, and its answer.
    recorded_id: Option<(recorded::RecordingKind, String)>,
    recorded_mail: Mailbox<share::Reply>,
    /// The rollback room's match the page plays in, if any (issue 22):
    /// it runs instead of the private session, like a CMC room.
    match_run: Option<Box<MatchRun>>,
    /// The Room section's match card.
    match_card: MatchCard,
    state: RunState,
    time: TimeControl,
    /// The fixed-step option's carry ([`crate::runbar::fixed_step`]).
    fixed: FixedStep,
    playback: Option<Playback>,
    recorder: Recorder,
    view: ViewState,
    inspector: Inspector,
    /// The `#s=` fragment last acted on (a changed one is opened).
    last_fragment: Option<String>,
    /// Settings last moved onto the controls by playback.
    shown: Setup,
    mailbox: Mailbox<Reply>,
    /// Drives the local player when the user does not: the arena tour, and
    /// in the rollback model fire in bursts.
    bot: BotPlayer,
    bot_driving: bool,
    bot_clicks: Clicks,
    clear_clicks: Clicks,
    settings: NetSettings,
    /// The transport the switch asks for.
    transport: LinkTransport,
    rules: ServerRules,
    client_config: ClientConfig,
    smoothing: SmoothingMode,
    /// The model the selector asks for.
    model: Model,
    /// The rollback settings the controls show (in force while rollback
    /// runs).
    rollback: RollbackConfig,
    /// The guided tour's card, and the stop it is at (`None`: not touring).
    tour_card: crate::tour::card::Card,
    tour: Option<tour::TourAt>,
}

/// The bot's tour starts at its first waypoint, like the CMC bot's.
const BOT_TOUR_START: usize = 0;

impl App {
    fn new(doc: &web_sys::Document) -> App {
        let fragment = share::fragment();
        let shared_id = share::id_from_path();
        let tour = query_param("tour").and_then(|v| sim::tour::parse(&v));
        let local = query_param("mode").as_deref() == Some("local")
            || tour.is_some()
            || fragment.is_some()
            || shared_id.is_some();
        let net_controls = NetControls::new(doc);
        let opening = crate::link_params::opens_on_opening(
            &query_pairs(),
            fragment.is_some() || shared_id.is_some(),
        );
        if opening {
            net_controls.show(&sim::OPENING.settings);
            net_controls.show_spike(&sim::OPENING.spike);
        }
        let model_controls = ModelControls::new(doc);
        let rollback_controls = RollbackControls::new(doc);
        let rollback = rollback_controls.config(RollbackConfig::default());
        let mut app = App {
            settings: net_controls.settings(),
            transport: net_controls.transport(),
            rules: model_controls.server_rules(),
            client_config: model_controls.client_config(),
            smoothing: model_controls.smoothing(),
            model: rollback_controls.model(rollback),
            rollback,
            rollback_controls,
            rollback_readouts: RollbackReadouts::new(doc),
            model_view: ModelView::new(doc),
            ab: AbView::new(doc),
            header: Header::new(doc),
            readouts: Readouts::new(doc),
            link_card: LinkCard::new(doc),
            chrome: PanelChrome::new(doc),
            plots: Plots::new(doc),
            panel: ScenarioPanel::new(doc),
            net_controls,
            opening: Opening::new(doc, opening),
            model_controls,
            driver: Driver::local(Setup::default()),
            room: None,
            room_controls: RoomControls::new(doc),
            room_fork: crate::room::fork::RoomFork::new(doc),
            room_save: crate::room::save::RoomSave::new(doc),
            recorded: None,
            recorded_id: None,
            recorded_mail: Mailbox::default(),
            match_run: None,
            match_card: MatchCard::new(doc),
            state: RunState::Local,
            time: TimeControl::default(),
            fixed: FixedStep::default(),
            playback: None,
            recorder: Recorder::default(),
            view: ViewState::new(doc),
            inspector: Inspector::new(doc),
            last_fragment: fragment.clone(),
            shown: Setup::default(),
            mailbox: Mailbox::default(),
            bot: BotPlayer::new(BOT_TOUR_START),
            bot_driving: true,
            bot_clicks: Clicks::on(doc, "bot-toggle", "click"),
            clear_clicks: Clicks::on(doc, "clear-trails", "click"),
            tour_card: crate::tour::card::Card::new(doc),
            tour: None,
        };
        match (local, Driver::connect(&app.setup())) {
            (false, Some(remote)) => app.start(remote, RunState::Relay),
            _ => app.start_local_live(),
        }
        if let Some(stop) = tour {
            app.open_tour(stop, sim::tour::Variant::Shown, true);
        } else if let Some(text) = fragment {
            app.open_fragment(&text);
        } else if let Some(id) = shared_id {
            app.panel
                .message("info", &format!("Loading scenario {id}…"));
            share::load(id, app.mailbox.clone());
        }
        app.show_state();
        let pairs = query_pairs();
        if let Some(note) = crate::link_params::note(&crate::link_params::ignored(&pairs)) {
            app.panel.message("error", &note);
        }
        let recording = crate::link_params::opened_recording(&pairs).and_then(|(name, id)| {
            let (kind, _) = recorded::RecordingKind::ALL
                .into_iter()
                .find(|(_, p)| *p == name)?;
            Some((kind, id.to_owned()))
        });
        if let Some((kind, id)) = recording {
            app.load_recording(kind, id);
        } else if let (false, Some(name)) = (local, query_param("room")) {
            match crate::room::rules::room_name(&name) {
                Ok(name) if query_param("model").as_deref() == Some("rollback") => {
                    app.enter_match(&name, query_param("watch").as_deref() == Some("1"));
                }
                Ok(name) => app.enter_room(&name),
                Err(why) => app
                    .room_controls
                    .note(&format!("?room={name}: {why}"), true),
            }
        }
        app
    }

    /// The controls' settings now.
    fn setup(&self) -> Setup {
        Setup {
            net: self.settings,
            transport: self.transport,
            rules: self.rules,
            client: self.client_config,
            smoothing: self.smoothing,
            model: self.model,
        }
    }

    /// Replaces the driver; the view and the inspector start afresh, and
    /// an in-page run keeps its packet timeline.
    fn start(&mut self, mut driver: Driver, state: RunState) {
        self.driver.close();
        driver.keep_timeline();
        self.driver = driver;
        self.state = state;
        self.bot = BotPlayer::new(BOT_TOUR_START);
        self.view.reset();
        self.inspector.forget();
        self.ab.refork(self.driver.run(), self.rollback);
    }

    /// A fresh in-page run, live and unrecorded.
    fn start_local_live(&mut self) {
        self.start(Driver::local(self.setup()), RunState::Local);
    }

    fn frame(&mut self) {
        self.tour_frame();
        if self.recorded_tick() || self.room_tick() {
            return;
        }
        let page_dt = f64::from(get_frame_time());
        let fragment = share::fragment();
        if fragment != self.last_fragment {
            self.last_fragment = fragment.clone();
            if let Some(text) = fragment {
                self.open_fragment(&text);
            }
        }
        let mut events = Vec::new();
        if let Driver::Remote(r) = &mut self.driver {
            r.watch(now(), &mut events);
        }
        self.take_replies();
        self.handle_clicks();
        self.opening_frame(page_dt);
        let changed = self.read_controls();
        if changed {
            self.view.readouts_due();
        }
        self.handle_ab();
        // The time the in-page run advances by (the relay runs on).
        let run_dt = match self.state {
            RunState::Relay => Some(page_dt),
            RunState::Local | RunState::Recording => self.time.live_dt(page_dt, self.state),
            RunState::Playing | RunState::Finished | RunState::Recorded => None,
        };
        let Input {
            dir,
            dash,
            fire,
            user,
        } = self.input(run_dt.unwrap_or(0.0));
        if self.state.is_playback() && (user || changed) {
            self.take_over();
        }
        // Fresh time stamp: pings sent now are timed from the send itself.
        let t = now();
        let setup = self.setup();
        let started = clock_ms();
        // UE's one move per rendered frame, or whole 1/60 s steps (the
        // fixed-step option): the dash goes with the first.
        let fixed_on = self.model_controls.fixed_step();
        let steps = |dt: f64, fixed: &mut FixedStep| -> Vec<f64> {
            if fixed_on {
                vec![STEP_DT; fixed.steps(dt) as usize]
            } else {
                vec![dt]
            }
        };
        match &mut self.driver {
            Driver::Remote(r) => {
                for (i, dt) in steps(page_dt, &mut self.fixed).into_iter().enumerate() {
                    r.step(t, dt, dir, dash && i == 0, fire, &setup, &mut events);
                }
            }
            Driver::Local(run) => match self.state {
                RunState::Playing => {
                    if let Some(p) = &mut self.playback {
                        let from = run.frame_index();
                        p.advance(run, page_dt, &mut self.time);
                        let to = run.frame_index();
                        self.view.column.timed(run.endpoint(), clock_ms() - started);
                        if let Some(twin) = &mut self.ab.twin {
                            twin.mirror(run.scenario(), from, to);
                        }
                    }
                }
                RunState::Local | RunState::Recording => {
                    if let Some(frame_dt) = run_dt {
                        let was_recording = run.is_recording();
                        // The column that runs second finds the code and
                        // data warm: the two take turns, so neither's
                        // re-simulation time is the cheaper one always.
                        let b_first = self.ab.take_turn();
                        let mut own_ms = 0.0;
                        for (i, dt) in steps(frame_dt, &mut self.fixed).into_iter().enumerate() {
                            let dash = dash && i == 0;
                            if let (true, Some(twin)) = (b_first, &mut self.ab.twin) {
                                twin.step(dt, dir, dash, fire);
                            }
                            let started = clock_ms();
                            run.step_live(dt, dir, dash, fire);
                            own_ms += clock_ms() - started;
                            if let (false, Some(twin)) = (b_first, &mut self.ab.twin) {
                                twin.step(dt, dir, dash, fire);
                            }
                        }
                        self.view.column.timed(run.endpoint(), own_ms);
                        if self.state == RunState::Recording && was_recording && !run.is_recording()
                        {
                            self.keep_recording();
                        }
                    }
                }
                _ => {}
            },
        }
        if let Driver::Remote(r) = &self.driver {
            self.view.column.timed(r.endpoint(), clock_ms() - started);
        }
        self.link_events(events);
        self.follow_playback();
        self.inspect_frame(t);
        self.update_view(t, run_dt, dir);
    }

    /// Shows what the connection did.
    fn link_events(&mut self, events: Vec<LinkEvent>) {
        for e in events {
            match e {
                LinkEvent::Opened => self.show_state(),
                LinkEvent::Reconnected => self.header.set_status("connected", "reconnected"),
                LinkEvent::NewSession => {
                    self.bot = BotPlayer::new(BOT_TOUR_START);
                    self.view.reset();
                    self.header
                        .set_status("connected", "reconnected · new session");
                }
                LinkEvent::Reconnecting(attempt, closed_by) => self.header.set_status(
                    "connecting",
                    &format!("relay lost{closed_by} · reconnecting (attempt {attempt})"),
                ),
                LinkEvent::Lost {
                    was_open,
                    closed_by,
                } => {
                    self.start_local_live();
                    self.show_state();
                    let what = if was_open { "relay lost" } else { "no relay" };
                    self.header
                        .set_status("error", &format!("{what}{closed_by} · local"));
                }
                LinkEvent::ServerError(reason) => self
                    .header
                    .set_status("error", &format!("server error: {reason}")),
                LinkEvent::BadFrame(e) => self
                    .header
                    .set_status("error", &format!("bad frame from server: {e}")),
            }
        }
    }

    /// Shows the run's state: mode, connection pill, ▶/❚❚, bot button.
    fn show_state(&mut self) {
        self.header.set_mode(self.state.mode());
        match &self.driver {
            Driver::Local(_) => self.header.set_status("local", "local"),
            Driver::Remote(r) => match r.link_state() {
                crate::net::LinkState::Open => self.header.set_status("connected", "connected"),
                crate::net::LinkState::Connecting => {
                    self.header.set_status("connecting", "connecting…");
                }
                crate::net::LinkState::Closed => self.header.set_status("error", "relay closed"),
            },
        }
        self.panel
            .show_transport(self.state, &self.time, self.recorder.can_replay());
        self.header.set_bot_driving(self.bot_driving);
        self.show_recorder();
    }

    /// The opening's frame: its spike pressed on the Lag spike button, or
    /// the default link put back on the sliders, before they are read.
    fn opening_frame(&mut self, page_dt: f64) {
        let running = match &self.driver {
            Driver::Remote(_) => !self.waiting_for_relay(),
            Driver::Local(_) => self.state == RunState::Local,
        };
        match self.opening.frame(if running { page_dt } else { 0.0 }) {
            Some(Ask::Spike) => self.net_controls.press_lag_spike(),
            Some(Ask::CleanLink) => self.net_controls.show(&NetSettings::default()),
            None => {}
        }
    }

    /// The page's own run is on the relay and its socket is not open yet
    /// (a room or a match has its own).
    fn waiting_for_relay(&self) -> bool {
        self.room.is_none()
            && self.match_run.is_none()
            && matches!(&self.driver, Driver::Remote(r) if r.link_state() != crate::net::LinkState::Open)
    }

    /// Applies control changes; `true` if the user touched any (a change
    /// or the bot button).
    fn read_controls(&mut self) -> bool {
        let mut changes = Vec::new();
        self.net_controls.apply_picked_preset();
        let s = self.net_controls.settings();
        if s != self.settings {
            self.settings = s;
            changes.push(Setting::Net(s));
        }
        let t = self.net_controls.transport();
        if t != self.transport {
            self.transport = t;
            changes.push(Setting::Transport(t));
        }
        let r = self.model_controls.server_rules();
        if r != self.rules {
            self.rules = r;
            changes.push(Setting::Rules(r));
        }
        let c = self.model_controls.client_config();
        if c != self.client_config {
            self.client_config = c;
            changes.push(Setting::Client(c));
        }
        let m = self.model_controls.smoothing();
        if m != self.smoothing {
            self.smoothing = m;
            changes.push(Setting::Smoothing(m));
        }
        let rollback = self.rollback_controls.config(self.rollback);
        let model = self.rollback_controls.model(rollback);
        if rollback != self.rollback {
            self.rollback = rollback;
            if let Some(twin) = &mut self.ab.twin {
                twin.set_rollback(rollback);
            }
        }
        if model != self.model {
            self.model = model;
            changes.push(Setting::Model(model));
        }
        if let Some(spike) = self.net_controls.take_lag_spike() {
            changes.push(Setting::LagSpike(spike));
        }
        for &change in &changes {
            match &mut self.room {
                Some(room) => room.apply(change),
                None => {
                    self.driver.apply(change);
                    if let Some(twin) = &mut self.ab.twin {
                        twin.follow(change);
                    }
                }
            }
        }
        let mut touched = !changes.is_empty();
        if self.bot_clicks.take() % 2 == 1 {
            self.bot_driving = !self.bot_driving;
            self.header.set_bot_driving(self.bot_driving);
            touched = true;
        }
        if self.clear_clicks.take() > 0 {
            self.driver.clear_trails();
            self.view.column.corrections.clear();
            self.view.column.rebases.clear();
            if let Some(twin) = &mut self.ab.twin {
                twin.run.clear_trails();
                twin.view.reset();
            }
        }
        touched
    }
}

/// The macroquad main loop.
pub async fn run() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let mut app = App::new(&doc);
    loop {
        app.frame();
        next_frame().await;
    }
}
