//! How one direction of the conditioned link carries packets: as
//! datagrams (UDP: a lost packet is lost, the rest arrive as they come)
//! or reliable and ordered (TCP: a lost packet is sent again after a
//! retransmission timeout and every later packet waits behind it,
//! head-of-line blocking). Issue 24's "why games avoid TCP": the same
//! link, the same loss, and the stalls a reliable stream turns them into.
//!
//! The page's own WebSocket runs over TCP; the conditioner models the
//! game's link on top of it, so both modes are simulated the same way,
//! with the same five draws per packet
//! ([`super::conditioner::LinkConditioner`]).
//!
//! The run's setting is [`LinkTransport`], one value for both directions
//! (TCP is one connection); `NetSettings::transport` turns it into each
//! conditioner's [`Transport`] with the RTO of the link in force.

use serde::{Deserialize, Serialize};

/// The floor of the retransmission timeout, ms: Linux's `TCP_RTO_MIN`
/// (`HZ / 5`, 200 ms, `include/net/tcp.h`). RFC 6298 §2.4 asks for 1 s;
/// Linux, which most game servers' TCP peers run, uses 200 ms.
pub const RTO_MIN_MS: u32 = 200;

/// The retransmission timeout for a smoothed RTT `srtt_ms` and an RTT
/// variation `rttvar_ms`, ms: RFC 6298 §2.3, `RTO = SRTT + max(G, K ×
/// RTTVAR)` with K = 4 (the clock granularity G is below a millisecond
/// here), no less than [`RTO_MIN_MS`] (Linux `tcp_set_rto`).
pub fn rto_ms(srtt_ms: u32, rttvar_ms: u32) -> u32 {
    srtt_ms
        .saturating_add(rttvar_ms.saturating_mul(4))
        .max(RTO_MIN_MS)
}

/// How a direction carries packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// Datagrams: a lost packet is lost (UDP; the conditioner's default).
    #[default]
    Datagram,
    /// Reliable and ordered (TCP): a packet whose loss roll says lost
    /// arrives one retransmission timeout later than it would have, and no
    /// packet sent after it arrives before it (head-of-line blocking). No
    /// copies (the receiver drops duplicates) and no overtaking. A resend
    /// always arrives: losing the same packet twice (at 2 % loss, 1 in
    /// 2500) would need more than the five draws a packet gets.
    ReliableOrdered {
        /// The retransmission timeout, ms ([`rto_ms`]).
        rto_ms: u32,
    },
}

/// How the run's link carries packets, as the page's Reliable-ordered
/// switch sets it (`net::controls::RELIABLE_ORDERED`): both directions
/// alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LinkTransport {
    /// Datagrams (UDP), as every run before the switch.
    #[default]
    Datagram,
    /// Reliable and ordered (TCP-like), the RTO derived from the link
    /// settings in force.
    ReliableOrdered,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rto_is_srtt_plus_four_rttvar_and_never_under_200_ms() {
        // RTT 100 ms, steady: Linux's floor.
        assert_eq!(rto_ms(100, 0), 200);
        // RTT 150 ms ± 10: 190 ms, still the floor.
        assert_eq!(rto_ms(150, 10), 200);
        // RTT 300 ms, RTTVAR 25 ms: 300 + 100.
        assert_eq!(rto_ms(300, 25), 400);
        assert_eq!(rto_ms(200, 0), 200);
        assert_eq!(rto_ms(201, 0), 201);
        assert_eq!(rto_ms(u32::MAX, 1), u32::MAX, "saturates");
    }
}
