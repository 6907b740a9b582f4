//! The Link card: the configured link beside the measured one, each
//! measured figure with the samples behind it. Measurement restarts when
//! the network settings change ([`sim::net::link_meter`]), so the card
//! says how long ago that was; loss is shown over the last window of Pings
//! and over every Ping since the change, with its 95 % interval, so noise
//! can be told from a fault. With the reliable-ordered transport it counts
//! the packets resent after the RTO and those held behind them
//! (head-of-line blocking) with their mean extra wait.

use crate::dom::{query, write_attr, write_text};
use sim::endpoints::metrics::Metrics;
use sim::net::link_stats::LossCount;
use sim::net::transport::{LinkTransport, Transport};
use sim::{LinkSettings, NetSettings};
use web_sys::{Document, Element};

/// `data-configured` read-outs.
const CONFIGURED: [&str; 8] = [
    "rtt",
    "jitter",
    "loss-up",
    "loss-down",
    "cap-up",
    "cap-down",
    "extras",
    "transport",
];
/// `data-metric` read-outs written here.
const MEASURED: [&str; 20] = [
    "rtt-ms",
    "rtt-p50",
    "rtt-p99",
    "rtt-samples",
    "jitter-ms",
    "loss-up",
    "loss-down",
    "loss-up-n",
    "loss-down-n",
    "loss-up-since",
    "loss-down-since",
    "in-flight-up",
    "in-flight-down",
    "link-state",
    "measuring-since",
    "resent-up",
    "resent-down",
    "held-up",
    "held-down",
    "held-mean",
];

