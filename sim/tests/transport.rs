//! Issue 24's "why games avoid TCP": the link conditioner's reliable,
//! ordered transport against datagrams on the same link, seed and loss.
//! A lost packet is resent after the retransmission timeout (RFC 6298
//! `SRTT + 4 × RTTVAR`, at least Linux's 200 ms) and every packet behind
//! it waits (head-of-line blocking); datagrams lose it and go on.

use sim::net::conditioner::{Fate, LinkConditioner, LinkConditions};
use sim::net::transport::{rto_ms, Transport};
use sim::SimTime;

/// One-way latency and jitter of the link, ms: RTT 100 ms ± 10.
const LATENCY_MS: u32 = 50;
const JITTER_MS: u32 = 5;

fn link(loss: f64) -> LinkConditions {
    LinkConditions {
        latency_ms: LATENCY_MS,
        jitter_ms: JITTER_MS,
        loss,
        ..LinkConditions::PERFECT
    }
}

/// The RTO of this link: SRTT the two ways' latency, RTTVAR the two ways'
/// jitter.
fn rto() -> u32 {
    rto_ms(2 * LATENCY_MS, 2 * JITTER_MS)
}

/// 6000 packets at 60 a second (100 s), the receiver taking each as it
/// arrives: each one's fate, in send order.
fn fates(transport: Transport, loss: f64) -> (Vec<Fate>, LinkConditioner<u32>) {
    let mut c = LinkConditioner::new(link(loss), 24);
    c.set_transport(transport);
    let fates = (0..6000u32)
        .map(|i| {
            let now = SimTime::from_millis(u64::from(i) * 50 / 3);
            while c.poll(now).is_some() {}
            c.send_fate(now, 40, i)
        })
        .collect();
    (fates, c)
}

/// One-way delays of the delivered packets, ms, sorted.
fn delays(fates: &[Fate]) -> Vec<f64> {
    let mut d: Vec<f64> = fates
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match f {
            Fate::Delivered { at, .. } => {
                let sent = SimTime::from_millis(i as u64 * 50 / 3);
                Some(at.micros_since(sent) as f64 / 1000.0)
            }
            _ => None,
        })
        .collect();
    d.sort_by(f64::total_cmp);
    d
}

fn p99(sorted: &[f64]) -> f64 {
    sorted[(sorted.len() * 99).div_ceil(100) - 1]
}

#[test]
fn reliable_ordered_at_2_percent_loss_holds_every_later_packet_behind_the_resend() {
    let reliable = Transport::ReliableOrdered { rto_ms: rto() };
    assert_eq!(rto(), 200, "RTT 100 ms ± 10: Linux's floor");
    let (datagram, _) = fates(Transport::Datagram, 0.02);
    let (tcp, c) = fates(reliable, 0.02);
    let lost: Vec<usize> = (0..datagram.len())
        .filter(|&i| matches!(datagram[i], Fate::Lost { .. }))
        .collect();
    // The same draws: what datagrams lose, TCP resends, and nothing else.
    assert!(lost.len() > 60, "{} lost", lost.len());
    assert_eq!(c.stats().resent, lost.len() as u64);
    assert!(tcp.iter().all(Fate::delivered));
    let at = |f: &Fate| match f {
        Fate::Delivered { at, .. } => *at,
        _ => unreachable!(),
    };
    for &i in &lost {
        let resent = at(&tcp[i]);
        let sent = SimTime::from_millis(i as u64 * 50 / 3);
        assert!(resent.micros_since(sent) >= u64::from(rto() + LATENCY_MS - JITTER_MS) * 1000);
        // Every packet sent after it, until the resend, arrives no sooner.
        for (j, f) in tcp.iter().enumerate().skip(i + 1) {
            if SimTime::from_millis(j as u64 * 50 / 3) >= resent {
                break;
            }
            assert!(at(f) >= resent, "packet {j} overtook the resend of {i}");
        }
    }
    assert!(c.stats().held > lost.len() as u64 * 5, "{:?}", c.stats());
    let (d, t) = (delays(&datagram), delays(&tcp));
    println!(
        "RTT 100 ms ± 10, 2 % loss, 6000 packets: {} lost; p99 one-way delay: datagrams {:.1} ms, \
         reliable-ordered {:.1} ms (RTO {} ms; {} packets held, {:.0} ms each on average)",
        lost.len(),
        p99(&d),
        p99(&t),
        rto(),
        c.stats().held,
        c.stats().held_us as f64 / c.stats().held as f64 / 1000.0
    );
    assert!(p99(&d) <= f64::from(LATENCY_MS + JITTER_MS));
    assert!(p99(&t) >= f64::from(rto()), "p99 {}", p99(&t));
}

#[test]
fn without_loss_the_two_transports_deliver_alike() {
    let (datagram, _) = fates(Transport::Datagram, 0.0);
    let (tcp, c) = fates(Transport::ReliableOrdered { rto_ms: rto() }, 0.0);
    assert_eq!(datagram, tcp);
    assert_eq!((c.stats().resent, c.stats().held), (0, 0));
}
