//! Everything the relay caps ([`Limits`]): per-connection budgets — token
//! buckets per message kind, strikes for bad frames, and the verdict that
//! closes an abusive socket (issue #7) — and what one client address, one
//! room seat or one half-sent request may hold (issue #27).
//!
//! Sans-IO like `sim`: every method takes `now` ([`sim::SimTime`], the
//! relay's clock), so the tests drive it on virtual time.
//!
//! | kind | rate | burst | over budget |
//! |---|---|---|---|
//! | `ServerMove` (CMC) | 120 /s | 120 | dropped, counted |
//! | `Inputs` (rollback) | 150 /s | 150 | dropped, counted |
//! | `Ping` | 20 /s | 20 | dropped, counted |
//! | a room's `TimeRequest`, `Fire`, `Reload`; a rollback room's `SeatReport` | 40 /s | 40 | dropped, counted |
//! | `Hello`, `Resume`, `SetNetSettings`, `SetTransport`, `SetServerRules`, `SetModel`, `LagSpike`, `Trace`; a room's `Join`, `SetPlayerSettings`, `SetMaxRecordTime`, `AddBot` | 10 /s | 20 | settings, transport, rules, model, player settings, `MaxRecordTime`, trace request: the newest of each is held and applied when a token frees up (a slider drag loses nothing but intermediate values); `Hello`, `Resume`, `LagSpike`, `Join`, `AddBot`: dropped |
//! | `POST /api/scenarios`, per client address | 1 per 6 s | 10 | HTTP 429 with `Retry-After` |
//!
//! Rates come from the protocol: the page sends at most one ServerMove per
//! UE `ClientNetSendMoveDeltaTime` (0.0111 s ≈ 90 /s, DESIGN.md "More UE
//! defaults"), one rollback input packet per tick — at most 120 Hz sped
//! up by the time sync's +10 %, 132 /s — and one Ping per
//! `sim::endpoints::link::PING_INTERVAL_MS` (10 /s; twice that is allowed), in
//! a room one clock-sync request per `TIME_SYNC_INTERVAL_MS` (10 /s) and
//! at most one shot per fire interval (10 /s; twice both is allowed); a
//! burst of 120 (150) absorbs a one-second stall of the socket delivering
//! its backlog at once, and a 0.25 s frame at 120 Hz sends 30 input
//! packets at once. A page saves a scenario when its user clicks Save (or
//! Save B), or a room's recording when they save it: ten at once (of
//! both together), then one every 6 s, is more than a person clicks.
//!
//! Within one [`Limits::abuse_window`] (10 s), more than
//! [`Limits::max_strikes`] bad frames (undecodable, text, settings out of
//! range) or more than [`Limits::max_dropped`] frames over budget close the
//! socket with 1008 (policy violation) and a reason.
//!
//! | what one client may hold | default | flag | beyond it |
//! |---|---|---|---|
//! | open WebSocket sessions per address | 16 | `--max-connections-per-ip` | HTTP 429 |
//! | seats per address in one shared room | 2 | `--max-seats-per-address` | the room's `Refused` with the reason, close 1008 |
//! | time a seat may stay silent after joining | 10 s | `--silent-seat-grace-ms` | close 1008, the seat freed |
//! | connections per address whose request head has not arrived | 32 | `--max-handshakes-per-ip` | the connection closed at once (after a one-line 429 if the socket takes it) |
//! | time to send a request head (and a save's body) | 10 s | `--header-timeout-ms` | the connection closed (a save: 408) |
//! | time without an answer to the relay's WebSocket Ping | 20 s, a Ping every 20 s | `--heartbeat-timeout-ms`, `--heartbeat-interval-ms` | the socket closed; a seat or session kept for the resume grace |
//! | bytes of all stored scenarios (every relay) | 1 GiB | `--max-store-bytes` | HTTP 507 with the reason |
//!
//! Sessions and seats per address count the client behind a trusted proxy
//! ([`crate::proxy`]); the half-sent requests count the TCP peer (a
//! trusted proxy is not capped: it has its own timeouts). The heartbeat
//! keeps a proxy or NAT with an idle timeout (HAProxy's fallback is 30 s)
//! from dropping a quiet player: every [`Limits::heartbeat_interval`] the
//! relay sends a WebSocket Ping and the browser answers it (no page code),
//! so a frame goes each way.

