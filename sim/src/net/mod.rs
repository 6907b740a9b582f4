//! The wire: message types ([`protocol`]), the framed postcard codec
//! ([`codec`]) and the seeded link conditioner ([`conditioner`]).

pub mod codec;
pub mod conditioner;
pub mod protocol;
