//! A room's authority run again from its [`RoomRecording`] ([`replay`]),
//! and what-if forks of it ([`fork`]): the same inputs under one rule
//! changed, and which verdicts that turns ("shot #5: hit head 2 → miss").
//!
//! A replay makes an empty [`RoomHost`] with the recorded configuration,
//! seed and creation time and feeds it the recorded events in order: joins,
//! leaves and bots by the host's own calls, controls through
//! [`RoomHost::receive_msg`], and each recorded poll's messages straight
//! into the rules, past the conditioners (their decisions are already in
//! the receive times). The host records as it goes, so the replay's tick
//! hashes and verdicts are computed exactly as the live host's were.
//!
//! The forks are the server's rules of lag compensation (reference
//! `003_…` 回溯算法, `ServerSideRewind`): [`RuleChange::RewindOff`] judges
//! every shot against the present (UE without lag compensation), and
//! [`RuleChange::RewindCap`] sets how far back the server will go (Source's
//! `sv_maxunlag`). Each is applied to every player after every recorded
//! event, so a recorded settings change cannot undo it.
//!
//! The other forks change what the players' screens drew the others from
//! (`000_…` §7 simulated proxies; `003_…` the shot's `HitTime`), rebuilt
//! from each net update's recorded fate ([`super::screen`], recordings of
//! version 2): [`RuleChange::NetUpdateHz`], [`RuleChange::Interpolation`],
//! [`RuleChange::Extrapolation`] and [`RuleChange::DeliverLost`]. Every
//! shot keeps its aim (its ray) as in the rewind forks — what changes is
//! where the server, testing the boxes where they were drawn, finds the
//! others: the answer to "would this shot have landed had the screen
//! drawn otherwise", not to where the player would have aimed.

use super::host::RoomHost;
use super::recording::{Detail, JudgedShot, RecordedEvent, RecordingError, RoomRecording};
use super::screen::{Redraw, Rescue, ScreenFork};
use crate::foundation::hash::Fnv64;
use crate::protocol::verdict_code;
use crate::room::config::{PlayerSettings, MAX_REWIND_CAP_MS, NET_UPDATE_HZ_RANGE};
use crate::room::Seq;
use std::collections::BTreeMap;
use std::fmt;

/// What a replay gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayOutcome {
    /// The state hash after each server tick, from tick 0.
    pub tick_hashes: Vec<u64>,
    /// Every shot the host answered, in the order judged.
    pub shots: Vec<JudgedShot>,
    /// The first tick whose hash differs from the recording's (or which
    /// one of them lacks); `None` when every one is equal.
    pub first_divergence: Option<usize>,
}

impl ReplayOutcome {
    /// One number over every tick hash and every verdict (shooter, action
    /// number, verdict, target, rewind).
    pub fn digest(&self) -> u64 {
        let mut h = Fnv64::new();
        for &t in &self.tick_hashes {
            h.u64(t);
        }
        for s in &self.shots {
            h.u32(s.shooter.0)
                .u32(s.seq.0)
                .u32(verdict_code(s.verdict))
                .u32(s.target.map_or(0, |t| t.0))
                .u32(s.rewind_ms.into());
        }
        h.finish()
    }

    /// Shots that hit (head or body).
    pub fn hits(&self) -> usize {
        self.shots.iter().filter(|s| s.verdict.is_hit()).count()
    }

    /// `ticks=<n> last=<16 hex> shots=<n> hits=<n> digest=<16 hex>`: what a
    /// golden file pins and the page's wasm export answers.
    pub fn line(&self) -> String {
        format!(
            "ticks={} last={:016x} shots={} hits={} digest={:016x}",
            self.tick_hashes.len(),
            self.tick_hashes.last().copied().unwrap_or(0),
            self.shots.len(),
            self.hits(),
            self.digest()
        )
    }
}

/// Runs the room's authority again from `recording`.
///
/// # Errors
/// [`RecordingError::Invalid`] if the recording does not fit a room (it
/// fails [`RoomRecording::validate`], a join gets another id than
/// recorded, an event names a player who is not there, a recorded control
/// is refused).
pub fn replay(recording: &RoomRecording) -> Result<ReplayOutcome, RecordingError> {
    run(recording, None, false).map(|ran| ran.outcome)
}

