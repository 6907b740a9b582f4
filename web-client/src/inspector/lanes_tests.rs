use super::*;
use sim::net::settings::LagSpike;
use sim::rollback::tick::Tick;
use sim::SimTime;

fn packet(direction: Direction, index: u64, sent_ms: u64, fate: Fate) -> PacketRecord {
    PacketRecord {
        direction,
        index,
        kind: if direction == Direction::Up {
            PacketKind::ServerMove
        } else {
            PacketKind::Ack
        },
        detail: sent_ms as u32,
        also: [0; 2],
        bytes: 16,
        sent: SimTime::from_millis(sent_ms),
        fate,
    }
}

fn delivered(at_ms: u64) -> Fate {
    Fate::Delivered {
        at: SimTime::from_millis(at_ms),
        duplicate: false,
        overtook: false,
        resent: false,
        held: false,
    }
}

/// 0..1 s on 100..1100 px: 1 px per ms.
fn window() -> Window {
    Window::new(0, 1_000_000, 100.0, 1100.0)
}

const ROWS: Rows = Rows {
    client_y: 10.0,
    server_y: 60.0,
};

#[test]
fn a_window_maps_time_to_x_and_back() {
    let w = window();
    assert_eq!(w.x_of(250_000), 350.0);
    assert_eq!(w.t_of(350.0), 250_000);
    assert_eq!(w.t_of(0.0), 0, "clamped to the window");
    assert_eq!(w.t_of(5000.0), 1_000_000);
}

#[test]
fn zooming_keeps_the_time_under_the_pointer_in_place() {
    let mut w = window();
    let extent = (0, 60_000_000);
    w.zoom(350.0, 0.5, extent);
    assert_eq!((w.from_us, w.to_us), (125_000, 625_000));
    assert_eq!(w.t_of(350.0), 250_000);
    // Never narrower than MIN_SPAN_US, never wider than the run.
    for _ in 0..20 {
        w.zoom(350.0, 0.5, extent);
    }
    assert_eq!(w.span_us(), MIN_SPAN_US);
    for _ in 0..40 {
        w.zoom(350.0, 2.0, extent);
    }
    assert_eq!((w.from_us, w.to_us), extent);
}

#[test]
fn panning_stays_inside_the_run() {
    let mut w = window();
    let extent = (0, 3_000_000);
    w.pan(500.0, extent);
    assert_eq!((w.from_us, w.to_us), (500_000, 1_500_000));
    w.pan(-5000.0, extent);
    assert_eq!((w.from_us, w.to_us), (0, 1_000_000));
    w.pan(5000.0, extent);
    assert_eq!((w.from_us, w.to_us), (2_000_000, 3_000_000));
}

#[test]
fn focusing_on_an_episode_shows_it_with_a_margin() {
    let mut w = window();
    w.focus(8_000_000, 9_000_000, (0, 60_000_000));
    assert_eq!((w.from_us, w.to_us), (7_750_000, 9_250_000));
}

#[test]
fn a_delivered_packet_runs_from_its_send_to_its_arrival_across_the_rows() {
    let records = [
        packet(Direction::Up, 0, 100, delivered(175)),
        packet(Direction::Down, 0, 200, delivered(250)),
    ];
    let s = segments(records.iter().enumerate(), &window(), ROWS, 50_000);
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].from, s[0].to), ((200.0, 10.0), (275.0, 60.0)));
    assert_eq!((s[1].from, s[1].to), ((300.0, 60.0), (350.0, 10.0)));
    assert_eq!(s[0].style, Style::Move);
    assert_eq!(s[1].style, Style::Ack);
    assert_eq!(s[0].end, End::Arrived);
}

#[test]
fn a_lost_packet_stops_halfway_at_half_the_typical_transit() {
    let records = [
        packet(Direction::Up, 0, 100, delivered(180)),
        packet(Direction::Up, 1, 120, delivered(180)),
        packet(Direction::Up, 2, 140, Fate::Lost { in_burst: false }),
        packet(Direction::Down, 0, 300, Fate::Overflowed),
    ];
    let s = segments(records.iter().enumerate(), &window(), ROWS, 50_000);
    // Uplink transits 80 and 60 ms: typical 70, half of it 35.
    assert_eq!(s[2].end, End::Lost);
    assert_eq!(s[2].from, (240.0, 10.0));
    assert_eq!(s[2].to, (275.0, 10.0 + 50.0 * LOST_REACH));
    // No delivered downlink packet: the default transit (50 ms).
    assert_eq!(s[3].end, End::Overflowed);
    assert_eq!(s[3].to, (425.0, 60.0 - 50.0 * LOST_REACH));
}

#[test]
fn duplicates_are_drawn_twice_and_overtakers_cross() {
    let records = [
        packet(Direction::Up, 0, 100, delivered(200)),
        packet(
            Direction::Up,
            1,
            110,
            Fate::Delivered {
                at: SimTime::from_millis(150),
                duplicate: true,
                overtook: true,
                resent: false,
                held: false,
            },
        ),
    ];
    let s = segments(records.iter().enumerate(), &window(), ROWS, 50_000);
    assert_eq!(s.len(), 3);
    assert!(s[1].overtook && !s[1].copy);
    assert!(s[2].copy && s[2].record == 1);
    assert_eq!(s[2].to.0 - s[1].to.0, DUPLICATE_OFFSET_PX);
    // #1 left after #0 and arrived before it: the lines cross.
    assert!(s[1].from.0 > s[0].from.0 && s[1].to.0 < s[0].to.0);
}

