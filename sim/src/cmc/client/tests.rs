//! The client's unit tests: time stamps, Acks, Adjustments and replay,
//! smoothing.

use super::*;
use crate::cmc::wire::{AdjustmentReason, MoveResponse};

fn client() -> (Client, World) {
    let w = World::arena();
    (Client::new(MovementParams::default(), w.spawn), w)
}

/// One 60 Hz frame walking right (dashing if `dash`): the ServerMove
/// sent, if any.
fn step(c: &mut Client, w: &World, dash: bool) -> Option<ServerMove> {
    let right = Vec2::new(1.0, 0.0);
    c.tick(1.0 / 60.0, right, dash, SmoothingMode::Exponential, w)
}

/// `frames` 60 Hz frames walking right.
fn walk(c: &mut Client, w: &World, frames: usize) {
    for _ in 0..frames {
        step(c, w, false);
    }
}

/// The server's Adjustment of the move stamped `ms` to `state`.
fn adjust(c: &mut Client, w: &World, ms: u32, state: CharacterState) {
    let response = MoveResponse::Adjustment {
        time_stamp: TimeStamp(ms),
        state,
        reason: AdjustmentReason::PositionError,
    };
    c.handle_move_response(&response, w);
}

#[test]
fn frames_quantize_to_whole_ms_and_carry_the_rest() {
    let (mut c, w) = client();
    let dts: Vec<u16> = (0..3)
        .filter_map(|_| step(&mut c, &w, false))
        .map(|m| m.new_move.time_stamp.0 as u16)
        .collect();
    // 16.67 ms frames → time stamps 16, 33, 50.
    assert_eq!(dts, vec![16, 33, 50]);
    assert_eq!(c.saved_moves().len(), 3);
    assert_eq!(
        c.saved_moves().iter().map(|m| m.dt_ms).collect::<Vec<_>>(),
        vec![16, 17, 17]
    );
}

#[test]
fn ack_drops_exactly_the_acked_prefix() {
    let (mut c, w) = client();
    walk(&mut c, &w, 6);
    c.handle_move_response(
        &MoveResponse::Ack {
            time_stamp: TimeStamp(50),
        },
        &w,
    );
    let left: Vec<u32> = c.saved_moves().iter().map(|m| m.time_stamp.0).collect();
    assert_eq!(left, vec![66, 83, 100]);
    assert_eq!(c.counters().acks, 1);
    // Unknown time stamp: ignored, nothing dropped.
    c.handle_move_response(
        &MoveResponse::Ack {
            time_stamp: TimeStamp(51),
        },
        &w,
    );
    assert_eq!(c.saved_moves().len(), 3);
    assert_eq!(c.counters().unmatched_responses, 1);
}

#[test]
fn adjustment_snaps_then_replays_next_tick_without_repeating_the_dash() {
    let (mut c, w) = client();
    step(&mut c, &w, true);
    walk(&mut c, &w, 5);
    assert_eq!(c.counters().dash_events, 1);
    let before = *c.state();
    // The server says: at ts 33 you were 50 cm lower.
    let mut server = c.saved_moves().iter().nth(1).unwrap().end;
    server.position.y += 50.0;
    adjust(&mut c, &w, 33, server);
    assert!(c.needs_replay());
    assert_eq!(c.state().position, server.position);
    assert_eq!(c.saved_moves().len(), 4);
    c.tick(
        1.0 / 60.0,
        Vec2::new(1.0, 0.0),
        false,
        SmoothingMode::Disabled,
        &w,
    );
    // Replayed 4 moves; same inputs from a state 50 cm lower: x is
    // identical, y is 50 cm lower, and the dash did not fire again.
    assert_eq!(c.counters().replayed_moves, 4);
    assert_eq!(c.counters().dash_events, 1);
    let replayed_end = c.saved_moves().iter().nth(3).unwrap().end;
    assert_eq!(replayed_end.position.x, before.position.x);
    assert_eq!(replayed_end.position.y, before.position.y + 50.0);
    let rec = c.corrections().back().unwrap();
    assert_eq!(
        (rec.error_cm, rec.residual_cm, rec.moves_replayed),
        (50.0, 50.0, 4)
    );
    assert!(!rec.is_redundant(16.0));
    assert_eq!(rec.discarded.len(), 5);
    assert_eq!(rec.replayed.len(), 5);
}

#[test]
fn an_ack_before_the_replay_folds_its_moves_into_the_replay() {
    let (mut c, w) = client();
    walk(&mut c, &w, 6);
    let predicted_end = c.saved_moves().last().unwrap().end;
    let mut server = c.saved_moves().iter().nth(1).unwrap().end;
    server.position.y += 30.0;
    adjust(&mut c, &w, 33, server);
    // Same frame: an Ack for ts 66 (two moves later).
    c.handle_move_response(
        &MoveResponse::Ack {
            time_stamp: TimeStamp(66),
        },
        &w,
    );
    assert_eq!(c.saved_moves().len(), 2);
    c.tick(0.0, Vec2::ZERO, false, SmoothingMode::Disabled, &w);
    // All 4 moves after the adjusted one were re-run: 30 cm lower, same x.
    let end = c.saved_moves().last().unwrap().end;
    assert_eq!(end.position.x, predicted_end.position.x);
    assert_eq!(end.position.y, predicted_end.position.y + 30.0);
    assert_eq!(c.counters().replayed_moves, 4);
    assert_eq!(c.corrections().back().unwrap().moves_replayed, 4);
}

#[test]
fn smoothing_hides_the_snap_then_decays() {
    let (mut c, w) = client();
    for _ in 0..3 {
        c.tick(
            1.0 / 60.0,
            Vec2::ZERO,
            false,
            SmoothingMode::Exponential,
            &w,
        );
    }
    let mut server = *c.state();
    server.position.x += 20.0;
    adjust(&mut c, &w, 16, server);
    c.tick(0.0, Vec2::ZERO, false, SmoothingMode::Exponential, &w);
    // Drawn where it was, collision 20 cm further.
    assert_eq!(c.drawn_position(), w.spawn);
    assert_eq!(c.state().position.x, w.spawn.x + 20.0);
    c.tick(0.05, Vec2::ZERO, false, SmoothingMode::Exponential, &w);
    assert_eq!(c.drawn_position().x, w.spawn.x + 10.0);
}
