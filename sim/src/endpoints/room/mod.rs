//! A room's two ends and both on one clock: [`RoomHost`] (the server,
//! one [`crate::endpoints::link::HostLink`] and one
//! [`crate::cmc::server::ServerCharacter`] per player), [`RoomEndpoint`]
//! (one player's client) and [`RoomSession`]. The rules they run are the
//! room model's ([`crate::room`]); here they meet the nested protocol.
//!
//! ```text
//!  RoomEndpoint (client clock)                 RoomHost (server clock)
//!  Client ── ServerMove ───► uplink(p) ───► ServerCharacter(p) ─┐
//!  ClockSync ◄─ TimeReport ◄─ downlink(p) ◄─ TimeRequest         │ every tick:
//!  fire: ray at drawn proxies,                                   │ FrameHistory(p)
//!    hit time = shown server time ── Fire ─► weapon ─► rewind ◄──┘ saves boxes
//!  ShotLog ◄── ShotResult (three views) ◄─┘        │
//!  PredictedAmmo ◄── Ammo {ack, ammo} ◄────────────┘
//!  ProxySet ◄── Proxies {seq, server time, others} ◄── net update (p's rate)
//! ```
//!
//! | module | holds |
//! |---|---|
//! | `link`, `player`, `host` | [`RoomHost`] and what it keeps per player |
//! | `endpoint` | [`RoomEndpoint`] |
//! | `session` | [`RoomSession`]: a room and its clients on one clock |
//! | `recording` | [`recording::RoomRecording`]: the room's authoritative inputs and tick hashes, recorded by the host (`host/record.rs`); its compact form and golden file |
//! | `replay` | [`replay::replay`]: the authority run again from a recording; [`replay::fork`]: what-if with a rule of lag compensation or of the players' screens changed |
//! | `screen` | each player's screen rebuilt from their net updates' recorded fates: what a shot was drawn from, redrawn for a fork |
//! | `playback` | [`playback::play`]: a recording played back for the page — every tick's bodies, every shot's ray and views, each seat's link |
//! | `sample` | [`sample::brawl`]: the 4-player room a playback's costs are measured on, natively and in wasm |
//! | `reports` | the golden room runs, one per public bug report ([`reports::REPORT_RUNS`]) |

pub mod endpoint;
pub mod host;
mod link;
pub mod playback;
mod player;
pub mod recording;
pub mod replay;
pub mod reports;
pub mod sample;
pub mod screen;
pub mod session;

pub use endpoint::{
    FireError, NetUpdateRecord, RoomEndpoint, RoomEvent, RoomEvents, UpdateFate, PROXY_JUMP_CM,
};
pub use host::{RoomError, RoomHost};
pub use player::ShotCounters;
pub use session::RoomSession;
