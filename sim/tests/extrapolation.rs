//! Extrapolation (dead reckoning, issue 24) against interpolation in the
//! past: a proxy runs at 600 cm/s (UE's walking speed) and stops dead.
//! Dead reckoning carries it on past the stop until the next update says
//! where it is — the overshoot, speed × the update interval, at most
//! speed × [`MAX_EXTRAPOLATION`] — while interpolation, drawing between
//! two updates it already holds, never passes the stop. On a straight run
//! dead reckoning is exact: every update lands where it was extrapolated.

use sim::cmc::proxy::MAX_EXTRAPOLATION;
use sim::cmc::wire::{NetPosition, ProxyUpdate};
use sim::foundation::interpolation::render_delay_us;
use sim::room::proxies::DrawSettings;
use sim::room::replication::{MovementMode, NetVelocity, ProxyBatch, ReplicatedMovement};
use sim::room::{PlayerId, ProxySet, Seq};
use sim::{SimTime, SimulatedProxy, SmoothingMode, Vec2, World};

/// UE's `MaxWalkSpeed`, cm/s.
const SPEED: f32 = 600.0;
/// Page frames per second.
const FPS: u32 = 60;
/// Where the run starts, cm: a clear lane of the arena.
const START: Vec2 = Vec2::new(300.0, 250.0);
/// The update (counting from 0) that first shows the proxy at rest; the
/// one before it was sent at the instant it stopped, still at full speed.
const STOP_UPDATE: u32 = 4;
/// One-way delay of the net updates, ms.
const LATENCY_MS: u64 = 50;

/// Net update `k` when one is sent every `every` frames: at full speed
/// until [`STOP_UPDATE`], then at rest where it stopped.
fn update(k: u32, every: u32) -> (Vec2, Vec2) {
    let at = |k: u32| START + Vec2::new(SPEED * (k * every) as f32 / FPS as f32, 0.0);
    if k < STOP_UPDATE {
        (at(k), Vec2::new(SPEED, 0.0))
    } else {
        (at(STOP_UPDATE - 1), Vec2::ZERO)
    }
}

/// Where the proxy stopped, cm.
fn stop_point(every: u32) -> Vec2 {
    update(STOP_UPDATE, every).0
}

/// What a run drew: the drawn position each frame, and each update's
/// extrapolation error (from the second update on).
#[derive(Default)]
struct Drawn {
    xs: Vec<f32>,
    errors: Vec<f32>,
    /// The drawn x the frame the stopping update was applied.
    at_stop_update: Option<f32>,
}

impl Drawn {
    fn max_x(&self) -> f32 {
        self.xs.iter().copied().fold(f32::MIN, f32::max)
    }
}

/// The one-bot page's proxy ([`SimulatedProxy`]) fed an update every
/// `every` frames for `updates` updates and drawn each 1/60 s frame.
fn one_bot(mode: SmoothingMode, every: u32, updates: u32) -> Drawn {
    let (world, mut p, mut d) = (World::arena(), SimulatedProxy::default(), Drawn::default());
    for f in 0..updates * every {
        if f % every == 0 {
            let k = f / every;
            let (position, velocity) = update(k, every);
            let u = ProxyUpdate {
                id: 1,
                seq: k + 1,
                position,
                velocity,
            };
            assert!(p.on_update(&u, mode));
            d.errors.extend(p.extrapolation_error());
            p.advance(1.0 / FPS as f32, mode, &world);
            if k == STOP_UPDATE {
                d.at_stop_update = Some(p.drawn_position().x);
            }
        } else {
            p.advance(1.0 / FPS as f32, mode, &world);
        }
        d.xs.push(p.drawn_position().x);
    }
    d
}

/// A room's proxies ([`ProxySet`]) fed the same updates as batches at
/// 60 / `every` Hz arriving [`LATENCY_MS`] after they left, drawn each
/// frame.
fn room(mode: SmoothingMode, every: u32, updates: u32) -> Drawn {
    let (world, mut s, mut d) = (World::arena(), ProxySet::default(), Drawn::default());
    let id = PlayerId(2);
    let frame_us = 1_000_000 / u64::from(FPS);
    let client = |f: u32| SimTime::from_millis(1000).plus_micros(u64::from(f) * frame_us);
    let hz = (FPS / every) as u8;
    let draw = DrawSettings {
        smoothing: mode,
        delay_us: render_delay_us(hz),
        interval_us: u64::from(every) * frame_us,
    };
    // Long enough after the last update for interpolation to catch up.
    for f in 0..(updates + 4) * every {
        let now = client(f);
        if f % every == 0 && f / every < updates {
            let k = f / every;
            let (position, velocity) = update(k, every);
            let batch = ProxyBatch {
                seq: Seq(k + 1),
                server_time: SimTime::from_millis(1000 - LATENCY_MS)
                    .plus_micros(u64::from(f) * frame_us),
                characters: vec![ReplicatedMovement {
                    id,
                    position: NetPosition::quantize(position),
                    velocity: NetVelocity::quantize(velocity),
                    mode: MovementMode::Walking,
                }],
            };
            assert!(s.apply(now, &batch, None, mode));
            d.errors
                .extend(s.get(id).and_then(|p| p.extrapolation_error()));
            s.advance(now, 1.0 / FPS as f32, draw, &world);
            if k == STOP_UPDATE {
                d.at_stop_update = s.get(id).map(|p| p.drawn_position().x);
            }
        } else {
            s.advance(now, 1.0 / FPS as f32, draw, &world);
        }
        d.xs.extend(s.get(id).map(|p| p.drawn_position().x));
    }
    d
}

