//! Room messages, nested in the one protocol: client → room
//! [`RoomClientMsg`] travels as [`ClientMsg::Room`], room → client
//! [`RoomServerMsg`] as [`ServerMsg::Room`], framed with
//! [`crate::net::codec`]. What a room shares with a single-player session
//! is the connection's own messages — settings, rules, lag spikes,
//! Ping / Pong, resume, errors — and the CMC model's ServerMove and
//! MoveResponse: a room player sends and receives those as they are. Every
//! float a simulation or a trace uses is quantized here first (DESIGN
//! "Time and determinism").
//!
//! | message | channel | why |
//! |---|---|---|
//! | Join → Joined / Refused, Roster, player settings, `MaxRecordTime`, AddBot | control: at once | a player's set-up, like Hello / Welcome |
//! | (ServerMove → MoveResponse, Ping → Pong) | through the link conditioner | the CMC model of `000_…`, the link's RTT probe |
//! | TimeRequest → TimeReport | conditioned | clock sync (`003_…` 对表) |
//! | Fire → ShotResult + Ammo (a repeat → Ammo with the verdict again); Reload → Ammo | conditioned | lag compensation, predicted ammo |
//! | Proxies | conditioned, per net update | replicated movement, newest wins |
//!
//! [`ClientMsg::Room`]: crate::protocol::ClientMsg::Room
//! [`ServerMsg::Room`]: crate::protocol::ServerMsg::Room

use super::config::PlayerSettings;
use super::hitbox::{HitZone, Ray};
use super::replication::{PlayerId, ProxyBatch};
use super::seq::Seq;
use super::weapon::{RejectReason, WeaponConfig};
use crate::cmc::wire::NetPosition;
use crate::foundation::math::Vec2;
use crate::foundation::movement::MovementParams;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use serde::{Deserialize, Serialize};

/// Full scale of a quantized direction component.
const DIRECTION_SCALE: f32 = 32767.0;

/// A direction quantized to 16 bits a component (the scale of
/// [`crate::foundation::movement::MoveInput`]'s acceleration); both ends trace along
/// [`NetDirection::to_unit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetDirection {
    /// x, `-32767..=32767` of the unit vector.
    pub x: i16,
    /// y, `-32767..=32767` of the unit vector.
    pub y: i16,
}

impl NetDirection {
    /// Quantizes the direction of `v` (zero or non-finite → zero).
    pub fn quantize(v: Vec2) -> NetDirection {
        let n = if v.is_finite() {
            v.safe_normal()
        } else {
            Vec2::ZERO
        };
        let q = |c: f32| (c * DIRECTION_SCALE).round() as i16;
        NetDirection {
            x: q(n.x),
            y: q(n.y),
        }
    }

    /// The unit vector both ends trace along (zero for a zero direction).
    pub fn to_unit(self) -> Vec2 {
        Vec2::new(f32::from(self.x), f32::from(self.y)).safe_normal()
    }
}

/// One line of the room's roster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterEntry {
    /// The player.
    pub id: PlayerId,
    /// Driven by the server.
    pub bot: bool,
}

/// A mesh offset (drawn minus collision position), 1/100 cm a component,
/// saturating at ±327.67 cm (the offset never exceeds
/// [`crate::cmc::smoothing::MAX_SMOOTH_UPDATE_DISTANCE`], 256 cm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetOffset {
    /// x, 1/100 cm.
    pub x: i16,
    /// y, 1/100 cm.
    pub y: i16,
}

impl NetOffset {
    /// Rounds to 1/100 cm, saturating (non-finite → 0).
    pub fn quantize(v: Vec2) -> NetOffset {
        let q = |c: f32| {
            if c.is_finite() {
                (c * 100.0).round() as i16
            } else {
                0
            }
        };
        NetOffset {
            x: q(v.x),
            y: q(v.y),
        }
    }

    /// cm.
    pub fn to_vec2(self) -> Vec2 {
        Vec2::new(f32::from(self.x) / 100.0, f32::from(self.y) / 100.0)
    }
}

/// One other character's mesh offset as the shooter drew it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshOffset {
    /// Whose.
    pub id: PlayerId,
    /// Drawn minus collision position.
    pub offset: NetOffset,
}

