//! Each player's screen rebuilt from the net updates their downlink
//! delivered ([`NetUpdateFate`]): what it drew the others from at the
//! moment they fired, in the terms a shot tells the server
//! ([`DrawnFrom`], as [`crate::room::proxies::ProxySet::drawn`] makes it)
//! — for a what-if fork that changes how a screen draws
//! ([`super::replay::RuleChange`]).
//!
//! The rebuild uses the client's own rules and types on the recorded
//! arrivals: an update is applied only if newer than every one applied
//! before it (`ProxySet::apply`); interpolation draws at its
//! [`RenderClock`]'s time from an [`InterpolationBuffer`]; extrapolation
//! draws the newest update moved on by the time since it arrived. Arrival
//! times are the server's clock and the moment of firing is the shot's
//! `at` (the shooter's estimate of server time): the render time does not
//! depend on the clock's origin, only on arrivals less send times.
//!
//! ```text
//! recorded NetUpdate fates ─► Screens ─┬► applied by `fire` ─► interpolated(hz, render)
//!  (or a fork host's own)              │                     ─► extrapolated(offsets)
//!          deliver_lost: a lost one ───┘  arrives one-way as the one before it
//! ```

use super::recording::{NetUpdateFate, RecordedEvent, RoomRecording};
use crate::foundation::interpolation::{render_delay_us, InterpolationBuffer, RenderClock};
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::protocol::ClientMsg;
use crate::room::config::PlayerSettings;
use crate::room::replication::PlayerId;
use crate::room::wire::RoomClientMsg;
use crate::room::wire::{DrawnFrom, MeshOffset, Shot};
use crate::room::Seq;
use std::collections::{BTreeMap, BTreeSet};

/// How many of a player's net updates, the last sent before a moment, a
/// screen is rebuilt from: four times what an interpolation buffer keeps
/// ([`crate::foundation::interpolation::BUFFER_LEN`], 1 s at 60 Hz), so
/// no update that could still be drawn, or overtake one, is left out, and
/// a playback's frame does not walk the whole recording.
const APPLIED_WINDOW: usize = 4 * crate::foundation::interpolation::BUFFER_LEN;

/// Which lost net updates a screen gets after all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rescue {
    /// None: as the links decided.
    None,
    /// Every one lost.
    All,
    /// The one sent at the tick numbered so (a batch's `seq`).
    Tick(Seq),
}

/// Every player's net updates, in the order sent, and the rate each
/// player asked for them at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screens {
    sent: BTreeMap<PlayerId, Vec<NetUpdateFate>>,
    hz: BTreeMap<PlayerId, u8>,
    rescue: Rescue,
    /// The room's creation: tick `k`'s server time is `created` plus
    /// `k / TICK_HZ` s ([`Rescue::Tick`]).
    created: SimTime,
}

impl Screens {
    /// No updates yet; lost ones delivered as `rescue` says.
    pub fn new(created: SimTime, rescue: Rescue) -> Screens {
        Screens {
            sent: BTreeMap::new(),
            hz: BTreeMap::new(),
            rescue,
            created,
        }
    }

    /// Every player's screen in `recording` (empty for version 1).
    pub fn of(recording: &RoomRecording) -> Screens {
        let mut s = Screens::new(recording.created, Rescue::None);
        for event in &recording.events {
            s.note(event);
        }
        s
    }

    /// One more net update's fate.
    pub fn push(&mut self, fate: NetUpdateFate) {
        self.sent.entry(fate.to).or_default().push(fate);
    }

    /// Takes in a recorded event: a join's or a settings change's net
    /// update rate, a net update's fate.
    pub fn note(&mut self, event: &RecordedEvent) {
        match event {
            RecordedEvent::Join { id, .. } => {
                self.hz.insert(*id, PlayerSettings::default().net_update_hz);
            }
            RecordedEvent::Control {
                id,
                msg: ClientMsg::Room(RoomClientMsg::SetPlayerSettings(s)),
                ..
            } => {
                self.hz.insert(*id, s.net_update_hz);
            }
            RecordedEvent::NetUpdate(f) => self.push(*f),
            _ => {}
        }
    }

    /// The net update rate player `who` last asked for, Hz (the default
    /// for a player never seen).
    pub fn hz(&self, who: PlayerId) -> u8 {
        self.hz
            .get(&who)
            .copied()
            .unwrap_or(PlayerSettings::default().net_update_hz)
    }

