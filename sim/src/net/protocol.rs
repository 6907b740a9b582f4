//! Message types. Client → server: [`ClientMsg`]; server → client:
//! [`ServerMsg`]. Every float that feeds a simulation is quantized here
//! before anyone simulates with it (DESIGN "Time and determinism").

use crate::math::Vec2;
use crate::movement::{CharacterState, MoveInput, MovementParams};
use crate::net::conditioner::LinkConditions;
use crate::net::gilbert_elliott::GilbertElliott;
use crate::net::link_stats::SeqWindow;
use crate::time::TimeStamp;
use crate::world::World;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One move as the server receives it (UE `FCharacterNetworkMoveData`):
/// time stamp and quantized input. The server derives the move's length
/// from the difference to the previous time stamp, as UE's
/// `GetServerMoveDeltaTime` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkMove {
    /// Client time at the end of the move, ms.
    pub time_stamp: TimeStamp,
    /// The quantized input.
    pub input: MoveInput,
}

/// A position quantized to 1/100 cm (UE `FVector_NetQuantize100`), the
/// client's answer that the server checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetPosition {
    /// x in 1/100 cm.
    pub x: i32,
    /// y in 1/100 cm.
    pub y: i32,
}

impl NetPosition {
    /// Quantizes a position (cm), saturating out-of-range or non-finite
    /// values (non-finite → 0).
    pub fn quantize(p: Vec2) -> NetPosition {
        let q = |v: f32| {
            if v.is_finite() {
                (v * 100.0).round() as i32
            } else {
                0
            }
        };
        NetPosition {
            x: q(p.x),
            y: q(p.y),
        }
    }

    /// The position in cm.
    pub fn to_vec2(self) -> Vec2 {
        Vec2::new(self.x as f32 / 100.0, self.y as f32 / 100.0)
    }
}

/// The packed move message (UE `ServerMovePacked`, `000_…` §3.4): the new
/// move, optionally the held pending move (dual move, `000_…` §8.2) and an
/// old important move sent again for redundancy (`000_…` §8.3). The server
/// runs them old → pending → new (`000_…` §4.1). On the wire it is packed
/// ([`super::packed`]): a typical new move is 15 bytes of body.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerMove {
    /// An unacknowledged important move resent in case it was lost.
    pub old_move: Option<NetworkMove>,
    /// A move held back by send throttling that could not be combined.
    pub pending_move: Option<NetworkMove>,
    /// The newest move.
    pub new_move: NetworkMove,
    /// Where the client ended up after the new move (its answer).
    pub client_location: NetPosition,
    /// The packet's sequence number, `0..=15`, counting every ServerMove the
    /// client sends (lost ones too) and wrapping: the server can tell
    /// that up to 15 of a packet's predecessors are missing (reordered or
    /// lost) — 250 ms of packets at 60 Hz — which time stamps cannot
    /// (move order correction, `crate::server`). UE numbers packets at the connection
    /// level (14-bit `FNetPacketNotify` sequence); this is the ServerMove's
    /// own, 4 bits in the packed header.
    pub seq: u8,
}

impl ServerMove {
    /// Largest [`ServerMove::seq`] + 1: the sequence counts modulo 16.
    pub const SEQ_MODULUS: u8 = 16;

    /// Packet number `seq` (kept modulo [`ServerMove::SEQ_MODULUS`]) with
    /// only a new move (tests, tools).
    pub fn new(seq: u32, new_move: NetworkMove, client_location: NetPosition) -> ServerMove {
        ServerMove {
            old_move: None,
            pending_move: None,
            new_move,
            client_location,
            seq: (seq % u32::from(Self::SEQ_MODULUS)) as u8,
        }
    }
}

/// Why the server corrected the client, shown by the Replayed panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AdjustmentReason {
    /// The reported location was off by more than the threshold (16 cm).
    PositionError,
    /// `p.NetForceClientAdjustmentPercent` picked this move.
    Forced,
    /// The client went silent and the server moved it on (`000_…` §9.5).
    ForcedPositionUpdate,
    /// A move was rejected for its time stamp (too far ahead).
    TimeStampRejected,
    /// A move's `dt` was clamped to 0.125 s (`000_…` §9.3).
    DeltaClamped,
    /// The client ran ahead of real time and the excess was cut (§9.4).
    TimeDiscrepancy,
}

impl AdjustmentReason {
    /// A short label for people.
    pub fn label(self) -> &'static str {
        match self {
            AdjustmentReason::PositionError => "error above threshold",
            AdjustmentReason::Forced => "forced (NetForceClientAdjustmentPercent)",
            AdjustmentReason::ForcedPositionUpdate => "forced position update",
            AdjustmentReason::TimeStampRejected => "time stamp rejected",
            AdjustmentReason::DeltaClamped => "delta clamped to 0.125 s",
            AdjustmentReason::TimeDiscrepancy => "time discrepancy",
        }
    }
}

