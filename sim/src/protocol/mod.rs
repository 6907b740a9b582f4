//! # Layer 4: the protocol
//!
//! The one protocol both prediction models and rooms speak, nesting each
//! model's messages. Client → server: [`ClientMsg`]; server → client:
//! [`ServerMsg`], framed by [`crate::net::codec`] with
//! [`PROTOCOL_VERSION`]. The connection's own messages (Hello / Welcome,
//! settings, Ping / Pong, lag spikes, resume, errors, the model switch)
//! are shared, and each model adds its own — the CMC model's ServerMove /
//! MoveResponse / Proxy / Observer ([`crate::cmc::wire`]), the rollback
//! model's Inputs / [`ServerMsg::Rollback`] / [`ServerMsg::RollbackObserver`]
//! ([`crate::rollback::wire`]), and a shared room's [`ClientMsg::Room`] /
//! [`ServerMsg::Room`] ([`crate::room::wire`]; a room player's moves are the
//! CMC model's). Beside the messages: which model a run uses ([`Model`])
//! and the settings that span the models ([`Setup`], [`Setting`]).
//!
//! **May import:** the foundation, the network and the models, and its own
//! modules, each only those above it here.
//!
//! | module | holds |
//! |---|---|
//! | `model` | [`Model`]: which prediction model a run uses |
//! | `setup` | [`Setup`], [`Setting`]: every setting the page holds, and one change |
//! | `trace` | the packet trace's batch as the protocol carries it, with a room's judged shots |
//! | here | the two message enums, [`ResumeToken`], [`PROTOCOL_VERSION`], each message's packet-trace kind |

mod model;
mod setup;
pub mod trace;

pub use model::Model;
pub use setup::{Setting, Setup};

use crate::cmc::rules::ServerRules;
use crate::cmc::wire::{MoveResponse, ObserverSnapshot, ProxyUpdate, ServerMove};
use crate::foundation::movement::MovementParams;
use crate::foundation::world::World;
use crate::net::codec::Versioned;
use crate::net::link_stats::SeqWindow;
use crate::net::settings::{LagSpike, NetSettings};
use crate::net::trace::{PacketKind, Traced};
use crate::net::trace_wire::TraceRequest;
use crate::net::transport::LinkTransport;
use crate::rollback::wire::{InputPacket, RollbackObserver, RollbackServerMsg, SeatReport};
use crate::room::wire::{RoomClientMsg, RoomServerMsg, Verdict};
use serde::{Deserialize, Serialize};
use trace::TraceFrame;

/// Version byte at the start of every frame of [`ClientMsg`] and
/// [`ServerMsg`]. Bump on any wire change.
pub const PROTOCOL_VERSION: u8 = 10;

/// A client → server message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ClientMsg {
    /// First message of a connection.
    Hello,
    /// Moves to re-simulate.
    ServerMove(ServerMove),
    /// New link slider values; applied at once (control channel, not
    /// delayed).
    SetNetSettings(NetSettings),
    /// New server rules; applied at once.
    SetServerRules(ServerRules),
    /// RTT probe; answered with a [`ServerMsg::Pong`] carrying the same id.
    /// Travels through the link conditioner like moves do.
    Ping {
        /// Sender's sequence number, from 1 (see [`crate::net::link_stats`]).
        id: u32,
    },
    /// Start a lag spike on both directions now (control channel).
    LagSpike(LagSpike),
    /// Instead of Hello, on a new connection after the old one dropped:
    /// take over the session `token` names, character and all (reference
    /// `003_…` 断线重连). Answered with a Welcome (the client keeps its
    /// predicted state; the server corrects it with its next response), or
    /// an Error when the token is unknown or its grace period is over.
    /// Only the relay keeps sessions; a host on its own refuses it.
    Resume {
        /// The token from the old connection's [`ServerMsg::SessionToken`].
        token: ResumeToken,
    },
    /// Switch to another prediction model, or change the rollback
    /// model's settings; applied at once (control channel). Another model
    /// starts afresh and is announced with a Welcome naming it; the link,
    /// its settings, the rules and the resume token carry over.
    SetModel(Model),
    /// The rollback model's input packet: the last inputs, every client
    /// tick. Travels through the link conditioner.
    Inputs(InputPacket),
    /// A shared room's own message (join, clock sync, shots, reloads, the
    /// player's room switches, add bot: [`crate::room::wire`]). Only a
    /// room answers it; a single-player host refuses it.
    Room(RoomClientMsg),
    /// Start, change or stop this connection's packet trace (control
    /// channel): answered with [`ServerMsg::Trace`] batches
    /// ([`crate::net::trace_wire`]).
    Trace(TraceRequest),
    /// Datagrams or reliable-ordered from now on, both directions of the
    /// link (control channel); the RTO follows the link settings in force
    /// ([`NetSettings::transport`]).
    SetTransport(LinkTransport),
    /// A rollback room player's own numbers (RTT, input delay, time
    /// dilation), about once a second through the uplink conditioner
    /// (issue 22); answered by everyone's
    /// [`RollbackServerMsg::Seats`]. Only a rollback room takes it.
    SeatReport(SeatReport),
}

