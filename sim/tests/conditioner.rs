//! Distribution tests of the link conditioner with fixed seeds: each
//! impairment does what its setting says, measured over many packets, and
//! the fate of a fixed send sequence is pinned (the browser test expects
//! the same value from wasm).

use sim::net::conditioner::{
    fate_fingerprint, LinkConditioner, LinkConditions, FINGERPRINT_CONDITIONS,
};
use sim::net::gilbert_elliott::GilbertElliott;
use sim::SimTime;

const N: u64 = 100_000;

/// Sends `n` packets of `bytes` every `every_us` and polls each µs-step
/// where a delivery is due; returns (packet id, sent at, delivered at) for
/// every delivery, in delivery order.
fn run(c: &mut LinkConditioner<u64>, n: u64, every_us: u64, bytes: usize) -> Vec<(u64, u64, u64)> {
    let mut out = Vec::new();
    let mut sent_at = Vec::with_capacity(n as usize);
    for i in 0..n {
        let now = SimTime(i * every_us);
        c.send(now, bytes, i);
        sent_at.push(now.0);
        while let Some(p) = c.poll(now) {
            out.push((p, sent_at[p as usize], now.0));
        }
    }
    while let Some(at) = c.next_delivery() {
        while let Some(p) = c.poll(at) {
            out.push((p, sent_at[p as usize], at.0));
        }
    }
    out
}

fn poll_exact(c: &mut LinkConditioner<u64>) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    while let Some(at) = c.next_delivery() {
        while let Some(p) = c.poll(at) {
            out.push((p, at.0));
        }
    }
    out
}

#[test]
fn loss_10_percent_over_100k_packets_is_10_percent_plus_minus_1() {
    let mut c = LinkConditioner::new(
        LinkConditions {
            loss: 0.10,
            ..LinkConditions::PERFECT
        },
        42,
    );
    let delivered = run(&mut c, N, 1000, 40).len() as f64;
    let observed = 1.0 - delivered / N as f64;
    println!("configured loss 10 %, observed {:.3} %", observed * 100.0);
    assert!((observed - 0.10).abs() < 0.01, "observed {observed}");
    assert_eq!(c.stats().lost, N - delivered as u64);
}

#[test]
fn gilbert_elliott_bursts_have_the_configured_mean_length_and_rate() {
    // p = 2 %, r = 25 %: mean burst 4 packets, 7.4 % of packets in bursts;
    // everything lost while bad, nothing while good, so runs of losses are
    // exactly the stays in the bad state.
    let model = GilbertElliott {
        enter_bad: 0.02,
        leave_bad: 0.25,
        loss_in_bad: 1.0,
    };
    let mut c = LinkConditioner::new(
        LinkConditions {
            burst: model,
            ..LinkConditions::PERFECT
        },
        11,
    );
    let mut runs = Vec::new();
    let mut current = 0u64;
    for i in 0..N {
        if c.send(SimTime(i), 40, i) {
            if current > 0 {
                runs.push(current);
            }
            current = 0;
        } else {
            current += 1;
        }
        while c.poll(SimTime(i)).is_some() {}
    }
    let mean_run = runs.iter().sum::<u64>() as f64 / runs.len() as f64;
    let loss = c.stats().lost as f64 / N as f64;
    println!(
        "GE p 2 % r 25 %: mean burst {mean_run:.3} packets (expected {:.3}), \
         loss {:.3} % (expected {:.3} %), {} bursts",
        model.mean_burst_packets(),
        loss * 100.0,
        model.mean_loss(0.0) * 100.0,
        runs.len()
    );
    assert!((mean_run - 4.0).abs() < 0.2, "mean burst {mean_run}");
    assert!((loss - model.mean_loss(0.0)).abs() < 0.01, "loss {loss}");
    assert_eq!(c.stats().lost_in_burst, c.stats().lost);
}

