//! One remote player's connection inside the room host: their own link
//! ([`HostLink`]: two conditioners and [`crate::net::settings::NetSettings`] — one
//! player's sliders change only their link — control frames and bytes
//! counted), when their next net update is due, and how far their view
//! runs ahead of the server.

use crate::endpoints::link::HostLink;
use crate::foundation::time::SimTime;
use crate::protocol::ClientMsg;

pub use crate::endpoints::link::Traffic;

/// A remote player's link.
#[derive(Debug, Clone)]
pub(crate) struct PlayerLink {
    /// The connection: conditioners, settings, control frames, traffic.
    pub(crate) conn: HostLink<ClientMsg>,
    /// When this player's next net update is due.
    pub(crate) next_net_update: SimTime,
    /// How far this player's own view runs ahead of the server, µs: the
    /// server's clock minus the client's estimate of it in its newest time
    /// request (half its RTT on a steady link).
    pub(crate) lead_us: u64,
}

impl PlayerLink {
    /// A link with the default settings (RTT 100 ms, as a single-player
    /// page starts) until the player sends theirs, whose conditioners draw
    /// from `seed`.
    pub(crate) fn new(seed: u64, now: SimTime) -> PlayerLink {
        PlayerLink {
            conn: HostLink::new(seed, now),
            next_net_update: now,
            lead_us: 0,
        }
    }
}