    /// `fate`'s update (another run's, sent at `fate.sent`) as its
    /// player's link treated the recorded update sent last before it, or
    /// else the first after: lost with it, or as many µs on the way. The
    /// same sends get the recorded fates exactly, so a fork at the
    /// recorded rate changes nothing, and another rate differs by its
    /// rate alone, not by the link's random draws made anew.
    pub fn through_recorded_link(&self, fate: NetUpdateFate) -> NetUpdateFate {
        let recorded = self.sent.get(&fate.to).map_or(&[][..], Vec::as_slice);
        let k = recorded.partition_point(|f| f.sent <= fate.sent);
        let Some(like) = recorded.get(k.saturating_sub(1)) else {
            return fate;
        };
        NetUpdateFate {
            arrived: like
                .arrived
                .map(|at| fate.sent.plus_micros(at.micros_since(like.sent))),
            ..fate
        }
    }

    /// Whether any net update's fate is kept (not a recording of
    /// version 1).
    pub fn any(&self) -> bool {
        !self.sent.is_empty()
    }

    /// Whether `fate`'s update is one [`Rescue`] delivers.
    fn rescued(&self, fate: &NetUpdateFate) -> bool {
        match self.rescue {
            Rescue::None => false,
            Rescue::All => true,
            Rescue::Tick(seq) => fate.tick(self.created) == u64::from(seq.0),
        }
    }

    /// Player `who`'s updates applied by server time `fire`, by arrival:
    /// (server time, arrival), among the [`APPLIED_WINDOW`] sent last
    /// before it (updates are pushed in the order sent). A rescued loss
    /// arrives after the one-way delay of the update delivered before it
    /// (none before: stays lost).
    fn applied(&self, who: PlayerId, fire: SimTime) -> Vec<(SimTime, SimTime)> {
        let sent = self.sent.get(&who).map_or(&[][..], Vec::as_slice);
        let end = sent.partition_point(|f| f.sent <= fire);
        let mut one_way = None;
        let mut arrived: Vec<(SimTime, SimTime)> = Vec::new();
        for f in &sent[end.saturating_sub(APPLIED_WINDOW)..end] {
            let at = match f.arrived {
                Some(at) => {
                    one_way = Some(at.micros_since(f.sent));
                    Some(at)
                }
                None if self.rescued(f) => one_way.map(|d| f.sent.plus_micros(d)),
                None => None,
            };
            if let Some(at) = at.filter(|&at| at <= fire) {
                arrived.push((f.sent, at));
            }
        }
        arrived.sort_by_key(|&(_, at)| at);
        let mut newest = None;
        arrived.retain(|&(sent, _)| {
            let newer = newest.is_none_or(|n| sent > n);
            if newer {
                newest = Some(sent);
            }
            newer
        });
        arrived
    }

    /// How `who` would have drawn the others by interpolation at `fire`,
    /// with net updates every `1 / hz` s: at `render` if given, else at
    /// its render clock's first reading then (the slowest recent arrival
    /// less the render delay). `None` before an update arrived.
    pub fn interpolated(
        &self,
        who: PlayerId,
        fire: SimTime,
        hz: u8,
        render: Option<SimTime>,
    ) -> Option<(SimTime, DrawnFrom)> {
        let applied = self.applied(who, fire);
        let mut clock = RenderClock::default();
        let mut buffer = InterpolationBuffer::default();
        for &(sent, at) in &applied {
            clock.on_update(sent, at);
            buffer.push(sent, Vec2::ZERO);
        }
        let interval_us = 1_000_000 / u64::from(hz.max(1));
        let render = match render {
            Some(r) => r,
            None => clock.advance(fire, render_delay_us(hz), interval_us)?,
        };
        let s = buffer.sample(render)?;
        Some((
            render,
            DrawnFrom::Between {
                from: s.from,
                to: s.to,
            },
        ))
    }

    /// How `who` would have drawn the others by extrapolation at `fire`:
    /// from the newest update applied, moved on by the time since it
    /// arrived, each body `offsets` off. `None` before an update arrived.
    pub fn extrapolated(
        &self,
        who: PlayerId,
        fire: SimTime,
        offsets: Vec<MeshOffset>,
    ) -> Option<(SimTime, DrawnFrom)> {
        let &(from, at) = self.applied(who, fire).last()?;
        Some((
            from.plus_micros(fire.micros_since(at)),
            DrawnFrom::Ahead { from, offsets },
        ))
    }
}

