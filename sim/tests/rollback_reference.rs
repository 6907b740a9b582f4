//! The reference run of `001_…` §3 through the real client and server
//! machinery, on the article's own 1-D world: the client predicts 5 ticks
//! of "+1", the server misses tick 2, and the State for tick 3 rolls the
//! client back and forward again.

use sim::rollback::{
    Divergence, Game, InputCmd, RollbackClient, RollbackServer, StateRejected, Tick,
};

/// `001_…` §3's world: one player on a line.
#[derive(Debug, Clone, Copy)]
struct Line;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineState {
    next_tick: Tick,
    position: i32,
}

impl Game for Line {
    type State = LineState;
    fn players(&self) -> usize {
        1
    }
    fn tick(s: &LineState) -> Tick {
        s.next_tick
    }
    fn step(&self, s: &LineState, inputs: &[InputCmd]) -> LineState {
        LineState {
            next_tick: s.next_tick.next(),
            position: s.position + i32::from(inputs[0].move_x.signum()),
        }
    }
    fn state_hash(s: &LineState) -> u64 {
        sim::foundation::hash::Fnv64::new()
            .u32(s.next_tick.0)
            .u32(s.position as u32)
            .finish()
    }
    fn divergence(&self, a: &LineState, b: &LineState, _: usize) -> Divergence {
        Divergence {
            position_mm: a.position.abs_diff(b.position) * 1000,
            discrete: false,
        }
    }
}

fn right(tick: u32) -> InputCmd {
    InputCmd {
        move_x: 127,
        ..InputCmd::empty(Tick(tick))
    }
}

fn start() -> LineState {
    LineState {
        next_tick: Tick(0),
        position: 0,
    }
}

#[test]
fn the_reference_run_predicts_5_restores_2_and_replays_to_4() {
    let mut client = RollbackClient::new(Line, start(), 0, None);
    for t in 0..5 {
        client.advance(right(t)).unwrap();
    }
    // predicted_before=5
    assert_eq!(client.predicted().position, 5);
    assert_eq!(client.tick(), Tick(5));

    // The server gets inputs 0 and 1, misses 2 and uses the empty input
    // (hold-last 0: the article's server has no hold-last).
    let mut server = RollbackServer::new(Line, start(), 0);
    server.receive_inputs(0, &[right(0), right(1)]).unwrap();
    for _ in 0..3 {
        server.advance();
    }
    let authoritative = server.state_update(2);
    // authoritative_at_tick_3=2
    assert_eq!(
        authoritative.state,
        LineState {
            next_tick: Tick(3),
            position: 2
        }
    );
    assert_eq!(server.counters(0).unwrap().missed(), 1);
    assert_eq!(server.counters(0).unwrap().defaulted, 1);

    client.receive_state(authoritative).unwrap();
    assert!(client.rebase_if_due());
    // corrected_after_replay=4: ticks 3 and 4 re-simulated.
    assert_eq!(client.predicted().position, 4);
    let record = client.last_rollback().unwrap();
    assert_eq!((record.from, record.to), (Tick(3), Tick(5)));
    assert_eq!(record.restored.position, 2);
    let discarded: Vec<i32> = record.discarded.iter().map(|s| s.position).collect();
    let resimulated: Vec<i32> = record.resimulated.iter().map(|s| s.position).collect();
    assert_eq!(discarded, [3, 4, 5], "predicted ticks 3..=5");
    assert_eq!(resimulated, [3, 4], "re-simulated ticks 4..=5");
    let c = client.counters();
    assert_eq!((c.rebases, c.resimulated_ticks, c.rollbacks), (1, 2, 1));

    // The server later receives inputs 3 and 4 (the client's redundancy
    // resends 1..=4; 1 is a duplicate) and both ends agree.
    server
        .receive_inputs(0, &[right(4), right(3), right(2), right(1)])
        .unwrap();
    assert_eq!(server.counters(0).unwrap().late, 1, "input 2 came too late");
    server.advance();
    server.advance();
    assert_eq!(server.state(), client.predicted());
    assert_eq!(
        *server.state(),
        LineState {
            next_tick: Tick(5),
            position: 4
        }
    );
}