#[test]
fn jitter_stays_within_bounds_and_never_reorders() {
    let mut c = LinkConditioner::new(
        LinkConditions {
            latency_ms: 40,
            jitter_ms: 20,
            ..LinkConditions::PERFECT
        },
        7,
    );
    // Widely spaced packets: each one's own delay, no FIFO hold.
    let mut lo = u64::MAX;
    let mut hi = 0;
    for i in 0..10_000u64 {
        let now = SimTime::from_millis(i * 100);
        c.send(now, 40, i);
        let at = c.next_delivery().unwrap();
        let d = at.micros_since(now);
        lo = lo.min(d);
        hi = hi.max(d);
        assert!((20_000..=60_000).contains(&d), "delay {d} µs");
        c.poll(at);
    }
    println!("latency 40 ± 20 ms: delays {lo}..={hi} µs");
    assert!(lo < 21_000 && hi > 59_000, "uses the whole range");
    // Packets every 1 ms, much closer than the jitter: still in order.
    let out = run(&mut c, 10_000, 1000, 40);
    assert!(out.windows(2).all(|w| w[0].0 < w[1].0), "reordered");
    assert_eq!(c.stats().reordered, 0);
}

#[test]
fn reordering_happens_only_when_enabled_and_at_its_rate() {
    let conditions = LinkConditions {
        latency_ms: 50,
        jitter_ms: 10,
        reorder: 0.05,
        ..LinkConditions::PERFECT
    };
    let mut c = LinkConditioner::new(conditions, 3);
    let out = run(&mut c, N, 16_000, 40);
    let overtaken = out.windows(2).filter(|w| w[0].0 > w[1].0).count();
    let rate = c.stats().reordered as f64 / N as f64;
    println!(
        "reorder 5 %: {:.3} % of packets sent ahead, {overtaken} inversions",
        rate * 100.0
    );
    assert!((rate - 0.05).abs() < 0.005, "rate {rate}");
    assert!(overtaken as f64 > 0.9 * c.stats().reordered as f64);
    // A reordered packet skips the latency.
    assert!(out.iter().any(|&(_, sent, delivered)| delivered == sent));
}

#[test]
fn duplication_rate_is_within_tolerance() {
    let mut c = LinkConditioner::new(
        LinkConditions {
            latency_ms: 20,
            duplicate: 0.05,
            ..LinkConditions::PERFECT
        },
        5,
    );
    let out = run(&mut c, N, 1000, 40);
    let extra = out.len() as f64 / N as f64 - 1.0;
    println!("duplicate 5 %: {:.3} % extra copies", extra * 100.0);
    assert!((extra - 0.05).abs() < 0.005, "extra {extra}");
    // Copies arrive together, in order.
    assert!(out.windows(2).all(|w| w[0].0 <= w[1].0));
}

#[test]
fn bandwidth_cap_spaces_packets_and_queues_when_exceeded() {
    // 1000 B/s, 100-byte packets: one leaves every 100 ms.
    let mut c = LinkConditioner::new(
        LinkConditions {
            latency_ms: 10,
            bandwidth_bytes_per_s: 1000,
            ..LinkConditions::PERFECT
        },
        1,
    );
    for i in 0..5u64 {
        assert!(c.send(SimTime::ZERO, 100, i));
    }
    let got = poll_exact(&mut c);
    let times: Vec<u64> = got.iter().map(|&(_, at)| at / 1000).collect();
    assert_eq!(times, [110, 210, 310, 410, 510], "ms");
    // Offered 2× the cap for 5 s: the queue hits MAX_QUEUE_DELAY_MS and
    // the excess is dropped; goodput equals the cap.
    let mut c = LinkConditioner::new(
        LinkConditions {
            bandwidth_bytes_per_s: 10_000,
            ..LinkConditions::PERFECT
        },
        1,
    );
    let out = run(&mut c, 1000, 5_000, 100);
    let last = out.last().unwrap().2;
    let goodput = out.len() as f64 * 100.0 / (last as f64 / 1e6);
    let worst = out.iter().map(|&(_, s, d)| d - s).max().unwrap();
    println!(
        "cap 10 kB/s, offered 20 kB/s: goodput {goodput:.0} B/s, worst queueing {worst} µs, \
         {} dropped",
        c.stats().overflowed
    );
    assert!((goodput - 10_000.0).abs() < 200.0);
    assert!(worst <= 1_000_000);
    assert!(c.stats().overflowed > 300);
}

