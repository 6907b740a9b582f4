//! # sim — the prediction core of Netcode Playground
//!
//! Client-side prediction, server authority and replay, in two models on
//! one arena, link and protocol: Unreal Engine 5.3's
//! `CharacterMovementComponent` and fixed-tick input/snapshot rollback
//! ([`rollback`]) — the reference articles in `shared/reference/`, cited by
//! file and section throughout — plus a seeded link conditioner. No I/O,
//! no clock, no OS randomness: every `now` and seed is passed in, so the
//! same inputs give the same trajectory bit for bit, natively and in wasm.
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
//! The crate stands in one-way layers, each a folder: a file imports only
//! from its own layer or lower ones, and within a layer its modules stand
//! in a declared order (`sim/tests/layers.rs` holds the code to it, and
//! each folder's `mod.rs` says what its layer holds and may import).
//!
//! | layer | folder | holds |
//! |---|---|---|
//! | 1 foundation | `foundation/` | [`Vec2`] (cm), [`TimeStamp`] / [`SimTime`], the one hasher (FNV-1a), bounded logs, a page control's [`foundation::control::Range`] and the one settings check, interpolation in the past, the arena ([`World`]), [`perform_movement`], the built-in [`Bot`] |
//! | 2 network | `net/` | the framed postcard codec, the seeded link conditioner (Gilbert–Elliott bursts, lag spikes, bandwidth cap), [`NetSettings`] and its controls, presets, link totals and measurement, newest-wins, the packet trace |
//! | 3 models | `cmc/` | UE's CharacterMovementComponent: [`SavedMove`], [`Client`], [`ServerCharacter`], [`ServerRules`], smoothing, [`SimulatedProxy`], its messages ([`ServerMove`], [`MoveResponse`]) and controls |
//! | | `rollback/` | fixed-tick input/snapshot rollback (`001_…`): ticks, snapshots, the arena game, server, client, predictor, its messages and controls |
//! | | `room/` | several players in one world: replicated movement, clock sync, hit boxes, frame history, rewind to what was drawn, weapon, shots and reloads that arrive, predicted ammo, its messages and controls (may use `cmc`) |
//! | 4 protocol | `protocol/` | [`protocol::ClientMsg`] / [`protocol::ServerMsg`] nesting each model's messages, `PROTOCOL_VERSION`, [`Model`], the settings that span models ([`protocol::Setup`], [`protocol::Setting`]) |
//! | 5 endpoints | `endpoints/` | the two ends of a connection: [`ServerHost`], [`ClientEndpoint`], [`LocalSession`], a room's [`RoomHost`], [`RoomEndpoint`], [`RoomSession`] and its golden runs (one per public bug report); one connection's link at each end, the resume ticket, [`Metrics`] |
//! | 6 scenarios | `scenario/` | saved runs: record, encode, play back bit for bit ([`Scenario`], [`ScenarioRun`]), and what-if forks |
//! | 7 tools | `inspect/`, `console.rs`, `tour.rs` | the correction inspector; UE's console lines (`Net PktLag=…`, `p.Net…`, `stat net`) as settings; the guided tour's runs, moments and numbers |
//! | 8 controls | `controls.rs` | every page control, gathered from the layers that define them |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod cmc;
pub mod console;
pub mod controls;
pub mod endpoints;
pub mod foundation;
pub mod inspect;
pub mod net;
pub mod protocol;
pub mod rollback;
pub mod room;
pub mod scenario;
pub mod tour;

pub use cmc::client::{Client, ClientConfig, CorrectionRecord};
pub use cmc::proxy::SimulatedProxy;
pub use cmc::rules::ServerRules;
pub use cmc::saved_move::SavedMove;
pub use cmc::server::{PendingAdjustment, ServerCharacter, ServerConfig};
pub use cmc::smoothing::SmoothingMode;
pub use cmc::wire::{AdjustmentReason, MoveResponse, ServerMove};
pub use endpoints::client::{ClientEndpoint, ClientEvent};
pub use endpoints::host::ServerHost;
pub use endpoints::metrics::Metrics;
pub use endpoints::room::{RoomEndpoint, RoomHost, RoomSession};
pub use endpoints::session::LocalSession;
pub use foundation::bot::Bot;
pub use foundation::math::Vec2;
pub use foundation::movement::{perform_movement, CharacterState, MoveInput, MovementParams};
pub use foundation::time::{SimTime, TimeStamp};
pub use foundation::world::World;
pub use net::preset::{Opening, Preset, OPENING};
pub use net::settings::{LagSpike, LinkSettings, NetSettings};
pub use protocol::Model;
pub use scenario::{Scenario, ScenarioRun};
