//! The wire: message types ([`protocol`]), the framed postcard codec
//! ([`codec`]), the packed ServerMove layout ([`packed`]), the seeded link
//! conditioner ([`conditioner`]) with its bursty-loss model
//! ([`gilbert_elliott`]), named link profiles ([`preset`]), the link
//! measured from its ends ([`link_stats`], [`link_meter`]), one
//! connection's link at each end ([`link`]), and the newest-wins rule for
//! replicated state ([`newest_wins`]); the client's resume ticket
//! ([`resume`]); what happened to every packet, for
//! the packet timeline ([`trace`]).

pub mod codec;
pub mod conditioner;
pub mod gilbert_elliott;
pub mod link;
pub mod link_meter;
pub mod link_stats;
pub mod newest_wins;
pub mod packed;
pub mod preset;
pub mod protocol;
pub mod resume;
pub mod trace;
