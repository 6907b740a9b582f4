//! A room recording played back for the page (issue 23): [`play`] runs the
//! room's authority again ([`super::replay`]) and keeps what a viewer
//! scrubs through — every character where the server had it after each
//! 60 Hz tick, every shot with its ray and the server's three views of
//! its target (`003_…` 回溯算法: where the target is now, the rewound
//! boxes tested, where the target saw itself), and each seat's link as its
//! player set it.
//!
//! ```text
//! RoomRecording ──play──► RoomHost (a replay, detail on)
//!                           each tick ──► TickBodies {at, (id, position)…}
//!                           each shot ──► PlayedShot {number, verdict, Shot, ShotResult}
//!                           tick hashes ─► ReplayOutcome (first_divergence: None = identical)
//! ```
//!
//! What a recording cannot give is a client's own prediction: it is not
//! an input of the authority. The others as a seat's screen drew them are
//! rebuilt ([`RoomPlayback::screen`]) from the fates of the net updates
//! its downlink delivered (recordings of version 2, [`super::screen`])
//! and the server's bodies at those updates' ticks. A shot's tested boxes
//! are the server's reconstruction of what its shooter saw (the premise
//! of lag compensation), and that is what a playback shows for it.

use super::recording::{
    JudgedShot, RecordedEvent, RecordingError, RoomRecording, ShotDetail, TickBodies,
};
use super::replay::{run, shot_numbers, ReplayOutcome};
use super::screen::Screens;
use crate::cmc::proxy::MAX_EXTRAPOLATION;
use crate::cmc::smoothing::SmoothingMode;
use crate::foundation::interpolation::lerp_at;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use crate::net::settings::NetSettings;
use crate::protocol::ClientMsg;
use crate::room::config::TICK_HZ;
use crate::room::replication::PlayerId;
use crate::room::shots::ShotRecord;
use crate::room::wire::DrawnFrom;

/// One character of the room: a player or a bot.
#[derive(Debug, Clone, PartialEq)]
pub struct Seat {
    /// Its id.
    pub id: PlayerId,
    /// A bot run by the server (no link).
    pub bot: bool,
    /// When it joined.
    pub joined: SimTime,
    /// Each link setting its player chose, in the order set (empty: the
    /// room's default all along, [`Seat::link_at`]).
    pub links: Vec<(SimTime, NetSettings)>,
}

impl Seat {
    /// The link in force at `t`: the newest its player set by then, else
    /// the one a room gives a new player ([`NetSettings::default`], RTT
    /// 100 ms); `None` for a bot, which has none.
    pub fn link_at(&self, t: SimTime) -> Option<NetSettings> {
        if self.bot {
            return None;
        }
        let set = self.links.iter().take_while(|(at, _)| *at <= t).last();
        Some(set.map_or_else(NetSettings::default, |&(_, s)| s))
    }
}

/// One shot as the server judged it in the playback.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedShot {
    /// Its shooter's shot number, from 1 (as the shooter's page named it).
    pub number: usize,
    /// The verdict as recorded with the replay's hashes.
    pub judged: JudgedShot,
    /// The shot as sent and the server's answer.
    pub detail: ShotDetail,
}

impl PlayedShot {
    /// The shot as a shooter's record, for drawing its views: the ray
    /// along `world` (`range_cm` long), the server's answer, fired at its
    /// claimed server time. What the shooter drew (view 1) is not in a
    /// recording, so `saw` is empty and `local_hit` `None`.
    pub fn record(&self, range_cm: f32, world: &World) -> ShotRecord {
        let shot = &self.detail.shot;
        ShotRecord {
            seq: shot.seq,
            number: u32::try_from(self.number).unwrap_or(u32::MAX),
            fired_at: shot.at,
            hit_time: shot.hit_time,
            ray: shot.ray(range_cm, world),
            saw: Vec::new(),
            local_hit: None,
            result: Some(self.detail.result),
        }
    }
}

/// A recording played back: see the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomPlayback {
    /// The replay's tick hashes and verdicts, and whether it diverged
    /// from the recording's (`first_divergence: None`: identical).
    pub outcome: ReplayOutcome,
    /// Every character's authoritative position after each tick, oldest
    /// first (one per tick hash).
    pub ticks: Vec<TickBodies>,
    /// Every shot judged, in the order judged.
    pub shots: Vec<PlayedShot>,
    /// Everyone who was in the room, by id.
    pub seats: Vec<Seat>,
    /// Every player's net updates as their downlinks treated them.
    pub screens: Screens,
}

/// How a seat's screen drew the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawing {
    /// In the past, between two net updates (`000_…` §7.2, Source's
    /// `cl_interp`).
    Interpolated,
    /// From the newest net update, moved on by its velocity (the
    /// collision position of the mesh-offset modes; the offset aside).
    Extrapolated,
}

/// The others as one seat's screen drew them at a moment.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatScreen {
    /// How.
    pub drawing: Drawing,
    /// The server time the screen showed: the render time, or the newest
    /// update's moved on by the time since it arrived.
    pub shows: SimTime,
    /// Each other character drawn, by id, and where, cm (the server's
    /// body at the updates' ticks: a net update carries it to 1/100 cm).
    pub others: Vec<(PlayerId, Vec2)>,
}