/// An unguessable name for a session (128 random bits from the relay's OS
/// randomness): whoever holds it may resume the session, so it is sent only
/// to that session's client.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ResumeToken(pub [u8; 16]);

impl std::fmt::Debug for ResumeToken {
    /// Never prints the secret itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResumeToken(…)")
    }
}

/// A server → client message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ServerMsg {
    /// Reply to Hello: the world and rules both sides simulate.
    Welcome {
        /// The arena.
        world: World,
        /// Movement constants.
        params: MovementParams,
        /// Current network settings.
        settings: NetSettings,
        /// Current server rules.
        rules: ServerRules,
        /// The prediction model the server runs (the client builds its
        /// half of it).
        model: Model,
    },
    /// Ack or Adjustment.
    MoveResponse(MoveResponse),
    /// A simulated proxy's replicated movement.
    Proxy(ProxyUpdate),
    /// The server's true state (debug view).
    Observer(ObserverSnapshot),
    /// Answer to a Ping.
    Pong {
        /// The Ping's id.
        id: u32,
        /// The Ping ids the server has received, for the client's
        /// observed-loss read-out ([`crate::net::link_stats`]).
        received: SeqWindow,
    },
    /// Something the client sent was rejected; the session goes on.
    Error {
        /// Why, for people.
        reason: String,
    },
    /// Sent by the relay after a Welcome: the token that resumes this
    /// session from a new connection within `grace_ms` of this one
    /// dropping ([`ClientMsg::Resume`]).
    SessionToken {
        /// The secret.
        token: ResumeToken,
        /// How long the relay keeps the session after the socket drops, ms.
        grace_ms: u32,
    },
    /// The rollback model's Start, Ack or State (through the link
    /// conditioner).
    Rollback(RollbackServerMsg),
    /// The rollback server's true state (debug view, like
    /// [`ServerMsg::Observer`]).
    RollbackObserver(RollbackObserver),
    /// A shared room's own message (joined or refused, roster, net
    /// updates, clock sync, shot verdicts, ammo: [`crate::room::wire`]).
    Room(RoomServerMsg),
    /// A batch of this connection's packet trace, when the client asked
    /// ([`ClientMsg::Trace`]); past the conditioner.
    Trace(Box<TraceFrame>),
}

impl ClientMsg {
    /// Whether the message acts at once (control channel) rather than
    /// crossing the uplink conditioner: everything but ServerMoves,
    /// rollback inputs and seat reports, Pings and a room's clock sync, shots and reloads.
    pub fn is_control(&self) -> bool {
        !matches!(
            self,
            ClientMsg::ServerMove(_)
                | ClientMsg::Inputs(_)
                | ClientMsg::Ping { .. }
                | ClientMsg::SeatReport(_)
                | ClientMsg::Room(
                    RoomClientMsg::TimeRequest { .. }
                        | RoomClientMsg::Fire(_)
                        | RoomClientMsg::Reload { .. }
                )
        )
    }
}

