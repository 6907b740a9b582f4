//! The inspector's data model (issue: see every packet): traced fates are
//! the conditioner's, scrubbing lands on the recorded state both ways, a
//! fork without a change is the original, and delivering the packet whose
//! loss caused a correction removes that correction.

mod common;

use common::{golden, run_bot, FRAME};
use sim::inspect::{
    Cause, Inspection, LatencyBudget, Origin, RelayCost, Rule, RECORDS_KEPT, RELAY_PROCESSING,
};
use sim::net::conditioner::Fate;
use sim::net::trace::{Direction, PacketKind};
use sim::protocol::{Setting, Setup};
use sim::scenario::{fork, ForkOption};
use sim::{Bot, LocalSession, NetSettings, ScenarioRun, SimTime};

fn lossy_setup() -> Setup {
    let mut net = NetSettings::symmetric(150, 20, 10);
    for link in [&mut net.uplink, &mut net.downlink] {
        link.duplicate_tenth_percent = 20;
        link.reorder_percent = 5;
    }
    Setup {
        net,
        ..Setup::default()
    }
}

#[test]
fn traced_fates_are_the_conditioners_and_change_nothing() {
    let setup = lossy_setup();
    let mut traced = LocalSession::with_setup(11, &setup);
    traced.inspect(RECORDS_KEPT);
    let mut plain = LocalSession::with_setup(11, &setup);
    let (mut a, mut b) = (Bot::new(), Bot::new());
    for frame in 0..1200 {
        traced.step_bot(&mut a, FRAME);
        plain.step_bot(&mut b, FRAME);
        assert_eq!(
            traced.endpoint.state_hash(),
            plain.endpoint.state_hash(),
            "tracing changed frame {frame}"
        );
    }
    let log = traced.host.packets().expect("inspecting");
    let up: Vec<_> = log
        .records()
        .iter()
        .filter(|p| p.direction == Direction::Up)
        .collect();
    let stats = traced.host.uplink_stats();
    let count = |f: &dyn Fn(&Fate) -> bool| up.iter().filter(|p| f(&p.fate)).count() as u64;
    assert_eq!(up.len() as u64, stats.sent);
    assert_eq!(count(&|f| matches!(f, Fate::Lost { .. })), stats.lost);
    assert_eq!(
        count(&|f| matches!(f, Fate::Lost { in_burst: true })),
        stats.lost_in_burst
    );
    assert_eq!(count(&|f| matches!(f, Fate::Overflowed)), stats.overflowed);
    assert_eq!(
        count(&|f| matches!(
            f,
            Fate::Delivered {
                duplicate: true,
                ..
            }
        )),
        stats.duplicated
    );
    assert_eq!(
        count(&|f| matches!(f, Fate::Delivered { overtook: true, .. })),
        stats.reordered
    );
    // 10 % loss over 20 s of ~60 ServerMoves/s and 20 pings/s.
    assert!(stats.lost > 80 && stats.lost < 200, "{} lost", stats.lost);
    assert!(stats.duplicated > 5, "{} duplicated", stats.duplicated);
    // Indices are the conditioner's send order, from 0, no gaps.
    assert!(up.iter().enumerate().all(|(i, p)| p.index == i as u64));
    // Delivered packets arrive 75 ms ± 20 ms jitter after they left.
    for p in &up {
        if let Fate::Delivered { at, overtook, .. } = p.fate {
            let ms = at.micros_since(p.sent) / 1000;
            assert!(overtook || (55..=95).contains(&ms), "{ms} ms: {p:?}");
        }
    }
    let down = log
        .records()
        .iter()
        .filter(|p| p.direction == Direction::Down)
        .count();
    assert!(down > 200, "{down} downlink packets");
}

#[test]
fn seeking_lands_on_the_recorded_state_backwards_and_forwards() {
    for name in ["golden-bot-150ms-10pct", "rollback-bot-150ms-5pct"] {
        let scenario = golden(name);
        let ins = Inspection::of(scenario.clone());
        let marks = ins.marks();
        assert_eq!(marks.len(), scenario.frames.len());
        assert_eq!(ins.checkpoint_every(), 60);
        let start = ScenarioRun::play(scenario.clone()).endpoint().state_hash();
        for frames in [marks.len(), 1, 600, 599, 61, 60, 59, 0, 1199, 300] {
            let run = ins.seek(frames);
            assert_eq!(run.frame_index(), frames, "{name}");
            let expected = frames.checked_sub(1).map_or(start, |i| marks[i].state_hash);
            assert_eq!(run.endpoint().state_hash(), expected, "{name} at {frames}");
        }
        // Back 2 s from the end, then 10 frames forward.
        let mut run = ins.seek(marks.len() - 120);
        for _ in 0..10 {
            assert!(run.step_recorded());
        }
        assert_eq!(
            run.endpoint().state_hash(),
            marks[marks.len() - 111].state_hash
        );
        // The same scenario inspected twice goes the same way.
        assert_eq!(Inspection::of(scenario).marks_hash(), ins.marks_hash());
    }
}

