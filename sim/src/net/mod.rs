//! The wire: message types ([`protocol`]), the framed postcard codec
//! ([`codec`]), the packed ServerMove layout ([`packed`]) and the seeded
//! link conditioner ([`conditioner`]).

pub mod codec;
pub mod conditioner;
pub mod packed;
pub mod protocol;
