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
//! | `relay_upgrades_refused_total` | counter | `reason` (`address_cap`, `draining`, `bad_room`) | `/ws` upgrades refused (429, 503, 400) |
//! | `relay_host_poll_seconds` | histogram | – | one `ServerHost::poll` of a private session, s |
//! | `relay_room_tick_seconds` | histogram | – | one shared room's poll that ran its 60 Hz tick (bots, frame history, net updates, and the players' messages due), s |
//! | `relay_scenario_saves_total` | counter | `result` (`created`, `rejected`, `failed`) | `POST /api/scenarios` answered 201, 4xx, 5xx |
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
use sim::net::codec::PROTOCOL_VERSION;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `kind` label of frames in, by the message's tag (`sim`'s `ClientMsg`
/// variant order); `other` for frames that are not a known message.
pub(crate) const CLIENT_KINDS: [&str; 11] = [
    "hello",
    "server_move",
    "set_net_settings",
    "set_server_rules",
    "ping",
    "lag_spike",
    "resume",
    "set_model",
    "inputs",
    "room",
    "other",
];

/// `kind` label of frames out, by `sim`'s `ServerMsg` variant order.
pub(crate) const SERVER_KINDS: [&str; 11] = [
    "welcome",
    "move_response",
    "proxy",
    "observer",
    "pong",
    "error",
    "session_token",
    "rollback",
    "rollback_observer",
    "room",
    "other",
];

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
}

/// How a scenario save was answered.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Save {
    /// 201.
    Created = 0,
    /// 4xx: the scenario was refused.
    Rejected = 1,
    /// 5xx: the store or a task failed.
    Failed = 2,
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
    poll: Histogram,
    room_ticks: Histogram,
    /// By [`Save`].
    saves: Vec<IntCounter>,
}

