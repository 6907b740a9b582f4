//! Writes the scripted scenarios of the golden suite (`scenarios/`): the
//! six faults of issue #16, the reports that held up, and the rollback
//! model's runs (issue #12: bot play under loss, a tick-rate and
//! redundancy change with a lag spike, the tick wrap, and a live switch
//! between the models), each with the outcome this build gives. Scenarios saved from the page go in the same
//! folder as they are; this only makes the ones a script can describe.
//!
//! `cargo run --release -p sim --example golden -- scenarios`
//!
//! Run it (or `scenario bless scenarios/*`) only when a change of the
//! model's behaviour is meant; the golden test then pins the new outcome.

use rand_core::{RngCore, SeedableRng};
use sim::cmc::rules::ServerRules;
use sim::net::settings::{LagSpike, LinkSettings};
use sim::protocol::{Setting, Setup};
use sim::rollback::{BotPlayer, InputCmd, RollbackConfig, Tick, TickRate};
use sim::{Bot, ClientConfig, Model, NetSettings, Scenario, ScenarioRun, SmoothingMode, Vec2};
use std::path::Path;

const FRAME: f64 = 1.0 / 60.0;

/// A recording from `setup` with `seed`, driven frame by frame by `drive`
/// (which may change settings before returning the frame's time and input).
fn record(
    name: &str,
    description: &str,
    seed: u64,
    setup: Setup,
    frames: usize,
    mut drive: impl FnMut(usize, &mut ScenarioRun) -> (f64, Vec2, bool),
) -> Scenario {
    let mut run = ScenarioRun::record(name, seed, setup);
    for i in 0..frames {
        let (dt, dir, dash) = drive(i, &mut run);
        run.step_live(dt, dir, dash, false);
    }
    run.stop_recording();
    let mut s = run.scenario().clone();
    s.description = description.to_owned();
    s
}

/// The bot at 60 Hz.
fn bot_drive() -> impl FnMut(usize, &mut ScenarioRun) -> (f64, Vec2, bool) {
    let mut bot = Bot::new();
    move |_, run| {
        let (dir, dash) = bot.input(run.endpoint().position(), FRAME as f32);
        (FRAME, dir, dash)
    }
}

/// A recording driven by the rollback bot player (it fires in bursts) at
/// 60 Hz frames of 16.6–16.8 ms; `change` may change settings before each
/// frame.
fn record_firing(
    name: &str,
    description: &str,
    seed: u64,
    setup: Setup,
    frames: usize,
    mut change: impl FnMut(usize, &mut ScenarioRun),
) -> Scenario {
    let mut run = ScenarioRun::record(name, seed, setup);
    let mut bot = BotPlayer::new(0);
    for i in 0..frames {
        change(i, &mut run);
        let dt = 0.0166 + (i % 3) as f64 * 0.0001;
        let (dir, buttons) = bot.input(run.endpoint().position(), dt as f32);
        let pressed = |b: u16| buttons & b != 0;
        run.step_live(dt, dir, pressed(InputCmd::DASH), pressed(InputCmd::FIRE));
    }
    run.stop_recording();
    let mut s = run.scenario().clone();
    s.description = description.to_owned();
    s
}

fn rollback_setup(net: NetSettings, config: RollbackConfig) -> Setup {
    Setup {
        net,
        model: Model::Rollback(config),
        ..Setup::default()
    }
}