/// Handles on the card's read-outs.
pub struct LinkCard {
    configured: Vec<(&'static str, Option<Element>)>,
    measured: Vec<(&'static str, Option<Element>)>,
}

impl LinkCard {
    /// Looks the read-outs up.
    pub fn new(doc: &Document) -> LinkCard {
        let find = |attr: &str, names: &[&'static str]| {
            names
                .iter()
                .map(|&n| (n, query(doc, &format!("[{attr}=\"{n}\"]"))))
                .collect()
        };
        LinkCard {
            configured: find("data-configured", &CONFIGURED),
            measured: find("data-metric", &MEASURED),
        }
    }

    /// Writes the configured column for `s` carried as `transport` and the
    /// measured one from `m`, measured for `secs` since the settings last
    /// changed.
    pub fn write(&self, s: &NetSettings, transport: LinkTransport, m: &Metrics, secs: f64) {
        let (u, d) = (s.uplink, s.downlink);
        for (name, el) in &self.configured {
            let text = match *name {
                "rtt" => s.rtt_ms().to_string(),
                "jitter" if u.jitter_ms == d.jitter_ms => format!("±{}", u.jitter_ms),
                "jitter" => format!("±{} / ±{}", u.jitter_ms, d.jitter_ms),
                "loss-up" => format!("{:.1}", u.mean_loss() * 100.0),
                "loss-down" => format!("{:.1}", d.mean_loss() * 100.0),
                "cap-up" => cap(u.bandwidth_bytes_per_s),
                "cap-down" => cap(d.bandwidth_bytes_per_s),
                "extras" => extras(&u, &d),
                "transport" => transport_text(s.transport(transport)),
                _ => continue,
            };
            write(el, &text);
        }
        let ms = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.0}"));
        let pct = |v: Option<f64>| v.map_or("–".into(), |v| format!("{:.1}", v * 100.0));
        let (burst, spike) = (
            m.link.up.in_burst || m.link.down.in_burst,
            m.link.up.in_spike || m.link.down.in_spike,
        );
        for (name, el) in &self.measured {
            let text = match *name {
                "rtt-ms" => ms(m.rtt_ms),
                "rtt-p50" => ms(m.rtt_p50_ms),
                "rtt-p99" => ms(m.rtt_p99_ms),
                "rtt-samples" => m.rtt_samples.to_string(),
                "jitter-ms" => m.jitter_ms.map_or("–".into(), |v| format!("{v:.1}")),
                "loss-up" => pct(m.loss_up),
                "loss-down" => pct(m.loss_down),
                "loss-up-n" => m.loss_up_probes.to_string(),
                "loss-down-n" => m.loss_down_probes.to_string(),
                "loss-up-since" => since(m.loss_since_up),
                "loss-down-since" => since(m.loss_since_down),
                "in-flight-up" => m.link.up.in_flight.to_string(),
                "in-flight-down" => m.link.down.in_flight.to_string(),
                "measuring-since" => format!("{secs:.0} s"),
                "resent-up" => m.link.up.resent.to_string(),
                "resent-down" => m.link.down.resent.to_string(),
                "held-up" => m.link.up.held.to_string(),
                "held-down" => m.link.down.held.to_string(),
                "held-mean" => held_mean(m),
                "link-state" => {
                    let state = match (spike, burst) {
                        (true, _) => "spike",
                        (false, true) => "burst",
                        _ => "clear",
                    };
                    if let Some(el) = el {
                        write_attr(el, "data-state", state);
                    }
                    match (spike, burst) {
                        (true, true) => "lag spike + loss burst".into(),
                        (true, false) => "lag spike".into(),
                        (false, true) => "loss burst".into(),
                        _ => "clear".into(),
                    }
                }
                _ => continue,
            };
            write(el, &text);
        }
    }
}

/// Loss since the change: rate, 95 % interval and count.
fn since(c: LossCount) -> String {
    match (c.rate(), c.wilson_95()) {
        (Some(r), Some((lo, hi))) => format!(
            "{:.1} % ({:.1}–{:.1}) of {}",
            r * 100.0,
            lo * 100.0,
            hi * 100.0,
            c.sent
        ),
        _ => "–".into(),
    }
}

/// The configured transport: datagrams, or reliable-ordered with its RTO.
fn transport_text(t: Transport) -> String {
    match t {
        Transport::Datagram => "datagrams".into(),
        Transport::ReliableOrdered { rto_ms } => format!("reliable-ordered, RTO {rto_ms} ms"),
    }
}

/// The mean wait of a held packet behind a resend, ms, both directions.
fn held_mean(m: &Metrics) -> String {
    let (u, d) = (m.link.up, m.link.down);
    let held = u64::from(u.held) + u64::from(d.held);
    if held == 0 {
        return "–".into();
    }
    let ms = u64::from(u.held_ms) + u64::from(d.held_ms);
    format!("{:.0}", ms as f64 / held as f64)
}

fn cap(bytes_per_s: u32) -> String {
    if bytes_per_s == 0 {
        "no cap".into()
    } else {
        format!("{} kB/s", bytes_per_s / 1000)
    }
}

/// Duplication, reordering and bursts in force, per direction.
fn extras(u: &LinkSettings, d: &LinkSettings) -> String {
    let one = |l: &LinkSettings| {
        let mut parts = Vec::new();
        if l.duplicate_tenth_percent > 0 {
            parts.push(format!(
                "dup {:.1} %",
                f64::from(l.duplicate_tenth_percent) / 10.0
            ));
        }
        if l.reorder_percent > 0 {
            parts.push(format!("reorder {} %", l.reorder_percent));
        }
        if l.burst_enter_tenth_percent > 0 {
            parts.push(format!(
                "bursts ~{:.0} pkts",
                100.0 / f64::from(l.burst_leave_percent.max(1))
            ));
        }
        parts.join(", ")
    };
    let dash = |s: String| if s.is_empty() { "—".to_string() } else { s };
    let (a, b) = (one(u), one(d));
    if a == b {
        dash(a)
    } else {
        format!("↑ {} · ↓ {}", dash(a), dash(b))
    }
}

fn write(el: &Option<Element>, text: &str) {
    if let Some(el) = el {
        write_text(el, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_since_the_change_reads_as_rate_interval_and_count() {
        assert_eq!(
            since(LossCount {
                lost: 41,
                sent: 412
            }),
            "10.0 % (7.4–13.2) of 412"
        );
        assert_eq!(since(LossCount::default()), "–");
    }

    #[test]
    fn the_transport_reads_with_its_rto_and_held_packets_with_their_mean_wait() {
        assert_eq!(transport_text(Transport::Datagram), "datagrams");
        assert_eq!(
            transport_text(Transport::ReliableOrdered { rto_ms: 200 }),
            "reliable-ordered, RTO 200 ms"
        );
        let mut m = Metrics::default();
        assert_eq!(held_mean(&m), "–");
        m.link.up.held = 3;
        m.link.up.held_ms = 200;
        m.link.down.held = 1;
        m.link.down.held_ms = 100;
        assert_eq!(held_mean(&m), "75");
    }
}
