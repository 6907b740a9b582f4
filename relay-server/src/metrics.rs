//! Prometheus metrics, `GET /metrics` in the text exposition format
//! (0.0.4), through the `prometheus` crate. Scrape each relay directly
//! (its own address), not through the proxy.
//!
//! | name | type | labels | counts |
//! |---|---|---|---|
//! | `relay_info` | gauge (always 1) | `instance`, `version` | which relay this is |
//! | `relay_sessions` | gauge | – | open WebSocket sessions |
//! | `relay_rooms` | gauge | – | rooms on this relay: shared rooms (`/ws?room=NAME`, [`crate::rooms`]) and private sessions (each its own room) |
//! | `relay_frames_in_total` | counter | `kind` ([`CLIENT_KINDS`]) | binary frames received |
//! | `relay_frames_out_total` | counter | `kind` ([`SERVER_KINDS`]) | frames sent |
//! | `relay_frames_rejected_total` | counter | – | frames answered with an `Error` (undecodable, text, out-of-range settings, failed resume) |
//! | `relay_frames_dropped_total` | counter | `kind` (`move`, `ping`, `control`, `inputs`, `room`) | frames over their rate budget (`limits`) |
//! | `relay_upgrades_refused_total` | counter | `reason` (`address_cap`, `draining`, `bad_room`, `origin`, `room_moving`) | `/ws` upgrades refused (429, 503, 400, 403, 409) |
//! | `relay_seats_refused_total` | counter | `reason` (`room_full`, `address_cap`, `room_model`) | room seats refused (close 1013, 1008, 4000) |
//! | `relay_sessions_ended_total` | counter | `reason` ([`ENDED`]) | WebSocket sessions ended, by what ended them |
//! | `relay_connections_refused_total` | counter | – | TCP connections closed at once: their address has its most connections whose request head has not arrived |
//! | `relay_header_timeouts_total` | counter | – | connections closed because a request head did not arrive in time |
//! | `relay_sessions_forwarded_total` | counter | – | room players passed on to the room's home relay |
//! | `relay_room_homes_total` | counter | `event` (`claimed`, `restored`, `handed_off`, `lease_lost`) | rooms this relay became the home of (fresh, or from a checkpoint), handed to another, or found taken |
//! | `relay_store_timeouts_total` | counter | – | store and room-registry calls past their deadline |
//! | `relay_host_poll_seconds` | histogram | – | one `ServerHost::poll` of a private session, s |
//! | `relay_room_tick_seconds` | histogram | – | one shared room's poll that ran its 60 Hz tick (bots, frame history, net updates, and the players' messages due), s |
//! | `relay_scenario_saves_total` | counter | `result` (`created`, `existing`, `rejected`, `failed`, `rate_limited`, `store_full`, `origin`) | `POST /api/scenarios` answered 201, 200 (the same bytes were stored already), another 4xx, another 5xx, 429, 507, 403 (a page of another site) |
//! | `relay_room_recording_saves_total` | counter | `result` (as above) | `POST /api/rooms/{name}/recording` answered as above |
//!
//! Rates (frames per second by kind) are PromQL's job:
//! `rate(relay_frames_in_total[1m])`.
//!
//! **Cost on the hot path.** Every shared handle is resolved once, when
//! the relay starts. A session counts its frames in plain arrays and its
//! poll times in a [`LocalHistogram`], and adds them to the shared metrics
//! at most once per [`FLUSH_INTERVAL`] and when it ends: a frame costs an
//! array increment, a poll two clock reads and a bucket search; no
//! allocation, no atomic, no lock per frame.

mod session;

pub(crate) use session::SessionMetrics;
use session::{CLIENT_KINDS, SERVER_KINDS};

use crate::limits::Kind;
use crate::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use prometheus::local::LocalHistogram;
use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};
use std::sync::Arc;
use std::time::Duration;

/// Buckets of [`Metrics::poll`], s: 1 µs to 10 ms (a poll takes a few µs;
/// the relay's latency budget is 2 ms).
const POLL_BUCKETS: [f64; 12] = [
    1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 1e-2,
];

