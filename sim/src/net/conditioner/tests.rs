//! The conditioner's unit tests.

use super::*;

#[test]
fn latency_delays_by_exactly_the_one_way_time() {
    let mut c = LinkConditioner::new(
        LinkConditions {
            latency_ms: 50,
            ..LinkConditions::PERFECT
        },
        1,
    );
    assert!(c.send(SimTime::from_millis(10), 10, 'a'));
    assert_eq!(c.poll(SimTime::from_millis(59)), None);
    assert_eq!(c.next_delivery(), Some(SimTime::from_millis(60)));
    assert_eq!(c.poll(SimTime::from_millis(60)), Some('a'));
}

#[test]
fn same_seed_same_fates() {
    let conditions = LinkConditions {
        latency_ms: 30,
        jitter_ms: 10,
        loss: 0.3,
        duplicate: 0.1,
        reorder: 0.1,
        ..LinkConditions::PERFECT
    };
    assert_eq!(
        fate_fingerprint(5, conditions, 500),
        fate_fingerprint(5, conditions, 500)
    );
    assert_ne!(
        fate_fingerprint(5, conditions, 500),
        fate_fingerprint(6, conditions, 500)
    );
}

#[test]
fn a_packet_fate_does_not_depend_on_earlier_settings() {
    // Five draws per packet whatever the settings: changing the loss of
    // the first 100 packets leaves the fates of the next 100 alone.
    let run = |early_loss: f64| {
        let mut c = LinkConditioner::new(LinkConditions::PERFECT, 9);
        c.set_conditions(LinkConditions {
            loss: early_loss,
            ..LinkConditions::PERFECT
        });
        for i in 0..100u64 {
            c.send(SimTime(i), 1, i);
        }
        c.set_conditions(LinkConditions {
            loss: 0.5,
            ..LinkConditions::PERFECT
        });
        (100..200u64)
            .map(|i| c.send(SimTime(i), 1, i))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(0.0), run(0.9));
}