/// Plays `recording` back.
///
/// # Errors
/// As [`super::replay::replay`]: a recording that does not fit a room.
pub fn play(recording: &RoomRecording) -> Result<RoomPlayback, RecordingError> {
    let super::replay::Ran {
        outcome, detail, ..
    } = run(recording, None, true)?;
    let detail = detail.unwrap_or_default();
    let shots = outcome
        .shots
        .iter()
        .zip(shot_numbers(&outcome.shots))
        .zip(detail.shots)
        .map(|((judged, number), detail)| PlayedShot {
            number,
            judged: *judged,
            detail,
        })
        .collect();
    Ok(RoomPlayback {
        seats: seats(recording),
        screens: Screens::of(recording),
        ticks: detail.ticks,
        shots,
        outcome,
    })
}

/// The room's characters and their players' link settings.
fn seats(recording: &RoomRecording) -> Vec<Seat> {
    let mut seats: Vec<Seat> = Vec::new();
    for event in &recording.events {
        match event {
            RecordedEvent::Join { at, id, .. } | RecordedEvent::AddBot { at, id, .. } => {
                seats.push(Seat {
                    id: *id,
                    bot: matches!(event, RecordedEvent::AddBot { .. }),
                    joined: *at,
                    links: Vec::new(),
                });
            }
            RecordedEvent::Control {
                at,
                id,
                msg: ClientMsg::SetNetSettings(s),
            } => {
                if let Some(seat) = seats.iter_mut().find(|seat| seat.id == *id) {
                    seat.links.push((*at, *s));
                }
            }
            _ => {}
        }
    }
    seats.sort_by_key(|s| s.id);
    seats
}

impl RoomPlayback {
    /// The first tick's time and the last one's (both `None`-free: a
    /// playback of no tick spans nothing, `(ZERO, ZERO)`).
    pub fn span(&self) -> (SimTime, SimTime) {
        match (self.ticks.first(), self.ticks.last()) {
            (Some(a), Some(b)) => (a.at, b.at),
            _ => (SimTime::ZERO, SimTime::ZERO),
        }
    }

    /// The newest tick at or before `t` (the first one before the room's
    /// first tick): a binary search, so any seek costs O(log ticks).
    pub fn tick_at(&self, t: SimTime) -> Option<&TickBodies> {
        let after = self.ticks.partition_point(|k| k.at <= t);
        self.ticks.get(after.saturating_sub(1))
    }

    /// The shots judged at or before `t`, oldest first.
    pub fn shots_until(&self, t: SimTime) -> &[PlayedShot] {
        let n = self.shots.partition_point(|s| s.judged.at <= t);
        &self.shots[..n]
    }

    /// How `seat` drew the others around `t`: as its newest shot at or
    /// before `t` says (the drawing every shot names), else its first
    /// shot after, else the page's default smoothing (mesh offset:
    /// extrapolated).
    pub fn drawing(&self, seat: PlayerId, t: SimTime) -> Drawing {
        let own = |s: &&PlayedShot| s.judged.shooter == seat;
        let before = self.shots_until(t).iter().rev().find(own);
        let after = || self.shots[self.shots_until(t).len()..].iter().find(own);
        match before.or_else(after).map(|s| &s.detail.shot.drawn) {
            Some(DrawnFrom::Between { .. }) => Drawing::Interpolated,
            Some(DrawnFrom::Ahead { .. }) => Drawing::Extrapolated,
            None if SmoothingMode::default() == SmoothingMode::Interpolation => {
                Drawing::Interpolated
            }
            None => Drawing::Extrapolated,
        }
    }

    /// The others as `seat`'s screen drew them at server time `t`, by
    /// [`RoomPlayback::drawing`]; `None` for a bot, a seat before its
    /// first net update arrived, or a recording of version 1.
    pub fn screen(&self, seat: PlayerId, t: SimTime) -> Option<SeatScreen> {
        let drawing = self.drawing(seat, t);
        let hz = self.screens.hz(seat);
        let (shows, drawn) = match drawing {
            Drawing::Interpolated => self.screens.interpolated(seat, t, hz, None)?,
            Drawing::Extrapolated => self.screens.extrapolated(seat, t, Vec::new())?,
        };
        let bodies = |at: SimTime| {
            let k = self.ticks.get(self.ticks.partition_point(|k| k.at < at))?;
            (k.at == at).then_some(&k.bodies)
        };
        let tick_us = 1_000_000 / TICK_HZ;
        let (a, b, f) = match drawn {
            DrawnFrom::Between { from, to } => {
                (bodies(from)?, bodies(to)?, lerp_at(from, to, shows))
            }
            DrawnFrom::Ahead { from, .. } => {
                let before = SimTime(from.0.saturating_sub(tick_us));
                let ahead = shows.secs_since(from).min(f64::from(MAX_EXTRAPOLATION));
                // The velocity of the tick before, times the time ahead.
                let f = (ahead * TICK_HZ as f64) as f32;
                (
                    bodies(before).unwrap_or(bodies(from)?),
                    bodies(from)?,
                    1.0 + f,
                )
            }
        };
        let others = b
            .iter()
            .filter(|(id, _)| *id != seat)
            .filter_map(|&(id, to)| {
                let (_, from) = a.iter().find(|(other, _)| *other == id)?;
                Some((id, *from + (to - *from) * f))
            })
            .collect();
        Some(SeatScreen {
            drawing,
            shows,
            others,
        })
    }

    /// Whether the replay gave the recording's hash at every tick.
    pub fn identical(&self) -> bool {
        self.outcome.first_divergence.is_none()
    }
}