/// Registers `c` and hands it back.
fn registered<C: prometheus::core::Collector + Clone + 'static>(registry: &Registry, c: C) -> C {
    registry
        .register(Box::new(c.clone()))
        .expect("metric names are unique and valid");
    c
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
            rejected: registered(
                &r,
                IntCounter::new(
                    "relay_frames_rejected_total",
                    "Frames answered with an Error (undecodable, text, out-of-range settings, failed resume).",
                )
                .expect("valid counter"),
            ),
            dropped: counters(&r, "relay_frames_dropped_total", "Frames dropped over their rate budget, by budget.", "kind", &["move", "ping", "control", "inputs", "room"]),
            refused: counters(&r, "relay_upgrades_refused_total", "WebSocket upgrades refused, by reason.", "reason", &["address_cap", "draining", "bad_room"]),
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
            saves: counters(&r, "relay_scenario_saves_total", "Scenario saves, by answer: created (201), rejected (4xx), failed (5xx).", "result", &["created", "rejected", "failed"]),
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
        SessionMetrics {
            private,
            frames_in: [0; CLIENT_KINDS.len()],
            frames_out: [0; SERVER_KINDS.len()],
            poll: self.poll.local(),
            last_flush: Instant::now(),
            shared: Arc::clone(self),
        }
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

    /// A save answered.
    pub(crate) fn save(&self, result: Save) {
        self.saves[result as usize].inc();
    }

    /// Everything, in the text format.
    pub(crate) fn render(&self) -> String {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail, and every metric is valid.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Index of a frame's kind in a table of `n` kinds (the last is `other`):
/// the tag byte that follows the version byte (postcard writes an enum's
/// variant index as a varint: one byte below 128).
fn kind_index(frame: &[u8], n: usize) -> usize {
    match frame {
        [PROTOCOL_VERSION, tag, ..] if usize::from(*tag) < n - 1 => usize::from(*tag),
        _ => n - 1,
    }
}

/// One session's counts, added to the shared metrics at most once per
/// [`FLUSH_INTERVAL`] and when dropped.
#[derive(Debug)]
pub(crate) struct SessionMetrics {
    shared: Arc<Metrics>,
    /// A private session counts as a room.
    private: bool,
    frames_in: [u64; CLIENT_KINDS.len()],
    frames_out: [u64; SERVER_KINDS.len()],
    poll: LocalHistogram,
    last_flush: Instant,
}

impl SessionMetrics {
    /// A binary frame arrived.
    pub(crate) fn frame_in(&mut self, frame: &[u8]) {
        self.frames_in[kind_index(frame, CLIENT_KINDS.len())] += 1;
    }

    /// Read the clock before a poll; hand the result to [`Self::polled`].
    pub(crate) fn poll_started(&self) -> Instant {
        Instant::now()
    }

    /// A poll that began at `started` produced `frames`, about to be sent.
    pub(crate) fn polled(&mut self, started: Instant, frames: &[Vec<u8>]) {
        self.poll
            .observe(Instant::now().duration_since(started).as_secs_f64());
        self.sent(frames);
    }

    /// `frames` are about to be sent (a shared room's, polled by its task).
    pub(crate) fn sent(&mut self, frames: &[Vec<u8>]) {
        for frame in frames {
            self.frames_out[kind_index(frame, SERVER_KINDS.len())] += 1;
        }
        let now = Instant::now();
        if now.duration_since(self.last_flush) >= FLUSH_INTERVAL {
            self.last_flush = now;
            self.flush();
        }
    }

    fn flush(&mut self) {
        let pairs = (self.shared.frames_in.iter().zip(&mut self.frames_in))
            .chain(self.shared.frames_out.iter().zip(&mut self.frames_out));
        for (counter, n) in pairs {
            if *n > 0 {
                counter.inc_by(std::mem::take(n));
            }
        }
        self.poll.flush();
    }
}

impl Drop for SessionMetrics {
    fn drop(&mut self) {
        self.flush();
        self.shared.sessions.dec();
        if self.private {
            self.shared.rooms.dec();
        }
    }
}

/// `GET /metrics`.
pub(crate) async fn handler(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, prometheus::TEXT_FORMAT)],
        state.inner.metrics.render(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::net::codec;
    use sim::net::protocol::{ClientMsg, ServerMsg};
    use sim::{SimTime, TimeStamp};

    /// The label a decoded message must get: exhaustive, so a new variant
    /// in `sim` fails to compile here until the tables know it.
    fn client_kind(m: &ClientMsg) -> &'static str {
        match m {
            ClientMsg::Hello => "hello",
            ClientMsg::ServerMove(_) => "server_move",
            ClientMsg::SetNetSettings(_) => "set_net_settings",
            ClientMsg::SetServerRules(_) => "set_server_rules",
            ClientMsg::Ping { .. } => "ping",
            ClientMsg::LagSpike(_) => "lag_spike",
            ClientMsg::Resume { .. } => "resume",
            ClientMsg::SetModel(_) => "set_model",
            ClientMsg::Inputs(_) => "inputs",
            ClientMsg::Room(_) => "room",
        }
    }

    fn server_kind(m: &ServerMsg) -> &'static str {
        match m {
            ServerMsg::Welcome { .. } => "welcome",
            ServerMsg::MoveResponse(_) => "move_response",
            ServerMsg::Proxy(_) => "proxy",
            ServerMsg::Observer(_) => "observer",
            ServerMsg::Pong { .. } => "pong",
            ServerMsg::Error { .. } => "error",
            ServerMsg::SessionToken { .. } => "session_token",
            ServerMsg::Rollback(_) => "rollback",
            ServerMsg::RollbackObserver(_) => "rollback_observer",
            ServerMsg::Room(_) => "room",
        }
    }

    #[test]
    fn every_client_message_is_counted_under_its_own_kind() {
        use sim::net::protocol::{
            LagSpike, NetPosition, NetworkMove, ResumeToken, ServerMove, ServerRules,
        };
        let msgs = [
            ClientMsg::Hello,
            ClientMsg::ServerMove(ServerMove::new(
                1,
                NetworkMove {
                    time_stamp: TimeStamp(16),
                    input: sim::MoveInput::default(),
                },
                NetPosition::default(),
            )),
            ClientMsg::SetNetSettings(sim::NetSettings::symmetric(100, 0, 0)),
            ClientMsg::SetServerRules(ServerRules::default()),
            ClientMsg::Ping { id: 1 },
            ClientMsg::LagSpike(LagSpike {
                extra_ms: 100,
                duration_ms: 1000,
            }),
            ClientMsg::Resume {
                token: ResumeToken([1; 16]),
            },
            ClientMsg::SetModel(sim::Model::Cmc),
            ClientMsg::Inputs(sim::rollback::InputPacket {
                ids: sim::rollback::wire::Ids::new(1, 1, 0),
                newest: sim::rollback::Tick(3),
                inputs: vec![sim::rollback::wire::PackedInput::default()],
            }),
            ClientMsg::Room(sim::room::RoomClientMsg::Join),
        ];
        for m in &msgs {
            let i = kind_index(&codec::encode(m), CLIENT_KINDS.len());
            assert_eq!(CLIENT_KINDS[i], client_kind(m));
        }
        let other = CLIENT_KINDS.len() - 1;
        assert_eq!(kind_index(&[], CLIENT_KINDS.len()), other);
        assert_eq!(
            kind_index(&[42, 0], CLIENT_KINDS.len()),
            other,
            "wrong version"
        );
        assert_eq!(
            kind_index(&[PROTOCOL_VERSION, 99], CLIENT_KINDS.len()),
            other
        );
    }

    #[test]
    fn every_server_message_a_host_sends_is_counted_under_its_own_kind() {
        let mut host = sim::ServerHost::new(1, SimTime::ZERO);
        let mut seen = std::collections::BTreeSet::new();
        host.receive_frame(SimTime::ZERO, &codec::encode(&ClientMsg::Hello))
            .unwrap();
        host.receive_frame(SimTime::ZERO, &codec::encode(&ClientMsg::Ping { id: 1 }))
            .unwrap();
        host.send_error("x".into());
        let mut frames = Vec::new();
        for ms in (0..600).step_by(10) {
            frames.extend(host.poll(SimTime(ms * 1000)));
        }
        frames.push(codec::encode(&ServerMsg::SessionToken {
            token: sim::net::protocol::ResumeToken([0; 16]),
            grace_ms: 1,
        }));
        for f in &frames {
            let m: ServerMsg = codec::decode(f).unwrap();
            let i = kind_index(f, SERVER_KINDS.len());
            assert_eq!(SERVER_KINDS[i], server_kind(&m));
            seen.insert(SERVER_KINDS[i]);
        }
        assert!(seen.len() >= 6, "{seen:?}");
    }

    #[test]
    fn session_counts_reach_the_shared_metrics_when_flushed_or_dropped() {
        let metrics = Arc::new(Metrics::new("test"));
        let mut s = metrics.session(true);
        assert_eq!(metrics.sessions(), 1);
        s.frame_in(&codec::encode(&ClientMsg::Ping { id: 1 }));
        let t = s.poll_started();
        s.polled(
            t,
            &[codec::encode(&ServerMsg::Error { reason: "x".into() })],
        );
        assert!(!metrics
            .render()
            .contains("relay_frames_in_total{kind=\"ping\"} 1"));
        drop(s);
        let text = metrics.render();
        assert!(
            text.contains("relay_frames_in_total{kind=\"ping\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("relay_frames_out_total{kind=\"error\"} 1"),
            "{text}"
        );
        assert!(text.contains("relay_host_poll_seconds_count 1"), "{text}");
        assert!(text.contains("relay_sessions 0"), "{text}");
        assert!(text.contains("relay_info{instance=\"test\""), "{text}");
    }
}
