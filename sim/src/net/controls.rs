//! The network's page controls: the link both ways and per direction,
//! and the lag spike. [`super::settings`] bounds its fields by them;
//! `crate::controls` gathers them for the page.

use crate::foundation::control::{range, Range, Switch};

// ---- the link, both directions alike -------------------------------------

/// Round-trip latency, ms; each direction gets half (UE `Net PktLag` is
/// one way). Default 100 ms (issue #2).
pub const RTT: Range = range("rtt", 0.0, 1000.0, 2.0, 100.0, "ms");
/// Packet loss each way, % (UE `Net PktLoss`); 0.1 % steps reach naia's
/// 0.1 % and 0.2 % presets.
pub const LOSS: Range = range("loss", 0.0, 50.0, 0.1, 0.0, "%");
/// ± jitter each way, ms (UE `Net PktLagVariance`).
pub const JITTER: Range = range("jitter", 0.0, 100.0, 1.0, 0.0, "ms");

/// Off: the link carries datagrams (UDP: a lost packet is lost). On:
/// reliable and ordered (TCP-like): a lost packet is resent after the
/// retransmission timeout and every later one waits behind it
/// ([`super::transport`]); both directions alike.
pub const RELIABLE_ORDERED: Switch = Switch {
    id: "net-reliable",
    default: false,
};

// ---- the link, per direction (ids after `up-` / `down-`) -----------------

/// Off: the RTT, loss and jitter sliders set both directions alike. On:
/// each direction's own inputs do (a preset with asymmetric directions
/// turns it on).
pub const SPLIT_DIRECTIONS: Switch = Switch {
    id: "net-split",
    default: false,
};

/// The id prefixes of the two directions' inputs.
pub const DIRECTION_PREFIXES: [&str; 2] = ["up-", "down-"];
/// One-way latency, ms.
pub const LATENCY: Range = range("latency", 0.0, 1000.0, 1.0, 50.0, "ms");
/// ± jitter, ms.
pub const DIRECTION_JITTER: Range = range("jitter", 0.0, 500.0, 1.0, 0.0, "ms");
/// Independent loss (the good state's with bursts on), %.
pub const DIRECTION_LOSS: Range = range("loss", 0.0, 50.0, 0.1, 0.0, "%");
/// Duplicated packets, %.
pub const DUPLICATE: Range = range("dup", 0.0, 50.0, 0.1, 0.0, "%");
/// Packets that overtake the queue, %.
pub const REORDER: Range = range("reorder", 0.0, 50.0, 1.0, 0.0, "%");
/// Gilbert–Elliott chance per packet that a loss burst starts, %.
pub const BURST_ENTER: Range = range("burst-enter", 0.0, 20.0, 0.1, 0.0, "%");
/// Mean packets a loss burst lasts (its leave chance is 100 / this %).
pub const BURST_LENGTH: Range = range("burst-len", 1.0, 100.0, 1.0, 4.0, "pkts");
/// Loss while in a burst, %: a burst loses everything unless told
/// otherwise.
pub const BURST_LOSS: Range = range("burst-loss", 0.0, 100.0, 1.0, 100.0, "%");
/// Bandwidth cap, kB/s; 0 = none.
pub const BANDWIDTH: Range = range("bandwidth", 0.0, 10_000.0, 1.0, 0.0, "kB/s");
/// Every per-direction control, in the order of the page's table.
pub const PER_DIRECTION: &[Range] = &[
    LATENCY,
    DIRECTION_JITTER,
    DIRECTION_LOSS,
    DUPLICATE,
    REORDER,
    BURST_ENTER,
    BURST_LENGTH,
    BURST_LOSS,
    BANDWIDTH,
];

// ---- lag spike ------------------------------------------------------------

/// Latency a lag spike adds each way, ms.
pub const SPIKE_EXTRA: Range = range("spike-extra", 10.0, 5000.0, 10.0, 500.0, "ms");
/// How long packets are sent into a lag spike, s. The 0.1 s floor keeps
/// the 0.2 s spikes of the golden scenarios (`scenarios/fault3-…`).
pub const SPIKE_DURATION: Range = range("spike-duration", 0.1, 30.0, 0.1, 2.0, "s");