/// What the shooter's screen drew the others from, so that the server
/// tests the boxes where they were drawn (s&box issue #2931): the net
/// updates the drawn positions come from, in server time, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DrawnFrom {
    /// Interpolation in the past: each character drawn on the line from
    /// its net update of server time `from` to the one of `to`, at the
    /// shot's hit time (`from == to`: held at that update).
    Between {
        /// The older update's server time.
        from: SimTime,
        /// The younger update's server time.
        to: SimTime,
    },
    /// A mesh-offset mode: each character's collision position is its net
    /// update of server time `from` extrapolated with its velocity up to
    /// the hit time (at most [`crate::cmc::proxy::MAX_EXTRAPOLATION`]),
    /// and its body drawn that far off (the ones not listed: none).
    Ahead {
        /// The update's server time.
        from: SimTime,
        /// The mesh offsets that are not zero.
        offsets: Vec<MeshOffset>,
    },
}

/// A shot as the shooter sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shot {
    /// The ammo action number ([`super::ammo`]).
    pub seq: Seq,
    /// When it was fired, in the client's estimate of server time: what
    /// fire-rate validation judges ([`super::weapon`]).
    pub at: SimTime,
    /// The server time of the world the shooter saw when firing (the
    /// reference's `HitTime`): where the server rewinds to, and what the
    /// rewind cap judges.
    pub hit_time: SimTime,
    /// Where the ray starts: the shooter's centre, 1/100 cm.
    pub origin: NetPosition,
    /// Which way it goes.
    pub direction: NetDirection,
    /// How the others were drawn at `hit_time`.
    pub drawn: DrawnFrom,
}

impl Shot {
    /// The ray it was fired along, `range_cm` long and stopped at the
    /// first wall of `world`: the one the server judges and a playback
    /// draws.
    pub fn ray(&self, range_cm: f32, world: &World) -> Ray {
        Ray {
            origin: self.origin.to_vec2(),
            direction: self.direction.to_unit(),
            length: range_cm,
        }
        .stopped_by_walls(world)
    }
}

/// The server's verdict on a shot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Struck a character's head circle.
    HitHead,
    /// Struck a character's body (not the head).
    HitBody,
    /// Struck no one.
    Miss,
    /// Not judged.
    Rejected(RejectReason),
}

impl Verdict {
    /// The verdict for a zone struck.
    pub fn hit(zone: HitZone) -> Verdict {
        match zone {
            HitZone::Head => Verdict::HitHead,
            HitZone::Body => Verdict::HitBody,
        }
    }

    /// `true` for a head or body hit.
    pub fn is_hit(self) -> bool {
        matches!(self, Verdict::HitHead | Verdict::HitBody)
    }

    /// The verdict in words: `hit head`, `miss`, `rejected: too old`, …
    /// (the page's shot log and a fork's changed verdicts).
    pub fn text(self) -> &'static str {
        match self {
            Verdict::HitHead => "hit head",
            Verdict::HitBody => "hit body",
            Verdict::Miss => "miss",
            Verdict::Rejected(r) => match r {
                RejectReason::TooOld => "rejected: too old",
                RejectReason::FireRate => "rejected: fire rate",
                RejectReason::Reloading => "rejected: reloading",
                RejectReason::NoAmmo => "rejected: no ammo",
                RejectReason::ClockAhead => "rejected: clock ahead",
            },
        }
    }
}

/// The character a verdict is about, as the server saw it: three of the
/// four views of a shot (the fourth, what the shooter saw, the shooter
/// keeps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetViews {
    /// The character hit, or on a miss the one the ray passed closest to.
    pub id: PlayerId,
    /// The centre of the boxes the server tested (rewound to the hit time
    /// when rewind is on), 1/100 cm.
    pub tested: NetPosition,
    /// Where the character is on the server as the verdict is made.
    pub server_now: NetPosition,
    /// Where the character's own player saw themself when the shot was
    /// fired: the server's frame one estimated uplink trip after the
    /// claimed fire time (a predicting client is that far ahead of the
    /// server), or the newest if that is still to come — "shot around the
    /// corner" when it differs from `tested`.
    pub target_saw: NetPosition,
}

