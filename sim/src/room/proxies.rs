//! The other characters of a room as one client sees them: simulated
//! proxies fed by net updates (`000_…` §7).
//!
//! Each update is state, not an event: the newest batch wins, an older or
//! repeated one is ignored and counted, and a character missing from the
//! newest batch has left. Each proxy's **collision position** snaps to the
//! update and is extrapolated between updates ([`SimulatedProxy`]); the
//! **drawn position** is either that plus a decaying mesh offset
//! (Disabled / Linear / Exponential) or, with interpolation, the buffered
//! updates at the render time ([`crate::foundation::interpolation`],
//! on its [`RenderClock`]).
//!
//! The set also knows what everything drawn stands for
//! ([`ProxySet::drawn`]): the update it was drawn from and how far
//! extrapolated (with each mesh offset), or the two updates it lies
//! between — what a shot sends so that the server tests the boxes where
//! they were drawn.

use super::replication::{MovementMode, PlayerId, ProxyBatch, ReplicatedMovement};
use super::seq::Seq;
use super::wire::{DrawnFrom, MeshOffset, NetOffset};
use crate::cmc::proxy::SimulatedProxy;
use crate::cmc::smoothing::SmoothingMode;
use crate::cmc::wire::ProxyUpdate;
use crate::foundation::interpolation::{
    InterpolationBuffer, RenderClock, Sample, Sampled, BUFFER_LEN,
};
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use std::collections::VecDeque;

/// One other character.
#[derive(Debug, Clone)]
pub struct RoomProxy {
    id: PlayerId,
    sim: SimulatedProxy,
    buffer: InterpolationBuffer,
    mode: MovementMode,
    drawn: Vec2,
    /// The newest update's position, as replicated.
    replicated: Vec2,
}

/// The mesh-offset mode the collision proxy runs: interpolation draws from
/// the buffer, so its collision proxy keeps no offset.
fn mesh_mode(mode: SmoothingMode) -> SmoothingMode {
    match mode {
        SmoothingMode::Interpolation => SmoothingMode::Disabled,
        m => m,
    }
}

impl RoomProxy {
    fn new(id: PlayerId) -> RoomProxy {
        RoomProxy {
            id,
            sim: SimulatedProxy::default(),
            buffer: InterpolationBuffer::default(),
            mode: MovementMode::Walking,
            drawn: Vec2::ZERO,
            replicated: Vec2::ZERO,
        }
    }

    /// Applies one character's movement from the batch numbered `seq`
    /// (already judged newer than any applied, [`ProxySet`]).
    fn on_update(
        &mut self,
        server_time: SimTime,
        seq: Seq,
        m: &ReplicatedMovement,
        smoothing: SmoothingMode,
    ) {
        let position = m.position.to_vec2();
        let update = ProxyUpdate {
            id: 0,
            seq: seq.0,
            position,
            velocity: m.velocity.to_vec2(),
        };
        self.sim.on_update(&update, mesh_mode(smoothing));
        // Interpolation draws at the next frame's render time; a proxy
        // seen for the first time is drawn where it is until then.
        let first = self.buffer.newest_time().is_none();
        self.buffer.push(server_time, position);
        self.replicated = position;
        self.mode = m.mode;
        if smoothing != SmoothingMode::Interpolation || first {
            self.drawn = self.sim.drawn_position();
        }
    }

    /// Advances `dt` s of render time; with interpolation, draws at server
    /// time `render_time` and says how the buffer answered.
    fn advance(
        &mut self,
        dt: f32,
        smoothing: SmoothingMode,
        render_time: Option<SimTime>,
        world: &World,
    ) -> Option<Sampled> {
        self.sim.advance(dt, mesh_mode(smoothing), world);
        let sampled = match (smoothing, render_time) {
            (SmoothingMode::Interpolation, Some(t)) => self.buffer.sample(t),
            _ => None,
        };
        self.drawn = sampled.map_or(self.sim.drawn_position(), |s| s.position);
        sampled
    }

