//! # Layer 5: endpoints
//!
//! The two ends of a connection, sans I/O, in the sense of quinn-proto's
//! `Endpoint` and the field's "endpoint": [`host::ServerHost`] is the
//! server's end (it runs either model's authority), [`client::ClientEndpoint`]
//! the client's (either model's predictor), and a room has one of each
//! ([`room`]). Each speaks the nested protocol over one connection's link
//! ([`link`]) and takes frames in and gives frames out; a driver (the
//! relay, the page, a test) moves the bytes and the clock. The sessions
//! ([`session::LocalSession`], [`room::RoomSession`]) put both ends on one
//! clock with no socket. Named "endpoints" rather than "drivers": the
//! drivers are the relay and the page, which call these.
//!
//! **May import:** every layer below (foundation, net, the models, the
//! protocol) and its own modules, each only those above it here.
//!
//! | module | holds |
//! |---|---|
//! | `metrics` | [`metrics::Metrics`]: the numbers the page shows |
//! | `link` | one connection's link at each end: [`link::HostLink`], [`link::ClientLink`] |
//! | `resume` | the client's [`resume::ResumeTicket`] |
//! | `trace` | [`trace::RelayTrace`]: the relay's packet trace on the page's clock |
//! | `host` | [`host::ServerHost`]: the server end, with the CMC and rollback authorities |
//! | `client` | [`client::ClientEndpoint`]: the client end, either model |
//! | `session` | [`session::LocalSession`]: both ends on one clock |
//! | `room` | a room's host, endpoint and session |
//! | `rollback_room` | [`rollback_room::RollbackRoomHost`]: a shared room running one rollback match |
//! | `match_sample` | [`match_sample::MatchSample`]: the match issue 22's costs are measured on (natively and in wasm) |

pub mod client;
pub mod host;
pub mod link;
pub mod match_sample;
pub mod metrics;
pub mod resume;
pub mod rollback_room;
pub mod room;
pub mod session;
pub mod trace;