/// The server's verdict on the newest move it checked (UE
/// `FClientAdjustment` sent by `ServerSendMoveResponse`, `000_…` §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum MoveResponse {
    /// Every move up to this time stamp was good (UE `ClientAckGoodMove`).
    Ack {
        /// The acknowledged time stamp.
        time_stamp: TimeStamp,
    },
    /// The client diverged: take this state as of this time stamp (UE
    /// `ClientAdjustPosition`).
    Adjustment {
        /// The time stamp the state belongs to.
        time_stamp: TimeStamp,
        /// The authoritative state, full precision so a replay from it is
        /// bit-identical to the server's own simulation.
        state: CharacterState,
        /// Why.
        reason: AdjustmentReason,
    },
}

/// Impairments of one direction as the page's controls set them. Integers,
/// so the wire is exact and settings compare with `==`; see
/// [`LinkConditions`] for what each does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkSettings {
    /// One-way latency, ms, `0..=1000` (UE `PktLag`).
    pub latency_ms: u16,
    /// ± jitter on each packet's latency, ms, `0..=500` (UE
    /// `PktLagVariance`).
    pub jitter_ms: u16,
    /// Independent loss (the good state's with bursts on), tenths of a
    /// percent, `0..=500` (UE `PktLoss`).
    pub loss_tenth_percent: u16,
    /// Duplicated packets, tenths of a percent, `0..=500` (UE `PktDup`).
    pub duplicate_tenth_percent: u16,
    /// Packets that overtake the queue, percent, `0..=50` (netem
    /// `reorder`; UE `PktOrder`); 0 keeps the order.
    pub reorder_percent: u8,
    /// Gilbert–Elliott good → bad per packet, tenths of a percent,
    /// `0..=200`; 0 turns bursts off.
    pub burst_enter_tenth_percent: u16,
    /// Gilbert–Elliott bad → good per packet, percent, `1..=100`: mean
    /// burst length = 100 / this, packets.
    pub burst_leave_percent: u8,
    /// Loss while in a burst, percent, `0..=100`.
    pub burst_loss_percent: u8,
    /// Bandwidth cap, bytes/s, 0 (none) or `1000..=10_000_000`.
    pub bandwidth_bytes_per_s: u32,
}

impl LinkSettings {
    /// A direction with this latency, jitter and loss (whole percent) and
    /// nothing else.
    pub const fn simple(latency_ms: u16, jitter_ms: u16, loss_percent: u8) -> LinkSettings {
        LinkSettings {
            latency_ms,
            jitter_ms,
            loss_tenth_percent: loss_percent as u16 * 10,
            duplicate_tenth_percent: 0,
            reorder_percent: 0,
            burst_enter_tenth_percent: 0,
            burst_leave_percent: 25,
            burst_loss_percent: 0,
            bandwidth_bytes_per_s: 0,
        }
    }

    /// What the link conditioner does with these settings.
    pub fn conditions(&self) -> LinkConditions {
        LinkConditions {
            latency_ms: self.latency_ms.into(),
            jitter_ms: self.jitter_ms.into(),
            loss: f64::from(self.loss_tenth_percent) / 1000.0,
            burst: GilbertElliott {
                enter_bad: f64::from(self.burst_enter_tenth_percent) / 1000.0,
                leave_bad: f64::from(self.burst_leave_percent.max(1)) / 100.0,
                loss_in_bad: f64::from(self.burst_loss_percent) / 100.0,
            },
            duplicate: f64::from(self.duplicate_tenth_percent) / 1000.0,
            reorder: f64::from(self.reorder_percent) / 100.0,
            bandwidth_bytes_per_s: self.bandwidth_bytes_per_s,
        }
    }

    /// Long-run loss including bursts, `0.0..=1.0`: what a measurement
    /// over many packets should find.
    pub fn mean_loss(&self) -> f64 {
        let c = self.conditions();
        c.burst.mean_loss(c.loss)
    }