/// The rollback model's golden runs.
fn rollback_scenarios() -> Vec<(&'static str, Scenario)> {
    let mut out = Vec::new();
    out.push((
        "rollback-bot-150ms-5pct",
        record_firing(
            "Rollback: the firing bot at RTT 150 ms, 5 % loss",
            "The rollback model (60 Hz, redundancy 4, hold-last 6, a State every 2 ticks), RTT 150 ms, 5 % loss \
             both ways, the bot player walking its tour and firing in bursts for 30 s. Expected: every State \
             rebased, visible rollbacks only where the bot's unpredicted shots or lost inputs moved the local \
             player, no hash mismatch.",
            3,
            rollback_setup(NetSettings::symmetric(150, 0, 5), RollbackConfig::default()),
            30 * 60,
            |_, _| {},
        ),
    ));
    out.push((
        "rollback-120hz-redundancy1-lag-spike",
        record_firing(
            "Rollback: 120 Hz, redundancy 1, 10 % uplink loss, a lag spike",
            "RTT 100 ms with 10 % uplink loss; at 5 s the tick rate goes to 120 Hz (a new match), at 10 s \
             redundancy drops to 1 and a 500 ms lag spike lasts 1 s; 20 s in all. Expected: a second Start, \
             missed inputs at the server once redundancy is 1, the time sync riding out the spike.",
            5,
            rollback_setup(
                NetSettings {
                    uplink: LinkSettings::simple(50, 0, 10),
                    downlink: LinkSettings::simple(50, 0, 0),
                },
                RollbackConfig::default(),
            ),
            20 * 60,
            |i, run| {
                let at_120 = RollbackConfig::at_rate(TickRate::Hz120);
                if i == 5 * 60 {
                    run.change(Setting::Model(Model::Rollback(at_120)));
                }
                if i == 10 * 60 {
                    run.change(Setting::Model(Model::Rollback(RollbackConfig {
                        redundancy: 1,
                        ..at_120
                    })));
                    run.change(Setting::LagSpike(LagSpike {
                        extra_ms: 500,
                        duration_ms: 1000,
                    }));
                }
            },
        ),
    ));
    out.push((
        "rollback-tick-wrap",
        record_firing(
            "Rollback: across the tick wrap",
            "The match starts 2 s before its u32 tick wraps (start tick 2^32 − 120 at 60 Hz), RTT 100 ± 10 ms, \
             2 % loss, 6 s of the bot player. Expected: nothing rejected at the wrap, no hash mismatch.",
            3,
            rollback_setup(
                NetSettings::symmetric(100, 10, 2),
                RollbackConfig {
                    start_tick: Tick(u32::MAX - 119),
                    ..RollbackConfig::default()
                },
            ),
            6 * 60,
            |_, _| {},
        ),
    ));
    out.push((
        "switch-cmc-rollback-cmc",
        record_firing(
            "A live switch: CMC, rollback, CMC again",
            "RTT 100 ms, 2 % loss, the bot player for 30 s: the CMC model for 10 s, the rollback model for 10 s, \
             the CMC model again. Expected: each switch a Welcome naming the model, the link and its \
             measurements carried over, each model starting afresh.",
            9,
            Setup {
                net: NetSettings::symmetric(100, 0, 2),
                ..Setup::default()
            },
            30 * 60,
            |i, run| match i {
                600 => run.change(Setting::Model(Model::Rollback(RollbackConfig::default()))),
                1200 => run.change(Setting::Model(Model::Cmc)),
                _ => {}
            },
        ),
    ));
    out
}

fn setup(net: NetSettings) -> Setup {
    Setup {
        net,
        ..Setup::default()
    }
}

