//! The public bug reports that held up when tried on the playground
//! (issue #16), each a golden scenario (`scenarios/pass-*.json`) with the
//! behaviour it pins: no corrections at RTT 0, no death spiral at 5–10
//! fps, no false time discrepancy with irregular frames, extreme lag
//! survived, a speed hack caught.

mod common;

use common::{correction_reasons, golden};
use sim::{AdjustmentReason, ScenarioRun};

/// Plays `name` to the end and returns the run and the longest SavedMove
/// queue seen.
fn play(name: &str) -> (ScenarioRun, usize) {
    let mut run = ScenarioRun::play(golden(name));
    let mut longest = 0;
    while run.step_recorded() {
        longest = longest.max(run.endpoint().cmc().unwrap().saved_moves().len());
    }
    (run, longest)
}

#[test]
fn rtt_0_means_zero_corrections() {
    let (run, _) = play("pass-rtt0-bot");
    assert_eq!(run.endpoint().cmc().unwrap().counters().adjustments, 0);
    assert_eq!(run.endpoint().cmc().unwrap().counters().acks, 598);
}

#[test]
fn five_to_ten_fps_is_no_death_spiral() {
    let (run, longest) = play("pass-five-fps");
    let c = run.endpoint().cmc().unwrap().counters();
    assert_eq!(c.adjustments, 0);
    assert!(longest <= 3, "queue reached {longest}");
}

#[test]
fn irregular_frames_raise_no_time_discrepancy() {
    let (run, _) = play("pass-irregular-frames");
    assert_eq!(
        run.host().cmc().unwrap().counters().time_discrepancy_events,
        0
    );
    assert_eq!(run.endpoint().cmc().unwrap().counters().adjustments, 0);
}

#[test]
fn extreme_lag_is_survived_within_96_saved_moves() {
    let (run, longest) = play("pass-extreme-lag");
    assert!(longest <= 96, "queue reached {longest}");
    assert!(run.endpoint().cmc().unwrap().counters().acks > 150);
}

#[test]
fn a_speed_hack_is_caught_and_corrected_back_to_real_time() {
    let (run, _) = play("pass-speed-hack-caught");
    let server = run.host().cmc().unwrap().counters();
    assert!(server.time_discrepancy_events > 0);
    let reasons = correction_reasons(run.endpoint().cmc().unwrap());
    assert!(
        reasons.contains(&AdjustmentReason::TimeDiscrepancy),
        "{reasons:?}"
    );
}
