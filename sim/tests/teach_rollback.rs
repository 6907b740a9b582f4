//! Issue 24, part 1, the rollback model: a local input delay (ggrs
//! `input_delay`) on top of prediction, and rollback switched off. Each
//! input is simulated, and sent, *d* ticks after it is pressed, so the
//! client runs *d* ticks less ahead of the server and re-simulates that
//! much less after each State (`001_…` §8 always rebases; what shrinks is
//! the re-simulation). Without rollback the client draws the States as
//! they come: nothing is rebased, and a push shows a round trip late
//! whatever the delay (`001_…` §1).

use sim::protocol::Setup;
use sim::rollback::{BotPlayer, RollbackConfig, RollbackMetrics};
use sim::{LocalSession, Model, NetSettings, Vec2};

const FRAME: f64 = 1.0 / 60.0;

fn session(rtt_ms: u16, loss: u8, input_delay: u8) -> LocalSession {
    session_with(rtt_ms, loss, input_delay, true)
}

fn session_with(rtt_ms: u16, loss: u8, input_delay: u8, rollback: bool) -> LocalSession {
    LocalSession::with_setup(
        5,
        &Setup {
            net: NetSettings::symmetric(rtt_ms, 0, loss),
            model: Model::Rollback(RollbackConfig {
                input_delay,
                rollback,
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
    latency(session(150, 0, input_delay))
}

fn latency(mut s: LocalSession) -> u32 {
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

#[test]
fn without_rollback_nothing_is_rebased_and_a_push_shows_a_round_trip_late() {
    // RTT 150 ms is 9 ticks at 60 Hz.
    for delay in [0, 8] {
        let ticks = latency(session_with(150, 0, delay, false));
        println!("RTT 150 ms, rollback off, delay {delay}: a push is drawn {ticks} ticks later");
        assert!(
            ticks >= 9,
            "delay {delay}: {ticks} ticks, under a round trip"
        );
        assert!(ticks <= 9 + 2 + 2 + 3, "delay {delay}: {ticks} ticks");
    }
    let mut s = session_with(150, 5, 8, false);
    let mut bot = BotPlayer::new(0);
    for _ in 0..30 * 60 {
        s.step_bot_player(&mut bot, FRAME);
    }
    let m = metrics(&mut s);
    println!(
        "RTT 150 ms, 5 % loss, 30 s, rollback off, delay 8: {} rebases, {} ticks re-simulated, \
         {} visible rollbacks, {} ticks the picture waited",
        m.rebases, m.resimulated_ticks, m.rollbacks, m.frozen_ticks
    );
    assert_eq!((m.rebases, m.resimulated_ticks, m.rollbacks), (0, 0, 0));
    // A State every 2 ticks: the picture waits at least every other tick.
    assert!(m.frozen_ticks >= 30 * 60 / 2 - 60, "{}", m.frozen_ticks);
}