#[test]
fn frames_map_to_times_and_back() {
    let ins = Inspection::of(golden("golden-bot-150ms-10pct"));
    let end = ins.marks()[599].end;
    assert_eq!(ins.frame_of(end), 599);
    assert_eq!(ins.frames_at(end.secs_since(SimTime::ZERO)), 600);
    assert_eq!(ins.frames_at(0.0), 0);
    assert_eq!(ins.frames_at(1e9), ins.marks().len());
}

#[test]
fn a_lost_move_is_named_and_delivering_it_removes_the_correction() {
    let scenario = golden("golden-bot-150ms-10pct");
    let ins = Inspection::of(scenario.clone());
    assert_eq!(ins.corrections().len(), 3);
    let story = ins.explain(1).expect("three corrections");
    assert_eq!(story.subject, "Adjustment of move @8783 ms");
    assert_eq!(story.frame, 537);
    let Rule::Threshold { error_cm, limit_cm } = story.rule else {
        panic!("{:?}", story.rule)
    };
    assert_eq!(limit_cm, 16.0);
    assert!((error_cm - 17.8).abs() < 0.05, "{error_cm}");
    assert!((story.error().length() - 17.8).abs() < 0.05);
    let [Cause::MissingMoves {
        moves,
        covered_by,
        packets,
        ..
    }] = &story.causes[..]
    else {
        panic!("{:?}", story.causes)
    };
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].time_stamp.0, 8716);
    assert_eq!(covered_by.0, 8733);
    assert_eq!(packets.len(), 1);
    assert_eq!(packets[0].index, 585);
    assert_eq!(packets[0].kind, PacketKind::ServerMove);
    assert_eq!(packets[0].fate, Fate::Lost { in_burst: false });
    assert_eq!(story.replayed_count, 10);
    assert!(story.lines().iter().any(|l| l.contains("ServerMove #585")));

    let deliver = &story.forks[0];
    assert_eq!(
        deliver.setting,
        Setting::Deliver {
            direction: Direction::Up,
            index: 585
        }
    );
    let forked = Inspection::of(fork(&scenario, deliver));
    let corrected = |ins: &Inspection, ts: u32| {
        ins.corrections().iter().any(|c| match &c.what {
            sim::inspect::Corrected::Move(r) => r.time_stamp.0 == ts,
            sim::inspect::Corrected::Rollback(_) => false,
        })
    };
    assert!(corrected(&ins, 8783));
    assert!(!corrected(&forked, 8783), "the fork still corrects @8783");
    // Its echo (@8916) goes with it; the first correction, before the
    // change, stays.
    assert!(!corrected(&forked, 8916));
    assert!(corrected(&forked, 2283));
    assert_eq!(forked.corrections().len(), 1);
}

#[test]
fn a_fork_without_a_change_is_the_original() {
    let scenario = golden("golden-bot-150ms-10pct");
    let ins = Inspection::of(scenario.clone());
    let log = ins.run().host().packets().expect("inspecting");
    let delivered = log
        .records()
        .iter()
        .find(|p| p.direction == Direction::Up && p.fate.delivered())
        .expect("a delivered packet");
    let lost = log
        .records()
        .iter()
        .find(|p| p.direction == Direction::Up && matches!(p.fate, Fate::Lost { .. }))
        .expect("a lost packet");
    let option = |index: u64| ForkOption {
        label: format!("deliver #{index}"),
        frame: 0,
        setting: Setting::Deliver {
            direction: Direction::Up,
            index: index as u32,
        },
    };
    let same = fork(&scenario, &option(delivered.index));
    assert_eq!(Inspection::of(same).marks_hash(), ins.marks_hash());
    let changed = fork(&scenario, &option(lost.index));
    assert_ne!(Inspection::of(changed).marks_hash(), ins.marks_hash());
}