/// A rule of the server's lag compensation, or of how every player's
/// screen drew the others, changed for a what-if fork (see the module
/// doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleChange {
    /// Lag compensation off: every shot is tested against the present.
    RewindOff,
    /// Lag compensation on with this cap, ms (`0..=1000`, Source's
    /// `sv_maxunlag`): shots older are refused as too old.
    RewindCap {
        /// The cap, ms.
        ms: u16,
    },
    /// Every player sent net updates at this rate, Hz (clamped into
    /// [`NET_UPDATE_HZ_RANGE`]): each update the fork's host sends goes as
    /// the player's link treated the recorded update sent last before it
    /// (lost with it, or as long on the way), so the recorded rate changes
    /// nothing; each shot whose drawing that changes is redrawn from what
    /// arrived — an interpolated one at its render time moved by the
    /// change of render delay (two intervals), an extrapolated one from
    /// the newest update arrived.
    NetUpdateHz {
        /// The rate, Hz.
        hz: u8,
    },
    /// Every screen drew by interpolation: a shot drawn by extrapolation
    /// is redrawn at the render clock's reading when it was fired.
    Interpolation,
    /// Every screen drew by extrapolation with no mesh offset: an
    /// interpolated shot is redrawn from the newest update arrived.
    Extrapolation,
    /// A net update the links lost arrived after all, one-way as the
    /// update before it: the one sent at this tick (its `seq`, what the
    /// page's lanes number), or with `None` every one lost.
    DeliverLost {
        /// The tick, or every lost update.
        tick: Option<Seq>,
    },
}

impl RuleChange {
    fn apply(self, s: &mut PlayerSettings) {
        match self {
            RuleChange::RewindOff => s.rewind = false,
            RuleChange::RewindCap { ms } => {
                s.rewind = true;
                s.rewind_cap_ms = ms.min(MAX_REWIND_CAP_MS);
            }
            RuleChange::NetUpdateHz { hz } => s.net_update_hz = hz_in_range(hz),
            RuleChange::Interpolation
            | RuleChange::Extrapolation
            | RuleChange::DeliverLost { .. } => {}
        }
    }

    /// How it redraws the shots, if it does, and which losses it undoes.
    fn screens(self) -> Option<(Redraw, Rescue)> {
        match self {
            RuleChange::RewindOff | RuleChange::RewindCap { .. } => None,
            RuleChange::NetUpdateHz { hz } => Some((
                Redraw::Rate {
                    hz: hz_in_range(hz),
                },
                Rescue::None,
            )),
            RuleChange::Interpolation => Some((Redraw::Interpolate, Rescue::None)),
            RuleChange::Extrapolation => Some((Redraw::Extrapolate, Rescue::None)),
            RuleChange::DeliverLost { tick } => {
                Some((Redraw::Rescued, tick.map_or(Rescue::All, Rescue::Tick)))
            }
        }
    }
}

fn hz_in_range(hz: u8) -> u8 {
    hz.clamp(NET_UPDATE_HZ_RANGE.0, NET_UPDATE_HZ_RANGE.1)
}

impl fmt::Display for RuleChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleChange::RewindOff => write!(f, "rewind off"),
            RuleChange::RewindCap { ms } => write!(f, "rewind cap {ms} ms"),
            RuleChange::NetUpdateHz { hz } => {
                write!(f, "net updates at {} Hz", hz_in_range(*hz))
            }
            RuleChange::Interpolation => write!(f, "interpolation"),
            RuleChange::Extrapolation => write!(f, "extrapolation"),
            RuleChange::DeliverLost { tick: None } => write!(f, "lost net updates delivered"),
            RuleChange::DeliverLost { tick: Some(t) } => {
                write!(f, "net update of tick {} delivered", t.0)
            }
        }
    }
}

/// One shot judged otherwise in a fork.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerdictChange {
    /// Its shooter's shot number, from 1, counting shots only — the page's
    /// `your shot #3` (`crate::room::shots::ShotRecord::number`): each
    /// shooter's actions reach the host once and in order
    /// ([`crate::room::actions`]), so its shots are judged in the order
    /// fired.
    pub number: usize,
    /// As recorded.
    pub before: JudgedShot,
    /// In the fork.
    pub after: JudgedShot,
}

impl fmt::Display for VerdictChange {
    /// `shot #5 (player 1, action 7): hit head 2 → miss`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shot #{} (player {}, action {}): {} → {}",
            self.number,
            self.before.shooter.0,
            self.before.seq.0,
            self.before.describe(),
            self.after.describe()
        )
    }
}

