//! `perform_movement`: the only physics, run by the client to predict, by
//! the server to re-simulate, and by the client again to replay.
//!
//! It is UE 5.3's walking model (`UCharacterMovementComponent::CalcVelocity`
//! and `ApplyVelocityBraking`) reduced to a 2-D floor: input acceleration
//! with friction-limited turning, braking with friction and a constant
//! deceleration when there is no input or the speed is over the limit, a
//! max-speed clamp, a dash impulse carried as input of the move, and
//! sliding collision. Reference `002_…`: "the same input sequence must
//! give the same result on both ends" — so only `+ - * /` and `sqrt` on
//! `f32` are used, and every input arrives already quantized ([`MoveInput`]).

use crate::foundation::math::Vec2;
use crate::foundation::world::World;
use serde::{Deserialize, Serialize};

/// Tunable movement constants. Defaults are UE 5.3's walking defaults
/// (`UCharacterMovementComponent` constructor) unless stated otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MovementParams {
    /// Max walking speed, cm/s. UE `MaxWalkSpeed` = 600.
    pub max_speed: f32,
    /// Max input acceleration, cm/s². UE `MaxAcceleration` = 2048.
    pub max_acceleration: f32,
    /// Constant deceleration when braking, cm/s². UE
    /// `BrakingDecelerationWalking` = 2048.
    pub braking_deceleration: f32,
    /// Ground friction (1/s). UE `GroundFriction` = 8.
    pub ground_friction: f32,
    /// Multiplier on friction while braking. UE `BrakingFrictionFactor` = 2.
    pub braking_friction_factor: f32,
    /// Braking sub-step, s. UE `BrakingSubStepTime` = 1/33.
    pub braking_sub_step: f32,
    /// Character radius, cm. UE `ACharacter` capsule radius = 34.
    pub radius: f32,
    /// Speed added by a dash, cm/s (playground choice: twice walk speed, so
    /// a dash is visible and decays through UE's over-max-speed braking).
    pub dash_impulse: f32,
    /// Time after a dash before the next one may start, s (playground
    /// choice).
    pub dash_cooldown: f32,
    /// How long a dash suspends braking, s, so the impulse carries the
    /// character ~2 m instead of being eaten by friction within 3 frames
    /// (UE projects do this with `bUseSeparateBrakingFriction` and
    /// `BrakingFriction = 0` during the dash). Playground choice.
    pub dash_duration: f32,
}

impl Default for MovementParams {
    fn default() -> Self {
        MovementParams {
            max_speed: 600.0,
            max_acceleration: 2048.0,
            braking_deceleration: 2048.0,
            ground_friction: 8.0,
            braking_friction_factor: 2.0,
            braking_sub_step: 1.0 / 33.0,
            radius: 34.0,
            dash_impulse: 1200.0,
            dash_cooldown: 0.6,
            dash_duration: 0.15,
        }
    }
}

/// UE `BRAKE_TO_STOP_VELOCITY`: below this speed (cm/s) braking stops dead.
const BRAKE_TO_STOP_VELOCITY: f32 = 10.0;
/// UE `MIN_TICK_TIME`, s.
const MIN_TICK_TIME: f32 = 1e-6;
/// UE `IsExceedingMaxSpeed` tolerance: over max speed means over 1.01×.
const OVER_VELOCITY_PERCENT: f32 = 1.01;
/// Longest distance (cm) moved between two collision checks, well under the
/// radius so a dash cannot tunnel through a pillar.
const MAX_STEP_DISTANCE: f32 = 15.0;

/// Everything that evolves in a move: what a SavedMove records as its start
/// and end state and what an Adjustment restores.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CharacterState {
    /// Position of the character's centre, cm.
    pub position: Vec2,
    /// Velocity, cm/s.
    pub velocity: Vec2,
    /// Seconds until the next dash may start (0 = ready).
    pub dash_cooldown: f32,
}

impl CharacterState {
    /// A character standing still at `position` (cm).
    pub fn at(position: Vec2) -> Self {
        CharacterState {
            position,
            ..Default::default()
        }
    }

    /// A 64-bit FNV-1a hash of the exact bits of the state: equal hashes on
    /// two machines mean bit-identical simulations.
    pub fn state_hash(&self) -> u64 {
        let mut h = crate::foundation::hash::Fnv64::new();
        for v in [
            self.position.x,
            self.position.y,
            self.velocity.x,
            self.velocity.y,
            self.dash_cooldown,
        ] {
            h.f32(v);
        }
        h.finish()
    }
}