/// How a fork redraws each shot's screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Redraw {
    /// An extrapolated shot drawn by interpolation (render clock at the
    /// moment of firing); an interpolated one as fired.
    Interpolate,
    /// An interpolated shot drawn by extrapolation; every shot with no
    /// mesh offset (smoothing Disabled).
    Extrapolate,
    /// From the fork's own net updates at `hz`, only where that changes
    /// what was drawn: an interpolated shot at its render time moved by
    /// the change of render delay, an extrapolated one from the newest
    /// update arrived.
    Rate {
        /// The fork's rate, Hz.
        hz: u8,
    },
    /// From the recorded updates with lost ones delivered, only where
    /// that changes what was drawn: an interpolated shot at its render
    /// time, an extrapolated one from the newest update arrived.
    Rescued,
}

/// How the fork's screen (`fork`) would have drawn `shot` by `who`,
/// whose net updates came at `hz` (`recorded`: as they came): the hit
/// time and [`DrawnFrom`] to send instead, or `None` to send it as fired.
pub(crate) fn redraw(
    shot: &Shot,
    who: PlayerId,
    hz: u8,
    how: Redraw,
    recorded: &Screens,
    fork: &Screens,
) -> Option<(SimTime, DrawnFrom)> {
    let (fire, hit) = (shot.at, shot.hit_time);
    let changed = |before: Option<(SimTime, DrawnFrom)>, after: Option<(SimTime, DrawnFrom)>| {
        after.filter(|a| before.as_ref() != Some(a))
    };
    match (how, &shot.drawn) {
        (Redraw::Interpolate, DrawnFrom::Between { .. }) => None,
        (Redraw::Interpolate, DrawnFrom::Ahead { .. }) => {
            recorded.interpolated(who, fire, hz, None)
        }
        (Redraw::Extrapolate, DrawnFrom::Between { .. }) => {
            recorded.extrapolated(who, fire, Vec::new())
        }
        (Redraw::Extrapolate, DrawnFrom::Ahead { from, offsets }) => {
            (!offsets.is_empty()).then(|| {
                let from = *from;
                (
                    hit,
                    DrawnFrom::Ahead {
                        from,
                        offsets: Vec::new(),
                    },
                )
            })
        }
        (Redraw::Rate { hz: to }, DrawnFrom::Between { .. }) => {
            let moved = hit.0 + render_delay_us(hz);
            let render = SimTime(moved.saturating_sub(render_delay_us(to)));
            changed(
                recorded.interpolated(who, fire, hz, Some(hit)),
                fork.interpolated(who, fire, to, Some(render)),
            )
        }
        (Redraw::Rate { .. }, DrawnFrom::Ahead { offsets, .. }) => changed(
            recorded.extrapolated(who, fire, offsets.clone()),
            fork.extrapolated(who, fire, offsets.clone()),
        ),
        (Redraw::Rescued, DrawnFrom::Between { .. }) => changed(
            recorded.interpolated(who, fire, hz, Some(hit)),
            fork.interpolated(who, fire, hz, Some(hit)),
        ),
        (Redraw::Rescued, DrawnFrom::Ahead { offsets, .. }) => changed(
            recorded.extrapolated(who, fire, offsets.clone()),
            fork.extrapolated(who, fire, offsets.clone()),
        ),
    }
}

/// A fork's screens as its replay goes: the recorded ones, the fork's
/// (the recorded ones with losses rescued, or the fork host's own), and
/// each player's recorded net update rate.
#[derive(Debug, Clone)]
pub(crate) struct ScreenFork {
    how: Redraw,
    recorded: Screens,
    fork: Screens,
    /// The shots redrawn so far (shooter, action number): a shot resent
    /// after a loss reaches the host more than once.
    redrawn: BTreeSet<(PlayerId, u32)>,
}

impl ScreenFork {
    /// A fork of a room made at `created` redrawing as `how`, its losses
    /// rescued as `rescue`.
    pub(crate) fn new(created: SimTime, how: Redraw, rescue: Rescue) -> ScreenFork {
        ScreenFork {
            how,
            recorded: Screens::new(created, Rescue::None),
            fork: Screens::new(created, rescue),
            redrawn: BTreeSet::new(),
        }
    }

    /// Whether the fork's screens are fed by its own host's net updates
    /// ([`ScreenFork::own`]) rather than the recorded ones.
    pub(crate) fn sends_its_own(&self) -> bool {
        matches!(self.how, Redraw::Rate { .. })
    }

    /// Takes in a recorded event (the fork's screens only its rates when
    /// its host sends its own net updates).
    pub(crate) fn note(&mut self, event: &RecordedEvent) {
        self.recorded.note(event);
        if !(self.sends_its_own() && matches!(event, RecordedEvent::NetUpdate(_))) {
            self.fork.note(event);
        }
    }

    /// How many shots it redrew (sent with another hit time or drawing).
    pub(crate) fn redrawn_count(&self) -> usize {
        self.redrawn.len()
    }

