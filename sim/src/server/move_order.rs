//! Move order correction: a ServerMove that arrives *before its time* is
//! held back until the server's clock has caught up with the client time
//! it covers, so the moves sent before it — overtaken in the network — are
//! simulated first, in the order the client made them.
//!
//! Early means: the client time the packet would simulate (its new move's
//! time stamp minus the last one processed) is longer than the server time
//! since the last accepted move. An honest client cannot be early by more
//! than the latency it gained over the packets before it: with constant
//! latency and loss nothing is ever held (the packet after a lost one is
//! late by exactly the lost move's time, not early); with reordering the
//! overtaking packet waits for the ones it overtook; with jitter a packet
//! that caught up with its predecessor waits for its own time. A packet is
//! held at most `time_discrepancy_max_margin` (0.25 s, UE
//! `MovementTimeDiscrepancyMaxTimeMargin`: a client that far ahead is
//! treated as running fast anyway) and at most [`MAX_HELD_MOVES`] are
//! held.
//!
//! UE differs: `UNetConnection` drops a packet older than the newest one
//! received, and its packet order cache only re-sorts packets that arrive
//! within one receive tick, so a packet overtaken by ~100 ms is lost and
//! the overtaking move simulates the whole gap with its own input — as if
//! every overtaken ServerMove had been lost.

use super::time_stamps::TimeStampVerdict;
use super::{ProcessedMove, ServerCharacter};
use crate::net::protocol::ServerMove;
use crate::time::SimTime;
use crate::world::World;

/// Most ServerMoves held back at once; when another arrives, the oldest
/// held one is processed at once.
pub const MAX_HELD_MOVES: usize = 16;

/// Early arrival tolerated without holding, ms: a frame's time stamp is
/// rounded to whole ms, so a packet can look up to 1 ms early on time.
const EARLY_TOLERANCE_MS: u64 = 2;

impl ServerCharacter {
    /// Handles one packed move received at server time `now`: held back if
    /// it arrived before its time (see the module doc), else processed —
    /// old → pending → new, in time-stamp order (`000_…` §4.1), checking the
    /// client's location only on the new one (§4.2 step 3), moves already
    /// processed skipped. Returns what each move processed now did, oldest
    /// first (for the observer view); held moves come out of a later
    /// [`ServerCharacter::release_held_moves`].
    pub fn receive_server_move(
        &mut self,
        packet: &ServerMove,
        now: SimTime,
        world: &World,
    ) -> Vec<ProcessedMove> {
        let mut out = Vec::new();
        if self.held.len() >= MAX_HELD_MOVES {
            let (_, oldest) = self.held.remove(0);
            out.extend(self.process_server_move(&oldest, now, world));
        }
        let ts = packet.new_move.time_stamp;
        let at = self
            .held
            .partition_point(|(_, h)| h.new_move.time_stamp.diff(ts) <= 0);
        self.held.insert(at, (now, packet.clone()));
        out.extend(self.release_held_moves(now, world));
        out
    }

    /// Processes the held moves whose time has come by `now`, in time-stamp
    /// order. Drivers call it at [`ServerCharacter::held_moves_due`].
    pub fn release_held_moves(&mut self, now: SimTime, world: &World) -> Vec<ProcessedMove> {
        let mut out = Vec::new();
        while let Some((arrived, first)) = self.held.first() {
            if self.release_time(*arrived, first) > now {
                break;
            }
            let (_, packet) = self.held.remove(0);
            out.extend(self.process_server_move(&packet, now, world));
        }
        out
    }

    /// When the first held move is due, if any.
    pub fn held_moves_due(&self) -> Option<SimTime> {
        self.held
            .first()
            .map(|(arrived, first)| self.release_time(*arrived, first))
    }

    /// Moves are held back now.
    pub(super) fn holds_moves(&self) -> bool {
        !self.held.is_empty()
    }

    /// When a packet that arrived at `arrived` may be processed: once the
    /// server time since the last accepted move covers the client time it
    /// would simulate, but no later than the max margin after arrival. A
    /// packet with nothing to simulate (stale, rejected) or the first ever
    /// goes at once.
    fn release_time(&self, arrived: SimTime, packet: &ServerMove) -> SimTime {
        let (Some(last), TimeStampVerdict::Accept { dt_ms, .. }) = (
            self.last_move_at,
            self.judge_time_stamp(packet.new_move.time_stamp),
        ) else {
            return arrived;
        };
        let margin_us = (f64::from(self.config.time_discrepancy_max_margin.max(0.0)) * 1e6) as u64;
        let on_time = last.plus_millis(u64::from(dt_ms).saturating_sub(EARLY_TOLERANCE_MS));
        on_time.max(arrived).min(arrived.plus_micros(margin_us))
    }
}