#[test]
fn a_fork_is_a_valid_scenario_with_one_change_more() {
    let scenario = golden("golden-bot-150ms-10pct");
    let ins = Inspection::of(scenario.clone());
    let story = ins.explain(1).expect("a correction");
    assert!(story.forks.len() >= 5, "{:?}", story.forks);
    for option in &story.forks {
        let f = fork(&scenario, option);
        assert_eq!(f.validate(), Ok(()), "{}", option.label);
        assert_eq!(f.changes.len(), scenario.changes.len() + 1);
        assert!(f.name.contains("what if"), "{}", f.name);
        assert!(f.outcome.is_none());
        let json = serde_json::to_string(&f).expect("serializes");
        let back: sim::Scenario = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, f);
    }
}

#[test]
fn echoes_name_the_correction_they_repeat() {
    let ins = Inspection::of(golden("silences-400ms"));
    assert_eq!(ins.corrections().len(), 48);
    let mut echoes = 0;
    for i in 0..ins.corrections().len() {
        let story = ins.explain(i).expect("a correction");
        assert!(
            !matches!(story.causes[0], Cause::Unexplained),
            "{:?}",
            story.lines()
        );
        if let Cause::Echo { of, applied, .. } = story.causes[0] {
            echoes += 1;
            assert!(applied < story.at);
            assert!(ins.corrections()[..i].iter().any(|c| match &c.what {
                sim::inspect::Corrected::Move(r) => r.time_stamp == of && c.at == applied,
                sim::inspect::Corrected::Rollback(_) => false,
            }));
        }
    }
    assert_eq!(echoes, 36);
    // The lag spikes' silences: the server moved the character on itself
    // (4 corrections), and 30 echoes follow the chain back to one.
    let stories: Vec<_> = (0..48).filter_map(|i| ins.explain(i)).collect();
    let forced = |s: &&sim::inspect::Story| {
        s.causes
            .iter()
            .any(|c| matches!(c, Cause::ForcedUpdate { .. }))
    };
    let echo = |s: &&sim::inspect::Story| matches!(s.causes[0], Cause::Echo { .. });
    assert_eq!(stories.iter().filter(|s| forced(s) && !echo(s)).count(), 4);
    assert_eq!(stories.iter().filter(|s| forced(s) && echo(s)).count(), 30);
}

#[test]
fn a_speed_hack_is_cut_for_time_discrepancy() {
    let ins = Inspection::of(golden("pass-speed-hack-caught"));
    let story = ins.explain(10).expect("corrections");
    assert_eq!(story.rule, Rule::TimeDiscrepancy);
    assert!(
        matches!(story.causes[0], Cause::TimeCut { covered_ms, simulated_ms, .. } if simulated_ms < covered_ms),
        "{:?}",
        story.causes
    );
}

#[test]
fn rollbacks_name_missed_inputs_or_remote_players() {
    let ins = Inspection::of(golden("rollback-bot-150ms-5pct"));
    let stories: Vec<_> = (0..ins.corrections().len())
        .filter_map(|i| ins.explain(i))
        .collect();
    assert_eq!(stories.len(), 8);
    let missed: Vec<_> = stories
        .iter()
        .filter(|s| s.rule == Rule::MissedInput)
        .collect();
    assert_eq!(missed.len(), 5);
    assert_eq!(
        stories
            .iter()
            .filter(|s| s.rule == Rule::RemoteInput)
            .count(),
        3
    );
    for s in &missed {
        let Cause::MissedInputs { ticks, packets } = &s.causes[0] else {
            panic!("{:?}", s.causes)
        };
        assert!(!ticks.is_empty());
        // Every input packet that carried a missed tick was lost or came
        // after the server had decided it.
        assert!(packets.iter().all(|p| p.kind == PacketKind::Inputs));
        assert!(!packets.is_empty());
        assert!(s.subject.starts_with("Rollback of ticks"));
    }
}