/// Bit flags of a move (UE `CompressedFlags`, one byte, `000_…` §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
pub struct MoveFlags(pub u8);

impl MoveFlags {
    /// The player pressed dash during this move. The dash impulse is input
    /// of the move (reference `004_…` §2): replaying the move applies it
    /// again from the move's own start state, never twice in one timeline.
    pub const DASH: u8 = 0x01;

    /// `true` if the dash bit is set.
    pub fn dash(self) -> bool {
        self.0 & Self::DASH != 0
    }
}

/// The input of one move exactly as it goes on the wire: acceleration
/// quantized to 16-bit components normalised by max acceleration (`002_…`:
/// "compressed Acceleration, normalised by MaxAcceleration to uint16"),
/// plus the flag byte. Client and server both simulate the dequantized
/// value, so they feed bit-identical numbers into [`perform_movement`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
pub struct MoveInput {
    /// Acceleration x as a fraction of max acceleration, `-32767..=32767`.
    pub accel_x: i16,
    /// Acceleration y as a fraction of max acceleration, `-32767..=32767`.
    pub accel_y: i16,
    /// Dash and future flags.
    pub flags: MoveFlags,
}

/// Full scale of a quantized input axis: `32767` is +1.0.
pub const AXIS_SCALE: f32 = 32767.0;

/// Quantizes one input axis in `-1.0..=1.0` to `-32767..=32767` (the one
/// quantizer of stick input: moves and recorded frames both use it);
/// out-of-range values are clamped, NaN counts as 0.
pub fn quantize_axis(v: f32) -> i16 {
    if v.is_finite() {
        (v.clamp(-1.0, 1.0) * AXIS_SCALE).round() as i16
    } else {
        0
    }
}

/// The inverse of [`quantize_axis`] (`i16::MIN` reads as −1.0).
pub fn dequantize_axis(q: i16) -> f32 {
    f32::from(q.max(-32767)) / AXIS_SCALE
}

impl MoveInput {
    /// Quantizes a stick/keyboard direction. `dir` is clamped to length 1
    /// (UE `ScaleInputAcceleration`); non-finite components count as 0.
    pub fn from_direction(dir: Vec2, dash: bool) -> MoveInput {
        let clean = Vec2::new(
            if dir.x.is_finite() { dir.x } else { 0.0 },
            if dir.y.is_finite() { dir.y } else { 0.0 },
        )
        .clamped_to_max_size(1.0);
        MoveInput {
            accel_x: quantize_axis(clean.x),
            accel_y: quantize_axis(clean.y),
            flags: MoveFlags(if dash { MoveFlags::DASH } else { 0 }),
        }
    }

    /// The input direction in `-1.0..=1.0` per component.
    pub fn direction(&self) -> Vec2 {
        Vec2::new(dequantize_axis(self.accel_x), dequantize_axis(self.accel_y))
            .clamped_to_max_size(1.0)
    }

    /// The acceleration this input requests, cm/s².
    pub fn acceleration(&self, params: &MovementParams) -> Vec2 {
        self.direction() * params.max_acceleration
    }
}

/// What a move did besides changing state; the caller decides what to do
/// with it (a replaying client ignores it: UE `bClientUpdating`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MoveEvents {
    /// A dash impulse was applied in this move.
    pub dashed: bool,
}

/// Advances `state` by one move of `dt` seconds (UE `PerformMovement`).
///
/// Order, as in UE: the dash cooldown ticks down, the dash impulse (an
/// accumulated force, applied first),
/// `CalcVelocity` (braking or friction-limited turning, then acceleration
/// and the max-speed clamp), then the move itself with collision.
/// A move of `dt = 0` (the server cut it to nothing for time discrepancy)
/// still applies its dash impulse — the impulse is input of the move
/// (reference `004_…`) — and does nothing else. UE's `PerformMovement`
/// returns early for such a move and keeps `PendingImpulseToApply` for the
/// next one; applying it here keeps the client's and server's velocity
/// equal from this move on. `dt < 0` or non-finite leaves the state
/// unchanged.
pub fn perform_movement(
    state: &mut CharacterState,
    input: &MoveInput,
    dt: f32,
    params: &MovementParams,
    world: &World,
) -> MoveEvents {
    let mut events = MoveEvents::default();
    if !(dt >= 0.0 && dt.is_finite()) {
        return events;
    }
    let accel = input.acceleration(params);
    // Time passes first: a move that covers lost moves (the server merges
    // their time into the next one) sees the cooldown the client saw at the
    // end of the last of them, so both sides agree on whether a dash fires.
    state.dash_cooldown = (state.dash_cooldown - dt).max(0.0);
    if input.flags.dash() && state.dash_cooldown <= 0.0 {
        let dir = if !accel.is_zero() {
            accel.safe_normal()
        } else if !state.velocity.is_zero() {
            state.velocity.safe_normal()
        } else {
            Vec2::new(1.0, 0.0)
        };
        state.velocity += dir * params.dash_impulse;
        state.dash_cooldown = params.dash_cooldown;
        events.dashed = true;
    }
    if dt == 0.0 {
        return events;
    }
    calc_velocity(state, accel, dt, params);
    move_with_collision(state, dt, params, world);
    events
}

