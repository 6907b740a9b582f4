//! Scenarios replay bit for bit: a recorded run played back (and after a
//! round trip through the link encoding) gives the same outcome, frame for
//! frame.

use sim::net::settings::LagSpike;
use sim::protocol::{Setting, Setup};
use sim::scenario::{checkpoint_count, codec, Change, Outcome, Verdict};
use sim::{
    Bot, ClientConfig, Model, NetSettings, Scenario, ScenarioRun, ServerRules, SmoothingMode, Vec2,
};

/// Browser-like frame times: 16.6, 16.7 or 16.8 ms in a fixed
/// pseudo-random order (Chromium's `performance.now()` has 100 µs
/// resolution, so real frame times are multiples of 0.1 ms around the
/// display's 16.7), with a 50 ms hitch every 7 s.
fn frame_dt(i: usize) -> f64 {
    if i % 420 == 419 {
        return 0.05;
    }
    let noise = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 62; // 0..4
    [0.0166, 0.0167, 0.0167, 0.0168][noise as usize]
}

/// A recording named `name` with seed 42 at 150 ms ± 10 ms and 10 % loss,
/// and the bot that will drive it.
fn start_recording(name: &str) -> (ScenarioRun, Bot) {
    let setup = Setup {
        net: NetSettings::symmetric(150, 10, 10),
        ..Setup::default()
    };
    (ScenarioRun::record(name, 42, setup), Bot::new())
}

/// Records `secs` of the bot at 10 % loss, with the sliders moved (loss
/// to 30 % in bursts at 10 s, a 300 ms lag spike at 15 s, rules and
/// smoothing at 20 s).
fn record(secs: usize) -> Scenario {
    let (mut run, mut bot) = start_recording("bot at 10 % loss");
    for i in 0..secs * 60 {
        if i == 600 {
            let mut net = NetSettings::symmetric(150, 10, 30);
            net.downlink.burst_enter_tenth_percent = 20;
            net.downlink.burst_leave_percent = 25;
            run.change(Setting::Net(net));
        }
        if i == 900 {
            run.change(Setting::LagSpike(LagSpike {
                extra_ms: 300,
                duration_ms: 1000,
            }));
        }
        if i == 1200 {
            run.change(Setting::Rules(ServerRules {
                ack_interval_ms: 250,
                ..ServerRules::default()
            }));
            run.change(Setting::Smoothing(SmoothingMode::Linear));
        }
        let dt = frame_dt(i);
        let (dir, dash) = bot.input(run.endpoint().position(), dt as f32);
        run.step_live(dt, dir, dash, false);
    }
    run.stop_recording();
    run.scenario().clone()
}

#[test]
fn a_recording_plays_back_identically() {
    let scenario = record(30);
    let recorded = scenario
        .outcome
        .clone()
        .expect("stopping a recording sets its outcome");
    assert_eq!(recorded.frames, 1800);
    assert_eq!(scenario.changes.len(), 4);
    // Loss really happened, so the run exercises replays.
    assert!(recorded.adjustments > 0, "{recorded:?}");
    assert!(recorded.replayed_moves > 0, "{recorded:?}");
    let again = ScenarioRun::run_to_end(scenario.clone());
    assert_eq!(again, recorded);
    // Through the link encoding and back.
    let linked = codec::from_fragment(&codec::to_fragment(&scenario)).unwrap();
    assert_eq!(ScenarioRun::run_to_end(linked), recorded);
}

#[test]
fn playback_matches_frame_by_frame() {
    let scenario = record(25);
    let mut a = ScenarioRun::play(scenario.clone());
    let mut b = ScenarioRun::play(scenario);
    let mut frames = 0;
    while a.step_recorded() {
        assert!(b.step_recorded());
        frames += 1;
        assert_eq!(
            a.endpoint().cmc().unwrap().state(),
            b.endpoint().cmc().unwrap().state(),
            "frame {frames}"
        );
    }
    assert_eq!(frames, 1500);
    // The controls a viewer sees at the end: every change applied.
    assert_eq!(a.settings().net.uplink.loss_tenth_percent, 300);
    assert_eq!(a.settings().net.downlink.burst_leave_percent, 25);
    assert_eq!(a.settings().rules.ack_interval_ms, 250);
    assert_eq!(a.settings().smoothing, SmoothingMode::Linear);
    assert!(a.is_finished() && !b.step_recorded());
}

#[test]
fn a_different_seed_gives_different_packet_fates() {
    let scenario = record(20);
    let recorded = scenario.outcome.clone().unwrap();
    let mut other = scenario.clone();
    other.seed += 1;
    let o = ScenarioRun::run_to_end(other);
    assert_ne!(o.trajectory_hash, recorded.trajectory_hash);
}