/// A what-if fork: the replay as recorded, the replay with one rule
/// changed, and the shots judged otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fork {
    /// The rule changed.
    pub change: RuleChange,
    /// The replay as recorded.
    pub base: ReplayOutcome,
    /// The replay with the rule changed.
    pub forked: ReplayOutcome,
    /// Each shot whose verdict or target changed, in order.
    pub changes: Vec<VerdictChange>,
    /// For a change of the screens, the shots it drew from other net
    /// updates or at another time (judged otherwise or not); `None` for a
    /// rule of lag compensation.
    pub redrawn: Option<usize>,
}

/// Replays `recording` as recorded and with `change`, and compares their
/// verdicts shot by shot (a shot is its shooter and action number): a
/// shot changed when its verdict did, or a hit hit someone else.
///
/// # Errors
/// As [`replay`]; [`RecordingError::NoNetUpdates`] for a change of the
/// screens on a recording without net updates' fates;
/// [`RecordingError::NothingToDeliver`] for lost updates delivered where
/// none (or not the one named) was lost.
pub fn fork(recording: &RoomRecording, change: RuleChange) -> Result<Fork, RecordingError> {
    let fates = |e: &RecordedEvent| matches!(e, RecordedEvent::NetUpdate(_));
    if change.screens().is_some() && !recording.events.iter().any(fates) {
        return Err(RecordingError::NoNetUpdates(change.to_string()));
    }
    if let RuleChange::DeliverLost { tick } = change {
        something_lost(recording, tick)?;
    }
    let base = run(recording, None, false)?.outcome;
    let Ran {
        outcome: forked,
        redrawn,
        ..
    } = run(recording, Some(change), false)?;
    let after: BTreeMap<_, &JudgedShot> = forked
        .shots
        .iter()
        .map(|s| ((s.shooter, s.seq.0), s))
        .collect();
    let changes = base
        .shots
        .iter()
        .zip(shot_numbers(&base.shots))
        .filter_map(|(before, number)| {
            let after = *after.get(&(before.shooter, before.seq.0))?;
            judged_otherwise(before, after).then_some(VerdictChange {
                number,
                before: *before,
                after: *after,
            })
        })
        .collect();
    Ok(Fork {
        change,
        base,
        forked,
        changes,
        redrawn,
    })
}

/// Checks that `recording` lost a net update (the one sent at `tick`, if
/// named), naming the first lost ones otherwise.
fn something_lost(recording: &RoomRecording, tick: Option<Seq>) -> Result<(), RecordingError> {
    // The ticks whose update some player lost, in order, once each.
    let lost: std::collections::BTreeSet<u64> = recording
        .events
        .iter()
        .filter_map(|e| match e {
            RecordedEvent::NetUpdate(f) if f.arrived.is_none() => Some(f.tick(recording.created)),
            _ => None,
        })
        .collect();
    let why = match tick {
        None if lost.is_empty() => "no net update was lost in this recording".to_owned(),
        Some(t) if !lost.contains(&u64::from(t.0)) => {
            let first: Vec<String> = lost.iter().take(6).map(u64::to_string).collect();
            let more = if lost.len() > first.len() {
                ", …"
            } else {
                ""
            };
            format!(
                "no net update of tick {} was lost (lost at {} ticks{}{}{more})",
                t.0,
                lost.len(),
                if lost.is_empty() { "" } else { ": " },
                first.join(", "),
            )
        }
        _ => return Ok(()),
    };
    Err(RecordingError::NothingToDeliver(why))
}

/// Whether a fork judged a shot otherwise: another verdict, or a hit on
/// another character. A miss stays a miss whichever character the ray
/// passed closest to (what a miss's target names).
fn judged_otherwise(before: &JudgedShot, after: &JudgedShot) -> bool {
    after.verdict != before.verdict || (before.verdict.is_hit() && after.target != before.target)
}

/// Each shot's number among its shooter's shots, from 1
/// ([`VerdictChange::number`]), for shots in the order judged.
pub(crate) fn shot_numbers(shots: &[JudgedShot]) -> Vec<usize> {
    let mut fired = BTreeMap::new();
    shots
        .iter()
        .map(|s| {
            let n = fired.entry(s.shooter).or_insert(0);
            *n += 1;
            *n
        })
        .collect()
}

/// What [`run`] gave.
pub(crate) struct Ran {
    pub(crate) outcome: ReplayOutcome,
    pub(crate) detail: Option<Detail>,
    /// Shots a change of the screens redrew.
    pub(crate) redrawn: Option<usize>,
}

