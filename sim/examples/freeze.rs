//! Freezes this build's scenario version for the corpus of old links
//! (`scenarios/frozen/`): writes `v<N>.bin` (the compact bytes a link and
//! the relay's store hold) and `v<N>.json` (what `GET /api/scenarios/{id}`
//! serves) for N = `SCENARIO_VERSION`, the run a page would record — the
//! bot at browser-like frame times, every kind of setting changed once,
//! both models, a what-if delivery. Refuses to overwrite: a frozen file
//! is never edited. The step of adding a scenario version that needs it
//! is in `sim::scenario::migrate`.
//!
//! `cargo run --release -p sim --example freeze -- scenarios/frozen`

use sim::net::settings::LagSpike;
use sim::net::trace::Direction;
use sim::net::transport::LinkTransport;
use sim::protocol::{Setting, Setup};
use sim::rollback::{BotPlayer, InputCmd, RollbackConfig, TickRate};
use sim::scenario::{codec, SCENARIO_VERSION};
use sim::{Bot, ClientConfig, Model, NetSettings, ScenarioRun, ServerRules, SmoothingMode};
use std::path::PathBuf;

/// Browser-like frame times: 16.6, 16.7 or 16.8 ms in a fixed
/// pseudo-random order, with a 50 ms hitch every 7 s (as
/// `sim/tests/scenario.rs`).
fn frame_dt(i: usize) -> f64 {
    if i % 420 == 419 {
        return 0.05;
    }
    let noise = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 62;
    [0.0166, 0.0167, 0.0167, 0.0168][noise as usize]
}

/// The setting changes of the run, by frame (60 a second).
fn change(i: usize) -> Vec<Setting> {
    match i {
        120 => vec![Setting::Deliver {
            direction: Direction::Up,
            index: 40,
        }],
        300 => vec![Setting::Model(Model::Rollback(RollbackConfig {
            redundancy: 2,
            input_delay: 4,
            ..RollbackConfig::at_rate(TickRate::Hz60)
        }))],
        420 => vec![Setting::Model(Model::Rollback(RollbackConfig {
            redundancy: 2,
            input_delay: 4,
            rollback: false,
            ..RollbackConfig::at_rate(TickRate::Hz60)
        }))],
        480 => {
            let mut net = NetSettings::symmetric(150, 10, 30);
            net.downlink.burst_enter_tenth_percent = 20;
            vec![Setting::Net(net)]
        }
        600 => vec![Setting::LagSpike(LagSpike {
            extra_ms: 300,
            duration_ms: 1000,
        })],
        720 => vec![Setting::Model(Model::Cmc)],
        840 => vec![
            Setting::Client(ClientConfig {
                clock_speed: 1.25,
                reconciliation: false,
                ..ClientConfig::default()
            }),
            Setting::Rules(ServerRules {
                time_discrepancy_resolution: true,
                ..ServerRules::default()
            }),
            Setting::Smoothing(SmoothingMode::Linear),
        ],
        960 => vec![Setting::Transport(LinkTransport::ReliableOrdered)],
        1020 => vec![Setting::Client(ClientConfig {
            prediction: false,
            ..ClientConfig::default()
        })],
        _ => Vec::new(),
    }
}

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "scenarios/frozen".into()),
    );
    let stem = format!("v{SCENARIO_VERSION}");
    let (bin, json) = (
        dir.join(format!("{stem}.bin")),
        dir.join(format!("{stem}.json")),
    );
    for path in [&bin, &json] {
        assert!(
            !path.exists(),
            "{} is frozen: never rewritten",
            path.display()
        );
    }
    let setup = Setup {
        net: NetSettings::symmetric(150, 10, 10),
        ..Setup::default()
    };
    let mut run = ScenarioRun::record("CMC and rollback at 150 ms, 10 % loss", 13, setup);
    let (mut bot, mut player) = (Bot::new(), BotPlayer::new(0));
    for i in 0..20 * 60 {
        for setting in change(i) {
            run.change(setting);
        }
        let dt = frame_dt(i);
        let position = run.endpoint().position();
        if run.endpoint().rollback().is_some() {
            let (dir, buttons) = player.input(position, dt as f32);
            let pressed = |b: u16| buttons & b != 0;
            run.step_live(dt, dir, pressed(InputCmd::DASH), pressed(InputCmd::FIRE));
        } else {
            let (dir, dash) = bot.input(position, dt as f32);
            run.step_live(dt, dir, dash, false);
        }
    }
    run.stop_recording();
    let mut s = run.scenario().clone();
    s.description = format!(
        "Frozen when scenario version {SCENARIO_VERSION} was current (sim/examples/freeze.rs). \
         CMC with a what-if delivery of uplink packet 40 at 2 s, rollback (redundancy 2, input \
         delay 4, the firing bot player) from 5 s, rollback off from 7 s, loss to 30 % with downlink bursts at 8 s, a 300 ms lag \
         spike at 10 s, CMC again at 12 s, a 1.25x client clock without reconciliation, \
         time-discrepancy resolution and linear smoothing at 14 s, the reliable-ordered \
         transport at 16 s, an honest clock without prediction at 17 s."
    );
    s.validate().expect("a valid scenario");
    std::fs::write(&bin, codec::encode(&s)).expect("write the compact bytes");
    let mut text = serde_json::to_vec(&s).expect("JSON");
    text.push(b'\n');
    std::fs::write(&json, text).expect("write the JSON");
    let o = s.outcome.expect("recorded");
    println!(
        "{} and {}: {} frames, trajectory {:016x}",
        bin.display(),
        json.display(),
        o.frames,
        o.trajectory_hash
    );
}
