//! The A/B difference's unit tests.

use super::*;

fn rollback() -> Setup {
    Setup {
        model: Model::Rollback(RollbackConfig::default()),
        ..Setup::default()
    }
}

#[test]
fn redundancy_one_against_four_changes_only_the_redundancy() {
    let a = rollback();
    let d = Difference::of(Knob::Redundancy);
    let b = d.b_setup(&a, RollbackConfig::default());
    let Model::Rollback(r) = b.model else {
        panic!("B runs rollback");
    };
    assert_eq!(r.redundancy, 1);
    assert_eq!(
        Model::Rollback(RollbackConfig { redundancy: 4, ..r }),
        a.model
    );
    assert_eq!(settings_to_send(&a, &b), vec![Setting::Model(b.model)]);
    assert_eq!(
        d.headers(&a, &b),
        (
            "rollback 60 Hz · redundancy 4 inputs".to_owned(),
            "rollback 60 Hz · redundancy 1 input".to_owned()
        )
    );
}

#[test]
fn the_model_knob_runs_the_other_model_with_the_pages_rollback_settings() {
    let mine = RollbackConfig {
        redundancy: 2,
        ..RollbackConfig::default()
    };
    let d = Difference::default();
    let b = d.b_setup(&Setup::default(), mine);
    assert_eq!(b.model, Model::Rollback(mine));
    assert_eq!(d.b_setup(&b, mine).model, Model::Cmc);
    assert_eq!(
        d.headers(&Setup::default(), &b),
        ("CMC".to_owned(), "rollback 60 Hz".to_owned())
    );
}

#[test]
fn an_ack_interval_of_zero_against_100_ms_is_a_rules_change() {
    let a = Setup::default();
    let d = Difference::of(Knob::AckInterval);
    let b = d.b_setup(&a, RollbackConfig::default());
    assert_eq!(b.rules.ack_interval_ms, 0);
    assert_eq!(settings_to_send(&a, &b), vec![Setting::Rules(b.rules)]);
    assert_eq!(d.headers(&a, &b).0, "CMC · ack interval 100 ms");
    // A knob of the other model changes nothing.
    assert!(!Knob::Redundancy.applies_to(&a.model));
    assert_eq!(
        Difference::of(Knob::Redundancy).b_setup(&a, RollbackConfig::default()),
        a
    );
}

#[test]
fn reconciliation_off_against_on_is_a_client_change() {
    let a = Setup::default();
    let d = Difference::of(Knob::Reconciliation);
    let b = d.b_setup(&a, RollbackConfig::default());
    assert!(!b.client.reconciliation && b.client.prediction);
    assert_eq!(settings_to_send(&a, &b), vec![Setting::Client(b.client)]);
    assert_eq!(
        d.headers(&a, &b),
        (
            "CMC · reconciliation on".to_owned(),
            "CMC · reconciliation off".to_owned()
        )
    );
}

#[test]
fn datagrams_against_reliable_ordered_is_a_transport_change_in_either_model() {
    for a in [Setup::default(), rollback()] {
        let d = Difference::of(Knob::Transport);
        let b = d.b_setup(&a, RollbackConfig::default());
        assert_eq!(b.transport, LinkTransport::ReliableOrdered);
        assert_eq!(
            settings_to_send(&a, &b),
            vec![Setting::Transport(LinkTransport::ReliableOrdered)]
        );
    }
    let a = Setup::default();
    let b = Difference::of(Knob::Transport).b_setup(&a, RollbackConfig::default());
    assert_eq!(
        Difference::of(Knob::Transport).headers(&a, &b),
        (
            "CMC · transport datagrams".to_owned(),
            "CMC · transport reliable-ordered".to_owned()
        )
    );
}

#[test]
fn every_choice_is_in_its_controls_range_and_the_default_is_offered() {
    for k in Knob::ALL {
        assert_eq!(Knob::parse(k.id()), Some(k));
        let choices = k.choices();
        assert!(choices.contains(&k.default_b()), "{k:?}");
        let a = if k.applies_to(&Model::Cmc) {
            Setup::default()
        } else {
            rollback()
        };
        for v in choices {
            let b = Difference { knob: k, b: v }.b_setup(&a, RollbackConfig::default());
            if let Model::Rollback(r) = b.model {
                assert_eq!(r.validate(), Ok(()), "{k:?} = {v}");
            }
            if k != Knob::Model {
                assert_eq!(k.value(&b), Some(v), "{k:?} = {v} reads back");
            }
        }
    }
}