    /// Which player.
    pub fn id(&self) -> PlayerId {
        self.id
    }

    /// The collision position: the newest update, extrapolated, cm.
    pub fn position(&self) -> Vec2 {
        self.sim.position()
    }

    /// Where the body is drawn, cm: what the player aims at.
    pub fn drawn_position(&self) -> Vec2 {
        self.drawn
    }

    /// The drawn position minus the collision position, cm: the mesh
    /// offset of the mesh-offset modes.
    pub fn mesh_offset(&self) -> Vec2 {
        self.drawn - self.sim.position()
    }

    /// The replicated movement mode.
    pub fn mode(&self) -> MovementMode {
        self.mode
    }

    /// Where the newest net update put it, cm: the server's state at that
    /// update's tick, neither extrapolated nor smoothed.
    pub fn replicated(&self) -> Vec2 {
        self.replicated
    }

    /// How far the newest net update moved its collision position from
    /// where it had been extrapolated to, cm
    /// ([`SimulatedProxy::extrapolation_error`]); `None` for a proxy seen
    /// in one update only.
    pub fn extrapolation_error(&self) -> Option<f32> {
        self.sim.extrapolation_error()
    }
}

/// Counters of the replication stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplicationCounters {
    /// Batches applied.
    pub applied: u64,
    /// Batches older than one applied (overtaken): ignored.
    pub late: u64,
    /// Batches equal to the newest applied (duplicated): ignored.
    pub duplicate: u64,
    /// Proxy-frames drawn at the newest update because the render time
    /// had passed it (interpolation starved).
    pub starved: u64,
}

/// How a render frame draws: the smoothing mode, and for interpolation
/// the render delay and the net update interval, µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawSettings {
    /// How proxies are drawn.
    pub smoothing: SmoothingMode,
    /// Interpolation's render delay, µs
    /// ([`crate::foundation::interpolation::render_delay_us`]).
    pub delay_us: u64,
    /// Time between two net updates, µs.
    pub interval_us: u64,
}

/// What everything drawn stands for (see [`ProxySet::drawn`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Basis {
    /// Extrapolated `ahead_us` past the newest update.
    Ahead { ahead_us: u64 },
    /// Interpolated at `render`, between the updates of `from` and `to`.
    Between {
        render: SimTime,
        from: SimTime,
        to: SimTime,
    },
}

/// Every other character, by id.
#[derive(Debug, Clone, Default)]
pub struct ProxySet {
    proxies: Vec<RoomProxy>,
    newest: Option<Seq>,
    /// Server times of the batches applied, oldest first.
    times: VecDeque<SimTime>,
    /// What the positions drawn stand for, once a batch is applied.
    basis: Option<Basis>,
    render: RenderClock,
    counters: ReplicationCounters,
}

impl ProxySet {
    /// Applies a net update arriving at client time `now` unless an equal
    /// or newer one was applied; `me` is skipped if present. Returns
    /// `true` if applied.
    pub fn apply(
        &mut self,
        now: SimTime,
        batch: &ProxyBatch,
        me: Option<PlayerId>,
        smoothing: SmoothingMode,
    ) -> bool {
        if let Some(newest) = self.newest {
            if batch.seq == newest {
                self.counters.duplicate += 1;
                return false;
            }
            if !batch.seq.is_after(newest) {
                self.counters.late += 1;
                return false;
            }
        }
        self.newest = Some(batch.seq);
        if self.times.len() == BUFFER_LEN {
            self.times.pop_front();
        }
        self.times.push_back(batch.server_time);
        self.render.on_update(batch.server_time, now);
        self.counters.applied += 1;
        let present = |id: PlayerId| batch.characters.iter().any(|c| c.id == id);
        self.proxies.retain(|p| present(p.id));
        for c in batch.characters.iter().filter(|c| Some(c.id) != me) {
            let i = match self.proxies.binary_search_by_key(&c.id, |p| p.id) {
                Ok(i) => i,
                Err(i) => {
                    self.proxies.insert(i, RoomProxy::new(c.id));
                    i
                }
            };
            self.proxies[i].on_update(batch.server_time, batch.seq, c, smoothing);
        }
        // The mesh-offset modes draw the update at once; interpolation
        // keeps what it drew until the next frame.
        if smoothing != SmoothingMode::Interpolation || self.basis.is_none() {
            self.basis = Some(Basis::Ahead { ahead_us: 0 });
        }
        true
    }