#[test]
fn a_resent_packet_and_one_held_behind_it_are_marked() {
    let arrives = |ms, resent, held| Fate::Delivered {
        at: SimTime::from_millis(ms),
        duplicate: false,
        overtook: false,
        resent,
        held,
    };
    let records = [
        packet(Direction::Up, 0, 100, arrives(350, true, false)),
        packet(Direction::Up, 1, 110, arrives(350, false, true)),
        packet(Direction::Up, 2, 400, delivered(450)),
    ];
    let s = segments(records.iter().enumerate(), &window(), ROWS, 50_000);
    let marks: Vec<(bool, bool)> = s.iter().map(|s| (s.resent, s.held)).collect();
    assert_eq!(marks, [(true, false), (false, true), (false, false)]);
    assert!(s.iter().all(|s| s.end == End::Arrived));
}

#[test]
fn packets_wholly_off_screen_are_left_out() {
    let records = [
        packet(Direction::Up, 0, 100, delivered(175)),
        packet(Direction::Up, 1, 1500, delivered(1575)),
    ];
    let w = Window::new(150_000, 1_000_000, 0.0, 850.0);
    let s = segments(records.iter().enumerate(), &w, ROWS, 50_000);
    assert_eq!(s.len(), 1, "the first still arrives on screen");
    let w = Window::new(200_000, 1_000_000, 0.0, 800.0);
    assert!(segments(records.iter().enumerate(), &w, ROWS, 50_000).is_empty());
}

#[test]
fn burst_losses_close_together_make_one_band() {
    let burst = Fate::Lost { in_burst: true };
    let records = [
        packet(Direction::Up, 0, 1000, burst),
        packet(Direction::Down, 0, 1050, burst),
        packet(Direction::Up, 1, 1100, burst),
        packet(Direction::Up, 2, 1120, Fate::Lost { in_burst: false }),
        packet(Direction::Up, 3, 2000, burst),
    ];
    assert_eq!(
        burst_bands(records.iter()),
        vec![
            Band {
                from_us: 1_000_000,
                to_us: 1_100_000
            },
            Band {
                from_us: 2_000_000,
                to_us: 2_000_000
            }
        ]
    );
}

#[test]
fn a_lag_spike_band_starts_with_its_frame_and_lasts_its_duration() {
    let changes = [
        Change {
            frame: 120,
            setting: Setting::LagSpike(LagSpike {
                extra_ms: 500,
                duration_ms: 2000,
            }),
        },
        Change {
            frame: 130,
            setting: Setting::Smoothing(sim::SmoothingMode::Linear),
        },
    ];
    let bands = spike_bands(&changes, |frame| frame as u64 * 16_667);
    assert_eq!(
        bands,
        vec![Band {
            from_us: 2_000_040,
            to_us: 4_000_040
        }]
    );
}

#[test]
fn ruler_ticks_are_round_and_far_enough_apart() {
    let (step, times) = ticks(&window(), 60.0);
    assert_eq!(step, 100_000, "1 px per ms: 100 ms ≥ 60 px");
    assert_eq!(times.first(), Some(&0));
    assert_eq!(times.len(), 11);
    assert_eq!(tick_label(300_000, step), "0.3 s");
    let wide = Window::new(0, 60_000_000, 0.0, 1000.0);
    let (step, times) = ticks(&wide, 60.0);
    assert_eq!(step, 5_000_000);
    assert_eq!(tick_label(times[3], step), "15 s");
}

#[test]
fn rollback_ticks_are_predicted_re_predicted_or_confirmed() {
    // Ticks 10..=20 sent every 16 ms from 0; a State of tick 14 arrives at
    // 200 ms; a visible rollback re-simulated 13..=14 (from 12).
    let mut records: Vec<PacketRecord> = (10..=20u32)
        .map(|tick| PacketRecord {
            kind: PacketKind::Inputs,
            detail: tick,
            ..packet(
                Direction::Up,
                u64::from(tick),
                u64::from(tick - 10) * 16,
                delivered(999),
            )
        })
        .collect();
    records.push(PacketRecord {
        kind: PacketKind::State,
        detail: 14,
        ..packet(Direction::Down, 0, 150, delivered(200))
    });
    let rollbacks = [(Tick(12), Tick(14))];
    let at = |playhead_ms: u64| -> Vec<TickState> {
        tick_states(records.iter(), &rollbacks, playhead_ms * 1000)
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    };
    use TickState::{Confirmed as C, Predicted as P, Repredicted as R};
    assert_eq!(at(199), vec![P; 11], "no State yet");
    assert_eq!(at(1000), [vec![C, C, C, R, R], vec![P; 6]].concat());
    // Only ticks sent by the playhead.
    assert_eq!(at(40).len(), 3);
}

#[test]
fn ticks_compare_across_the_wrap() {
    let wrap = u32::MAX - 1;
    let records: Vec<PacketRecord> = [wrap, wrap + 1, 0, 1]
        .iter()
        .enumerate()
        .map(|(i, &tick)| PacketRecord {
            kind: PacketKind::Inputs,
            detail: tick,
            ..packet(Direction::Up, i as u64, i as u64 * 16, delivered(999))
        })
        .chain(std::iter::once(PacketRecord {
            kind: PacketKind::State,
            detail: 0,
            ..packet(Direction::Down, 0, 10, delivered(20))
        }))
        .collect();
    let states: Vec<TickState> = tick_states(records.iter(), &[], 1_000_000)
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    assert_eq!(
        states,
        vec![
            TickState::Confirmed,
            TickState::Confirmed,
            TickState::Confirmed,
            TickState::Predicted
        ]
    );
}
