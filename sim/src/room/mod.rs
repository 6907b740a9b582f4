//! Rooms of real players: several players in one authoritative world, each
//! on their own link, seeing the others as replicated simulated proxies
//! (`000_…` §7), shooting at what they see and judged by server-side
//! rewind (`003_…` 延迟补偿, 回溯算法), with a predicted ammo counter
//! (`003_…` 弹药预测).
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
//! ## Layout
//! | module | holds |
//! |---|---|
//! | `wire` | the room's messages ([`RoomClientMsg`], [`RoomServerMsg`]) |
//! | `config`, `seq` | [`RoomConfig`], [`PlayerSettings`], the wrapping [`Seq`] |
//! | `clock` | [`ClockSync`]: server time from request/answer, lowest-RTT sample |
//! | `hitbox`, `history`, `rewind` | hit boxes, [`FrameHistory`], judging a shot |
//! | `weapon`, `ammo` | fire-rate validation on the server, [`PredictedAmmo`] on the client |
//! | `interpolation`, `proxies` | interpolation in the past, the client's [`ProxySet`] |
//! | `link`, `player`, `host` | [`RoomHost`] and what it keeps per player |
//! | `shots`, `endpoint` | [`RoomEndpoint`] and its shots' four views |
//! | `session` | [`RoomSession`]: a room and its clients on one clock |

pub mod ammo;
pub mod clock;
pub mod config;
pub mod endpoint;
pub mod history;
pub mod hitbox;
pub mod host;
pub mod interpolation;
mod link;
mod player;
pub mod proxies;
pub mod rewind;
mod seq;
pub mod session;
pub mod shots;
pub mod weapon;
pub mod wire;

pub use ammo::{AmmoMode, PredictedAmmo};
pub use clock::ClockSync;
pub use config::{PlayerSettings, RoomConfig};
pub use endpoint::{FireError, RoomEndpoint, RoomEvent};
pub use history::FrameHistory;
pub use host::{RoomError, RoomHost};
pub use link::Traffic;
pub use player::ShotCounters;
pub use proxies::ProxySet;
pub use seq::Seq;
pub use session::RoomSession;
pub use wire::{PlayerId, RoomClientMsg, RoomServerMsg, Verdict};
