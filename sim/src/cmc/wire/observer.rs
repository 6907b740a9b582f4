//! The observer view: the server's true state streamed to the page for the
//! Authoritative panel and the plots (a debug view, beside the game's
//! traffic).

use crate::foundation::math::Vec2;
use crate::foundation::movement::CharacterState;
use crate::foundation::time::TimeStamp;
use crate::net::totals::LinkTotals;
use serde::{Deserialize, Serialize};

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
