//! # sim — the prediction core of Netcode Playground
//!
//! Client-side prediction, server authority and replay, in two models on
//! one arena, link and protocol: Unreal Engine 5.3's
//! `CharacterMovementComponent` and fixed-tick input/snapshot rollback
//! ([`rollback`]) — the reference articles in `shared/reference/`, cited by
//! file and section throughout — plus a seeded link conditioner. No I/O, no clock, no OS randomness: every `now` and
//! seed is passed in, so the same inputs give the same trajectory bit for
//! bit, natively and in wasm.
//!
//! ## How it works
//! 1. The client ([`Client`]) performs each move **now**
//!    ([`perform_movement`]), records it as a [`SavedMove`] and sends a
//!    [`ServerMove`].
//! 2. The server ([`ServerCharacter`]) re-simulates it with the same code,
//!    compares the client's reported location (16 cm), fills the
//!    [`PendingAdjustment`] and, at most once per ack interval, answers
//!    [`MoveResponse::Ack`] or [`MoveResponse::Adjustment`].
//! 3. An Ack drops the acknowledged SavedMoves; an Adjustment drops them,
//!    snaps to the server's state and **replays** the rest at the start of
//!    the next frame ([`Client::is_replaying`] guards side effects).
//! 4. Drawn positions are smoothed ([`SmoothingMode`]); other characters are
//!    [`SimulatedProxy`]s.
//!
//! The rollback model ([`Model::Rollback`]) sends inputs per tick instead
//! and restores whole snapshots; [`ServerHost`] and [`ClientEndpoint`] run
//! either model over one link and switch live ([`Model`]).
//!
//! ## Layout
//! | module | holds |
//! |---|---|
//! | `hash` | the one stable hasher (FNV-1a) and PRNG-draw roll |
//! | `math`, `time` | [`Vec2`] (cm), [`TimeStamp`] (wrapping ms), [`SimTime`] (µs) |
//! | `world`, `movement` | the arena and [`perform_movement`] |
//! | `saved_move`, `client`, `client_config` | the autonomous proxy and its switches |
//! | `controls` | every page control's range, step, unit and default, once |
//! | `server` | the authority per client |
//! | `smoothing`, `proxy` | mesh-offset smoothing and simulated proxies |
//! | `net` | protocol, codec, link conditioner (Gilbert–Elliott bursts, lag spikes, bandwidth cap), presets, link measurement, one connection's link at each end |
//! | `bot` | the built-in driver |
//! | `host`, `endpoint`, `session` | server end, client end (either model), both on one clock |
//! | `room` | several players in one world: proxies, clock sync, rewind, predicted ammo |
//! | `model` | which prediction model a run uses |
//! | `console` | UE's console lines (`Net PktLag=…`, `p.Net…`, `stat net`) as settings |
//! | `metrics` | the numbers the page shows |
//! | `scenario` | saved runs: record, encode, play back bit for bit |
//! | `rollback` | the second model: fixed-tick input/snapshot rollback (`001_…`) |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bot;
pub mod bounded;
pub mod client;
mod client_config;
pub mod console;
pub mod controls;
pub mod endpoint;
pub mod hash;
pub mod host;
pub mod inspect;
mod math;
pub mod metrics;
pub mod model;
pub mod movement;
pub mod net;
pub mod proxy;
pub mod rollback;
pub mod room;
pub mod saved_move;
pub mod scenario;
pub mod server;
pub mod session;
pub mod smoothing;
mod time;
pub mod world;

pub use bot::Bot;
pub use client::{Client, ClientConfig, CorrectionRecord};
pub use endpoint::{ClientEndpoint, ClientEvent};
pub use host::ServerHost;
pub use math::Vec2;
pub use metrics::Metrics;
pub use model::Model;
pub use movement::{perform_movement, CharacterState, MoveInput, MovementParams};
pub use net::preset::Preset;
pub use net::protocol::{
    AdjustmentReason, LagSpike, LinkSettings, MoveResponse, NetSettings, ServerMove, ServerRules,
};
pub use proxy::SimulatedProxy;
pub use saved_move::SavedMove;
pub use scenario::{Scenario, ScenarioRun};
pub use server::{PendingAdjustment, ServerCharacter, ServerConfig};
pub use session::LocalSession;
pub use smoothing::SmoothingMode;
pub use time::{SimTime, TimeStamp};
pub use world::World;