#[test]
fn taking_over_drops_the_rest_of_the_recording_and_records_on() {
    let scenario = record(10);
    let mut run = ScenarioRun::play(scenario.clone());
    for _ in 0..300 {
        assert!(run.step_recorded());
    }
    run.step_live(1.0 / 60.0, Vec2::new(0.0, 1.0), false, false);
    assert_eq!(run.scenario().frames.len(), 301);
    assert!(run.scenario().changes.iter().all(|c| c.frame < 300));
    assert_eq!(run.scenario().outcome, None);
    assert!(run.is_recording());
    assert!(!run.step_recorded());
    let net = NetSettings::symmetric(200, 0, 5);
    run.change(Setting::Net(net));
    for _ in 0..60 {
        run.step_live(1.0 / 60.0, Vec2::new(1.0, 0.0), false, false);
    }
    // The run so far is its scenario: played from frame 0 it ends in the
    // same state, through the recorded prefix, the take-over and the
    // change after it.
    let so_far = run.scenario().clone();
    assert_eq!(so_far.frames[..300], scenario.frames[..300]);
    assert_eq!(
        so_far.changes.last().map(|c| (c.frame, c.setting)),
        Some((301, Setting::Net(net)))
    );
    let mut replay = ScenarioRun::play(so_far);
    while replay.step_recorded() {}
    assert_eq!(replay.frame_index(), 361);
    assert_eq!(replay.endpoint().state_hash(), run.endpoint().state_hash());
}

#[test]
fn a_replay_that_parts_from_the_original_says_from_when() {
    // The recording's own model is "the older model"; the same scenario
    // with a setting changed at 12.3 s is a model that behaves otherwise
    // from there: the verdict names the last checkpoint both runs agree on.
    let scenario = record(20);
    let recorded = scenario.outcome.clone().unwrap();
    assert_eq!(
        recorded.checkpoints.len(),
        checkpoint_count(scenario.duration_us())
    );
    assert_eq!(
        Verdict::of(Some(&recorded), &ScenarioRun::run_to_end(scenario.clone())).to_string(),
        "identical to the original"
    );
    let frame = 738; // 738 frames of ~16.7 ms and a 50 ms hitch: 12.33 s
    let at = scenario.frames[..frame].iter().map(|f| f.dt()).sum::<f64>();
    assert!((12.3..12.4).contains(&at), "{at}");
    // The client-only speed buff moves the predicted character otherwise
    // from the next frame on.
    let mut other = scenario.clone();
    let i = other.changes.partition_point(|c| c.frame as usize <= frame);
    let buffed = ClientConfig {
        speed_buff: true,
        ..ClientConfig::default()
    };
    other.changes.insert(
        i,
        Change {
            frame: frame as u32,
            setting: Setting::Client(buffed),
        },
    );
    let verdict = Verdict::of(Some(&recorded), &ScenarioRun::run_to_end(other));
    // The last checkpoint before the change (every 0.5 s).
    assert_eq!(verdict.differs_from_secs(), Some(12.0), "{verdict}");
    assert_eq!(
        verdict.to_string(),
        "recorded with an older model; this replay differs from the original from 12 s"
    );
}

#[test]
fn sixty_seconds_fit_in_a_link() {
    let scenario = record(60);
    let bytes = codec::encode(&scenario).len();
    let fragment = codec::to_fragment(&scenario).len();
    println!("60 s bot recording: {bytes} B encoded, {fragment} characters in a URL fragment");
    // 3600 frames; well under the 2 MB URLs Chromium accepts and small
    // enough to paste into chat.
    assert!(bytes < 24_000, "{bytes} B");
    assert_eq!(fragment, (bytes * 4).div_ceil(3));
}

#[test]
fn sixty_seconds_of_keyboard_input_fit_in_a_link() {
    // WASD-like input: one of 8 directions (or none) held for 0.5–1.5 s,
    // a dash now and then, browser-like frame times.
    let mut run = ScenarioRun::record("keys", 11, Setup::default());
    let dirs = [
        (1.0, 0.0),
        (0.0, 1.0),
        (-1.0, 0.0),
        (0.0, -1.0),
        (
            std::f32::consts::FRAC_1_SQRT_2,
            std::f32::consts::FRAC_1_SQRT_2,
        ),
        (0.0, 0.0),
    ];
    for i in 0..3600 {
        let (x, y) = dirs[(i / 53 + i / 97) % dirs.len()];
        run.step_live(frame_dt(i), Vec2::new(x, y), i % 211 == 0, false);
    }
    run.stop_recording();
    let s = run.scenario();
    let bytes = codec::encode(s).len();
    let fragment = codec::to_fragment(s).len();
    println!("60 s keyboard recording: {bytes} B encoded, {fragment} characters in a URL fragment");
    assert!(bytes < 6_000, "{bytes} B");
}

