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
//! | Fire → ShotResult + Ammo; Reload → Ammo | conditioned | lag compensation, predicted ammo |
//! | Proxies | conditioned, per net update | replicated movement, newest wins |
//!
//! [`ClientMsg::Room`]: crate::net::protocol::ClientMsg::Room
//! [`ServerMsg::Room`]: crate::net::protocol::ServerMsg::Room

use super::config::PlayerSettings;
use super::hitbox::HitZone;
use super::seq::Seq;
use super::weapon::WeaponConfig;
use crate::math::Vec2;
use crate::movement::{CharacterState, MovementParams};
use crate::net::protocol::NetPosition;
use crate::time::SimTime;
use crate::world::World;
use serde::{Deserialize, Serialize};

/// A player of a room, given by the room on joining and never reused
/// while the room lives (a late update about a player who left cannot be
/// mistaken for a newcomer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PlayerId(pub u32);

/// Full scale of a quantized direction component.
const DIRECTION_SCALE: f32 = 32767.0;

/// A direction quantized to 16 bits a component (the scale of
/// [`crate::MoveInput`]'s acceleration); both ends trace along
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

/// A velocity in whole cm/s (UE `FRepMovement`'s default
/// `VelocityQuantizationLevel::RoundWholeNumber`), saturating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetVelocity {
    /// x, cm/s.
    pub x: i16,
    /// y, cm/s.
    pub y: i16,
}

impl NetVelocity {
    /// Rounds to whole cm/s (non-finite → 0).
    pub fn quantize(v: Vec2) -> NetVelocity {
        let q = |c: f32| if c.is_finite() { c.round() as i16 } else { 0 };
        NetVelocity {
            x: q(v.x),
            y: q(v.y),
        }
    }

    /// cm/s.
    pub fn to_vec2(self) -> Vec2 {
        Vec2::new(self.x.into(), self.y.into())
    }
}

/// What a character is doing (UE `ReplicatedMovementMode`, `000_…` §7.1;
/// the arena has only a floor, so walking, or dashing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MovementMode {
    /// On foot.
    #[default]
    Walking,
    /// Within a dash's braking-free time ([`MovementParams::dash_duration`]).
    Dashing,
}

impl MovementMode {
    /// The mode of `state`.
    pub fn of(state: &CharacterState, params: &MovementParams) -> MovementMode {
        if state.dash_cooldown > params.dash_cooldown - params.dash_duration {
            MovementMode::Dashing
        } else {
            MovementMode::Walking
        }
    }
}

/// One character's replicated movement (UE `ReplicatedMovement` +
/// `ReplicatedMovementMode`, `000_…` §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicatedMovement {
    /// Whose.
    pub id: PlayerId,
    /// Location, 1/100 cm.
    pub position: NetPosition,
    /// Velocity, whole cm/s.
    pub velocity: NetVelocity,
    /// Walking or dashing.
    pub mode: MovementMode,
}

/// Largest encoded [`ReplicatedMovement`], bytes: varint id (5) +
/// position (5 + 5) + velocity (3 + 3) + mode (1).
pub const REPLICATED_MOVEMENT_MAX_LEN: usize = 22;

/// Largest encoded [`ProxyBatch`] frame without its characters, bytes:
/// version (1) + `ServerMsg::Room` (1) + `Proxies` (1) + seq (5) + server
/// time (10) + count (1).
pub const PROXY_BATCH_HEADER_MAX_LEN: usize = 19;

/// Most characters one net update can carry and still fit
/// [`crate::net::codec::MAX_FRAME_LEN`]: 92. A room holds at most one
/// more player than this ([`super::config::RoomConfig::max_players`]).
pub const MAX_CHARACTERS_PER_BATCH: usize =
    (crate::net::codec::MAX_FRAME_LEN - PROXY_BATCH_HEADER_MAX_LEN) / REPLICATED_MOVEMENT_MAX_LEN;

/// One net update to one player: every *other* character as the server had
/// it at one tick. State, not events: the newest `seq` wins, an older or
/// equal one is ignored, and a character missing from it has left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyBatch {
    /// The replication counter: the server tick the state is from.
    pub seq: Seq,
    /// Server time of that tick.
    pub server_time: SimTime,
    /// The characters, by id.
    pub characters: Vec<ReplicatedMovement>,
}

/// One line of the room's roster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterEntry {
    /// The player.
    pub id: PlayerId,
    /// Driven by the server.
    pub bot: bool,
}

