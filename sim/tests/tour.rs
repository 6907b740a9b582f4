//! The guided tour (issue 24): every stop's run shows what the stop's
//! words say, with the number the page claims, and the stop's one control
//! turns the lesson around. The numbers are pinned: the page records the
//! same runs in wasm and shows these (the tour's browser test reads them).

use sim::tour::{stops, Found, Variant};

/// The numbers of stop `key`: (as shown, with the control turned).
fn numbers(key: &str) -> (Found, Found) {
    let stop = stops().into_iter().find(|s| s.key == key).expect(key);
    let found = |v| stop.find(&stop.record(v), v);
    let (shown, tried) = (found(Variant::Shown), found(Variant::Tried));
    println!("{key}: shown {shown:?}, tried {tried:?}");
    (shown, tried)
}

fn value(f: Found) -> f64 {
    f.value.expect("the stop's moment came")
}

#[track_caller]
fn near(got: f64, want: f64) {
    assert!((got - want).abs() < 0.05, "{got} vs {want}");
}

#[test]
fn predict_without_prediction_a_key_shows_a_round_trip_later() {
    let (off, on) = numbers("predict");
    // RTT 200 ms, ack interval 100 ms: 13 frames of 16.7 ms.
    near(value(off), 216.7);
    assert!(value(off) >= 200.0);
    // With prediction: the frame the key went down.
    near(value(on), 16.7);
    assert_eq!((off.frame, on.frame), (73, 61));
}

#[test]
fn saved_moves_wait_a_round_trip_of_moves() {
    let (rtt200, rtt40) = numbers("saved-moves");
    assert_eq!((value(rtt200), value(rtt40)), (17.0, 5.0));
    assert_eq!(rtt200.t_us, 180 * 16_667, "paused at 3 s: 180 frames");
}

#[test]
fn an_adjustment_replays_the_moves_sent_since() {
    let (rtt200, rtt40) = numbers("adjustment");
    assert_eq!((value(rtt200), value(rtt40)), (11.0, 2.0));
    assert_eq!(rtt200.frame, 291);
}

#[test]
fn smoothing_spreads_the_snap_that_disabled_draws_in_one_frame() {
    let (disabled, exponential) = numbers("smoothing");
    // The same 16.2 cm Adjustment on the same frame.
    assert_eq!(disabled.frame, exponential.frame);
    near(value(disabled), 26.1);
    near(value(exponential), 10.8);
}

#[test]
fn reconciliation_off_jumps_back_and_replay_does_not() {
    let (off, on) = numbers("reconciliation");
    assert_eq!((value(off), value(on)), (2.0, 0.0));
}

#[test]
fn a_dash_outside_the_saved_move_is_lost_on_the_server() {
    let (bug, fixed) = numbers("impulse");
    assert_eq!((value(bug), value(fixed)), (2.0, 0.0));
}

#[test]
fn a_fast_clock_is_caught_and_an_honest_one_is_not() {
    let (fast, honest) = numbers("speed-hack");
    assert_eq!((value(fast), value(honest)), (300.0, 0.0));
}

#[test]
fn a_missed_input_is_rebased_and_input_delay_shortens_the_rebase() {
    let (shown, delayed) = numbers("misprediction");
    assert_eq!((shown.frame, value(shown)), (145, 11.0));
    assert_eq!((delayed.frame, value(delayed)), (853, 3.0));
}

#[test]
fn redundancy_keeps_inputs_that_loss_would_take() {
    let (once, four) = numbers("redundancy");
    assert_eq!((value(once), value(four)), (97.0, 10.0));
}

#[test]
fn delay_based_waits_a_round_trip_where_rollback_predicts() {
    let (waits, predicts) = numbers("delay-based");
    near(value(waits), 216.7);
    assert!(value(waits) >= 150.0, "at least the RTT");
    near(value(predicts), 16.7);
}

#[test]
fn the_server_rewinds_to_what_the_shooter_saw() {
    let (rewind, present) = numbers("lag-compensation");
    // 20 shots at the centre of a player strafing at 600 cm/s, RTT 200 ms.
    assert_eq!((value(rewind), value(present)), (20.0, 2.0));
    assert_eq!(rewind.t_us, 480 * 16_667, "paused at 8 s");
}

#[test]
fn an_unsmoothed_proxy_snaps_further_in_one_frame() {
    let (disabled, exponential) = numbers("proxy");
    near(value(disabled), 81.0);
    near(value(exponential), 35.6);
}

#[test]
fn every_stop_is_pinned_above() {
    let keys: Vec<_> = stops().iter().map(|s| s.key).collect();
    assert_eq!(
        keys,
        [
            "predict",
            "saved-moves",
            "adjustment",
            "smoothing",
            "reconciliation",
            "impulse",
            "speed-hack",
            "misprediction",
            "redundancy",
            "delay-based",
            "lag-compensation",
            "proxy",
            "tcp"
        ]
    );
}

#[test]
fn a_tour_link_names_a_stop_by_number_or_key() {
    let n = stops().len();
    assert_eq!(sim::tour::parse("1"), Some(0));
    assert_eq!(sim::tour::parse(&n.to_string()), Some(n - 1));
    assert_eq!(sim::tour::parse(&(n + 1).to_string()), None);
    assert_eq!(sim::tour::parse("0"), None);
    assert_eq!(sim::tour::parse("impulse"), Some(5));
    assert_eq!(sim::tour::parse("banana"), None);
}

#[test]
fn reliable_ordered_holds_packets_behind_each_resend_and_datagrams_do_not() {
    let (tcp, udp) = numbers("tcp");
    // RTT 100 ms, 2 % loss each way, 15 s of the bot.
    assert_eq!((value(tcp), value(udp)), (280.0, 0.0));
}