/// Runs the recorded events through a new host, with `change` applied
/// after each, keeping the playback's [`Detail`] if `detail`.
pub(crate) fn run(
    recording: &RoomRecording,
    change: Option<RuleChange>,
    detail: bool,
) -> Result<Ran, RecordingError> {
    recording.validate()?;
    let invalid = |e: super::RoomError| RecordingError::Invalid(e.to_string());
    let mut host =
        RoomHost::new(recording.config, recording.seed, recording.created).map_err(invalid)?;
    host.record_outcome(detail);
    let mut screens = change
        .and_then(RuleChange::screens)
        .map(|(how, rescue)| ScreenFork::new(recording.created, how, rescue));
    if screens.as_ref().is_some_and(ScreenFork::sends_its_own) {
        host.keep_net_updates();
    }
    for (k, event) in recording.events.iter().enumerate() {
        if let Some(s) = &mut screens {
            s.note(event);
        }
        let mismatch = |what: &str| RecordingError::Invalid(format!("event {k}: {what}"));
        match event {
            RecordedEvent::Join { at, id, .. } => {
                if host.add_player(*at).map_err(invalid)? != *id {
                    return Err(mismatch("the join got another id"));
                }
            }
            RecordedEvent::Leave { id } => {
                if !host.remove_player(*id) {
                    return Err(mismatch("no such player to leave"));
                }
            }
            RecordedEvent::AddBot {
                at,
                id,
                bot,
                position,
            } => {
                if host
                    .add_bot_with(*at, bot.clone(), *position)
                    .map_err(invalid)?
                    != *id
                {
                    return Err(mismatch("the bot got another id"));
                }
            }
            RecordedEvent::RespawnBot {
                at,
                id,
                bot,
                position,
            } => {
                if !host.respawn_bot(*at, *id, bot.clone(), *position) {
                    return Err(mismatch("no such bot to respawn"));
                }
            }
            RecordedEvent::Control { at, id, msg } => {
                host.receive_msg(*at, *id, 0, msg.clone())
                    .map_err(invalid)?;
            }
            RecordedEvent::Poll { at, received } => match &mut screens {
                Some(s) => {
                    // The fork host's own net updates since the last poll,
                    // now that the recorded ones of those ticks (which
                    // follow their poll) are in: what they map through.
                    s.own(host.take_net_updates());
                    host.replay_poll(*at, &s.redrawn(received))?;
                }
                None => host.replay_poll(*at, received)?,
            },
            RecordedEvent::NetUpdate(_) => {}
        }
        if let Some(change) = change {
            host.change_player_settings(|s| change.apply(s));
        }
    }
    let (tick_hashes, shots, detail) = host
        .take_recorder()
        .map(|r| (r.recording.tick_hashes, r.shots, r.detail))
        .unwrap_or_default();
    let recorded = &recording.tick_hashes;
    let first_divergence =
        (0..tick_hashes.len().max(recorded.len())).find(|&k| tick_hashes.get(k) != recorded.get(k));
    let outcome = ReplayOutcome {
        tick_hashes,
        shots,
        first_divergence,
    };
    Ok(Ran {
        outcome,
        detail,
        redrawn: screens.map(|s| s.redrawn_count()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundation::time::SimTime;
    use crate::room::{PlayerId, Seq, Verdict};

    #[test]
    fn a_miss_passing_closest_to_someone_else_is_not_judged_otherwise() {
        let shot = |verdict, target: u32| JudgedShot {
            at: SimTime::ZERO,
            shooter: PlayerId(1),
            seq: Seq(1),
            verdict,
            target: Some(PlayerId(target)),
            rewind_ms: 0,
        };
        let head = Verdict::HitHead;
        assert!(!judged_otherwise(
            &shot(Verdict::Miss, 2),
            &shot(Verdict::Miss, 3)
        ));
        assert!(judged_otherwise(&shot(head, 2), &shot(head, 3)));
        assert!(judged_otherwise(&shot(head, 2), &shot(Verdict::Miss, 2)));
        assert!(!judged_otherwise(&shot(head, 2), &shot(head, 2)));
    }

    #[test]
    fn shots_are_numbered_per_shooter_and_a_reload_takes_no_number() {
        // Player 1's actions 1, 2 are shots, 3 a reload, 4 a shot; player
        // 2's action 1 a shot judged between them.
        let shot = |shooter: u32, seq: u32| JudgedShot {
            at: SimTime::ZERO,
            shooter: PlayerId(shooter),
            seq: Seq(seq),
            verdict: Verdict::Miss,
            target: None,
            rewind_ms: 0,
        };
        let shots = [shot(1, 1), shot(2, 1), shot(1, 2), shot(1, 4)];
        assert_eq!(shot_numbers(&shots), [1, 1, 2, 3]);
    }
}
