//! The arena game of the rollback model: the CMC model's arena
//! ([`World::arena`]) and walking physics ([`perform_movement`], at the
//! fixed `dt`), two to eight players ([`Arena::with_players`]; the bot
//! match has two), projectiles with a lifetime, HP, hit-stun and
//! a fire cooldown — enough state that a rollback can go wrong in all the
//! ways `001_…` §4.2 lists.
//!
//! ## One step, in order
//! 1. Each player, in player order: timers tick down; a stunned player's
//!    input is ignored; `perform_movement` moves them (cm, `f32`); the
//!    result is quantized to mm and mm/s; a non-zero stick sets the aim;
//!    fire with the cooldown at 0 spawns a projectile along the aim.
//! 2. Each projectile, in firing order: moves by its velocity; vanishes when
//!    its life runs out or it touches a wall; otherwise hits the first other
//!    player it touches (damage, hit-stun, gone). A player at 0 HP respawns.
//! 3. The tick advances.
//!
//! Projectiles use integers only (mm, mm per tick), so only the players'
//! movement touches floats, and it is quantized right after.

use super::game::{Divergence, Game};
use super::input::InputCmd;
use super::snapshot::{MmVec, PlayerState, Projectile, Snapshot};
use super::tick::{Tick, TickRate};
use crate::foundation::math::Vec2;
use crate::foundation::movement::{perform_movement, CharacterState, MoveInput, MovementParams};
use crate::foundation::world::World;

/// Players in the bot match's arena ([`Arena::new`]): the connecting
/// client ([`CLIENT_PLAYER`]) and the server's bot ([`BOT_PLAYER`]).
pub const PLAYERS: usize = 2;
/// Fewest players of a match (issue 22: "two to eight browsers").
pub const MIN_PLAYERS: usize = 2;
/// Most players of a match (issue 22: "2–8 players"): one spawn point
/// each in [`SPAWNS_CM`].
pub const MAX_PLAYERS: usize = 8;
/// The connecting client's player index.
pub const CLIENT_PLAYER: usize = 0;
/// The bot's player index.
pub const BOT_PLAYER: usize = 1;
/// Hit points at spawn (playground choice: ten hits).
pub const MAX_HP: u8 = 100;
/// Damage per projectile hit, HP.
pub const DAMAGE: u8 = 10;
/// Time between two shots of one player, ms (playground choice: 4 shots/s).
pub const FIRE_COOLDOWN_MS: u32 = 250;
/// Hit-stun, ms: the hit player's input is ignored this long.
pub const HIT_STUN_MS: u32 = 200;
/// How long a projectile flies, ms.
pub const PROJECTILE_LIFETIME_MS: u32 = 1000;
/// Projectile speed, mm/s: 15 m/s, 2.5× walk speed, so it can be dodged
/// at range; 250 mm per tick at 60 Hz, less than its hit radius (no
/// tunnelling through a player), and under the thinnest wall plus its
/// radius at 30 Hz.
pub const PROJECTILE_SPEED_MM_S: i32 = 15_000;
/// Projectile radius, mm.
pub const PROJECTILE_RADIUS_MM: i32 = 100;
/// Most projectiles alive at once; a shot beyond it is not fired.
pub const MAX_PROJECTILES: usize = 32;

/// Where the players spawn, cm: the CMC model's spawn for the client, and
/// the CMC host's proxy start for the bot (so A/B views look alike); the
/// others (playground choice) in open floor of [`World::arena`], clear of
/// its pillars and its centre wall, left and right halves alternating.
pub const SPAWNS_CM: [Vec2; MAX_PLAYERS] = [
    Vec2::new(400.0, 750.0),
    Vec2::new(1450.0, 1300.0),
    Vec2::new(400.0, 250.0),
    Vec2::new(2000.0, 250.0),
    Vec2::new(400.0, 1250.0),
    Vec2::new(2000.0, 1250.0),
    Vec2::new(950.0, 750.0),
    Vec2::new(1450.0, 750.0),
];
/// Initial aim: players on the left half face right, the others left.
const AIMS: [(i8, i8); MAX_PLAYERS] = [
    (127, 0),
    (-127, 0),
    (127, 0),
    (-127, 0),
    (127, 0),
    (-127, 0),
    (127, 0),
    (-127, 0),
];

