//! # The second model: fixed-tick input/snapshot rollback (`001_…`)
//!
//! Where the CMC model sends *positions per move* and corrects one
//! character, this model sends *inputs per tick* and restores the *whole
//! world*:
//!
//! 1. Both ends step one [`Snapshot`] with one function, [`Game::step`], at
//!    a fixed [`TickRate`] (`001_…` §2); the snapshot is integers (mm,
//!    mm/s, ticks), quantized at the end of every step, so a state off the
//!    wire is exact and confirmed hashes agree across machines (§7).
//! 2. The client ([`RollbackClient`]) predicts at once: its own input, the
//!    remote players' by hold-last. Each tick it sends its last 4 inputs
//!    ([`InputPacket`], §6).
//! 3. The server ([`RollbackServer`]) buffers inputs by tick in a
//!    [`TickRing`]; a missing input is held for at most 6 ticks, then
//!    empty (§5.1). It Acks every tick and sends a State every 2.
//! 4. On every valid new State the client restores it and re-simulates
//!    its kept inputs up to its current tick (§3, §8) — a *rebase*; it
//!    counts a *rollback* only when its own player visibly moved.
//! 5. The client runs ahead of the server by about RTT/2 plus a small input
//!    buffer, adjusting its tick rate by up to ±10 % ([`TimeSync`]), and
//!    predicts at most [`RollbackConfig::max_prediction`] ticks past its
//!    last confirmed State.
//!
//! [`SyncTest`] rewinds and re-simulates every tick to prove a game is
//! deterministic (ggrs's `SyncTestSession`).
//!
//! The model runs behind the same host and client endpoint as the CMC
//! model (one link, one protocol, one local session,
//! `crate::endpoints`): the host's half drives a [`RollbackServer`] on the
//! [`Arena`], and [`RollbackPredictor`] is the endpoint's half.
//!
//! **May import:** the foundation and the network layers, and its own
//! modules, each only those above it here. No other model.
//!
//! | module | holds |
//! |---|---|
//! | `controls` | the model's page controls (redundancy, hold-last, …) |
//! | `tick` | [`Tick`] (wrapping), [`TickRate`] |
//! | `input` | [`InputCmd`], [`TickRing`] |
//! | `game` | the [`Game`] trait, [`Divergence`] |
//! | `snapshot`, `arena` | the arena game: [`Snapshot`], [`Arena`] |
//! | `config` | [`RollbackConfig`] and its ranges |
//! | `server`, `client`, `time_sync` | the authority, the predicting client, its clock |
//! | `sync_test` | [`SyncTest`] |
//! | `wire` | [`InputPacket`], [`RollbackServerMsg`], [`RollbackObserver`] |
//! | `log` | [`log::RollbackEvent`]: the visible rollbacks, for the inspector |
//! | `predictor`, `bot` | the endpoint's half, the bot player |
//! | `recording` | [`MatchRecording`]: a match's used inputs and hashes, tick by tick; [`recording::replay`] |
//! | `playback` | [`playback::MatchPlayback`]: a recording re-run for inspection, any tick's world a seek away, each seat's fills |
//! | `seats` | a room's per-seat reports (RTT, input delay, dilation; issue 22) and their refusals |
//! | `match_server` | [`MatchServer`]: a match of 2–8 seats (players, bots), ids checked per seat |

pub mod arena;
pub mod bot;
pub mod client;
pub mod config;
pub mod controls;
pub mod game;
pub mod input;
pub mod log;
pub mod match_server;
pub mod playback;
pub mod predictor;
pub mod recording;
pub mod seats;
pub mod server;
pub mod snapshot;
pub mod sync_test;
pub mod tick;
pub mod time_sync;
pub mod wire;

pub use arena::Arena;
pub use bot::BotPlayer;
pub use client::{ClientCounters, RemoteCounters, RollbackClient, RollbackRecord, StateRejected};
pub use config::RollbackConfig;
pub use game::{Divergence, Game};
pub use input::{InputCmd, TickRing};
pub use match_server::{JoinRefused, MatchServer, PacketRefused, RefusedCounters};
pub use predictor::{RollbackMetrics, RollbackPredictor};
pub use recording::{MatchRecording, RecordingError};
pub use server::{InputFill, RollbackServer, StateUpdate};
pub use snapshot::Snapshot;
pub use sync_test::SyncTest;
pub use tick::{Tick, TickRate};
pub use time_sync::TimeSync;
pub use wire::{InputPacket, RollbackObserver, RollbackServerMsg};