#[test]
fn the_latency_budget_adds_up_and_matches_the_timeline() {
    let setup = Setup {
        net: NetSettings::symmetric(200, 0, 0),
        ..Setup::default()
    };
    let mut s = LocalSession::with_setup(5, &setup);
    s.inspect(RECORDS_KEPT);
    run_bot(&mut s, &mut Bot::new(), 10.0);
    let budget = LatencyBudget::new(
        &setup,
        FRAME,
        s.host.packets(),
        SimTime::ZERO.plus_millis(2000),
        s.now(),
    );
    let term = |name: &str| {
        *budget
            .terms
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert!((term("input sampling").expected_ms - 8.333).abs() < 0.01);
    assert!((term("send throttle").expected_ms - 5.55).abs() < 0.01);
    assert_eq!(term("one way up").expected_ms, 100.0);
    assert_eq!(term("one way up").measured_ms, Some(100.0));
    assert_eq!(term("response interval").expected_ms, 50.0);
    let measured = term("response interval").measured_ms.expect("responses");
    assert!((45.0..70.0).contains(&measured), "{measured}");
    assert_eq!(term("one way down").measured_ms, Some(100.0));
    assert_eq!(term("smoothing").expected_ms, 100.0);
    assert!(
        (budget.expected_ms() - 363.9).abs() < 0.1,
        "{}",
        budget.expected_ms()
    );
    assert!(budget.measured_ms() > 350.0 && budget.measured_ms() < 390.0);
    // A host in the page takes no time on the run's clock; a relay's
    // trace says what it took, and the real network's share.
    assert_eq!(term(RELAY_PROCESSING).expected_ms, 0.0);
    assert_eq!(term(RELAY_PROCESSING).measured_ms, None);
    let relay = budget.clone().with_relay(RelayCost {
        processing_ms: Some(0.4),
        network_one_way_ms: 0.5,
    });
    let on_relay = |name: &str| {
        relay
            .terms
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .measured_ms
    };
    assert_eq!(on_relay("one way up"), Some(100.5));
    assert_eq!(on_relay("one way down"), Some(100.5));
    assert_eq!(on_relay(RELAY_PROCESSING), Some(0.4));
    // Without a timeline every term falls back.
    let blind = LatencyBudget::new(&setup, FRAME, None, SimTime::ZERO, s.now());
    assert!((blind.measured_ms() - blind.expected_ms()).abs() < 1e-9);
    assert!(blind.terms[1..].iter().all(|t| t.measured_ms.is_none()));
}

#[test]
fn a_relay_endpoint_ignores_deliver() {
    let mut endpoint = sim::ClientEndpoint::new();
    let before = endpoint.frame(SimTime::ZERO, 0.0, sim::Vec2::ZERO, false, false);
    endpoint.apply(Setting::Deliver {
        direction: Direction::Up,
        index: 3,
    });
    let after = endpoint.frame(SimTime::ZERO, 0.0, sim::Vec2::ZERO, false, false);
    assert_eq!(before.len(), 1, "Hello");
    assert!(after.is_empty(), "Deliver sent {after:?}");
}

#[test]
fn a_long_frame_at_no_loss_is_a_client_hitch_and_the_network_is_the_networks() {
    // Issue #28 item 2. The golden run's three corrections come from lost
    // ServerMoves: the network's.
    let lossy = golden("golden-bot-150ms-10pct");
    let ins = Inspection::of(lossy.clone());
    let origins: Vec<Origin> = (0..ins.corrections().len())
        .map(|i| ins.explain(i).expect("a correction").origin)
        .collect();
    assert_eq!(origins, vec![Origin::Network; 3]);

    // The same input on a link without loss (RTT 150 ms, jitter 20 ms):
    // no correction.
    let mut clean = lossy;
    clean.setup.net = NetSettings::symmetric(150, 20, 0);
    clean.changes.clear();
    assert_eq!(Inspection::of(clean.clone()).corrections().len(), 0);

    // One frame of 250 ms (the longest a frame is recorded), frame 600:
    // the client sends nothing for that long, the next move arrives after
    // UE's 0.25 s without a move, the server moves the character on by
    // itself, and the corrections that follow are the page's own.
    let mut hitch = clean;
    hitch.frames[600].dt_us = 250_000;
    let ins = Inspection::of(hitch);
    assert!(
        !ins.corrections().is_empty(),
        "the long frame corrected nothing"
    );
    assert_eq!(
        ins.explain(0).expect("one").rule,
        Rule::ForcedPositionUpdate
    );
    for i in 0..ins.corrections().len() {
        let story = ins.explain(i).expect("a correction");
        assert_eq!(
            story.origin,
            Origin::ClientHitch {
                frame: 600,
                frame_ms: 250
            },
            "{}",
            story.lines().join("\n")
        );
        assert!(story
            .lines()
            .iter()
            .any(|l| l == "Origin: client hitch: frame 600 took 250 ms, over UE's 125 ms MaxMoveDeltaTime (the page's own frame rate, not the network)"));
    }
}

/// Issue 28, item 3: a rollback story's what-ifs fork from its episode —
/// the frame that predicted the first tick the correction can have come
/// from, after the previous correction and at most `EPISODE_MS` before
/// it — not from frame 1. So the fork B is the run A up to the fork's
/// frame, every correction before the one inspected happens in B as in
/// A, and the corrections only one branch has all come from the fork on.
#[test]
fn a_rollback_fork_at_a_correction_keeps_the_corrections_before_it() {
    let scenario = golden("rollback-bot-150ms-5pct");
    let a = Inspection::of(scenario.clone());
    let frames: Vec<usize> = a.corrections().iter().map(|c| c.frame).collect();
    assert_eq!(
        frames,
        [6, 8, 10, 12, 14, 16, 18, 20],
        "the run's rollbacks"
    );
    let inspected = 4;
    let c = &a.corrections()[inspected];
    let story = a.explain(inspected).expect("eight corrections");
    let labels: Vec<&str> = story.forks.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "input redundancy 1",
            "input delay 8 ticks",
            "CMC model",
            "smoothing disabled"
        ]
    );
    // EPISODE_MS (2 s) at 60 Hz.
    let window = 120;
    for option in &story.forks {
        let at = option.frame as usize;
        let b = Inspection::of(fork(&scenario, option));
        // The four rollbacks before the one inspected happen in B too,
        // in the same frames with the same ticks and positions.
        assert_eq!(
            b.corrections().get(..inspected),
            Some(&a.corrections()[..inspected]),
            "{} (forked before frame {at})",
            option.label
        );
        assert_eq!(
            at, 13,
            "{}: the frame after the previous correction",
            option.label
        );
        assert!(at > a.corrections()[inspected - 1].frame && at <= c.frame);
        assert!(c.frame - at <= window);
        // The same run, bit for bit, before the fork's frame.
        assert_eq!(a.marks()[..at], b.marks()[..at], "{}", option.label);
        let before = |i: &Inspection| -> Vec<sim::inspect::Correction> {
            i.corrections()
                .iter()
                .filter(|x| x.frame < at)
                .cloned()
                .collect()
        };
        assert_eq!(before(&a), before(&b), "{}", option.label);
        assert_eq!(before(&b), a.corrections()[..inspected], "{}", option.label);
        // What differs (a correction only one branch has) is from the fork on.
        let only_in = |x: &Inspection, y: &Inspection| -> Vec<usize> {
            x.corrections()
                .iter()
                .filter(|k| !y.corrections().contains(k))
                .map(|k| k.frame)
                .collect()
        };
        for f in only_in(&a, &b).into_iter().chain(only_in(&b, &a)) {
            assert!(f >= at, "{}: frame {f} differs before {at}", option.label);
        }
    }
}

