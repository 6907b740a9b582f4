//! The two models side by side (issue #12's note): 60 s of the same bot
//! input (the rollback bot player: the arena tour, dashes, fire in bursts)
//! at RTT 150 ms and 5 % loss each way, on the same seeds — corrections,
//! re-simulation, what it costs on the client's clock, and bytes per
//! second each way.
//!
//! `cargo run --release -p sim --example models`
//!
//! Re-simulation cost is measured here in wall time (an example may read
//! the clock; `sim` may not): the client's share of every frame (taking
//! the frames that arrived, then predicting and sending) is timed, and a
//! frame that replayed SavedMoves (CMC) or rebased onto a State (rollback)
//! is charged what it took above the median of the frames that did not —
//! the re-simulation and, for rollback, the State's checks (hash, the
//! confirmed-tick desync check) that come with it.

use sim::rollback::{BotPlayer, InputCmd, RollbackConfig};
use sim::scenario::Setup;
use sim::{LocalSession, Model, NetSettings};
use std::time::Instant;

const FRAME: f64 = 1.0 / 60.0;
const FRAMES: usize = 60 * 60;
const SEEDS: u64 = 5;

/// One model's totals over all seeds.
#[derive(Default)]
struct Totals {
    corrections: u64,
    rebases: u64,
    resimulated: u64,
    acks: u64,
    sent: u64,
    up_bytes: u64,
    down_bytes: u64,
    /// Wall time charged to re-simulation, ns.
    resim_ns: f64,
    /// Frames that re-simulated.
    resim_frames: u64,
    hash_mismatches: u64,
    missed_inputs: u64,
}

fn run(model: Model, seed: u64, t: &mut Totals) {
    let mut s = LocalSession::with_setup(
        seed,
        &Setup {
            net: NetSettings::symmetric(150, 0, 5),
            model,
            ..Setup::default()
        },
    );
    let mut bot = BotPlayer::new(0);
    let mut plain = Vec::with_capacity(FRAMES);
    let mut resim = Vec::new();
    let mut now = s.now();
    for _ in 0..FRAMES {
        let (dir, buttons) = bot.input(s.endpoint.position(), FRAME as f32);
        let before = s.endpoint.metrics(now).replayed_moves;
        let pressed = |b: u16| buttons & b != 0;
        // LocalSession::step, with the client's share timed.
        now = now.plus_micros((FRAME * 1e6).round() as u64);
        let arrived = s.host.poll_until(now);
        let started = Instant::now();
        for (at, f) in &arrived {
            let _ = s.endpoint.receive_frame(*at, f);
        }
        let out = s.endpoint.frame(
            now,
            FRAME,
            dir,
            pressed(InputCmd::DASH),
            pressed(InputCmd::FIRE),
        );
        let took = started.elapsed().as_nanos() as f64;
        for f in out {
            let _ = s.host.receive_frame(now, &f);
        }
        let m = s.endpoint.metrics(now);
        if m.replayed_moves > before {
            resim.push(took);
        } else {
            plain.push(took);
        }
    }
    plain.sort_by(f64::total_cmp);
    let median = plain[plain.len() / 2];
    t.resim_ns += resim.iter().map(|ns| (ns - median).max(0.0)).sum::<f64>();
    t.resim_frames += resim.len() as u64;
    let m = s.endpoint.metrics(now);
    t.corrections += m.adjustments;
    t.resimulated += m.replayed_moves;
    t.acks += m.acks;
    t.sent += m.moves_sent;
    if let Some(r) = m.rollback {
        t.rebases += r.rebases;
        t.hash_mismatches += r.hash_mismatches;
        t.missed_inputs += u64::from(r.missed_inputs);
    }
    let (up, down) = s.endpoint.bytes_total();
    t.up_bytes += up;
    t.down_bytes += down;
}

fn main() {
    let mut cmc = Totals::default();
    let mut rollback = Totals::default();
    for seed in 0..SEEDS {
        run(Model::Cmc, seed, &mut cmc);
        run(
            Model::Rollback(RollbackConfig::default()),
            seed,
            &mut rollback,
        );
    }
    let n = SEEDS as f64;
    let secs = FRAMES as f64 * FRAME;
    println!(
        "60 s of the bot player, RTT 150 ms, 5 % loss each way, mean of {SEEDS} seeds (0..{SEEDS})\n"
    );
    println!("| | CMC | rollback |");
    println!("|---|---|---|");
    let row = |what: &str, a: f64, b: f64| println!("| {what} | {a:.1} | {b:.1} |");
    row(
        "corrections: adjustments / visible rollbacks",
        cmc.corrections as f64 / n,
        rollback.corrections as f64 / n,
    );
    println!(
        "| states restored: adjustments / rebases (every State) | {:.1} | {:.1} |",
        cmc.corrections as f64 / n,
        rollback.rebases as f64 / n
    );
    row(
        "re-simulated: replayed moves / re-simulated ticks",
        cmc.resimulated as f64 / n,
        rollback.resimulated as f64 / n,
    );
    row(
        "frames that re-simulated",
        cmc.resim_frames as f64 / n,
        rollback.resim_frames as f64 / n,
    );
    row(
        "re-simulation wall time over the 60 s, µs",
        cmc.resim_ns / n / 1e3,
        rollback.resim_ns / n / 1e3,
    );
    row(
        "… per frame that re-simulated, µs",
        cmc.resim_ns / cmc.resim_frames.max(1) as f64 / 1e3,
        rollback.resim_ns / rollback.resim_frames.max(1) as f64 / 1e3,
    );
    row(
        "… per re-simulated step, ns",
        cmc.resim_ns / cmc.resimulated.max(1) as f64,
        rollback.resim_ns / rollback.resimulated.max(1) as f64,
    );
    row(
        "packets up: ServerMoves / input packets, per s",
        cmc.sent as f64 / n / secs,
        rollback.sent as f64 / n / secs,
    );
    row(
        "acks received, per s",
        cmc.acks as f64 / n / secs,
        rollback.acks as f64 / n / secs,
    );
    row(
        "uplink, bytes/s (moves or inputs + pings)",
        cmc.up_bytes as f64 / n / secs,
        rollback.up_bytes as f64 / n / secs,
    );
    row(
        "downlink, bytes/s (game traffic, no observer view)",
        cmc.down_bytes as f64 / n / secs,
        rollback.down_bytes as f64 / n / secs,
    );
    println!(
        "\nrollback: {:.1} missed inputs at the server, {} hash mismatches",
        rollback.missed_inputs as f64 / n,
        rollback.hash_mismatches
    );
}