mod bucket;
mod gate;

pub(crate) use bucket::AddrBuckets;
pub(crate) use gate::{Admit, Gate, Kind, Violation};

use std::time::Duration;

/// A token bucket's refill rate and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Tokens added per second (messages/s sustained), `> 0`.
    pub per_second: f64,
    /// Bucket size (messages accepted back to back), `≥ 1`.
    pub burst: f64,
}

/// Everything the relay caps. [`Limits::default`] is what the binary uses
/// unless its flags say otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Budget for `ServerMove` frames.
    pub moves: Rate,
    /// Budget for rollback `Inputs` frames.
    pub inputs: Rate,
    /// Budget for `Ping` frames.
    pub pings: Rate,
    /// Budget for a room's clock-sync requests, shots and reloads.
    pub room_actions: Rate,
    /// Budget for `Hello`, `Resume`, `SetNetSettings`, `SetTransport`, `SetServerRules`,
    /// `SetModel` and `LagSpike` frames, and a room's `Join`,
    /// `SetPlayerSettings`, `SetMaxRecordTime` and `AddBot`.
    pub control: Rate,
    /// Length of the window in which strikes and drops are counted.
    pub abuse_window: Duration,
    /// Bad frames tolerated per window; one more closes the socket (1008).
    pub max_strikes: u32,
    /// Over-budget frames tolerated per window; one more closes the socket
    /// (1008).
    pub max_dropped: u32,
    /// Open WebSocket sessions per client IP address; a further upgrade is
    /// answered 429. `0` = no cap. Behind a reverse proxy every client has
    /// the proxy's address: raise it there.
    pub max_connections_per_ip: usize,
    /// Longest one outgoing frame may wait for the socket; a client that
    /// stops reading is dropped after this rather than buffered for ever.
    pub send_timeout: Duration,
    /// The kernel's send buffer per connection (`SO_SNDBUF`), bytes; Linux
    /// doubles it. Without it, autotuning lets a client that does not read
    /// park up to 4 MiB in the relay's kernel (minutes of frames) before a
    /// send blocks and the send timeout can see it. 64 KiB is 30+ frames
    /// of the largest kind.
    pub socket_send_buffer: usize,
    /// Most players in one shared room, bots included
    /// (`--max-room-players`, `1..=`[`sim::room::config::MAX_ROOM_PLAYERS`]);
    /// one more is refused.
    pub max_room_players: usize,
    /// Most players in one rollback room (`/ws?room=NAME&model=rollback`),
    /// bots included (`--max-rollback-players`,
    /// `2..=`[`sim::rollback::arena::MAX_PLAYERS`]: issue 22's "2–8
    /// players"); one more is refused with the reason.
    pub max_rollback_players: usize,
    /// How long a shared room with no player (bots do not count) lives
    /// on before it is dropped (issue #13: 30 s).
    pub empty_room_lifetime: Duration,
    /// Seats one client address may hold in one shared room, a dropped
    /// socket's seat within its grace period included; one more is
    /// refused. `0` = no cap.
    pub max_seats_per_address: usize,
    /// How long a seat may go without a frame from its player after the
    /// Join (or the Resume that took it back) before the socket is closed
    /// and the seat freed: a page sends its clock-sync request at once.
    pub silent_seat_grace: Duration,
    /// Inputs a new CMC room records at most (`--room-record-events`,
    /// [`sim::endpoints::room::RoomHost::record`]; `0`: rooms are not
    /// recorded). At the limit the recording stops and is served as the
    /// shorter room it holds, marked truncated (`GET
    /// /api/rooms/{name}/recording`).
    pub room_record_events: usize,
    /// Ticks a new rollback room's match records at most
    /// (`--match-record-ticks`, [`sim::endpoints::rollback_room::RollbackRoomHost::record`],
    /// capped at [`sim::rollback::recording::MAX_RECORDED_TICKS`], 10 min
    /// at 60 Hz; `0`: matches are not recorded). At the limit the
    /// recording stops (the match plays on) and is served as the shorter
    /// match it holds, marked truncated (`GET /api/rooms/{name}/recording`).
    pub match_record_ticks: usize,
    /// Budget for saves per client address: scenarios
    /// (`POST /api/scenarios`) and room recordings
    /// (`POST /api/rooms/{name}/recording`) from one bucket.
    pub saves: Rate,
    /// Bytes all stored items may take together (scenarios' compact
    /// encodings and saved room recordings, across every relay sharing the
    /// store); a save that would pass it is refused. `0` = no cap.
    pub max_store_bytes: u64,
    /// Connections per TCP peer address (trusted proxies excepted) whose
    /// first request head has not arrived yet; one more is closed at once.
    /// `0` = no cap.
    pub max_handshakes_per_ip: usize,
    /// Longest a client may take to send a request's head (each request of
    /// a kept-alive connection, and an idle kept-alive connection waiting
    /// for its next one) or a save's body.
    pub header_timeout: Duration,
    /// How often the relay sends each WebSocket a Ping.
    pub heartbeat_interval: Duration,
    /// How long after a Ping the relay waits for any frame (the Pong, or
    /// anything else) before it closes the socket as dead.
    pub heartbeat_timeout: Duration,
}