#[test]
fn outcome_of_an_empty_scenario_is_the_spawn() {
    let o: Outcome = ScenarioRun::run_to_end(Scenario::new("empty", 1, Setup::default()));
    assert_eq!(
        (o.frames, o.adjustments, o.acks, o.moves_sent),
        (0, 0, 0, 0)
    );
}

/// Records `secs` of the firing bot player in the rollback model at 10 %
/// loss; at 10 s the tick rate goes to 120 Hz (a new match), at 15 s
/// redundancy to 1 and a lag spike.
fn record_rollback(secs: usize) -> Scenario {
    use sim::rollback::{BotPlayer, InputCmd, RollbackConfig, TickRate};
    let setup = Setup {
        net: NetSettings::symmetric(150, 10, 10),
        model: Model::Rollback(RollbackConfig::default()),
        ..Setup::default()
    };
    let mut run = ScenarioRun::record("rollback bot", 42, setup);
    let mut bot = BotPlayer::new(0);
    for i in 0..secs * 60 {
        if i == 600 {
            let c = RollbackConfig::at_rate(TickRate::Hz120);
            run.change(Setting::Model(Model::Rollback(c)));
        }
        if i == 900 {
            let c = RollbackConfig {
                redundancy: 1,
                ..RollbackConfig::at_rate(TickRate::Hz120)
            };
            run.change(Setting::Model(Model::Rollback(c)));
            run.change(Setting::LagSpike(LagSpike {
                extra_ms: 300,
                duration_ms: 1000,
            }));
        }
        let dt = frame_dt(i);
        let (dir, buttons) = bot.input(run.endpoint().position(), dt as f32);
        let pressed = |b: u16| buttons & b != 0;
        run.step_live(dt, dir, pressed(InputCmd::DASH), pressed(InputCmd::FIRE));
    }
    run.stop_recording();
    run.scenario().clone()
}

#[test]
fn a_rollback_recording_plays_back_identically_and_its_outcome_means_rollback_numbers() {
    let scenario = record_rollback(20);
    let recorded = scenario.outcome.clone().unwrap();
    assert_eq!(recorded.frames, 1200);
    assert!(scenario.frames.iter().any(|f| f.fire), "fire is recorded");
    assert_eq!(ScenarioRun::run_to_end(scenario.clone()), recorded);
    let linked = codec::from_fragment(&codec::to_fragment(&scenario)).unwrap();
    assert_eq!(ScenarioRun::run_to_end(linked), recorded);

    let mut run = ScenarioRun::play(scenario);
    while run.step_recorded() {}
    let m = run.metrics().rollback.expect("a rollback run");
    // The outcome holds the rollback model's own counters.
    assert_eq!(recorded.adjustments, m.rollbacks);
    assert_eq!(recorded.replayed_moves, m.resimulated_ticks);
    assert_eq!(recorded.acks, m.acks);
    assert_eq!(recorded.moves_sent, m.packets_sent);
    assert_eq!(
        recorded.state_hash,
        run.endpoint()
            .rollback()
            .unwrap()
            .predicted()
            .unwrap()
            .state_hash()
    );
    // The last 10 s ran at 120 Hz, a new match: 1200 ticks less the first
    // round trip, 10 % of their Acks lost.
    assert!((1030..=1110).contains(&m.acks), "{m:?}");
    assert!(m.rollbacks > 0 && m.resimulated_ticks > 1000, "{m:?}");
    assert_eq!(m.hash_mismatches, 0);
}

#[test]
fn a_recording_that_switches_models_live_plays_back_identically() {
    let (mut run, mut bot) = start_recording("switching");
    for i in 0..1200 {
        match i {
            300 => run.change(Setting::Model(Model::Rollback(Default::default()))),
            900 => run.change(Setting::Model(Model::Cmc)),
            _ => {}
        }
        let dt = frame_dt(i);
        let (dir, dash) = bot.input(run.endpoint().position(), dt as f32);
        run.step_live(dt, dir, dash, i % 90 < 20);
        if i == 600 {
            assert!(run.endpoint().rollback().is_some());
            assert_eq!(run.settings().model, Model::Rollback(Default::default()));
        }
    }
    run.stop_recording();
    let scenario = run.scenario().clone();
    let recorded = scenario.outcome.clone().unwrap();
    assert_eq!(ScenarioRun::run_to_end(scenario.clone()), recorded);
    // The counters are the CMC model's again: 5 s of it, from zero.
    assert!((30..=50).contains(&recorded.acks), "{recorded:?}");
    let mut other = scenario;
    other.changes.remove(0);
    other.changes.remove(0);
    assert_ne!(
        ScenarioRun::run_to_end(other).trajectory_hash,
        recorded.trajectory_hash,
        "the switch is part of the run"
    );
}