/// Longest a session keeps counts before adding them to the shared
/// metrics (a scrape is typically every 15 s).
pub(crate) const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// Why a `/ws` upgrade was refused.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Refusal {
    /// The client's address has its share of sessions (429).
    AddressCap = 0,
    /// The relay is draining (503).
    Draining = 1,
    /// The `room` query is malformed (400).
    BadRoom = 2,
    /// The page that opened the socket is from another site (403).
    Origin = 3,
    /// The room's home is changing hands (409).
    RoomMoving = 4,
}

/// How a WebSocket session ended: the `reason` label of
/// `relay_sessions_ended_total`, indexed by [`Ended`].
pub(crate) const ENDED: [&str; 12] = [
    "client",
    "client_closed",
    "violation",
    "too_big",
    "room_full",
    "shutdown",
    "slow_reader",
    "address_cap",
    "heartbeat",
    "silent_seat",
    "room_moved",
    "room_model",
];

/// How a WebSocket session ended (the relay's log line says it in words).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ended {
    /// The socket failed or ended without a close handshake.
    Client = 0,
    /// The client sent a Close frame.
    ClientClosed = 1,
    /// Closed by the relay for abuse (1008).
    Violation = 2,
    /// Closed by the relay for a message over the socket's limit (1009).
    TooBig = 3,
    /// The shared room was full (1013).
    RoomFull = 4,
    /// The relay shut down (1001).
    Shutdown = 5,
    /// A send did not complete within the send timeout: the client stopped
    /// reading.
    SlowReader = 6,
    /// The address holds its most seats in the room (1008).
    AddressCap = 7,
    /// No answer to the relay's Pings within the heartbeat's timeout
    /// (1001).
    Heartbeat = 8,
    /// No frame within the silent-seat grace after joining a room (1008).
    SilentSeat = 9,
    /// The room left this relay: the player reconnects to its new home
    /// (1012).
    RoomMoved = 10,
    /// The room runs another model than the one asked for, or a
    /// spectator's Watch found no rollback match
    /// ([`crate::rooms::CLOSE_ROOM_MODEL`]).
    RoomModel = 11,
}

/// How a save (a scenario's or a room recording's) was answered.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Save {
    /// 201.
    Created = 0,
    /// 4xx (but 429): the scenario was refused.
    Rejected = 1,
    /// 5xx (but 507): the store or a task failed.
    Failed = 2,
    /// 429: the address's budget of saves is spent.
    RateLimited = 3,
    /// 507: the store is full.
    StoreFull = 4,
    /// 200: the same bytes of the same kind were stored already; their
    /// id answered, nothing stored.
    Existing = 5,
    /// 403: posted by a page of another site (`crate::origin`).
    Origin = 6,
}

/// The `result` label of the save counters, indexed by [`Save`].
const SAVE_RESULTS: [&str; 7] = [
    "created",
    "rejected",
    "failed",
    "rate_limited",
    "store_full",
    "existing",
    "origin",
];

/// Why a seat was refused.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SeatRefusal {
    /// The room holds its most players (1013).
    RoomFull = 0,
    /// The address holds its most seats in the room (1008).
    AddressCap = 1,
    /// The room runs another model than the one asked for
    /// ([`crate::rooms::CLOSE_ROOM_MODEL`]).
    RoomModel = 2,
}

/// What happened to a room's home.
#[derive(Debug, Clone, Copy)]
pub(crate) enum HomeEvent {
    /// This relay became the home of a new room.
    Claimed = 0,
    /// This relay became the home of a room from its checkpoint.
    Restored = 1,
    /// This relay handed a room to whichever relay its players reach next.
    HandedOff = 2,
    /// Another relay holds the room's lease: its players were sent there.
    LeaseLost = 3,
}