    /// Advances every proxy by `dt` s of render time at client time `now`;
    /// interpolation draws at its render clock's time.
    pub fn advance(&mut self, now: SimTime, dt: f32, draw: DrawSettings, world: &World) {
        let render = match draw.smoothing {
            SmoothingMode::Interpolation => {
                self.render.advance(now, draw.delay_us, draw.interval_us)
            }
            _ => None,
        };
        let mut drew = None;
        for p in &mut self.proxies {
            let sampled = p.advance(dt, draw.smoothing, render, world);
            if sampled.is_some_and(|s| s.how == Sample::Starved) {
                self.counters.starved += 1;
            }
            drew = drew.or(sampled);
        }
        self.basis = match (render, drew) {
            (Some(render), Some(s)) => Some(Basis::Between {
                render,
                from: s.from,
                to: s.to,
            }),
            _ => self.basis.map(|b| match b {
                Basis::Ahead { ahead_us } if dt > 0.0 => Basis::Ahead {
                    ahead_us: ahead_us + (f64::from(dt) * 1e6).round() as u64,
                },
                b => b,
            }),
        };
    }

    /// What the positions drawn now stand for, or `None` before the first
    /// batch: the server time they show (a shot's hit time) and how they
    /// were drawn from the net updates ([`DrawnFrom`]).
    pub fn drawn(&self) -> Option<(SimTime, DrawnFrom)> {
        let newest = *self.times.back()?;
        Some(match self.basis? {
            Basis::Ahead { ahead_us } => {
                let offsets = self
                    .proxies
                    .iter()
                    .map(|p| MeshOffset {
                        id: p.id,
                        offset: NetOffset::quantize(p.mesh_offset()),
                    })
                    .filter(|m| m.offset != NetOffset::default())
                    .collect();
                (
                    newest.plus_micros(ahead_us),
                    DrawnFrom::Ahead {
                        from: newest,
                        offsets,
                    },
                )
            }
            Basis::Between { render, from, to } => (render, DrawnFrom::Between { from, to }),
        })
    }

    /// The newest net update applied: its replication counter and server
    /// time.
    pub fn newest(&self) -> Option<(Seq, SimTime)> {
        Some((self.newest?, *self.times.back()?))
    }

    /// The proxy of player `id`.
    pub fn get(&self, id: PlayerId) -> Option<&RoomProxy> {
        self.proxies
            .binary_search_by_key(&id, |p| p.id)
            .ok()
            .map(|i| &self.proxies[i])
    }

    /// Every proxy, by id.
    pub fn iter(&self) -> impl Iterator<Item = &RoomProxy> {
        self.proxies.iter()
    }

    /// Counters so far.
    pub fn counters(&self) -> ReplicationCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::wire::NetPosition;
    use crate::room::replication::NetVelocity;

    fn batch(seq: u32, ms: u64, ids: &[(u32, f32)]) -> ProxyBatch {
        ProxyBatch {
            seq: Seq(seq),
            server_time: SimTime::from_millis(ms),
            characters: ids
                .iter()
                .map(|&(id, x)| ReplicatedMovement {
                    id: PlayerId(id),
                    position: NetPosition::quantize(Vec2::new(x, 500.0)),
                    velocity: NetVelocity::default(),
                    mode: MovementMode::Walking,
                })
                .collect(),
        }
    }