#[test]
fn lag_spike_adds_n_ms_for_m_seconds() {
    let mut c = LinkConditioner::new(
        LinkConditions {
            latency_ms: 30,
            ..LinkConditions::PERFECT
        },
        1,
    );
    c.start_lag_spike(SimTime::from_millis(1000), 400, 2000);
    let mut delays = Vec::new();
    for i in 0..40u64 {
        let now = SimTime::from_millis(i * 100);
        c.send(now, 40, i);
        for (p, at) in poll_exact(&mut c) {
            delays.push((p * 100, (at - now.0) / 1000));
        }
    }
    // Every packet arrived, once, in send order.
    let sent: Vec<u64> = delays.iter().map(|&(sent_ms, _)| sent_ms).collect();
    assert_eq!(sent, (0..40).map(|i| i * 100).collect::<Vec<_>>());
    // Before 1 s: 30 ms; sent in [1 s, 3 s): 430 ms; after it, 30 ms but
    // never before the spike's last packet (sent at 2.9 s, due at 3.33 s):
    // packets stay in order.
    for &(sent_ms, delay) in &delays {
        let expected = match sent_ms {
            0..1000 => 30,
            1000..3000 => 430,
            _ => (sent_ms + 30).max(3330) - sent_ms,
        };
        assert_eq!(delay, expected, "sent at {sent_ms} ms");
    }
}

#[test]
fn lag_spike_holds_later_packets_in_order() {
    let mut c = LinkConditioner::new(
        LinkConditions {
            latency_ms: 30,
            ..LinkConditions::PERFECT
        },
        1,
    );
    c.start_lag_spike(SimTime::ZERO, 500, 100);
    for i in 0..20u64 {
        c.send(SimTime::from_millis(i * 16), 40, i);
    }
    let got = poll_exact(&mut c);
    assert!(got.windows(2).all(|w| w[0].0 < w[1].0));
    // The first packet after the spike waits for the last one in it.
    assert_eq!(got[7].1, 96_000 + 530_000);
}

#[test]
fn a_rescued_packet_in_a_lag_spike_arrives_on_time_and_holds_nothing() {
    // The what-if "deliver it" of a packet a spike held (issue #28 item 1):
    // packet 3 (sent at 48 ms) rescued arrives after the 30 ms latency;
    // the others sent in the 100 ms spike still wait 530 ms, in order.
    let mut c = LinkConditioner::new(
        LinkConditions {
            latency_ms: 30,
            ..LinkConditions::PERFECT
        },
        1,
    );
    c.rescue(3);
    c.start_lag_spike(SimTime::ZERO, 500, 100);
    for i in 0..8u64 {
        c.send(SimTime::from_millis(i * 16), 40, i);
    }
    let got = poll_exact(&mut c);
    assert_eq!(got[0], (3, 48_000 + 30_000));
    let held: Vec<(u64, u64)> = got[1..7].to_vec();
    assert_eq!(
        held,
        [0, 1, 2, 4, 5, 6]
            .iter()
            .map(|&i| (i, i * 16_000 + 530_000))
            .collect::<Vec<_>>()
    );
    // Packet 7, sent after the spike (112 ms), waits behind packet 6.
    assert_eq!(got[7], (7, 6 * 16_000 + 530_000));
}

/// Pinned: the same value comes out of wasm (`e2e/network.test.mjs` calls
/// the page's `fate_fingerprint` export with the same arguments).
#[test]
fn fate_sequence_hash_is_pinned() {
    let h = fate_fingerprint(7, FINGERPRINT_CONDITIONS, 10_000);
    assert_eq!(format!("{h:016x}"), "bd81a58dd70734e6");
}
