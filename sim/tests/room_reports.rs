//! The golden room runs (issue #26): one deterministic room per public
//! bug report, replayed to its pinned fingerprint — here natively, in the
//! browser through the page's `room_report` export (`e2e/golden.test.mjs`).

use sim::endpoints::room::reports::{find, REPORT_RUNS};

/// Runs `name`, prints its outcome and checks its pinned fingerprint.
fn replays(name: &str) -> sim::endpoints::room::reports::RunOutcome {
    let run = find(name).expect("a golden run");
    let o = (run.run)();
    println!("{name}: {}", o.line());
    assert_eq!(
        o.fingerprint, run.pinned,
        "{name}: fingerprint {:016x}, pinned {:016x}",
        o.fingerprint, run.pinned
    );
    o
}

#[test]
fn there_is_one_run_per_report() {
    let names: Vec<_> = REPORT_RUNS.iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        [
            "sbox-2931",
            "etlegacy-1644",
            "garrysmod-4667",
            "chickynoid-29",
            "sbox-issues-2099",
            "riseofthedead-875",
            "mirror-3423",
            "lightyear-1450"
        ]
    );
}

#[test]
fn sbox_2931() {
    let o = replays("sbox-2931");
    // Before: 51 of the 200 within 1 cm, up to 22.22 cm off, 9 body shots.
    assert_eq!(o.measure("within_1cm"), Some(200));
    assert_eq!(o.measure("head"), Some(200));
}

#[test]
fn etlegacy_1644() {
    let o = replays("etlegacy-1644");
    assert_eq!(o.measure("hits_on_the_line"), Some(0));
}

#[test]
fn garrysmod_4667() {
    let o = replays("garrysmod-4667");
    assert_eq!(o.measure("frames_marked_teleported"), Some(0));
}

#[test]
fn chickynoid_29() {
    let o = replays("chickynoid-29");
    // Before: 72 fired, 67 handled, 4 upward jumps.
    assert_eq!(o.measure("shots_handled"), o.measure("shots_fired"));
    assert_eq!(o.measure("upward_jumps"), Some(0));
}

#[test]
fn sbox_issues_2099() {
    let o = replays("sbox-issues-2099");
    // Before: 72 fired, 56 verdicts received: 16 shots waited for good.
    assert_eq!(o.measure("verdicts_received"), o.measure("shots_fired"));
    assert_eq!(o.measure("shots_fired"), Some(72));
}

#[test]
fn riseofthedead_875() {
    let o = replays("riseofthedead-875");
    assert_eq!(o.measure("refused_reloading"), Some(0));
}

#[test]
fn mirror_3423() {
    let o = replays("mirror-3423");
    // Before: 181 frames starved, stalls of 3 frames.
    assert_eq!(o.measure("longest_stall_frames"), Some(1));
}

#[test]
fn lightyear_1450() {
    let o = replays("lightyear-1450");
    // Before: 517 ms.
    assert_eq!(o.measure("settle_ms"), Some(100));
}