impl Versioned for ClientMsg {
    const VERSION: u8 = PROTOCOL_VERSION;
}

impl Versioned for ServerMsg {
    const VERSION: u8 = PROTOCOL_VERSION;
}

impl Traced for ClientMsg {
    fn traced(&self) -> (PacketKind, u32, [u32; 2]) {
        match self {
            ClientMsg::ServerMove(m) => m.traced(),
            ClientMsg::Inputs(p) => (PacketKind::Inputs, p.newest.0, [0; 2]),
            ClientMsg::Ping { id } => (PacketKind::Ping, *id, [0; 2]),
            ClientMsg::Room(RoomClientMsg::Fire(s)) => (PacketKind::Shot, s.seq.0, [0; 2]),
            ClientMsg::Room(RoomClientMsg::Reload { seq, .. }) => {
                (PacketKind::Reload, seq.0, [0; 2])
            }
            ClientMsg::Room(RoomClientMsg::TimeRequest { .. }) => (PacketKind::Clock, 0, [0; 2]),
            _ => (PacketKind::Other, 0, [0; 2]),
        }
    }
}

impl Traced for ServerMsg {
    fn traced(&self) -> (PacketKind, u32, [u32; 2]) {
        let (kind, detail) = match self {
            ServerMsg::MoveResponse(r) => return r.traced(),
            ServerMsg::Rollback(RollbackServerMsg::Ack(a)) => {
                return (PacketKind::RollbackAck, a.tick.0, [a.missed, a.late]);
            }
            ServerMsg::Rollback(RollbackServerMsg::State(s)) => {
                (PacketKind::State, s.snapshot.tick.0)
            }
            ServerMsg::Rollback(RollbackServerMsg::View(v)) => {
                (PacketKind::State, v.snapshot.tick.0)
            }
            ServerMsg::Proxy(p) => (PacketKind::Proxy, p.seq),
            ServerMsg::Room(RoomServerMsg::Proxies(b)) => (PacketKind::Proxy, b.seq.0),
            ServerMsg::Room(RoomServerMsg::ShotResult(r)) => {
                return (
                    PacketKind::Verdict,
                    r.seq.0,
                    [verdict_code(r.verdict), u32::from(r.rewind_ms)],
                );
            }
            ServerMsg::Room(RoomServerMsg::Ammo(a)) => {
                return (
                    PacketKind::Ammo,
                    a.ack.0,
                    [u32::from(a.ammo), a.verdict.map_or(0, |r| r.seq.0)],
                );
            }
            ServerMsg::Room(RoomServerMsg::TimeReport { .. }) => (PacketKind::Clock, 0),
            ServerMsg::Pong { id, .. } => (PacketKind::Pong, *id),
            _ => (PacketKind::Other, 0),
        };
        (kind, detail, [0; 2])
    }
}