fn scenarios() -> Vec<(&'static str, Scenario)> {
    let mut out = Vec::new();

    // Fault 1: reordered uplink packets must not look like a speed hack.
    let reordered = NetSettings {
        uplink: LinkSettings {
            reorder_percent: 10,
            ..LinkSettings::simple(100, 50, 0)
        },
        downlink: LinkSettings::simple(0, 0, 0),
    };
    out.push((
        "fault1-reordered-uplink",
        record(
            "Reordered uplink (fault 1)",
            "Uplink 100 ± 50 ms with 10 % of packets overtaking the queue, clean downlink, the bot for 60 s. \
             Expected: no time-discrepancy event and no more adjustments than without reordering (none).",
            1,
            setup(reordered),
            3600,
            bot_drive(),
        ),
    ));

    // Fault 2: frame order; drawn position after an adjustment.
    out.push((
        "fault2-adjustment-frame-order",
        record(
            "Adjustments under loss, drawn after the replay (fault 2)",
            "RTT 200 ms, 5 % loss, smoothing disabled, the bot for 60 s. Expected: the drawn character never steps \
             backwards by more than the real error of a correction (it used to jump 100–155 cm back for a frame).",
            3,
            Setup {
                smoothing: SmoothingMode::Disabled,
                ..setup(NetSettings::symmetric(200, 0, 5))
            },
            3600,
            bot_drive(),
        ),
    ));

    // Fault 3: a lag spike must not make forced updates count time twice.
    out.push((
        "fault3-lag-spike-forced-updates",
        record(
            "A 1 s lag spike while running (fault 3)",
            "RTT 100 ms; from standing, hold +x; at frame 30 a lag spike of +1000 ms for 200 ms. Expected: at \
             most one correction that moves the character, of the size of the real error (it used to be 479 cm \
             and 419 cm: the server simulated the silence twice).",
            1,
            setup(NetSettings::symmetric(100, 0, 0)),
            150,
            |i, run| {
                if i == 30 {
                    run.change(Setting::LagSpike(LagSpike {
                        extra_ms: 1000,
                        duration_ms: 200,
                    }));
                }
                (FRAME, Vec2::new(1.0, 0.0), false)
            },
        ),
    ));

    // Fault 5: replicated proxy updates are newest-wins.
    let mut rng = rand_pcg::Pcg32::seed_from_u64(1);
    let mut dir = Vec2::ZERO;
    out.push((
        "fault5-reordered-proxy-updates",
        record(
            "Reordered and duplicated downlink (fault 5)",
            "Downlink 100 ± 30 ms with 20 % reordering and 5 % duplicates, a random direction every 150 ms for 30 s. \
             Expected: no proxy update older than one already applied is used (they used to pull the other \
             character back up to 157 cm).",
            1,
            setup(NetSettings {
                uplink: LinkSettings::simple(0, 0, 0),
                downlink: LinkSettings {
                    reorder_percent: 20,
                    duplicate_tenth_percent: 50,
                    ..LinkSettings::simple(100, 30, 0)
                },
            }),
            1800,
            move |i, _| {
                if i % 9 == 0 {
                    let a = f64::from(rng.next_u32() % 3600) / 10.0;
                    let (s, c) = a.to_radians().sin_cos();
                    dir = Vec2::new(c as f32, s as f32);
                }
                (FRAME, dir, false)
            },
        ),
    ));

    // Fault 6: the move lost just before the 240 s time stamp reset.
    out.push(("fault6-lost-move-at-time-stamp-reset", reset_scenario()));

    // Reports that held up.
    out.push((
        "pass-rtt0-bot",
        record(
            "RTT 0: no corrections",
            "No latency, no loss, the bot for 60 s. Expected: zero adjustments.",
            2,
            setup(NetSettings::symmetric(0, 0, 0)),
            3600,
            bot_drive(),
        ),
    ));
    out.push((
        "pass-five-fps",
        record(
            "5–10 fps: no death spiral",
            "RTT 100 ms, the bot driven at 5–10 frames per second for 60 s (frames of 100–200 ms). \
             Expected: the SavedMove queue stays bounded and corrections stay rare.",
            4,
            setup(NetSettings::symmetric(100, 0, 0)),
            450,
            {
                let mut bot = Bot::new();
                move |i, run| {
                    let dt = 0.1 + (i % 11) as f64 * 0.01;
                    let (dir, dash) = bot.input(run.endpoint().position(), dt as f32);
                    (dt, dir, dash)
                }
            },
        ),
    ));
    out.push((
        "pass-irregular-frames",
        record(
            "Irregular frames: no false time discrepancy",
            "RTT 100 ms, frames of 5, 31 and 14 ms in turn, the bot for 60 s. Expected: no time-discrepancy event.",
            5,
            setup(NetSettings::symmetric(100, 0, 0)),
            3600,
            {
                let mut bot = Bot::new();
                move |i, run| {
                    let dt = [0.005, 0.031, 0.014][i % 3];
                    let (dir, dash) = bot.input(run.endpoint().position(), dt as f32);
                    (dt, dir, dash)
                }
            },
        ),
    ));
    out.push((
        "pass-extreme-lag",
        record(
            "Extreme lag survived",
            "RTT 1000 ms ± 100 ms, 20 % loss, the bot for 60 s. Expected: the run goes on, the queue stays within \
             UE's 96 SavedMoves.",
            6,
            setup(NetSettings::symmetric(1000, 100, 20)),
            3600,
            bot_drive(),
        ),
    ));
    out.push((
        "pass-speed-hack-caught",
        record(
            "A 1.5× speed hack is caught",
            "RTT 100 ms, the client's clock at 1.5× (a speed hack), time-discrepancy resolution on, the bot for \
             30 s. Expected: the server detects it and corrects the client back to real time.",
            8,
            Setup {
                client: ClientConfig {
                    clock_speed: 1.5,
                    ..ClientConfig::default()
                },
                rules: ServerRules {
                    time_discrepancy_resolution: true,
                    ..ServerRules::default()
                },
                ..setup(NetSettings::symmetric(100, 0, 0))
            },
            1800,
            bot_drive(),
        ),
    ));
    out.push((
        "golden-bot-150ms-10pct",
        record(
            "The golden bot run",
            "Seed 3, RTT 150 ms ± 20 ms, 10 % loss, default rules, 20 s of the bot at 60 Hz: the run the \
             native-vs-wasm check has always used.",
            3,
            setup(NetSettings::symmetric(150, 20, 10)),
            1200,
            bot_drive(),
        ),
    ));
    for extra_ms in [400u16, 1000, 2000] {
        let name: &'static str = match extra_ms {
            400 => "silences-400ms",
            1000 => "silences-1000ms",
            _ => "silences-2000ms",
        };
        out.push((
            name,
            record(
                &format!("Lag spikes of {extra_ms} ms"),
                "RTT 150 ms, 10 % loss, the bot for 40 s with frames of 16.6–16.8 ms and a lag spike of this size \
                 for 3 s every 10 s: long silences, so the server's forced position updates (and, past 1 s, \
                 their spent budget) shape the run.",
                1,
                setup(NetSettings::symmetric(150, 0, 10)),
                40 * 60,
                {
                    let mut bot = Bot::new();
                    move |i, run| {
                        if i % 600 == 300 {
                            run.change(Setting::LagSpike(LagSpike {
                                extra_ms,
                                duration_ms: 3000,
                            }));
                        }
                        let dt = 0.0166 + (i % 3) as f64 * 0.0001;
                        let (dir, dash) =
                            bot.input(run.endpoint().position(), dt as f32);
                        (dt, dir, dash)
                    }
                },
            ),
        ));
    }
    out.extend(rollback_scenarios());
    out
}