/// The relay's metrics, registered in their own registry.
#[derive(Debug)]
pub(crate) struct Metrics {
    registry: Registry,
    sessions: IntGauge,
    rooms: IntGauge,
    frames_in: Vec<IntCounter>,
    frames_out: Vec<IntCounter>,
    rejected: IntCounter,
    /// By [`Kind`]: move, ping, control, inputs, room.
    dropped: Vec<IntCounter>,
    /// By [`Refusal`].
    refused: Vec<IntCounter>,
    /// By [`SeatRefusal`].
    seats_refused: Vec<IntCounter>,
    /// By [`Ended`].
    ended: Vec<IntCounter>,
    connections_refused: IntCounter,
    header_timeouts: IntCounter,
    forwarded: IntCounter,
    /// By [`HomeEvent`].
    homes: Vec<IntCounter>,
    store_timeouts: IntCounter,
    poll: Histogram,
    room_ticks: Histogram,
    /// Scenario saves by [`Save`].
    saves: Vec<IntCounter>,
    /// Room recording saves by [`Save`].
    room_saves: Vec<IntCounter>,
}

/// Registers `c` and hands it back.
fn registered<C: prometheus::core::Collector + Clone + 'static>(registry: &Registry, c: C) -> C {
    registry
        .register(Box::new(c.clone()))
        .expect("metric names are unique and valid");
    c
}

/// A counter without labels, registered.
fn counter(registry: &Registry, name: &str, help: &str) -> IntCounter {
    registered(
        registry,
        IntCounter::new(name, help).expect("valid counter"),
    )
}

/// One counter per label value, resolved now.
fn counters(
    registry: &Registry,
    name: &str,
    help: &str,
    label: &str,
    values: &[&str],
) -> Vec<IntCounter> {
    let vec = registered(
        registry,
        IntCounterVec::new(Opts::new(name, help), &[label]).expect("valid counter"),
    );
    values.iter().map(|v| vec.with_label_values(&[v])).collect()
}

impl Metrics {
    /// Every metric at zero, for relay `instance`.
    ///
    /// # Panics
    /// Never: the names and labels are fixed and valid.
    pub(crate) fn new(instance: &str) -> Metrics {
        let r = Registry::new();
        let info = registered(
            &r,
            IntGaugeVec::new(
                Opts::new("relay_info", "Which relay this is (always 1)."),
                &["instance", "version"],
            )
            .expect("valid gauge"),
        );
        info.with_label_values(&[instance, env!("CARGO_PKG_VERSION")])
            .set(1);
        let gauge = |name: &str, help: &str| {
            registered(&r, IntGauge::new(name, help).expect("valid gauge"))
        };
        Metrics {
            sessions: gauge("relay_sessions", "Open WebSocket sessions."),
            rooms: gauge(
                "relay_rooms",
                "Rooms on this relay: shared rooms and private sessions (each its own room).",
            ),
            frames_in: counters(&r, "relay_frames_in_total", "Binary frames received, by message kind.", "kind", &CLIENT_KINDS),
            frames_out: counters(&r, "relay_frames_out_total", "Frames sent, by message kind.", "kind", &SERVER_KINDS),
            rejected: counter(&r, "relay_frames_rejected_total", "Frames answered with an Error (undecodable, text, out-of-range settings, failed resume)."),
            dropped: counters(&r, "relay_frames_dropped_total", "Frames dropped over their rate budget, by budget.", "kind", &["move", "ping", "control", "inputs", "room"]),
            refused: counters(&r, "relay_upgrades_refused_total", "WebSocket upgrades refused, by reason.", "reason", &["address_cap", "draining", "bad_room", "origin", "room_moving"]),
            seats_refused: counters(&r, "relay_seats_refused_total", "Room seats refused, by reason.", "reason", &["room_full", "address_cap", "room_model"]),
            ended: counters(&r, "relay_sessions_ended_total", "WebSocket sessions ended, by what ended them.", "reason", &ENDED),
            connections_refused: counter(&r, "relay_connections_refused_total", "TCP connections closed at once: their address has its most half-sent requests."),
            header_timeouts: counter(&r, "relay_header_timeouts_total", "Connections closed because a request head did not arrive in time."),
            forwarded: counter(&r, "relay_sessions_forwarded_total", "Room players passed on to the room's home relay."),
            homes: counters(&r, "relay_room_homes_total", "Rooms claimed, restored from a checkpoint, handed off, or found taken.", "event", &["claimed", "restored", "handed_off", "lease_lost"]),
            store_timeouts: counter(&r, "relay_store_timeouts_total", "Store and room-registry calls past their deadline."),
            poll: registered(
                &r,
                Histogram::with_opts(
                    HistogramOpts::new("relay_host_poll_seconds", "Time of one ServerHost poll of a private session, s.")
                        .buckets(POLL_BUCKETS.to_vec()),
                )
                .expect("valid histogram"),
            ),
            room_ticks: registered(
                &r,
                Histogram::with_opts(
                    HistogramOpts::new("relay_room_tick_seconds", "Time of one shared room's poll that ran its 60 Hz tick, s.")
                        .buckets(POLL_BUCKETS.to_vec()),
                )
                .expect("valid histogram"),
            ),
            saves: counters(&r, "relay_scenario_saves_total", "Scenario saves, by answer: created (201), existing (200: stored already), rejected (4xx), failed (5xx), rate_limited (429), store_full (507), origin (403: another site's page).", "result", &SAVE_RESULTS),
            room_saves: counters(&r, "relay_room_recording_saves_total", "Room recording saves, by answer: created (201), existing (200: stored already), rejected (4xx), failed (5xx), rate_limited (429), store_full (507), origin (403: another site's page).", "result", &SAVE_RESULTS),
            registry: r,
        }
    }

