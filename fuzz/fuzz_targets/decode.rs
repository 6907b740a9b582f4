//! `codec::decode` on arbitrary bytes, both directions: a message or a
//! `DecodeError`, never a panic, and a message re-encodes to a frame that
//! decodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};

fuzz_target!(|frame: &[u8]| {
    if let Ok(msg) = codec::decode::<ClientMsg>(frame) {
        let again = codec::encode(&msg);
        assert_eq!(codec::decode::<ClientMsg>(&again).ok(), Some(msg));
    }
    let _ = codec::decode::<ServerMsg>(frame);
});