/// Fault 6: RTT 100 ms, engine threshold (1.73 cm); the bot until client
/// time 232 s, then walk to (100, 250), stand, and hold +x from 238.5 s;
/// the one ServerMove whose time stamp reaches 240 000 ms is lost.
fn reset_scenario() -> Scenario {
    let rules = ServerRules {
        max_position_error_tenth_cm: 17,
        ..ServerRules::default()
    };
    let start = Setup {
        rules,
        ..setup(NetSettings::symmetric(100, 0, 0))
    };
    let mut bot = Bot::new();
    let mut lost = false;
    let target = Vec2::new(100.0, 250.0);
    record(
        "The move lost at the 240 s time stamp reset (fault 6)",
        "RTT 100 ms, 1.7 cm threshold; the bot until 232 s, then to (100, 250) and +x from 238.5 s; the ServerMove \
         whose time stamp reaches 240 000 ms is lost. Expected: no error and no correction after the reset (it \
         used to leave 10.2 cm for good).",
        7,
        start,
        242 * 60,
        move |i, run| {
            let t = i as f64 * FRAME;
            let pos = run.endpoint().position();
            let dir = if t < 232.0 {
                bot.input(pos, FRAME as f32).0
            } else if t < 238.5 {
                let to = target - pos;
                if to.length() < 2.0 {
                    Vec2::ZERO
                } else {
                    to.safe_normal()
                }
            } else {
                Vec2::new(1.0, 0.0)
            };
            let before = run.endpoint().cmc().unwrap().time_stamp().0;
            // Only near the reset: a probe copies the recording so far.
            let crosses = (239_900..240_000).contains(&before) && {
                let mut probe = run.clone();
                probe.step_live(FRAME, dir, false, false);
                probe.endpoint().cmc().unwrap().time_stamp().0 >= 240_000
            };
            let config = |loss| ClientConfig {
                forced_move_loss_percent: loss,
                ..ClientConfig::default()
            };
            if crosses && !lost {
                lost = true;
                run.change(Setting::Client(config(100.0)));
            } else if lost && run.settings().client.forced_move_loss_percent > 0.0 {
                run.change(Setting::Client(config(0.0)));
            }
            (FRAME, dir, false)
        },
    )
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "scenarios".into());
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).expect("scenario folder");
    for (file, s) in scenarios() {
        s.validate().expect("a valid scenario");
        let path = dir.join(format!("{file}.json"));
        let json = serde_json::to_string(&s).expect("JSON");
        std::fs::write(&path, json + "\n").expect("write");
        let o = s.outcome.expect("recorded");
        println!(
            "{:<44} {:>6} frames  trajectory {:016x}  adjustments {}",
            path.display(),
            o.frames,
            o.trajectory_hash,
            o.adjustments
        );
    }
}
