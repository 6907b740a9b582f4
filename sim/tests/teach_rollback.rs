//! Issue 24, part 1, the rollback model: a local input delay (ggrs
//! `input_delay`) on top of prediction. Each input is simulated, and
//! sent, *d* ticks after it is pressed, so the client runs *d* ticks less
//! ahead of the server and re-simulates that much less after each State
//! (`001_…` §8 always rebases; what shrinks is the re-simulation).

use sim::protocol::Setup;
use sim::rollback::{BotPlayer, RollbackConfig, RollbackMetrics};
use sim::{LocalSession, Model, NetSettings, Vec2};

const FRAME: f64 = 1.0 / 60.0;

fn session(rtt_ms: u16, loss: u8, input_delay: u8) -> LocalSession {
    LocalSession::with_setup(
        5,
        &Setup {
            net: NetSettings::symmetric(rtt_ms, 0, loss),
            model: Model::Rollback(RollbackConfig {
                input_delay,
                ..RollbackConfig::default()
            }),
            ..Setup::default()
        },
    )
}

fn metrics(s: &mut LocalSession) -> RollbackMetrics {
    let now = s.now();
    s.endpoint.metrics(now).rollback.expect("rollback metrics")
}

/// Stands still for 2 s, then holds "right": the ticks from the tick the
/// push was sampled in to the first tick the local player moved in.
fn input_latency_ticks(input_delay: u8) -> u32 {
    let mut s = session(150, 0, input_delay);
    for _ in 0..120 {
        s.step(FRAME, Vec2::ZERO, false, false);
    }
    let r = s.endpoint.rollback().unwrap();
    let (pressed, x0) = (r.tick().unwrap(), r.local_player().unwrap().position.x);
    for _ in 0..60 {
        s.step(FRAME, Vec2::new(1.0, 0.0), false, false);
        let r = s.endpoint.rollback().unwrap();
        if r.local_player().unwrap().position.x != x0 {
            // The tick just simulated is the one before the client's next.
            let moved = r.tick().unwrap().minus(1);
            return moved.diff(pressed) as u32;
        }
    }
    panic!("never moved");
}

#[test]
fn an_input_delay_of_8_ticks_shows_a_push_8_ticks_later() {
    let (none, eight) = (input_latency_ticks(0), input_latency_ticks(8));
    println!("RTT 150 ms: a push moves the player after {none} ticks (delay 0), {eight} (delay 8)");
    // One frame runs about one tick (60 Hz), so the first tick that moves
    // is the one sampled, plus the delay.
    assert_eq!(none, 0);
    assert_eq!(eight, 8);
}

/// 30 s of the firing bot at RTT 150 ms and 5 % loss each way.
fn run(input_delay: u8) -> RollbackMetrics {
    let mut s = session(150, 5, input_delay);
    let mut bot = BotPlayer::new(0);
    for _ in 0..30 * 60 {
        s.step_bot_player(&mut bot, FRAME);
    }
    metrics(&mut s)
}

#[test]
fn an_input_delay_re_simulates_less_after_each_state() {
    let (zero, eight) = (run(0), run(8));
    println!(
        "RTT 150 ms, 5 % loss, 30 s: delay 0: {} rebases, {} ticks re-simulated, {} visible \
         rollbacks; delay 8: {} rebases, {} ticks re-simulated, {} visible rollbacks",
        zero.rebases,
        zero.resimulated_ticks,
        zero.rollbacks,
        eight.rebases,
        eight.resimulated_ticks,
        eight.rollbacks
    );
    // Every State is a rebase in this model (`001_…` §8), so the count of
    // rebases stays; each re-simulates about 8 ticks less.
    let per = |m: &RollbackMetrics| m.resimulated_ticks as f64 / m.rebases as f64;
    assert!(
        per(&zero) - per(&eight) >= 6.0,
        "{:.1} vs {:.1} ticks per rebase",
        per(&zero),
        per(&eight)
    );
    assert!(
        eight.rollbacks < zero.rollbacks,
        "{} vs {}",
        eight.rollbacks,
        zero.rollbacks
    );
}