/// UE `CalcVelocity` for walking (no path following, no fluid).
fn calc_velocity(state: &mut CharacterState, accel: Vec2, dt: f32, p: &MovementParams) {
    let zero_accel = accel.is_zero();
    let over_max = is_exceeding(state.velocity, p.max_speed);
    let dashing = state.dash_cooldown > p.dash_cooldown - p.dash_duration;
    if dashing && over_max {
        // Mid-dash: no braking; input may still steer (clamped below).
    } else if zero_accel || over_max {
        let old = state.velocity;
        apply_velocity_braking(&mut state.velocity, dt, p.ground_friction, p);
        // Don't let braking drop us below max speed if we started above it.
        if over_max
            && state.velocity.length_squared() < p.max_speed * p.max_speed
            && accel.dot(old) > 0.0
        {
            state.velocity = old.safe_normal() * p.max_speed;
        }
    } else {
        // Friction limits how fast the velocity can turn toward the input.
        let dir = accel.safe_normal();
        let speed = state.velocity.length();
        state.velocity -= (state.velocity - dir * speed) * (dt * p.ground_friction).min(1.0);
    }
    if !zero_accel {
        let max_input_speed = if is_exceeding(state.velocity, p.max_speed) {
            state.velocity.length()
        } else {
            p.max_speed
        };
        state.velocity += accel * dt;
        state.velocity = state.velocity.clamped_to_max_size(max_input_speed);
    }
}

fn is_exceeding(v: Vec2, max_speed: f32) -> bool {
    let limit = max_speed * OVER_VELOCITY_PERCENT;
    v.length_squared() > limit * limit
}

/// UE `ApplyVelocityBraking`: friction × `BrakingFrictionFactor` plus a
/// constant deceleration opposite the starting velocity, in sub-steps of at
/// most `BrakingSubStepTime`; never reverses direction; stops below
/// `BRAKE_TO_STOP_VELOCITY`.
fn apply_velocity_braking(vel: &mut Vec2, dt: f32, friction: f32, p: &MovementParams) {
    if vel.is_zero() || dt < MIN_TICK_TIME {
        return;
    }
    let friction = (friction * p.braking_friction_factor.max(0.0)).max(0.0);
    let braking = p.braking_deceleration.max(0.0);
    if friction == 0.0 && braking == 0.0 {
        return;
    }
    let old = *vel;
    let rev_accel = if braking == 0.0 {
        Vec2::ZERO
    } else {
        -(vel.safe_normal() * braking)
    };
    let max_step = p.braking_sub_step.clamp(1.0 / 75.0, 1.0 / 20.0);
    let mut remaining = dt;
    while remaining >= MIN_TICK_TIME {
        let step = if remaining > max_step && friction != 0.0 {
            max_step.min(remaining * 0.5)
        } else {
            remaining
        };
        remaining -= step;
        *vel += (*vel * -friction + rev_accel) * step;
        if vel.dot(old) <= 0.0 {
            *vel = Vec2::ZERO;
            return;
        }
    }
    let sq = vel.length_squared();
    if sq <= 1e-4 || (braking != 0.0 && sq <= BRAKE_TO_STOP_VELOCITY * BRAKE_TO_STOP_VELOCITY) {
        *vel = Vec2::ZERO;
    }
}

