//! # Layer 3, a model: rooms of real players (`003_…`, issue #13)
//!
//! Several players in one authoritative world, each on their own link,
//! seeing the others as replicated simulated proxies (`000_…` §7),
//! shooting at what they see and judged by server-side rewind (`003_…`
//! 延迟补偿, 回溯算法), with a predicted ammo counter (`003_…` 弹药预测). A
//! room player's own moves are the CMC model's ([`crate::cmc`]). This is
//! the model: its settings, messages and rules; the room's host, endpoint
//! and session, which speak the nested protocol, are
//! `crate::endpoints::room`.
//!
//! **May import:** the foundation, the network layer and the CMC model,
//! and its own modules, each only those above it in the table.
//!
//! | module | holds |
//! |---|---|
//! | `seq` | the wrapping [`Seq`] |
//! | `hitbox` | hit boxes and the shot's ray |
//! | `history` | [`FrameHistory`]: the boxes of the last `MaxRecordTime`, teleports marked |
//! | `replication` | [`PlayerId`] and the replicated movement of a net update |
//! | `clock` | [`ClockSync`]: server time from request/answer, lowest-RTT sample |
//! | `weapon` | fire-rate, ammo and reload validation on the server |
//! | `config` | [`RoomConfig`], [`PlayerSettings`] |
//! | `controls` | the room's page controls (net update rate, rewind, …) |
//! | `wire` | the room's messages ([`RoomClientMsg`], [`RoomServerMsg`]) |
//! | `actions` | shots and reloads that arrive: resent until acknowledged, handed on once and in order |
//! | `ammo` | [`PredictedAmmo`] on the client |
//! | `rewind` | judging a shot against the boxes where its shooter drew them |
//! | `shots` | the client's shots and their four views |
//! | `proxies` | the client's [`ProxySet`], interpolated in the past |

pub mod actions;
pub mod ammo;
pub mod clock;
pub mod config;
pub mod controls;
pub mod history;
pub mod hitbox;
pub mod proxies;
pub mod replication;
pub mod rewind;
mod seq;
pub mod shots;
pub mod weapon;
pub mod wire;

pub use ammo::{AmmoMode, PredictedAmmo};
pub use clock::ClockSync;
pub use config::{PlayerSettings, RoomConfig};
pub use history::FrameHistory;
pub use proxies::ProxySet;
pub use replication::PlayerId;
pub use seq::Seq;
pub use wire::{RoomClientMsg, RoomServerMsg, Verdict};