/// The overshoot dead reckoning draws when a proxy updated every `every`
/// frames stops dead just after an update, cm: speed × the update
/// interval, at most speed × [`MAX_EXTRAPOLATION`].
fn expected_overshoot(every: u32) -> f32 {
    SPEED * (every as f32 / FPS as f32).min(MAX_EXTRAPOLATION)
}

#[test]
fn extrapolation_overshoots_a_stop_by_speed_times_the_update_interval() {
    // 20 Hz: 600 cm/s × 50 ms = 30 cm; 10 Hz: 60 cm; 2.5 Hz: 400 ms of
    // silence, but dead reckoning gives up after 0.25 s: 150 cm.
    for (every, cm) in [(3, 30.0), (6, 60.0), (24, 150.0)] {
        assert_eq!(expected_overshoot(every), cm);
        let stop = stop_point(every).x;
        for (what, d) in [
            ("one bot", one_bot(SmoothingMode::Extrapolation, every, 8)),
            ("room", room(SmoothingMode::Extrapolation, every, 8)),
        ] {
            let over = d.max_x() - stop;
            assert!(over > 0.0, "{what} at {every}: no overshoot");
            assert!((over - cm).abs() < 0.01, "{what} at {every}: {over} cm");
            // The stopping update measures the overshoot and snaps it
            // away: drawn at the stop that very frame, and ever after.
            let largest = d.errors.iter().copied().fold(0.0, f32::max);
            assert!((largest - cm).abs() < 0.01, "{what}: error {largest} cm");
            assert_eq!(d.at_stop_update, Some(stop), "{what} at {every}");
            assert_eq!(d.xs.last(), Some(&stop), "{what} at {every}");
        }
    }
}

#[test]
fn interpolation_never_passes_the_stop() {
    for every in [3, 6] {
        let stop = stop_point(every).x;
        let d = room(SmoothingMode::Interpolation, every, 8);
        assert!(
            d.max_x() <= stop,
            "{every}: drawn at {} > {stop}",
            d.max_x()
        );
        assert_eq!(d.xs.last(), Some(&stop));
        // The collision proxy under it was extrapolated all the same.
        let largest = d.errors.iter().copied().fold(0.0, f32::max);
        assert!((largest - expected_overshoot(every)).abs() < 0.01);
    }
}

#[test]
fn exponential_hides_the_same_overshoot_that_extrapolation_snaps() {
    // The mesh-offset modes dead-reckon the collision position too (UE's
    // proxies simulate between updates): Exponential draws the same
    // 30 cm overshoot, then keeps the body there as a mesh offset that
    // decays — 30 × (1 − (1/60) / 0.1) = 25 cm past the stop the frame of
    // the update — where Extrapolation is at the stop at once.
    let stop = stop_point(3).x;
    let e = one_bot(SmoothingMode::Exponential, 3, 8);
    assert!((e.max_x() - stop - 30.0).abs() < 0.01);
    let at = e.at_stop_update.unwrap() - stop;
    assert!((at - 25.0).abs() < 0.01, "{at} cm");
}

#[test]
fn on_a_straight_run_every_update_lands_where_it_was_extrapolated() {
    // Before the stop: constant velocity, so each update's extrapolation
    // error is ~0 and the body advances 10 cm (600 cm/s / 60) every frame
    // without a snap — as it does under Disabled, which dead-reckons the
    // same; interpolation shows the same run a render delay later.
    for (what, d) in [
        (
            "one bot",
            one_bot(SmoothingMode::Extrapolation, 3, STOP_UPDATE),
        ),
        ("room", room(SmoothingMode::Extrapolation, 3, STOP_UPDATE)),
    ] {
        assert_eq!(d.errors.len(), STOP_UPDATE as usize - 1);
        assert!(d.errors.iter().all(|&e| e < 0.01), "{what}: {:?}", d.errors);
        let straight = &d.xs[..(STOP_UPDATE * 3) as usize];
        for w in straight.windows(2) {
            assert!((w[1] - w[0] - 10.0).abs() < 0.01, "{what}: {w:?}");
        }
    }
}