/// A verdict in a packet's trace record ([`PacketKind::Verdict`]): 0 head,
/// 1 body, 2 miss, 3 + the reason's place in
/// [`crate::room::weapon::RejectReason`] rejected.
pub fn verdict_code(v: Verdict) -> u32 {
    use crate::room::weapon::RejectReason as R;
    match v {
        Verdict::HitHead => 0,
        Verdict::HitBody => 1,
        Verdict::Miss => 2,
        Verdict::Rejected(r) => {
            3 + match r {
                R::TooOld => 0,
                R::FireRate => 1,
                R::Reloading => 2,
                R::NoAmmo => 3,
                R::ClockAhead => 4,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::wire::{NetPosition, NetworkMove, ServerMove};
    use crate::foundation::math::Vec2;
    use crate::foundation::movement::MoveInput;
    use crate::foundation::time::SimTime;
    use crate::foundation::time::TimeStamp;
    use crate::net::codec::{decode, encode, DecodeError, MAX_FRAME_LEN};
    use crate::room::replication::{
        MovementMode, NetVelocity, PlayerId, ProxyBatch, ReplicatedMovement,
        MAX_CHARACTERS_PER_BATCH, PROXY_BATCH_HEADER_MAX_LEN, REPLICATED_MOVEMENT_MAX_LEN,
    };
    use crate::room::wire::{DrawnFrom, MeshOffset, NetDirection, NetOffset, Shot};
    use crate::room::Seq;
    use proptest::prelude::*;

    fn typical_move() -> ClientMsg {
        ClientMsg::ServerMove(ServerMove::new(
            5,
            NetworkMove {
                time_stamp: TimeStamp(61_234),
                input: MoveInput::from_direction(Vec2::new(0.6, -0.8), false),
            },
            NetPosition::quantize(Vec2::new(1234.56, 789.01)),
        ))
    }

    #[test]
    fn round_trip_and_size_of_a_typical_server_move() {
        let frame = encode(&typical_move());
        assert_eq!(frame[0], PROTOCOL_VERSION);
        assert_eq!(decode::<ClientMsg>(&frame).unwrap(), typical_move());
        // version 1 + variant 1 + header 1 + ts 3 + accel 2+2 + location
        // 3+3 (issue #6's budget: ≤ 16).
        assert_eq!(frame.len(), 16);
    }

    #[test]
    fn bad_frames_are_errors_with_reasons() {
        assert_eq!(decode::<ClientMsg>(&[]), Err(DecodeError::Empty));
        assert_eq!(
            decode::<ClientMsg>(&[PROTOCOL_VERSION + 1, 0]),
            Err(DecodeError::UnsupportedVersion {
                got: PROTOCOL_VERSION + 1,
                expected: PROTOCOL_VERSION
            })
        );
        assert!(matches!(
            decode::<ClientMsg>(&[PROTOCOL_VERSION, 200]),
            Err(DecodeError::Malformed(_))
        ));
        let mut frame = encode(&ClientMsg::Ping { id: 7 });
        frame.push(0);
        assert_eq!(
            decode::<ClientMsg>(&frame),
            Err(DecodeError::TrailingBytes(1))
        );
        let big = vec![PROTOCOL_VERSION; MAX_FRAME_LEN + 1];
        assert_eq!(
            decode::<ClientMsg>(&big),
            Err(DecodeError::TooLarge {
                len: 2049,
                max: 2048
            })
        );
    }

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
        let frame = encode(&msg);
        assert_eq!(decode::<ServerMsg>(&frame).unwrap(), msg);
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
            encode(&ServerMsg::Room(RoomServerMsg::Proxies(ProxyBatch {
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
        assert!(largest + REPLICATED_MOVEMENT_MAX_LEN > MAX_FRAME_LEN);
    }

    proptest! {
        /// Invariant: any byte string decodes to a message or an error —
        /// never a panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
            let _ = decode::<ClientMsg>(&bytes);
            let _ = decode::<ServerMsg>(&bytes);
        }

        /// Invariant: a shot survives the wire unchanged.
        #[test]
        fn shots_round_trip(seq in any::<u32>(), at in any::<u64>(), back in any::<u32>(),
                            x in any::<i32>(), y in any::<i32>(), dx in any::<i16>(), dy in any::<i16>(),
                            id in any::<u32>(), ahead in any::<bool>()) {
            let hit_time = SimTime(at.saturating_sub(back.into()));
            let from = SimTime(hit_time.0.saturating_sub(50_000));
            let drawn = if ahead {
                DrawnFrom::Ahead {
                    from,
                    offsets: vec![MeshOffset { id: PlayerId(id), offset: NetOffset { x: dx, y: dy } }],
                }
            } else {
                DrawnFrom::Between { from, to: hit_time }
            };
            let msg = ClientMsg::Room(RoomClientMsg::Fire(Shot {
                seq: Seq(seq),
                at: SimTime(at),
                hit_time,
                origin: NetPosition { x, y },
                direction: NetDirection { x: dx, y: dy },
                drawn,
            }));
            prop_assert_eq!(decode::<ClientMsg>(&encode(&msg)).unwrap(), msg);
        }
    }
}