/// Moves by `velocity × dt` in equal sub-steps of at most
/// `MAX_STEP_DISTANCE`, resolving wall overlaps after each.
fn move_with_collision(state: &mut CharacterState, dt: f32, p: &MovementParams, world: &World) {
    let distance = state.velocity.length() * dt;
    let steps = ((distance / MAX_STEP_DISTANCE).ceil() as u32).clamp(1, 64);
    let step_dt = dt / steps as f32;
    for _ in 0..steps {
        state.position += state.velocity * step_dt;
        world.resolve_collisions(&mut state.position, &mut state.velocity, p.radius);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(state: &mut CharacterState, dir: Vec2, frames: u32) {
        let (p, w) = (MovementParams::default(), World::arena());
        let input = MoveInput::from_direction(dir, false);
        for _ in 0..frames {
            perform_movement(state, &input, 1.0 / 60.0, &p, &w);
        }
    }

    #[test]
    fn accelerates_to_ue_max_walk_speed_600() {
        let mut s = CharacterState::at(World::arena().spawn);
        // 2048 cm/s² reaches 600 cm/s in ~0.29 s.
        run(&mut s, Vec2::new(1.0, 0.0), 60);
        assert_eq!(s.velocity.length(), 600.0);
        assert_eq!(s.velocity.y, 0.0);
    }

    #[test]
    fn one_frame_of_input_adds_max_acceleration_times_dt() {
        let mut s = CharacterState::at(World::arena().spawn);
        run(&mut s, Vec2::new(1.0, 0.0), 1);
        // 2048 × 1/60 = 34.13 cm/s after one 60 Hz frame.
        assert!((s.velocity.x - 34.133).abs() < 1e-3, "{}", s.velocity.x);
    }

    #[test]
    fn braking_stops_from_600_within_six_frames() {
        let mut s = CharacterState::at(World::arena().spawn);
        s.velocity = Vec2::new(600.0, 0.0);
        // Friction 8 × factor 2 = 16/s plus 2048 cm/s² deceleration, in
        // 1/33 s sub-steps: 600 → 405.87 cm/s in the first 1/60 s frame.
        run(&mut s, Vec2::ZERO, 1);
        assert!((s.velocity.x - 405.867).abs() < 1e-3, "{}", s.velocity.x);
        run(&mut s, Vec2::ZERO, 4);
        assert!(s.velocity.x > 10.0, "{}", s.velocity.x);
        // Below BRAKE_TO_STOP_VELOCITY (10 cm/s) it stops dead.
        run(&mut s, Vec2::ZERO, 1);
        assert_eq!(s.velocity, Vec2::ZERO);
    }

    #[test]
    fn dash_adds_1200_then_decays_to_max_speed() {
        let (p, w) = (MovementParams::default(), World::arena());
        let mut s = CharacterState::at(Vec2::new(300.0, 250.0));
        s.velocity = Vec2::new(600.0, 0.0);
        let dash = MoveInput::from_direction(Vec2::new(1.0, 0.0), true);
        let ev = perform_movement(&mut s, &dash, 1.0 / 60.0, &p, &w);
        assert!(ev.dashed);
        // 600 + 34.13 (one frame of acceleration is clamped away) + 1200.
        assert_eq!(s.velocity.x, 1800.0);
        assert_eq!(s.dash_cooldown, 0.6);
        // Held dash does not fire again while cooling down.
        let ev = perform_movement(&mut s, &dash, 1.0 / 60.0, &p, &w);
        assert!(!ev.dashed);
        // No braking for the 0.15 s dash: still 1800 after 8 frames.
        run(&mut s, Vec2::new(1.0, 0.0), 6);
        assert_eq!(s.velocity.x, 1800.0);
        run(&mut s, Vec2::new(1.0, 0.0), 60);
        assert_eq!(s.velocity.length(), 600.0);
    }

    #[test]
    fn input_quantization_is_exact_at_full_scale() {
        let i = MoveInput::from_direction(Vec2::new(1.0, 0.0), false);
        assert_eq!((i.accel_x, i.accel_y), (32767, 0));
        assert_eq!(
            i.acceleration(&MovementParams::default()),
            Vec2::new(2048.0, 0.0)
        );
        let diag = MoveInput::from_direction(Vec2::new(5.0, 5.0), true);
        assert_eq!(
            (diag.accel_x, diag.accel_y, diag.flags.dash()),
            (23170, 23170, true)
        );
        let nan = MoveInput::from_direction(Vec2::new(f32::NAN, 1.0), false);
        assert_eq!((nan.accel_x, nan.accel_y), (0, 32767));
    }

    #[test]
    fn walls_stop_the_character() {
        let w = World::arena();
        let mut s = CharacterState::at(Vec2::new(200.0, 750.0));
        run(&mut s, Vec2::new(-1.0, 0.0), 120);
        // Boundary wall inner face at x = 40, radius 34.
        assert_eq!(s.position.x, 74.0);
        assert!(s.position.x >= 40.0 + MovementParams::default().radius);
        assert_eq!(w.spawn.y, s.position.y);
    }
}
