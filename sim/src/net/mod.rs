//! # Layer 2: the network
//!
//! What any connection needs whatever it carries: the framed postcard
//! codec ([`codec`], generic over the message type and its version byte),
//! the seeded link conditioner ([`conditioner`]) with its bursty-loss
//! model ([`gilbert_elliott`]) and its transport, datagrams or reliable
//! and ordered ([`transport`]), the link settings the page sets
//! ([`settings`]: [`settings::NetSettings`], [`settings::LinkSettings`],
//! [`settings::LagSpike`]) with their controls ([`controls`]) and named
//! profiles ([`preset`]), the conditioner totals streamed to the page
//! ([`totals`]), the link measured from its ends ([`link_stats`],
//! [`link_meter`]), the newest-wins rule for replicated state
//! ([`newest_wins`]), what happened to every packet ([`trace`]) and how
//! the relay tells the page ([`trace_wire`]: the batch on the wire;
//! [`trace_stream`]: bounded, thinned when the page reads slowly). No
//! model and no message of the protocol is known here.
//!
//! **May import:** the foundation, and its own modules, each only those
//! above it in this order: `codec`, `newest_wins`, `gilbert_elliott`,
//! `transport`, `conditioner`, `totals`, `link_stats`, `link_meter`, `trace`,
//! `trace_wire`, `trace_stream`, `controls`, `settings`, `preset`.

pub mod codec;
pub mod conditioner;
pub mod controls;
pub mod gilbert_elliott;
pub mod link_meter;
pub mod link_stats;
pub mod newest_wins;
pub mod preset;
pub mod settings;
pub mod totals;
pub mod trace;
pub mod trace_stream;
pub mod trace_wire;
pub mod transport;