/// A shot as the shooter sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shot {
    /// The ammo action number ([`super::ammo`]).
    pub seq: Seq,
    /// When it was fired, in the client's estimate of server time: what
    /// fire-rate validation judges ([`super::weapon`]).
    pub at: SimTime,
    /// The server time of the world the shooter saw when firing (the
    /// reference's `HitTime`): where the server rewinds to.
    pub hit_time: SimTime,
    /// Where the ray starts: the shooter's centre, 1/100 cm.
    pub origin: NetPosition,
    /// Which way it goes.
    pub direction: NetDirection,
}

/// Why a shot was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RejectReason {
    /// Its hit time is further back than the shooter's rewind cap, or than
    /// the frame history reaches. The round is spent.
    TooOld,
    /// Sooner than the fire interval after the last accepted shot
    /// (`ServerFire_Validate`).
    FireRate,
    /// Fired during a reload.
    Reloading,
    /// The magazine was empty.
    NoAmmo,
    /// Claimed a time in the server's future.
    ClockAhead,
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
}

/// A client → room message (on the wire as
/// [`crate::net::protocol::ClientMsg::Room`]).
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
}

/// A room → client message (on the wire as
/// [`crate::net::protocol::ServerMsg::Room`]).
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
    use crate::net::codec;
    use crate::net::protocol::{ClientMsg, ServerMsg};
    use proptest::prelude::*;

    #[test]
    fn a_net_update_for_15_characters_is_192_bytes() {
        let characters = (0..15u32)
            .map(|i| ReplicatedMovement {
                id: PlayerId(i + 1),
                position: NetPosition::quantize(Vec2::new(2345.67, 1234.56)),
                velocity: NetVelocity::quantize(Vec2::new(-600.0, 424.3)),
                mode: MovementMode::Walking,
            })
            .collect();
        let msg = ServerMsg::Room(RoomServerMsg::Proxies(ProxyBatch {
            seq: Seq(123_456),
            server_time: SimTime::from_millis(3_600_000),
            characters,
        }));
        let frame = codec::encode(&msg);
        assert_eq!(codec::decode::<ServerMsg>(&frame).unwrap(), msg);
        // 1 version + 2 variants + 3 seq + 5 time + 1 count
        // + 15 × (1 id + 3 + 3 position + 2 + 2 velocity + 1 mode).
        assert_eq!(frame.len(), 12 + 15 * 12);
    }

    #[test]
    fn the_largest_possible_net_update_fits_one_frame() {
        let worst = ReplicatedMovement {
            id: PlayerId(u32::MAX),
            position: NetPosition {
                x: i32::MIN,
                y: i32::MIN,
            },
            velocity: NetVelocity {
                x: i16::MIN,
                y: i16::MIN,
            },
            mode: MovementMode::Dashing,
        };
        let batch = |n| {
            codec::encode(&ServerMsg::Room(RoomServerMsg::Proxies(ProxyBatch {
                seq: Seq(u32::MAX),
                server_time: SimTime(u64::MAX),
                characters: vec![worst; n],
            })))
            .len()
        };
        assert_eq!(batch(0), PROXY_BATCH_HEADER_MAX_LEN);
        assert_eq!(
            batch(1),
            PROXY_BATCH_HEADER_MAX_LEN + REPLICATED_MOVEMENT_MAX_LEN
        );
        assert_eq!(MAX_CHARACTERS_PER_BATCH, 92);
        let largest = batch(MAX_CHARACTERS_PER_BATCH);
        assert_eq!(largest, 2043);
        assert!(largest + REPLICATED_MOVEMENT_MAX_LEN > codec::MAX_FRAME_LEN);
    }

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

    proptest! {
        /// Invariant: any byte string decodes to a room message or an
        /// error — never a panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
            let _ = codec::decode::<ClientMsg>(&bytes);
            let _ = codec::decode::<ServerMsg>(&bytes);
        }

        /// Invariant: a shot survives the wire unchanged.
        #[test]
        fn shots_round_trip(seq in any::<u32>(), at in any::<u64>(), back in any::<u32>(),
                            x in any::<i32>(), y in any::<i32>(), dx in any::<i16>(), dy in any::<i16>()) {
            let msg = ClientMsg::Room(RoomClientMsg::Fire(Shot {
                seq: Seq(seq),
                at: SimTime(at),
                hit_time: SimTime(at.saturating_sub(back.into())),
                origin: NetPosition { x, y },
                direction: NetDirection { x: dx, y: dy },
            }));
            prop_assert_eq!(codec::decode::<ClientMsg>(&codec::encode(&msg)).unwrap(), msg);
        }
    }
}
