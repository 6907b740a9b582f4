//! What happened to every packet of a connection: the data of the packet
//! timeline. A [`crate::endpoints::link::HostLink`] with tracing on records, for
//! each packet it offers a link conditioner, its direction, its place in
//! that direction's send order, what it carried (kind and the tick or time
//! stamp that names it), its size, when it left and its [`Fate`] — the same
//! fate the conditioner gave it, recorded as it was decided. In local mode
//! and scenario runs the log is kept in process (both ends are known); on
//! the relay the same records are streamed to the page when it asks
//! ([`super::trace_wire`], [`super::trace_stream`]), never kept.

use crate::foundation::bounded::Bounded;
use crate::foundation::time::SimTime;
use crate::net::conditioner::Fate;
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
    /// A room's shot (`Fire`); `detail` is its ammo action number.
    Shot,
    /// A room's verdict on a shot (`ShotResult`); `detail` is the shot's
    /// action number, `also` the verdict (0 head, 1 body, 2 miss, 3 and up
    /// rejected: `crate::protocol`'s trace of a `ShotResult`) and how far
    /// back the server went, ms.
    Verdict,
    /// A room's ammo update; `detail` is the newest action handled, `also[0]`
    /// the rounds left, `also[1]` the shot whose verdict it carries again
    /// (0: none).
    Ammo,
    /// A room's reload; `detail` is its ammo action number.
    Reload,
    /// A room's clock sync (`TimeRequest` up, `TimeReport` down).
    Clock,
    /// Anything else (settings, control).
    Other,
}

impl PacketKind {
    /// Every kind, in the order of their wire codes ([`PacketKind::code`]).
    pub const ALL: [PacketKind; 16] = [
        PacketKind::ServerMove,
        PacketKind::Inputs,
        PacketKind::Ping,
        PacketKind::Ack,
        PacketKind::Adjustment,
        PacketKind::RollbackAck,
        PacketKind::State,
        PacketKind::Proxy,
        PacketKind::Pong,
        PacketKind::Shot,
        PacketKind::Verdict,
        PacketKind::Ammo,
        PacketKind::Reload,
        PacketKind::Clock,
        PacketKind::Other,
        PacketKind::Other,
    ];

    /// The kind's code in a trace batch, `0..16` (four bits).
    pub fn code(self) -> u8 {
        // `ALL` lists each kind once before the padding.
        PacketKind::ALL
            .iter()
            .position(|k| *k == self)
            .unwrap_or(14) as u8
    }

    /// The kind with wire code `code` (the low four bits are read).
    pub fn from_code(code: u8) -> PacketKind {
        PacketKind::ALL[usize::from(code & 0x0f)]
    }

    /// Whether the record's `also` field carries numbers for this kind.
    pub fn has_also(self) -> bool {
        matches!(
            self,
            PacketKind::ServerMove
                | PacketKind::RollbackAck
                | PacketKind::Verdict
                | PacketKind::Ammo
        )
    }
}

/// A message's kind, the number that names it and two more (see
/// [`PacketKind`]).
pub trait Traced {
    /// Kind, detail and the extra time stamps.
    fn traced(&self) -> (PacketKind, u32, [u32; 2]);
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

    /// Keeps a record made elsewhere (a relay's trace, [`super::trace_wire`]):
    /// sent times must not decrease.
    pub fn push(&mut self, record: PacketRecord) {
        self.records.push(record);
    }

    /// Moves every record by `delta_us` µs (send and arrival alike),
    /// saturating at the epoch: a clock offset estimate improved.
    pub fn shift(&mut self, delta_us: i64) {
        let by = |t: &mut SimTime| {
            t.0 = t.0.saturating_add_signed(delta_us);
        };
        for r in self.records.iter_mut() {
            by(&mut r.sent);
            if let Fate::Delivered { at, .. } = &mut r.fate {
                by(at);
            }
        }
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