    fn validate(&self, names: &[&'static str; 9]) -> Result<(), SettingsError> {
        check(names[0], self.latency_ms.into(), 0, 1000)?;
        check(names[1], self.jitter_ms.into(), 0, 500)?;
        check(names[2], self.loss_tenth_percent.into(), 0, 500)?;
        check(names[3], self.duplicate_tenth_percent.into(), 0, 500)?;
        check(names[4], self.reorder_percent.into(), 0, 50)?;
        check(names[5], self.burst_enter_tenth_percent.into(), 0, 200)?;
        check(names[6], self.burst_leave_percent.into(), 1, 100)?;
        check(names[7], self.burst_loss_percent.into(), 0, 100)?;
        if self.bandwidth_bytes_per_s != 0 {
            check(names[8], self.bandwidth_bytes_per_s, 1000, 10_000_000)?;
        }
        Ok(())
    }
}

/// Link settings the page's controls set, one [`LinkSettings`] per
/// direction, applied by the host to its two link conditioners. The RTT
/// slider sets both latencies to RTT / 2 unless the advanced controls split
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetSettings {
    /// Client → server.
    pub uplink: LinkSettings,
    /// Server → client.
    pub downlink: LinkSettings,
}

impl NetSettings {
    /// The basic sliders: `rtt_ms` split evenly between the directions,
    /// the same jitter (ms) and loss (whole percent) both ways.
    pub const fn symmetric(rtt_ms: u16, jitter_ms: u16, loss_percent: u8) -> NetSettings {
        let one_way = LinkSettings::simple(rtt_ms / 2, jitter_ms, loss_percent);
        NetSettings {
            uplink: one_way,
            downlink: one_way,
        }
    }

    /// Configured round-trip latency, ms (both one-way latencies).
    pub fn rtt_ms(&self) -> u32 {
        u32::from(self.uplink.latency_ms) + u32::from(self.downlink.latency_ms)
    }
}

impl Default for NetSettings {
    /// RTT 100 ms, no jitter, no loss (issue #2).
    fn default() -> Self {
        NetSettings::symmetric(100, 0, 0)
    }
}

/// A lag spike the page's button asks for: both directions get `extra_ms`
/// more latency for packets sent during the next `duration_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LagSpike {
    /// Added one-way latency, ms, `1..=5000`.
    pub extra_ms: u16,
    /// How long packets are sent into the spike, ms, `1..=30000`.
    pub duration_ms: u16,
}

impl LagSpike {
    /// Checks both fields.
    ///
    /// # Errors
    /// [`SettingsError`] naming the field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check("extra_ms", self.extra_ms.into(), 1, 5000)?;
        check("duration_ms", self.duration_ms.into(), 1, 30000)
    }
}

/// The server's rules the page's controls change (see
/// [`crate::ServerConfig`] for each rule's source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRules {
    /// Minimum time between two Acks, ms, `0..=1000` (UE
    /// `NetworkMinTimeBetweenClientAckGoodMoves`, 100).
    pub ack_interval_ms: u16,
    /// Minimum time between two Adjustments, ms, `0..=1000` (UE
    /// `NetworkMinTimeBetweenClientAdjustments`, 100).
    pub adjustment_interval_ms: u16,
    /// Position error threshold, tenths of a cm, `1..=1000` (160 = 16 cm).
    pub max_position_error_tenth_cm: u16,
    /// Percent of checked moves corrected anyway, `0..=100`.
    pub forced_adjustment_percent: u8,
    /// Server-only push zones on.
    pub server_effects: bool,
    /// Cut the excess when the client runs ahead of real time.
    pub time_discrepancy_resolution: bool,
}

impl Default for ServerRules {
    fn default() -> Self {
        ServerRules {
            ack_interval_ms: 100,
            adjustment_interval_ms: 100,
            max_position_error_tenth_cm: 160,
            forced_adjustment_percent: 0,
            server_effects: false,
            time_discrepancy_resolution: false,
        }
    }
}

/// A setting outside its slider range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{name} = {value} is outside {min}..={max}")]
pub struct SettingsError {
    /// Which setting.
    pub name: &'static str,
    /// The value received.
    pub value: u32,
    /// Lowest allowed.
    pub min: u32,
    /// Highest allowed.
    pub max: u32,
}

fn check(name: &'static str, value: u32, min: u32, max: u32) -> Result<(), SettingsError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(SettingsError {
            name,
            value,
            min,
            max,
        })
    }
}

impl NetSettings {
    /// Checks every field of both directions against its range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range, e.g.
    /// `uplink.loss_tenth_percent`.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.uplink.validate(&[
            "uplink.latency_ms",
            "uplink.jitter_ms",
            "uplink.loss_tenth_percent",
            "uplink.duplicate_tenth_percent",
            "uplink.reorder_percent",
            "uplink.burst_enter_tenth_percent",
            "uplink.burst_leave_percent",
            "uplink.burst_loss_percent",
            "uplink.bandwidth_bytes_per_s",
        ])?;
        self.downlink.validate(&[
            "downlink.latency_ms",
            "downlink.jitter_ms",
            "downlink.loss_tenth_percent",
            "downlink.duplicate_tenth_percent",
            "downlink.reorder_percent",
            "downlink.burst_enter_tenth_percent",
            "downlink.burst_leave_percent",
            "downlink.burst_loss_percent",
            "downlink.bandwidth_bytes_per_s",
        ])
    }
}

