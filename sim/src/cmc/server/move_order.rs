//! Move order correction: a ServerMove whose predecessors are missing
//! *and* that arrived before its time is held back until they arrive or
//! the server's clock has caught up with the client time it covers, so the
//! moves sent before it — overtaken in the network — are simulated first,
//! in the order the client made them.
//!
//! Missing predecessors: its sequence number ([`ServerMove::seq`], 4 bits)
//! is ahead of the next one expected. Early: it arrived faster than the
//! slowest of the latest packets (arrival minus client time stamp), so
//! packets sent before it may still be on the way. Both are needed: after
//! a *lost* packet at steady latency the next one is not early (nothing to
//! wait for), and a burst of packets that queued up behind a stall is in
//! order (none misses a predecessor). An overtaking packet is both. It is held at most `time_discrepancy_max_margin` (0.25 s,
//! UE `MovementTimeDiscrepancyMaxTimeMargin`: a client that far ahead is
//! treated as running fast anyway) and at most [`MAX_HELD_MOVES`] are held.
//!
//! UE differs: `UNetConnection` drops a packet older than the newest one
//! received, and its packet order cache only re-sorts packets that arrive
//! within one receive tick, so a packet overtaken by ~100 ms is lost and
//! the overtaking move simulates the whole gap with its own input — as if
//! every overtaken ServerMove had been lost.

use super::time_stamps::TimeStampVerdict;
use super::{ProcessedMove, ServerCharacter};
use crate::cmc::wire::ServerMove;
use crate::foundation::time::SimTime;
use crate::foundation::world::World;
use std::collections::VecDeque;

/// Most ServerMoves held back at once; when another arrives, the oldest
/// held one is processed at once.
pub const MAX_HELD_MOVES: usize = 16;

/// Packets whose transit time the wait for overtaken packets looks back
/// on (about 1 s at 60 Hz).
const TRANSIT_WINDOW: usize = 64;

/// The move-order state of one client.
#[derive(Debug, Clone, Default)]
pub(super) struct MoveOrder {
    /// Packets held back, with their arrival, sorted by new move time stamp.
    held: Vec<(SimTime, ServerMove)>,
    /// The sequence number expected next.
    next_seq: Option<u8>,
    /// Transit times (arrival − client time stamp) of the latest packets,
    /// µs, offset by the two clocks' difference (only differences matter).
    transits: VecDeque<i64>,
}

impl MoveOrder {
    /// Notes a packet's arrival at `arrived`.
    fn note_arrival(&mut self, arrived: SimTime, packet: &ServerMove) {
        if self.transits.len() == TRANSIT_WINDOW {
            self.transits.pop_front();
        }
        self.transits.push_back(transit_us(arrived, packet));
    }

    /// The slowest recent transit, µs.
    fn slowest_transit(&self) -> Option<i64> {
        self.transits.iter().copied().max()
    }
}

/// A packet's arrival minus its new move's time stamp, µs.
fn transit_us(arrived: SimTime, packet: &ServerMove) -> i64 {
    arrived.0 as i64 - i64::from(packet.new_move.time_stamp.0) * 1000
}

impl ServerCharacter {
    /// Handles one packed move received at server time `now`: held back if
    /// it misses predecessors and arrived before its time (see the module
    /// doc), else processed — old → pending → new, in time-stamp order
    /// (`000_…` §4.1), checking the client's location only on the new one
    /// (§4.2 step 3), moves already processed skipped. Returns what each
    /// move processed now did, oldest first (for the observer view); held
    /// moves come out of a later [`ServerCharacter::release_held_moves`].
    pub fn receive_server_move(
        &mut self,
        packet: &ServerMove,
        now: SimTime,
        world: &World,
    ) -> Vec<ProcessedMove> {
        let mut out = Vec::new();
        self.order.note_arrival(now, packet);
        if self.order.held.len() >= MAX_HELD_MOVES {
            let (_, oldest) = self.order.held.remove(0);
            out.extend(self.process_server_move(&oldest, now, world));
        }
        let ts = packet.new_move.time_stamp;
        let at = self
            .order
            .held
            .partition_point(|(_, h)| h.new_move.time_stamp.diff(ts) <= 0);
        self.order.held.insert(at, (now, packet.clone()));
        out.extend(self.release_held_moves(now, world));
        out
    }

    /// Processes the held moves whose time has come by `now`, in time-stamp
    /// order. Drivers call it at [`ServerCharacter::held_moves_due`].
    pub fn release_held_moves(&mut self, now: SimTime, world: &World) -> Vec<ProcessedMove> {
        let mut out = Vec::new();
        while let Some((arrived, first)) = self.order.held.first() {
            if self.release_time(*arrived, first) > now {
                break;
            }
            let (_, packet) = self.order.held.remove(0);
            out.extend(self.process_server_move(&packet, now, world));
        }
        out
    }

