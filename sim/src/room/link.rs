//! One remote player's connection inside the room host: their own two
//! link conditioners and [`NetSettings`] (one player's sliders change only
//! their link), the control frames waiting to go out, and byte counts.

use super::wire::{RoomClientMsg, RoomServerMsg};
use crate::host::MAX_IMMEDIATE;
use crate::net::codec;
use crate::net::conditioner::{LinkConditioner, LinkConditions};
use crate::net::protocol::NetSettings;
use crate::time::SimTime;

/// What crossed one player's connection, both ways, frames and bytes as
/// the driver sends and receives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Traffic {
    /// Frames received from the player.
    pub frames_up: u64,
    /// Bytes received from the player.
    pub bytes_up: u64,
    /// Frames handed to the driver for the player.
    pub frames_down: u64,
    /// Bytes handed to the driver for the player.
    pub bytes_down: u64,
}

/// A remote player's link.
#[derive(Debug, Clone)]
pub(crate) struct PlayerLink {
    settings: NetSettings,
    pub(crate) uplink: LinkConditioner<RoomClientMsg>,
    /// Encoded frames: the bandwidth cap needs their size.
    downlink: LinkConditioner<Vec<u8>>,
    /// Control frames (join answer, roster, errors): not conditioned.
    immediate: Vec<Vec<u8>>,
    /// When this player's next net update is due.
    pub(crate) next_net_update: SimTime,
    /// How far this player's own view runs ahead of the server, µs: the
    /// server's clock minus the client's estimate of it in its newest time
    /// request (half its RTT on a steady link).
    pub(crate) lead_us: u64,
    pub(crate) traffic: Traffic,
}

impl PlayerLink {
    /// A link with the default settings (RTT 100 ms, as a single-player
    /// page starts) until the player sends theirs, whose conditioners draw
    /// from `seed`.
    pub(crate) fn new(seed: u64, now: SimTime) -> PlayerLink {
        let mut link = PlayerLink {
            settings: NetSettings::default(),
            uplink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ 0x5550_4c49_4e4b),
            downlink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ 0x444f_574e_4c4e),
            immediate: Vec::new(),
            next_net_update: now,
            lead_us: 0,
            traffic: Traffic::default(),
        };
        link.apply(NetSettings::default());
        link
    }

    /// Applies validated settings to both conditioners.
    pub(crate) fn apply(&mut self, settings: NetSettings) {
        self.settings = settings;
        self.uplink.set_conditions(settings.uplink.conditions());
        self.downlink.set_conditions(settings.downlink.conditions());
    }

    /// The settings in force.
    pub(crate) fn settings(&self) -> NetSettings {
        self.settings
    }

    /// Sends `msg` through the downlink conditioner.
    pub(crate) fn send(&mut self, now: SimTime, msg: &RoomServerMsg) {
        let frame = codec::encode(msg);
        self.downlink.send(now, frame.len(), frame);
    }

    /// Queues a control message for the next poll; beyond
    /// [`MAX_IMMEDIATE`] waiting, it is dropped.
    pub(crate) fn send_now(&mut self, msg: &RoomServerMsg) {
        if self.immediate.len() < MAX_IMMEDIATE {
            self.immediate.push(codec::encode(msg));
        }
    }

    /// The frames due at `now`: control frames first, then the downlink's.
    pub(crate) fn drain(&mut self, now: SimTime) -> Vec<Vec<u8>> {
        let mut out = std::mem::take(&mut self.immediate);
        while let Some(frame) = self.downlink.poll(now) {
            out.push(frame);
        }
        self.traffic.frames_down += out.len() as u64;
        self.traffic.bytes_down += out.iter().map(|f| f.len() as u64).sum::<u64>();
        out
    }

    /// The earliest time either conditioner delivers something.
    pub(crate) fn next_delivery(&self) -> Option<SimTime> {
        [self.uplink.next_delivery(), self.downlink.next_delivery()]
            .into_iter()
            .flatten()
            .min()
    }
}
