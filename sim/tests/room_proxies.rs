//! Proxies drawn in a room (issue #26): interpolation follows a downlink
//! that slows down without running dry (Mirror #3423), and Linear
//! smoothing lets a stopped proxy settle 0.1 s after its last correction
//! (lightyear #1450).

use sim::endpoints::room::reports::proxies::{
    interpolate_through_a_slower_downlink, settle_after_a_stop,
};
use sim::{NetSettings, SmoothingMode};

#[test]
fn after_the_downlink_slows_by_100_ms_interpolation_never_stalls_3_frames() {
    // RTT 100 ± 10 ms, the downlink 100 ms slower for 3 s. Before, the
    // render time kept the lowest round trip of the last 3.2 s: 181 frames
    // starved, the proxy standing still 3 frames at a time.
    for seed in 0..5 {
        let (t, _) = interpolate_through_a_slower_downlink(
            seed,
            NetSettings::symmetric(100, 10, 0),
            100,
            3000,
        );
        assert!(t.longest_stall < 3, "seed {seed}: {t:?}");
        // It runs dry for a few frames only, nearly all before the first
        // late update arrives.
        assert!(t.starved <= 10 && t.starved_late <= 2, "seed {seed}: {t:?}");
    }
}

#[test]
fn a_stopped_proxy_settles_within_a_tenth_of_a_second_and_one_update() {
    // From the net update that shows it at rest: 0.1 s of ramp after the
    // correction it brings, plus one update. Before, every update
    // restarted the ramp: 434–517 ms at RTT 60–200 ms.
    for (rtt, jitter) in [(60, 0), (100, 10), (200, 20)] {
        let link = NetSettings::symmetric(rtt, jitter, 0);
        let (ms, _) = settle_after_a_stop(7, link, SmoothingMode::Linear);
        assert!(ms <= 100 + 50, "RTT {rtt}: {ms} ms");
    }
}