/// Pings per second the page sends.
const PAGE_PINGS_PER_S: f64 = 1000.0 / sim::endpoints::link::PING_INTERVAL_MS as f64;

/// A room page's clock-sync requests and shots per second at most.
fn room_actions_per_s() -> f64 {
    let weapon = sim::room::weapon::WeaponConfig::default();
    1000.0 / sim::room::clock::TIME_SYNC_INTERVAL_MS as f64
        + 1000.0 / f64::from(weapon.fire_interval_ms)
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            moves: Rate {
                per_second: 120.0,
                burst: 120.0,
            },
            inputs: Rate {
                per_second: 150.0,
                burst: 150.0,
            },
            pings: Rate {
                per_second: PAGE_PINGS_PER_S * 2.0,
                burst: PAGE_PINGS_PER_S * 2.0,
            },
            room_actions: Rate {
                per_second: room_actions_per_s() * 2.0,
                burst: room_actions_per_s() * 2.0,
            },
            control: Rate {
                per_second: 10.0,
                burst: 20.0,
            },
            abuse_window: Duration::from_secs(10),
            max_strikes: 20,
            max_dropped: 600,
            max_connections_per_ip: 16,
            send_timeout: Duration::from_secs(5),
            socket_send_buffer: 64 * 1024,
            max_room_players: sim::room::config::DEFAULT_MAX_PLAYERS,
            max_rollback_players: sim::rollback::arena::MAX_PLAYERS,
            empty_room_lifetime: Duration::from_secs(30),
            max_seats_per_address: 2,
            silent_seat_grace: Duration::from_secs(10),
            room_record_events: 100_000,
            match_record_ticks: sim::rollback::recording::MAX_RECORDED_TICKS,
            saves: Rate {
                per_second: 1.0 / 6.0,
                burst: 10.0,
            },
            max_store_bytes: 1 << 30,
            max_handshakes_per_ip: 32,
            header_timeout: Duration::from_secs(10),
            heartbeat_interval: Duration::from_secs(20),
            heartbeat_timeout: Duration::from_secs(20),
        }
    }
}
