//! # Layer 3, a model: UE's CharacterMovementComponent (`000_…`)
//!
//! The client predicts each move now, records it as a
//! [`saved_move::SavedMove`] and sends a [`wire::ServerMove`]; the
//! server re-simulates it with the same [`crate::foundation::movement`],
//! answers with an Ack or an Adjustment ([`wire::MoveResponse`]), and the
//! client replays what the server has not seen yet. Drawn positions are
//! smoothed; other characters are simulated proxies.
//!
//! **May import:** the foundation and the network layers, and its own
//! modules, each only those above it here. No other model.
//!
//! | module | holds |
//! |---|---|
//! | `controls` | the model's page controls: the server's rules, the client's switches |
//! | `smoothing` | [`smoothing::SmoothingMode`], the mesh-offset smoother |
//! | `saved_move` | [`saved_move::SavedMove`] and the queue of unacknowledged ones |
//! | `wire` | the model's messages: ServerMove, MoveResponse, ProxyUpdate, the observer view |
//! | `client_config` | the client's switches ([`client_config::ClientConfig`]) |
//! | `proxy` | [`proxy::SimulatedProxy`] |
//! | `server` | the authority per client, [`server::ServerCharacter`] |
//! | `rules` | the server's rules the page sets, [`rules::ServerRules`] |
//! | `client` | the autonomous proxy, [`client::Client`] |

pub mod client;
pub mod client_config;
pub mod controls;
pub mod proxy;
pub mod rules;
pub mod saved_move;
pub mod server;
pub mod smoothing;
pub mod wire;
