//! `scenario::codec::decode` on arbitrary bytes (what `POST
//! /api/scenarios` and `#s=` links feed it): a validated scenario or a
//! `DecodeError`, never a panic or an unbounded allocation (the inflate
//! limit), and a decoded scenario re-encodes to bytes that decode to it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sim::scenario::codec;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(s) = codec::decode(bytes) {
        assert_eq!(codec::decode(&codec::encode(&s)).ok(), Some(s));
    }
});