/// An axis-aligned wall box, mm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WallMm {
    min: MmVec,
    max: MmVec,
}

/// The arena game: the rules and constants a [`Snapshot`] is stepped with.
#[derive(Debug, Clone, PartialEq)]
pub struct Arena {
    players: usize,
    world: World,
    params: MovementParams,
    rate: TickRate,
    walls: Vec<WallMm>,
    fire_cooldown: u8,
    hit_stun: u8,
    projectile_life: u16,
    projectile_speed: i32,
}

impl Arena {
    /// The bot match's arena at `rate` ([`PLAYERS`] players), with UE's
    /// walking defaults.
    pub fn new(rate: TickRate) -> Arena {
        Arena::build(rate, PLAYERS)
    }

    /// The arena of a match of `players` players at `rate`; `None` outside
    /// [`MIN_PLAYERS`]`..=`[`MAX_PLAYERS`]. With 2 players it is
    /// [`Arena::new`].
    pub fn with_players(rate: TickRate, players: usize) -> Option<Arena> {
        (MIN_PLAYERS..=MAX_PLAYERS)
            .contains(&players)
            .then(|| Arena::build(rate, players))
    }

    fn build(rate: TickRate, players: usize) -> Arena {
        let world = World::arena();
        let walls = world
            .walls
            .iter()
            .map(|w| WallMm {
                min: MmVec::from_cm(w.min),
                max: MmVec::from_cm(w.max),
            })
            .collect();
        let ticks = |ms: u32| rate.ticks_in_ms(ms);
        Arena {
            players,
            world,
            params: MovementParams::default(),
            rate,
            walls,
            fire_cooldown: ticks(FIRE_COOLDOWN_MS) as u8,
            hit_stun: ticks(HIT_STUN_MS) as u8,
            projectile_life: ticks(PROJECTILE_LIFETIME_MS) as u16,
            projectile_speed: PROJECTILE_SPEED_MM_S / rate.hz() as i32,
        }
    }

    /// The tick rate this arena steps at.
    pub fn rate(&self) -> TickRate {
        self.rate
    }

    /// The static world (for drawing).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The state at `tick` before anything happened: everyone at their
    /// spawn with full HP, no projectiles.
    pub fn initial(&self, tick: Tick) -> Snapshot {
        Snapshot {
            tick,
            players: (0..self.players).map(spawned).collect(),
            projectiles: Vec::new(),
        }
    }

    fn step_player(&self, p: &mut PlayerState, input: &InputCmd, owner: u8) -> Option<Projectile> {
        p.fire_cooldown = p.fire_cooldown.saturating_sub(1);
        let input = if p.stun > 0 {
            p.stun -= 1;
            InputCmd::empty(input.tick)
        } else {
            *input
        };
        let mut c = CharacterState {
            position: p.position.to_cm(),
            velocity: p.velocity.to_cm(),
            dash_cooldown: p.dash_cooldown_us as f32 / 1e6,
        };
        let mv = MoveInput::from_direction(input.direction(), input.dash());
        perform_movement(&mut c, &mv, self.rate.dt(), &self.params, &self.world);
        p.position = MmVec::from_cm(c.position);
        p.velocity = MmVec::from_cm(c.velocity);
        p.dash_cooldown_us = (c.dash_cooldown * 1e6).round() as u32;
        if input.move_x != 0 || input.move_y != 0 {
            p.aim = (input.move_x, input.move_y);
        }
        if !(input.fire() && p.fire_cooldown == 0) {
            return None;
        }
        p.fire_cooldown = self.fire_cooldown;
        let dir = InputCmd {
            move_x: p.aim.0,
            move_y: p.aim.1,
            ..input
        }
        .direction()
        .safe_normal();
        let muzzle = self.params.radius * 10.0 + (PROJECTILE_RADIUS_MM + 10) as f32;
        let offset = MmVec::from_cm(dir * (muzzle / 10.0));
        let velocity = MmVec::from_cm(dir * (self.projectile_speed as f32 / 10.0));
        Some(Projectile {
            owner,
            position: MmVec {
                x: p.position.x.saturating_add(offset.x),
                y: p.position.y.saturating_add(offset.y),
            },
            velocity,
            life: self.projectile_life,
        })
    }

