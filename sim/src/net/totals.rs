//! What a host's two link conditioners did so far, as streamed to the page
//! beside a model's observer view: one [`DirectionTotals`] a direction,
//! saturating at `u32::MAX`.

use serde::{Deserialize, Serialize};

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
    /// Reliable-ordered transport: packets resent after the
    /// retransmission timeout (those the loss roll said lost).
    pub resent: u32,
    /// Reliable-ordered transport: packets that waited behind a resent
    /// one (head-of-line blocking).
    pub held: u32,
    /// The time those held packets waited beyond their own latency, ms in
    /// all (÷ `held`: the mean extra delay).
    pub held_ms: u32,
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
