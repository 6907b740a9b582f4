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

use sim::protocol::Setup;
use sim::rollback::{BotPlayer, InputCmd, RollbackConfig};
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

/// Seconds of play per run.
const SECS: f64 = FRAMES as f64 * FRAME;

/// A row of the table: a label and the value over the seeds (a mean per
/// run, a rate per second, or a ratio of two totals).
type Row = (&'static str, fn(&Totals) -> f64);

/// The table.
const ROWS: [Row; 11] = [
    ("corrections: adjustments / visible rollbacks", |t| {
        mean(t.corrections)
    }),
    (
        "states restored: adjustments / rebases (every State)",
        |t| mean(t.rebases.max(t.corrections)),
    ),
    ("re-simulated: replayed moves / re-simulated ticks", |t| {
        mean(t.resimulated)
    }),
    ("frames that re-simulated", |t| mean(t.resim_frames)),
    ("re-simulation wall time over the 60 s, µs", |t| {
        t.resim_ns / SEEDS as f64 / 1e3
    }),
    ("… per frame that re-simulated, µs", |t| {
        t.resim_ns / t.resim_frames.max(1) as f64 / 1e3
    }),
    ("… per re-simulated step, ns", |t| {
        t.resim_ns / t.resimulated.max(1) as f64
    }),
    ("packets up: ServerMoves / input packets, per s", |t| {
        mean(t.sent) / SECS
    }),
    ("acks received, per s", |t| mean(t.acks) / SECS),
    ("uplink, bytes/s (moves or inputs + pings)", |t| {
        mean(t.up_bytes) / SECS
    }),
    ("downlink, bytes/s (game traffic, no observer view)", |t| {
        mean(t.down_bytes) / SECS
    }),
];

/// A total over the seeds as a mean per run.
fn mean(total: u64) -> f64 {
    total as f64 / SEEDS as f64
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
    println!(
        "60 s of the bot player, RTT 150 ms, 5 % loss each way, mean of {SEEDS} seeds (0..{SEEDS})\n"
    );
    println!("| | CMC | rollback |");
    println!("|---|---|---|");
    for (what, value) in ROWS {
        println!("| {what} | {:.1} | {:.1} |", value(&cmc), value(&rollback));
    }
    println!(
        "\nrollback: {:.1} missed inputs at the server, {} hash mismatches",
        mean(rollback.missed_inputs),
        rollback.hash_mismatches
    );
}