    fn in_wall(&self, p: MmVec) -> bool {
        let r2 = i64::from(PROJECTILE_RADIUS_MM) * i64::from(PROJECTILE_RADIUS_MM);
        self.walls.iter().any(|w| {
            let closest = MmVec {
                x: p.x.clamp(w.min.x, w.max.x),
                y: p.y.clamp(w.min.y, w.max.y),
            };
            p.distance_sq(closest) < r2
        })
    }
}

fn spawned(i: usize) -> PlayerState {
    PlayerState {
        position: MmVec::from_cm(SPAWNS_CM[i % MAX_PLAYERS]),
        hp: MAX_HP,
        aim: AIMS[i % MAX_PLAYERS],
        ..PlayerState::default()
    }
}

impl Game for Arena {
    type State = Snapshot;

    fn players(&self) -> usize {
        self.players
    }

    fn tick(state: &Snapshot) -> Tick {
        state.tick
    }

    fn step(&self, state: &Snapshot, inputs: &[InputCmd]) -> Snapshot {
        let mut next = state.clone();
        self.step_in_place(&mut next, inputs);
        next
    }

    fn step_in_place(&self, next: &mut Snapshot, inputs: &[InputCmd]) {
        for (i, p) in next.players.iter_mut().enumerate() {
            let input = inputs.get(i).copied().unwrap_or_default();
            if let Some(shot) = self.step_player(p, &input, i as u8) {
                if next.projectiles.len() < MAX_PROJECTILES {
                    next.projectiles.push(shot);
                }
            }
        }
        let hit_r = i64::from(PROJECTILE_RADIUS_MM) + (self.params.radius * 10.0) as i64;
        let players = &mut next.players;
        next.projectiles.retain_mut(|s| {
            s.position.x = s.position.x.saturating_add(s.velocity.x);
            s.position.y = s.position.y.saturating_add(s.velocity.y);
            s.life = s.life.saturating_sub(1);
            if s.life == 0 || self.in_wall(s.position) {
                return false;
            }
            let target = players.iter().enumerate().position(|(i, p)| {
                i != usize::from(s.owner) && p.position.distance_sq(s.position) < hit_r * hit_r
            });
            let Some(i) = target else { return true };
            let p = &mut players[i];
            p.hp = p.hp.saturating_sub(DAMAGE);
            p.stun = self.hit_stun;
            if p.hp == 0 {
                *p = spawned(i);
            }
            false
        });
        next.tick = next.tick.next();
    }

    fn state_hash(state: &Snapshot) -> u64 {
        state.state_hash()
    }

