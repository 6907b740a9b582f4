//! What happened to every packet of a connection: the data of the packet
//! timeline. A [`crate::net::link::HostLink`] with tracing on records, for
//! each packet it offers a link conditioner, its direction, its place in
//! that direction's send order, what it carried (kind and the tick or time
//! stamp that names it), its size, when it left and its [`Fate`] — the same
//! fate the conditioner gave it, recorded as it was decided. Tracing is on
//! in local mode and scenario runs (in process, so both ends are known),
//! off on the relay (it would cost memory per session and the page cannot
//! see the relay's conditioner anyway).

use crate::bounded::Bounded;
use crate::net::conditioner::Fate;
use crate::net::protocol::{ClientMsg, MoveResponse, ServerMove, ServerMsg};
use crate::rollback::RollbackServerMsg;
use crate::room::wire::RoomServerMsg;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which way a packet went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// Client → server.
    Up,
    /// Server → client.
    Down,
}

/// What a packet carried, for the timeline's colours and the inspector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// A CMC ServerMove; `detail` is its new move's time stamp, ms.
    ServerMove,
    /// A rollback input packet; `detail` is its newest input's tick.
    Inputs,
    /// An RTT probe; `detail` is its id.
    Ping,
    /// An Ack of a ServerMove; `detail` is the time stamp acknowledged.
    Ack,
    /// An Adjustment; `detail` is the time stamp corrected.
    Adjustment,
    /// A rollback Ack; `detail` is the tick processed, `also` the
    /// player's missed and late input counts so far (a missed count that
    /// grew since the previous Ack: this tick was decided without the
    /// client's input).
    RollbackAck,
    /// A rollback State; `detail` is its tick.
    State,
    /// A simulated proxy's replicated movement; `detail` is its
    /// replication counter.
    Proxy,
    /// A Pong; `detail` is the Ping's id.
    Pong,
    /// Anything else (settings, control).
    Other,
}

/// A message's kind, the number that names it and two more (see
/// [`PacketKind`]).
pub trait Traced {
    /// Kind, detail and the extra time stamps.
    fn traced(&self) -> (PacketKind, u32, [u32; 2]);
}

impl Traced for ServerMove {
    fn traced(&self) -> (PacketKind, u32, [u32; 2]) {
        (
            PacketKind::ServerMove,
            self.new_move.time_stamp.0,
            [
                self.pending_move.map_or(0, |p| p.time_stamp.0),
                self.old_move.map_or(0, |o| o.time_stamp.0),
            ],
        )
    }
}

impl Traced for MoveResponse {
    fn traced(&self) -> (PacketKind, u32, [u32; 2]) {
        match self {
            MoveResponse::Ack { time_stamp } => (PacketKind::Ack, time_stamp.0, [0; 2]),
            MoveResponse::Adjustment { time_stamp, .. } => {
                (PacketKind::Adjustment, time_stamp.0, [0; 2])
            }
        }
    }
}

impl Traced for ClientMsg {
    fn traced(&self) -> (PacketKind, u32, [u32; 2]) {
        match self {
            ClientMsg::ServerMove(m) => m.traced(),
            ClientMsg::Inputs(p) => (PacketKind::Inputs, p.newest.0, [0; 2]),
            ClientMsg::Ping { id } => (PacketKind::Ping, *id, [0; 2]),
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
            ServerMsg::Proxy(p) => (PacketKind::Proxy, p.seq),
            ServerMsg::Room(RoomServerMsg::Proxies(b)) => (PacketKind::Proxy, b.seq.0),
            ServerMsg::Pong { id, .. } => (PacketKind::Pong, *id),
            _ => (PacketKind::Other, 0),
        };
        (kind, detail, [0; 2])
    }
}

/// One packet and its fate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketRecord {
    /// Which way.
    pub direction: Direction,
    /// Its place in its direction's send order, from 0 (the conditioner's
    /// packet index: what a fork names to deliver it).
    pub index: u64,
    /// What it carried.
    pub kind: PacketKind,
    /// The tick, time stamp or id that names it (see [`PacketKind`]).
    pub detail: u32,
    /// For a ServerMove: the pending and old moves' time stamps (0: none);
    /// for a rollback Ack: the missed and late input counts.
    pub also: [u32; 2],
    /// Size on the wire, bytes.
    pub bytes: u32,
    /// When it was offered to the link.
    pub sent: SimTime,
    /// What the link did with it.
    pub fate: Fate,
}

/// The packets of one connection, oldest first, at most `capacity` (the
/// oldest are dropped beyond it).
#[derive(Debug, Clone)]
pub struct PacketLog {
    records: Bounded<PacketRecord>,
}

impl PacketLog {
    /// An empty log keeping at most `capacity` records.
    pub fn new(capacity: usize) -> PacketLog {
        PacketLog {
            records: Bounded::new(capacity),
        }
    }

    /// Records a packet sent `index`-th in `direction` at `sent`: what it
    /// carried (`traced`, see [`Traced`]), its size and its fate.
    pub fn record(
        &mut self,
        direction: Direction,
        index: u64,
        (kind, detail, also): (PacketKind, u32, [u32; 2]),
        bytes: usize,
        sent: SimTime,
        fate: Fate,
    ) {
        self.records.push(PacketRecord {
            direction,
            index,
            kind,
            detail,
            also,
            bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
            sent,
            fate,
        });
    }

    /// Every record kept, oldest first.
    pub fn records(&self) -> &VecDeque<PacketRecord> {
        self.records.items()
    }

    /// The records sent in `from..=to`.
    pub fn between(&self, from: SimTime, to: SimTime) -> impl Iterator<Item = &PacketRecord> {
        let records = self.records.items();
        let start = records.partition_point(|r| r.sent < from);
        records.range(start..).take_while(move |r| r.sent <= to)
    }

    /// The uplink ServerMoves that carried the move stamped `ts` (as new,
    /// pending or old move).
    pub fn carrying(&self, ts: u32) -> impl Iterator<Item = &PacketRecord> {
        self.records.items().iter().filter(move |r| {
            r.kind == PacketKind::ServerMove && (r.detail == ts || r.also.contains(&ts))
        })
    }
}
