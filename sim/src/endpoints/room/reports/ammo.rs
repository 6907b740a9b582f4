//! Golden runs of predicted ammo: chickynoid #29 (shots and reloads lost
//! on the way), RiseOfTheDead #875 (the first shot after a reload
//! refused) and Facepunch/sbox-issues #2099 (an answer sent once and lost
//! for good: here a shot's verdict).

use super::{Recorder, RunOutcome, FRAME};
use crate::endpoints::room::endpoint::{FireError, RoomEndpoint};
use crate::endpoints::room::session::RoomSession;
use crate::foundation::math::Vec2;
use crate::net::settings::{LinkSettings, NetSettings};
use crate::room::config::RoomConfig;
use crate::room::replication::PlayerId;

/// What both ends counted after holding the trigger through reloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AmmoTally {
    /// Shots the client fired.
    pub shots_fired: u64,
    /// Shots the server handled (judged or refused).
    pub shots_handled: u64,
    /// Reloads the client started.
    pub reloads_started: u64,
    /// Reloads the server started.
    pub reloads_handled: u64,
    /// The client's newest action number.
    pub last_action: u64,
    /// The newest action number the server handled.
    pub handled_action: u64,
    /// Server updates that moved the counter up.
    pub upward_jumps: u64,
    /// Shots the server refused as fired during a reload.
    pub refused_reloading: u64,
    /// Verdicts the client took, each shot's once.
    pub verdicts_received: u64,
}

impl AmmoTally {
    fn measures(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("shots_fired", self.shots_fired),
            ("shots_handled", self.shots_handled),
            ("reloads_started", self.reloads_started),
            ("reloads_handled", self.reloads_handled),
            ("last_action", self.last_action),
            ("handled_action", self.handled_action),
            ("upward_jumps", self.upward_jumps),
            ("refused_reloading", self.refused_reloading),
            ("verdicts_received", self.verdicts_received),
        ]
    }
}

/// The link of the reports: RTT 150 ± 30 ms, `uplink_loss` % lost on the
/// way up, 10 % of the way down reordered.
pub fn lossy_link(uplink_loss: u8) -> NetSettings {
    NetSettings {
        uplink: LinkSettings::simple(75, 30, uplink_loss),
        downlink: LinkSettings {
            reorder_percent: 10,
            ..LinkSettings::simple(75, 30, 0)
        },
    }
}

/// RTT 200 ms with `downlink_loss` % lost on the way down: where the
/// verdicts go missing (Facepunch/sbox-issues#2099 lost its RPCs at 200 ms
/// of fake lag).
pub fn lossy_downlink(downlink_loss: u8) -> NetSettings {
    NetSettings {
        uplink: LinkSettings::simple(100, 0, 0),
        downlink: LinkSettings::simple(100, 0, downlink_loss),
    }
}

/// A player on `link` (the room seeded with `seed`) holds the trigger for
/// `seconds` — a shot whenever the weapon allows, a reload whenever the
/// magazine is empty — then waits 2 s. Returns both ends' counts and the
/// run's fingerprint.
pub fn fire_through_reloads(seed: u64, link: NetSettings, seconds: u32) -> (AmmoTally, u64) {
    let Ok(mut s) = RoomSession::new(RoomConfig::default(), seed) else {
        return (AmmoTally::default(), 0);
    };
    let Ok(me) = s.join(link) else {
        return (AmmoTally::default(), 0);
    };
    let (mut rec, mut t) = (Recorder::default(), AmmoTally::default());
    let still = |_: PlayerId, _: &RoomEndpoint| (Vec2::ZERO, false);
    let firing = 120..(120 + 60 * seconds);
    for frame in 0..(firing.end + 120) {
        s.step(FRAME, still);
        if firing.contains(&frame) {
            let acted = s.act(me, |e, now| match e.fire(now, Vec2::new(2000.0, 750.0)) {
                Ok(_) => (1, 0),
                Err(FireError::Empty) => (0, u64::from(e.reload(now).is_ok())),
                Err(_) => (0, 0),
            });
            let (shot, reload) = acted.unwrap_or((0, 0));
            t.shots_fired += shot;
            t.reloads_started += reload;
        }
        rec.frame(&s, me);
        // Both ends' view of the actions: what is still unacknowledged,
        // what the server has handled and its ammo.
        if let Some(e) = s.endpoint(me) {
            rec.value(e.actions_sent().1 as u64);
        }
        let handled = s.host.actions_handled(me).map_or(0, |a| a.0);
        rec.value(handled.into())
            .value(s.host.ammo(me).unwrap_or(0).into());
    }
    if let (Some(c), Some(e)) = (s.host.shot_counters(me), s.endpoint(me)) {
        t.shots_handled = c.judged + c.fire_rate + c.reloading + c.no_ammo + c.clock_ahead;
        t.reloads_handled = c.reloads;
        t.refused_reloading = c.reloading;
        t.last_action = e.actions_sent().0 .0.into();
        t.upward_jumps = e.ammo().jumps().filter(|j| j.to > j.from).count() as u64;
        t.verdicts_received = e.events().verdicts().count() as u64;
        for v in [
            c.judged,
            c.missed,
            c.too_old,
            c.fire_rate,
            c.no_ammo,
            c.stale,
        ] {
            rec.value(v);
        }
    }
    t.handled_action = s.host.actions_handled(me).map_or(0, |a| a.0.into());
    for (_, v) in t.measures() {
        rec.value(v);
    }
    (t, rec.finish())
}

/// chickynoid #29: 10 s of fire held through reloads on the lossy link
/// with 5 % uplink loss.
pub fn chickynoid_29() -> RunOutcome {
    let (t, fingerprint) = fire_through_reloads(29, lossy_link(5), 10);
    RunOutcome {
        fingerprint,
        measures: t.measures(),
    }
}

/// Facepunch/sbox-issues #2099: 10 s of fire held through reloads at RTT
/// 200 ms with 20 % downlink loss; sent once, 16 of the 72 verdicts never
/// reached the shooter.
pub fn sbox_issues_2099() -> RunOutcome {
    let (t, fingerprint) = fire_through_reloads(2099, lossy_downlink(20), 10);
    RunOutcome {
        fingerprint,
        measures: t.measures(),
    }
}

/// RiseOfTheDead #875: the same on a lossless link at RTT 150 ± 30 ms,
/// where the first shot after a reload was refused as "reloading" in 8 of
/// 20 seeds while a fixed 10 ms was the tolerance (this one among them,
/// before the fix and with only the tolerance put back).
pub fn riseofthedead_875() -> RunOutcome {
    let (t, fingerprint) = fire_through_reloads(9, NetSettings::symmetric(150, 30, 0), 10);
    RunOutcome {
        fingerprint,
        measures: t.measures(),
    }
}