    /// A new session's counters; the session gauge counts it until it is
    /// dropped, and so does the room gauge if it is `private` (its own
    /// room; a shared room counts itself, [`Metrics::room_opened`]).
    pub(crate) fn session(self: &Arc<Self>, private: bool) -> SessionMetrics {
        self.sessions.inc();
        if private {
            self.rooms.inc();
        }
        SessionMetrics::new(self, private)
    }

    /// A shared room began.
    pub(crate) fn room_opened(&self) {
        self.rooms.inc();
    }

    /// A shared room ended.
    pub(crate) fn room_closed(&self) {
        self.rooms.dec();
    }

    /// A room task's own tick timer, flushed into the shared histogram.
    pub(crate) fn room_ticks(&self) -> LocalHistogram {
        self.room_ticks.local()
    }

    /// Open sessions now.
    pub(crate) fn sessions(&self) -> i64 {
        self.sessions.get()
    }

    /// A frame answered with an Error.
    pub(crate) fn rejected(&self) {
        self.rejected.inc();
    }

    /// A frame over its budget.
    pub(crate) fn dropped(&self, kind: Kind) {
        let i = match kind {
            Kind::Move => 0,
            Kind::Ping => 1,
            Kind::Control => 2,
            Kind::Inputs => 3,
            Kind::Room => 4,
        };
        self.dropped[i].inc();
    }

    /// An upgrade refused.
    pub(crate) fn refused(&self, why: Refusal) {
        self.refused[why as usize].inc();
    }

    /// A session ended.
    pub(crate) fn ended(&self, how: Ended) {
        self.ended[how as usize].inc();
    }

    /// A scenario save answered.
    pub(crate) fn save(&self, result: Save) {
        self.saves[result as usize].inc();
    }

    /// A room recording save answered.
    pub(crate) fn room_save(&self, result: Save) {
        self.room_saves[result as usize].inc();
    }

    /// A seat refused.
    pub(crate) fn seat_refused(&self, why: SeatRefusal) {
        self.seats_refused[why as usize].inc();
    }

    /// A TCP connection refused by the half-sent request cap.
    pub(crate) fn connection_refused(&self) {
        self.connections_refused.inc();
    }

    /// A connection closed by the header timeout.
    pub(crate) fn header_timeout(&self) {
        self.header_timeouts.inc();
    }

    /// A room player passed on to the room's home.
    pub(crate) fn forwarded(&self) {
        self.forwarded.inc();
    }

    /// A room's home changed.
    pub(crate) fn home(&self, event: HomeEvent) {
        self.homes[event as usize].inc();
    }

    /// A store or registry call past its deadline.
    pub(crate) fn store_timeout(&self) {
        self.store_timeouts.inc();
    }

    /// Everything, in the text format.
    pub(crate) fn render(&self) -> String {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail, and every metric is valid.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// `GET /metrics`.
pub(crate) async fn handler(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, prometheus::TEXT_FORMAT)],
        state.inner.metrics.render(),
    )
}
