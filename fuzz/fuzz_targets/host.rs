//! decode → handle: the input is split into frames (a length byte, then
//! that many bytes; the next byte after each frame is how far the clock
//! moves, ms) and fed to one `ServerHost`, polling after each. No panic,
//! the character stays finite, every frame sent back fits the limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sim::net::codec::MAX_FRAME_LEN;
use sim::{ServerHost, SimTime};

fuzz_target!(|data: &[u8]| {
    let mut host = ServerHost::new(1, SimTime::ZERO);
    let mut now = SimTime::ZERO;
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len).min(tail.len());
        let (frame, tail) = tail.split_at(len);
        let _ = host.receive_frame(now, frame);
        let (gap, tail) = tail.split_first().map_or((0, tail), |(&g, t)| (g, t));
        now = now.plus_millis(u64::from(gap));
        for out in host.poll(now) {
            assert!(out.len() <= MAX_FRAME_LEN);
        }
        // A fuzzed SetModel may switch to rollback, whose state is integers.
        if let Some(c) = host.cmc() {
            let s = c.state();
            assert!(s.position.x.is_finite() && s.position.y.is_finite());
        }
        rest = tail;
    }
});