/// The same for a rollback in the middle of a run, far from the one
/// before it: the fork starts within the episode, at most 2 s
/// (`EPISODE_MS`, 120 frames at 60 Hz) before the correction — not at
/// frame 1, and not at the previous correction — and what it changes is
/// attributed to it alone.
#[test]
fn a_rollback_fork_mid_run_starts_within_the_episode() {
    let golden_run = golden("rollback-bot-150ms-5pct");
    let redundancy_1 = Inspection::of(golden_run.clone())
        .explain(4)
        .expect("eight corrections")
        .forks
        .into_iter()
        .find(|o| o.label == "input redundancy 1")
        .expect("offered");
    // The golden run with input redundancy 1 from frame 13: two more
    // rollbacks, in frames 852 (14.2 s) and 1752 (29.2 s).
    let scenario = fork(&golden_run, &redundancy_1);
    let a = Inspection::of(scenario.clone());
    let frames: Vec<usize> = a.corrections().iter().map(|c| c.frame).collect();
    assert_eq!(frames, [6, 8, 10, 12, 14, 16, 18, 20, 852, 1752]);
    let inspected = 8;
    let story = a.explain(inspected).expect("ten corrections");
    for option in &story.forks {
        let at = option.frame as usize;
        if !matches!(option.setting, Setting::Deliver { .. }) {
            // 852 − 119: the frame 2 s before the correction's end.
            assert_eq!(at, 733, "{}", option.label);
        }
        assert!(
            at > 20 && at <= 852 && 852 - at <= 120,
            "{}: {at}",
            option.label
        );
        let b = Inspection::of(fork(&scenario, option));
        assert_eq!(a.marks()[..at], b.marks()[..at], "{}", option.label);
        assert_eq!(
            b.corrections().get(..inspected),
            Some(&a.corrections()[..inspected]),
            "{}",
            option.label
        );
        if option.label == "input redundancy 4" {
            // Back to four inputs a packet: the rollback is gone, and
            // nothing else changed.
            assert_eq!(b.corrections(), &a.corrections()[..inspected]);
        }
    }
}