    /// When the first held move is due, if any.
    pub fn held_moves_due(&self) -> Option<SimTime> {
        self.order
            .held
            .first()
            .map(|(arrived, first)| self.release_time(*arrived, first))
    }

    /// Moves are held back now.
    pub(super) fn holds_moves(&self) -> bool {
        !self.order.held.is_empty()
    }

    /// Packets sent before the one numbered `seq` have not arrived: it is
    /// ahead of the next number expected. (Whether it is *newer* at all is
    /// its time stamp's call: a stale packet is never held.)
    fn misses_predecessors(&self, seq: u8) -> bool {
        self.order
            .next_seq
            .is_some_and(|next| seq.wrapping_sub(next) % ServerMove::SEQ_MODULUS != 0)
    }

    /// Notes that `packet` is being processed: if it brings a new move, the
    /// next sequence number expected is the one after it.
    pub(super) fn note_processed(&mut self, packet: &ServerMove) {
        if matches!(
            self.judge_time_stamp(packet.new_move.time_stamp),
            TimeStampVerdict::Accept { .. }
        ) {
            self.order.next_seq = Some((packet.seq + 1) % ServerMove::SEQ_MODULUS);
        }
    }

    /// When a packet that arrived at `arrived` may be processed: at once
    /// unless it misses predecessors; then when those would have arrived
    /// had they been as slow as the slowest of the latest packets (they
    /// were sent before it, so their time stamps are earlier), but no later
    /// than the max margin after arrival. With steady latency and a lost
    /// predecessor that is its own arrival: it goes at once. A packet with
    /// nothing to simulate (stale, rejected) or the first ever goes at once.
    fn release_time(&self, arrived: SimTime, packet: &ServerMove) -> SimTime {
        let (TimeStampVerdict::Accept { .. }, true, Some(slowest)) = (
            self.judge_time_stamp(packet.new_move.time_stamp),
            self.misses_predecessors(packet.seq),
            self.order.slowest_transit(),
        ) else {
            return arrived;
        };
        let margin_us = (f64::from(self.config.time_discrepancy_max_margin.max(0.0)) * 1e6) as u64;
        let wait_us = (slowest - transit_us(arrived, packet)).max(0) as u64;
        arrived.plus_micros(wait_us.min(margin_us))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::server::ServerConfig;
    use crate::cmc::wire::{NetPosition, NetworkMove};
    use crate::foundation::movement::{MoveInput, MovementParams};
    use crate::foundation::time::TimeStamp;

    /// Packet `i` of a 60 Hz client: time stamp `i × 16` ms.
    fn packet(i: u32) -> ServerMove {
        let mv = NetworkMove {
            time_stamp: TimeStamp(i * 16),
            input: MoveInput::default(),
        };
        ServerMove::new(i, mv, NetPosition::default())
    }

    fn server() -> (ServerCharacter, World) {
        let w = World::arena();
        let s = ServerCharacter::new(MovementParams::default(), ServerConfig::default(), w.spawn);
        (s, w)
    }

    /// Delivers packet `i` at `i × 16 + latency_ms`; returns how many moves
    /// were processed at once.
    fn deliver(s: &mut ServerCharacter, w: &World, i: u32, latency_ms: u32) -> usize {
        let now = SimTime::from_millis(u64::from(i * 16 + latency_ms));
        s.receive_server_move(&packet(i), now, w).len()
    }

    #[test]
    fn a_packet_after_a_lost_one_is_not_held_at_steady_latency() {
        let (mut s, w) = server();
        for i in [1, 2, 4, 5] {
            assert_eq!(deliver(&mut s, &w, i, 100), 1, "packet {i}");
        }
        assert!(!s.holds_moves());
    }

    #[test]
    fn a_burst_in_order_after_a_stall_is_not_held() {
        let (mut s, w) = server();
        deliver(&mut s, &w, 1, 100);
        // Packets 2..=12 queued behind a stall, all delivered at 400 ms.
        for i in 2..=12 {
            assert_eq!(deliver(&mut s, &w, i, 400 - i * 16), 1, "packet {i}");
        }
    }

    #[test]
    fn an_overtaking_packet_waits_for_the_ones_it_overtook() {
        let (mut s, w) = server();
        for i in 1..=4 {
            deliver(&mut s, &w, i, 100);
        }
        // Packet 9 skips the queue: sent and delivered at 144 ms.
        assert_eq!(deliver(&mut s, &w, 9, 0), 0);
        assert_eq!(s.held_moves_due(), Some(SimTime::from_millis(244)));
        for i in 5..=7 {
            assert_eq!(deliver(&mut s, &w, i, 100), 1, "packet {i}");
        }
        // Packet 8 fills the gap: 8 and the held 9 go, in order.
        assert_eq!(deliver(&mut s, &w, 8, 100), 2);
        assert_eq!(s.current_time_stamp(), Some(TimeStamp(144)));
        assert_eq!(s.counters().moves_simulated, 9);
        assert_eq!(s.counters().moves_ignored, 0);
    }
}