    fn divergence(&self, a: &Snapshot, b: &Snapshot, player: usize) -> Divergence {
        match (a.players.get(player), b.players.get(player)) {
            (Some(p), Some(q)) => Divergence {
                position_mm: (p.position.distance_sq(q.position) as f64).sqrt() as u32,
                discrete: p.hp != q.hp
                    || (p.stun > 0) != (q.stun > 0)
                    || p.fire_cooldown != q.fire_cooldown,
            },
            _ => Divergence {
                position_mm: 0,
                discrete: true,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(tick: Tick, x: f32, y: f32, buttons: u16) -> InputCmd {
        InputCmd::from_direction(tick, Vec2::new(x, y), buttons)
    }

    #[test]
    fn walking_right_for_a_second_matches_the_cmc_top_speed() {
        let arena = Arena::new(TickRate::Hz60);
        let mut s = arena.initial(Tick(0));
        for t in 0..60 {
            s = arena.step(&s, &[cmd(Tick(t), 1.0, 0.0, 0), InputCmd::empty(Tick(t))]);
        }
        assert_eq!(s.tick, Tick(60));
        // UE's 600 cm/s walk speed, in mm/s.
        assert_eq!(s.players[0].velocity, MmVec { x: 6000, y: 0 });
        assert_eq!(s.players[1], arena.initial(Tick(0)).players[1]);
    }

    #[test]
    fn a_shot_flies_hits_the_other_player_and_stuns_them() {
        let arena = Arena::new(TickRate::Hz60);
        let mut s = arena.initial(Tick(0));
        // Put the bot 3 m to the right of player 0, in the open.
        s.players[1].position = MmVec {
            x: s.players[0].position.x + 3000,
            y: s.players[0].position.y,
        };
        s = arena.step(&s, &[cmd(Tick(0), 0.0, 0.0, InputCmd::FIRE)]);
        assert_eq!(s.projectiles.len(), 1);
        assert_eq!(s.projectiles[0].velocity, MmVec { x: 250, y: 0 });
        assert_eq!(s.players[0].fire_cooldown, 15);
        let mut hit_at = None;
        for t in 1..30 {
            s = arena.step(&s, &[InputCmd::empty(Tick(t))]);
            if s.players[1].hp < MAX_HP {
                hit_at = Some(t);
                break;
            }
        }
        // Muzzle at 34 + 11 cm, hit radius 44 cm: 3000 − 450 − 440 = 2110 mm
        // at 250 mm per tick (one of which is the firing tick).
        assert_eq!(hit_at, Some(8));
        assert_eq!(s.players[1].hp, MAX_HP - DAMAGE);
        assert_eq!(s.players[1].stun, 12);
        assert!(s.projectiles.is_empty());
    }

    #[test]
    fn held_fire_shoots_every_cooldown_and_walls_stop_shots() {
        let arena = Arena::new(TickRate::Hz60);
        let mut s = arena.initial(Tick(0));
        let mut shots = 0;
        for t in 0..60 {
            let before = s.players[0].fire_cooldown;
            s = arena.step(&s, &[cmd(Tick(t), 0.0, 0.0, InputCmd::FIRE)]);
            shots += usize::from(s.players[0].fire_cooldown > before);
        }
        assert_eq!(shots, 4, "one shot per 15 ticks");
        // Fired right from x = 40 cm toward the centre wall at x = 11.4 m:
        // every shot dies there, none lives its full second.
        assert!(s.projectiles.len() <= 4);
        assert!(s
            .projectiles
            .iter()
            .all(|p| p.position.x < 11_400 + PROJECTILE_RADIUS_MM));
    }

    #[test]
    fn every_spawn_of_an_eight_player_arena_is_open_floor_and_apart() {
        assert!(Arena::with_players(TickRate::Hz60, 1).is_none());
        assert!(Arena::with_players(TickRate::Hz60, 9).is_none());
        let arena = Arena::with_players(TickRate::Hz60, MAX_PLAYERS).unwrap();
        let s = arena.initial(Tick(0));
        assert_eq!(s.players.len(), 8);
        // Standing still for a second moves nobody: no spawn is in a wall.
        let mut t = s.clone();
        for k in 0..60 {
            t = arena.step(&t, &[InputCmd::empty(Tick(k)); MAX_PLAYERS]);
        }
        for (a, b) in s.players.iter().zip(&t.players) {
            assert_eq!(a.position, b.position);
        }
        for (i, a) in s.players.iter().enumerate() {
            for b in &s.players[i + 1..] {
                assert!(a.position.distance_sq(b.position) >= 4000 * 4000);
            }
        }
        // Two players: the bot match's arena, bit for bit.
        let two = Arena::with_players(TickRate::Hz60, 2).unwrap();
        assert_eq!(two, Arena::new(TickRate::Hz60));
    }

    #[test]
    fn a_player_at_zero_hp_respawns() {
        let arena = Arena::new(TickRate::Hz60);
        let mut s = arena.initial(Tick(0));
        s.players[1].hp = DAMAGE;
        s.players[1].position = MmVec {
            x: s.players[0].position.x + 1000,
            y: s.players[0].position.y,
        };
        for t in 0..10 {
            s = arena.step(&s, &[cmd(Tick(t), 0.0, 0.0, InputCmd::FIRE)]);
        }
        assert_eq!(s.players[1], spawned(1));
    }
}