    /// Takes in the fork host's own net updates, each through its
    /// player's link as recorded ([`Screens::through_recorded_link`]).
    pub(crate) fn own(&mut self, fates: Vec<NetUpdateFate>) {
        for f in fates {
            let f = self.recorded.through_recorded_link(f);
            self.fork.push(f);
        }
    }

    /// A recorded poll's messages with every shot redrawn as the fork's
    /// screen would have drawn it.
    pub(crate) fn redrawn(
        &mut self,
        received: &[(PlayerId, ClientMsg)],
    ) -> Vec<(PlayerId, ClientMsg)> {
        received
            .iter()
            .map(|(id, msg)| {
                let ClientMsg::Room(RoomClientMsg::Fire(shot)) = msg else {
                    return (*id, msg.clone());
                };
                let hz = self.recorded.hz(*id);
                let mut shot = shot.clone();
                if let Some((hit, drawn)) =
                    redraw(&shot, *id, hz, self.how, &self.recorded, &self.fork)
                {
                    if hit != shot.hit_time || drawn != shot.drawn {
                        self.redrawn.insert((*id, shot.seq.0));
                    }
                    shot.hit_time = hit;
                    shot.drawn = drawn;
                }
                (*id, ClientMsg::Room(RoomClientMsg::Fire(shot)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// Updates every 50 ms from 0, each 40 ms on the way, those at the
    /// listed times lost.
    fn screens(lost: &[u64], rescue: Rescue) -> Screens {
        let mut s = Screens::new(SimTime::ZERO, rescue);
        for k in 0..10 {
            let sent = ms(50 * k);
            s.push(NetUpdateFate {
                to: PlayerId(1),
                sent,
                arrived: (!lost.contains(&(50 * k))).then(|| sent.plus_micros(40_000)),
            });
        }
        s
    }

    #[test]
    fn interpolation_draws_two_intervals_behind_the_newest_arrival() {
        // Fired at 300 ms: updates up to 250 arrived (at 290); the render
        // clock reads 300 − 40 − 100 = 160 ms, between 150 and 200.
        let s = screens(&[], Rescue::None);
        let (render, drawn) = s.interpolated(PlayerId(1), ms(300), 20, None).unwrap();
        assert_eq!(render, ms(160));
        assert_eq!(
            drawn,
            DrawnFrom::Between {
                from: ms(150),
                to: ms(200)
            }
        );
        assert_eq!(s.interpolated(PlayerId(2), ms(300), 20, None), None);
    }

    #[test]
    fn a_lost_update_widens_the_bracket_and_delivering_it_narrows_it_back() {
        let lost = screens(&[150, 200], Rescue::None);
        let at = Some(ms(160));
        let (_, drawn) = lost.interpolated(PlayerId(1), ms(300), 20, at).unwrap();
        assert_eq!(
            drawn,
            DrawnFrom::Between {
                from: ms(100),
                to: ms(250)
            }
        );
        let one = screens(&[150, 200], Rescue::Tick(Seq(9)));
        let (_, drawn) = one.interpolated(PlayerId(1), ms(300), 20, at).unwrap();
        assert_eq!(
            drawn,
            DrawnFrom::Between {
                from: ms(150),
                to: ms(250)
            },
            "tick 9 is the update sent at 150 ms"
        );
        let all = screens(&[150, 200], Rescue::All);
        let (_, drawn) = all.interpolated(PlayerId(1), ms(300), 20, at).unwrap();
        assert_eq!(
            drawn,
            DrawnFrom::Between {
                from: ms(150),
                to: ms(200)
            }
        );
    }

    #[test]
    fn extrapolation_moves_the_newest_arrival_on_by_the_time_since() {
        // Fired at 300 ms: 250 arrived at 290, so it shows 260 ms.
        let s = screens(&[], Rescue::None);
        let (hit, drawn) = s.extrapolated(PlayerId(1), ms(300), vec![]).unwrap();
        assert_eq!(hit, ms(260));
        assert_eq!(
            drawn,
            DrawnFrom::Ahead {
                from: ms(250),
                offsets: vec![]
            }
        );
    }

    #[test]
    fn an_update_overtaken_by_a_newer_one_is_not_applied() {
        let mut s = Screens::new(SimTime::ZERO, Rescue::None);
        for (sent, arrived) in [(0, 40), (50, 140), (100, 130)] {
            s.push(NetUpdateFate {
                to: PlayerId(1),
                sent: ms(sent),
                arrived: Some(ms(arrived)),
            });
        }
        assert_eq!(
            s.applied(PlayerId(1), ms(200)),
            [(ms(0), ms(40)), (ms(100), ms(130))]
        );
    }
}