    /// A standing proxy at x = 100, then an update 30 cm on, then `t` s of
    /// frames of 1/60 s; returns the drawn x.
    fn drawn_after(mode: SmoothingMode, frames: u32, render_ms: u64) -> f32 {
        let (mut s, world) = (ProxySet::default(), World::arena());
        // Both updates arrive 100 ms after they left, so with a render
        // delay of 100 ms the render clock reads `render_ms` at client
        // time `render_ms` + 200 ms.
        let client = |ms: u64| SimTime::from_millis(ms + 100);
        s.apply(client(1000), &batch(1, 1000, &[(2, 100.0)]), None, mode);
        s.apply(client(1050), &batch(2, 1050, &[(2, 130.0)]), None, mode);
        let draw = DrawSettings {
            smoothing: mode,
            delay_us: 100_000,
            interval_us: 50_000,
        };
        for _ in 0..frames {
            s.advance(client(render_ms + 100), 1.0 / 60.0, draw, &world);
        }
        s.get(PlayerId(2)).unwrap().drawn_position().x
    }

    #[test]
    fn each_mode_draws_its_closed_form_after_t_seconds() {
        let close = |a: f32, b: f32| (a - b).abs() < 1e-3;
        // t = 0.05 s (3 frames) after a −30 cm offset, T = 0.1 s:
        // Disabled 0; Linear −30 (1 − t/T) = −15; Exponential
        // −30 (1 − dt/T)^(t/dt) = −30 (5/6)³ = −17.361.
        assert_eq!(drawn_after(SmoothingMode::Disabled, 3, 0), 130.0);
        assert!(close(drawn_after(SmoothingMode::Linear, 3, 0), 115.0));
        let exp = 130.0 - 30.0 * (5.0f32 / 6.0).powi(3);
        assert!(close(drawn_after(SmoothingMode::Exponential, 3, 0), exp));
        // Interpolation: the line between the updates at the render time,
        // 100 + 30 (t − 1000 ms) / 50 ms, and never past the newest.
        assert!(close(
            drawn_after(SmoothingMode::Interpolation, 1, 1020),
            112.0
        ));
        assert!(close(
            drawn_after(SmoothingMode::Interpolation, 1, 1045),
            127.0
        ));
        for late in [1050, 1060, 2000] {
            assert_eq!(drawn_after(SmoothingMode::Interpolation, 1, late), 130.0);
        }
    }

    #[test]
    fn the_newest_batch_wins_and_late_or_repeated_ones_are_counted() {
        let mut s = ProxySet::default();
        let mode = SmoothingMode::Disabled;
        assert!(s.apply(
            SimTime::ZERO,
            &batch(10, 1000, &[(2, 100.0), (3, 200.0)]),
            None,
            mode
        ));
        assert!(s.apply(
            SimTime::ZERO,
            &batch(13, 1050, &[(2, 130.0), (3, 230.0)]),
            None,
            mode
        ));
        assert!(!s.apply(
            SimTime::ZERO,
            &batch(13, 1050, &[(2, 130.0), (3, 230.0)]),
            None,
            mode
        ));
        assert!(!s.apply(SimTime::ZERO, &batch(12, 1033, &[(2, 120.0)]), None, mode));
        assert_eq!(s.get(PlayerId(2)).unwrap().position().x, 130.0);
        let c = s.counters();
        assert_eq!((c.applied, c.late, c.duplicate), (2, 1, 1));
    }

    #[test]
    fn a_character_missing_from_the_newest_batch_is_gone_and_me_is_skipped() {
        let mut s = ProxySet::default();
        let mode = SmoothingMode::Exponential;
        s.apply(
            SimTime::ZERO,
            &batch(1, 1000, &[(1, 50.0), (2, 100.0), (3, 200.0)]),
            Some(PlayerId(1)),
            mode,
        );
        assert_eq!(s.iter().map(|p| p.id().0).collect::<Vec<_>>(), vec![2, 3]);
        s.apply(
            SimTime::ZERO,
            &batch(2, 1050, &[(1, 50.0), (3, 210.0)]),
            Some(PlayerId(1)),
            mode,
        );
        assert_eq!(s.iter().map(|p| p.id().0).collect::<Vec<_>>(), vec![3]);
        assert!(s.get(PlayerId(2)).is_none());
    }
}