impl ServerRules {
    /// Checks every field against its control's range.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check("ack_interval_ms", self.ack_interval_ms.into(), 0, 1000)?;
        check(
            "adjustment_interval_ms",
            self.adjustment_interval_ms.into(),
            0,
            1000,
        )?;
        check(
            "max_position_error_tenth_cm",
            self.max_position_error_tenth_cm.into(),
            1,
            1000,
        )?;
        check(
            "forced_adjustment_percent",
            self.forced_adjustment_percent.into(),
            0,
            100,
        )
    }

    /// These rules applied over `base`.
    pub fn apply_to(&self, base: crate::ServerConfig) -> crate::ServerConfig {
        crate::ServerConfig {
            ack_interval: f32::from(self.ack_interval_ms) / 1000.0,
            adjustment_interval: f32::from(self.adjustment_interval_ms) / 1000.0,
            max_position_error: f32::from(self.max_position_error_tenth_cm) / 10.0,
            forced_adjustment_percent: f32::from(self.forced_adjustment_percent),
            server_effects: self.server_effects,
            time_discrepancy_resolution: self.time_discrepancy_resolution,
            ..base
        }
    }
}

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
        /// Sender's sequence number, from 1 (see [`super::link_stats`]).
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

/// Another player, as replicated to a simulated proxy (UE
/// `ReplicatedMovement`, `000_…` §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProxyUpdate {
    /// Which character.
    pub id: u8,
    /// The server's replication counter: newest wins, a late or duplicate
    /// update is ignored ([`super::newest_wins`]).
    pub seq: u32,
    /// Its authoritative position (cm) and velocity (cm/s).
    pub position: Vec2,
    /// Velocity, cm/s, used to extrapolate between updates.
    pub velocity: Vec2,
}

/// What the server did with one received move, for the Authoritative panel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ObservedMove {
    /// Server position after the move, cm.
    pub position: Vec2,
    /// The client's reported position when this was a checked new move and
    /// an Adjustment was pending for it.
    pub corrected_from: Option<Vec2>,
}

/// The true server state, streamed to the page for the Authoritative panel.
/// A debug view: it bypasses the link conditioner (it is how a developer
/// watches the server, not game traffic) and is not counted in bytes/s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObserverSnapshot {
    /// The server's replication counter (the net update's, shared with the
    /// proxy update sent beside it): newest wins.
    pub seq: u32,
    /// The player's authoritative state.
    pub player: CharacterState,
    /// Time stamp of the last move the server simulated, if any.
    pub last_time_stamp: Option<TimeStamp>,
    /// Moves simulated since the previous snapshot, oldest first (at most
    /// [`ObserverSnapshot::MAX_MOVES`]; older ones are left out).
    pub moves: Vec<ObservedMove>,
    /// The other characters' authoritative positions, cm.
    pub others: Vec<Vec2>,
    /// The server's counters so far.
    pub totals: ServerTotals,
    /// What the host's two link conditioners did so far (the configured
    /// side, for the plots; measured values come from Ping/Pong).
    pub link: LinkTotals,
}

/// One link conditioner's counters, as streamed to the page (saturating
/// at `u32::MAX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DirectionTotals {
    /// Packets offered.
    pub sent: u32,
    /// Dropped by loss (independent or burst).
    pub lost: u32,
    /// Dropped by a full queue or the bandwidth cap's queue limit.
    pub overflowed: u32,
    /// Extra copies made.
    pub duplicated: u32,
    /// Packets that overtook the queue.
    pub reordered: u32,
    /// Packets in flight now.
    pub in_flight: u32,
    /// `true` while the burst chain is in its bad state.
    pub in_burst: bool,
    /// `true` while a lag spike applies.
    pub in_spike: bool,
}

/// Both directions' [`DirectionTotals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LinkTotals {
    /// Client → server.
    pub up: DirectionTotals,
    /// Server → client.
    pub down: DirectionTotals,
}

/// Server counters streamed to the page (saturating at `u32::MAX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ServerTotals {
    /// Moves simulated.
    pub moves: u32,
    /// Acks sent.
    pub acks: u32,
    /// Adjustments sent.
    pub adjustments: u32,
    /// Moves ignored as already processed (duplicates, resent old moves).
    pub ignored: u32,
    /// Moves rejected for their time stamp.
    pub rejected: u32,
    /// Moves whose dt was clamped to 0.125 s.
    pub clamped: u32,
    /// Time-discrepancy events (client ahead of real time).
    pub time_discrepancy_events: u32,
    /// Forced position updates.
    pub forced_updates: u32,
}

impl ObserverSnapshot {
    /// Cap on [`ObserverSnapshot::moves`] per snapshot.
    pub const MAX_MOVES: usize = 32;
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
        /// observed-loss read-out ([`super::link_stats`]).
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
}