#[test]
fn the_desync_check_runs_on_confirmed_ticks_and_catches_a_lying_server() {
    let mut client = RollbackClient::new(Line, start(), 0, None);
    let mut server = RollbackServer::new(Line, start(), 6);
    for t in 0..4 {
        client.advance(right(t)).unwrap();
        server.receive_inputs(0, &[right(t)]).unwrap();
        server.advance();
        if t % 2 == 1 {
            client.receive_state(server.state_update(2)).unwrap();
        }
    }
    let c = client.counters();
    assert_eq!((c.hash_checks, c.hash_mismatches), (2, 0));
    // A State whose hash matches its contents but whose contents do not
    // follow from the inputs it lists: a desync, counted, still applied.
    let mut lie = server.state_update(2);
    lie.state.position += 1;
    lie.state.next_tick = Tick(6);
    lie.hash = Line::state_hash(&lie.state);
    lie.inputs = vec![right(4), right(5)];
    client.receive_state(lie).unwrap();
    assert_eq!(client.counters().hash_mismatches, 1);
}

#[test]
fn a_state_is_rejected_when_stale_corrupt_or_outside_the_window() {
    let mut client = RollbackClient::new(Line, start(), 0, None);
    let mut server = RollbackServer::new(Line, start(), 6);
    server.advance();
    server.advance();
    let good = server.state_update(2);
    let mut corrupt = good.clone();
    corrupt.state.position = 99;
    assert!(matches!(
        client.receive_state(corrupt),
        Err(StateRejected::BadHash { .. })
    ));
    client.receive_state(good.clone()).unwrap();
    assert_eq!(
        client.receive_state(good),
        Err(StateRejected::Stale {
            tick: Tick(2),
            newest: Tick(2)
        })
    );
    let far = LineState {
        next_tick: Tick(100_000),
        position: 0,
    };
    let far = sim::rollback::StateUpdate {
        hash: Line::state_hash(&far),
        state: far,
        inputs: vec![],
    };
    assert_eq!(
        client.receive_state(far),
        Err(StateRejected::OutOfWindow {
            tick: Tick(100_000)
        })
    );
    let c = client.counters();
    assert_eq!(
        (
            c.rejected_hash,
            c.rejected_stale,
            c.rejected_window,
            c.states_accepted
        ),
        (1, 1, 1, 1)
    );
}

#[test]
fn at_the_window_the_client_waits_and_the_rollback_due_meanwhile_is_applied() {
    let mut client = RollbackClient::new(Line, start(), 0, Some(8));
    let mut server = RollbackServer::new(Line, start(), 0);
    for t in 0..8 {
        client.advance(right(t)).unwrap();
    }
    assert_eq!(client.ticks_ahead(), 8);
    assert!(client.advance(right(8)).is_err());
    assert!(client.advance(right(8)).is_err());
    assert_eq!(client.counters().stalls, 2);
    // The server missed everything after tick 1: a correction arrives
    // while the client waits.
    server.receive_inputs(0, &[right(0), right(1)]).unwrap();
    for _ in 0..4 {
        server.advance();
    }
    client.receive_state(server.state_update(2)).unwrap();
    // Still stalled? No: the State confirmed tick 4, so 4 ticks ahead.
    // The rebase happens before the window check, never skipped.
    client.advance(right(8)).unwrap();
    assert_eq!(client.counters().rebases, 1);
    assert_eq!(client.counters().resimulated_ticks, 4);
    // 2 (server) + 4 re-simulated ticks 4..=7 + tick 8.
    assert_eq!(client.predicted().position, 7);
    assert_eq!(client.ticks_ahead(), 5);
}

#[test]
fn a_rebase_further_back_than_the_history_is_reported_not_a_panic() {
    // No prediction window: a server silent for longer than the history
    // lets the client run past it.
    let capacity = sim::rollback::config::HISTORY_CAPACITY as u32;
    let mut client = RollbackClient::new(Line, start(), 0, None);
    let mut server = RollbackServer::new(Line, start(), 0);
    for t in 0..capacity + 20 {
        client.advance(right(t)).unwrap();
    }
    server.receive_inputs(0, &[right(0)]).unwrap();
    server.advance();
    client.receive_state(server.state_update(1)).unwrap();
    client.rebase_if_due();
    let c = client.counters();
    assert_eq!(c.history_overflows, 1);
    assert_eq!(c.resimulated_ticks, u64::from(capacity + 19));
    // Ticks 1..=19 had lost their local inputs and were re-simulated
    // empty; the last `capacity` ticks kept theirs.
    assert_eq!(client.predicted().position, 1 + capacity as i32);
}