/// The answer to a shot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShotResult {
    /// The shot's action number.
    pub seq: Seq,
    /// The verdict.
    pub verdict: Verdict,
    /// How far back the server went, ms (0 with rewind off).
    pub rewind_ms: u16,
    /// The character judged, if any character was in front of the shooter.
    pub target: Option<TargetViews>,
}

/// The server's ammo (`003_…` `ClientUpdateAmmo`), with the newest action
/// it has handled: the client re-applies only its actions after `ack`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmmoUpdate {
    /// The newest ammo action handled.
    pub ack: Seq,
    /// Rounds left after it.
    pub ammo: u16,
    /// In answer to a shot that came again (a copy or a resend), its
    /// verdict again: the first one may have been lost
    /// ([`super::actions`]).
    pub verdict: Option<ShotResult>,
}

/// A client → room message (on the wire as
/// [`crate::protocol::ClientMsg::Room`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RoomClientMsg {
    /// Take a seat (and again after a resume): answered with
    /// [`RoomServerMsg::Joined`].
    Join,
    /// `ServerRequestServerTime` (`003_…`).
    TimeRequest {
        /// The client's clock when it sent this.
        client_time: SimTime,
        /// Its current estimate of the server's clock, if it has one: the
        /// server learns from it how far ahead this player's own view is.
        server_estimate: Option<SimTime>,
    },
    /// A shot.
    Fire(Shot),
    /// A reload started at `at` (client's estimate of server time).
    Reload {
        /// The ammo action number.
        seq: Seq,
        /// When, in estimated server time.
        at: SimTime,
    },
    /// This player's room switches (control channel).
    SetPlayerSettings(PlayerSettings),
    /// The room's `MaxRecordTime`, ms (control channel, room-wide).
    SetMaxRecordTime {
        /// See [`super::history::MAX_RECORD_TIME_RANGE_MS`].
        ms: u16,
    },
    /// Put a server-driven bot in the room (control channel).
    AddBot,
    /// Watch a rollback room's match without a seat (a spectator, issue
    /// 22), instead of Join as the first frame (and again after a
    /// resume): answered with
    /// [`crate::rollback::wire::RollbackServerMsg::Watch`], then every
    /// State as a [`crate::rollback::wire::RollbackServerMsg::View`]. A CMC
    /// room refuses it.
    Watch,
}

/// A room → client message (on the wire as
/// [`crate::protocol::ServerMsg::Room`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RoomServerMsg {
    /// The answer to Join.
    Joined {
        /// This player.
        you: PlayerId,
        /// Where the character stands now (the spawn point for a
        /// newcomer), cm.
        spawn: Vec2,
        /// The arena.
        world: World,
        /// Movement constants.
        params: MovementParams,
        /// The weapon.
        weapon: WeaponConfig,
        /// This player's switches in force.
        settings: PlayerSettings,
        /// The room's `MaxRecordTime` in force, ms.
        max_record_time_ms: u16,
    },
    /// The room would not take this connection (full): the driver sends it
    /// and closes.
    Refused {
        /// Why, for people.
        reason: String,
    },
    /// Who is in the room, sent to everyone when it changes (and the
    /// room-wide `MaxRecordTime`, which anyone may change).
    Roster {
        /// Everyone, by id.
        players: Vec<RosterEntry>,
        /// The room's `MaxRecordTime` in force, ms.
        max_record_time_ms: u16,
    },
    /// A net update.
    Proxies(ProxyBatch),
    /// `ClientReportServerTime` (`003_…`).
    TimeReport {
        /// The request's `client_time`.
        client_time: SimTime,
        /// The server's clock when the request arrived.
        server_time: SimTime,
    },
    /// The verdict on one of this player's shots.
    ShotResult(ShotResult),
    /// This player's ammo.
    Ammo(AmmoUpdate),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_are_unit_after_quantization() {
        let d = NetDirection::quantize(Vec2::new(3.0, -4.0));
        assert_eq!(
            d,
            NetDirection {
                x: 19660,
                y: -26214
            }
        );
        assert!((d.to_unit().length() - 1.0).abs() < 1e-6);
        assert_eq!(
            NetDirection::quantize(Vec2::new(f32::NAN, 0.0)).to_unit(),
            Vec2::ZERO
        );
    }
}
