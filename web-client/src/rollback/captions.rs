//! The words around the panels in the rollback model: each panel's footer
//! and the Replayed panel's line, naming what is counted and on which side
//! (the server *held* 3 of your inputs; the client *re-simulated* 11
//! ticks). Pure: tested natively.

use super::log::Entry;
use sim::rollback::snapshot::PlayerState;
use sim::rollback::wire::RollbackServerTotals;
use sim::rollback::{RollbackMetrics, Tick};

/// The Predicted panel's footer: the tick, how far ahead of the last State
/// the client predicts, the input buffer and dilation that keep it there,
/// the local player's HP.
pub fn predicted_foot(tick: Option<Tick>, m: &RollbackMetrics, me: Option<&PlayerState>) -> String {
    let Some(tick) = tick else {
        return "rollback model · waiting for the match to start".to_owned();
    };
    let buffer = m.input_buffer.map_or("–".to_owned(), |b| format!("{b:.1}"));
    let hp = me.map_or(String::new(), |p| {
        let stun = if p.stun > 0 { " · stunned" } else { "" };
        format!(" · HP {}{stun}", p.hp)
    });
    format!(
        "tick {} · {} ahead of the last State · input buffer {buffer} · dilation {:.3}{hp}",
        tick.0, m.ticks_ahead, m.time_dilation
    )
}

/// The Authoritative panel's footer: the server's own input counters.
pub fn authoritative_foot(t: &RollbackServerTotals) -> String {
    format!(
        "server ran {} ticks · your inputs it held {}, defaulted {}, got late {} · {} redundant copies",
        t.ticks, t.held, t.defaulted, t.late, t.duplicates
    )
}

/// The Replayed panel's line: which rebase is shown, its tick range, why.
pub fn replayed_sub(shown: Option<(&Entry, usize, usize)>, rebases: u64) -> String {
    match shown {
        Some((e, i, n)) => {
            let r = &e.record;
            let ticks = r.to.diff(r.from).max(0);
            format!(
                "misprediction {i} of {n} (rebase #{}) · ticks {}–{} · {ticks} re-simulated · {}",
                e.number,
                r.from.0,
                r.to.0,
                e.why.label()
            )
        }
        None => format!("no misprediction yet · {rebases} rebases, each confirmed the prediction"),
    }
}

/// The Replayed panel's footer: what moved, by how much, and the rebases
/// that only confirmed since.
pub fn replayed_foot(e: Option<&Entry>, confirmations_since: u64) -> String {
    let Some(e) = e else {
        return String::new();
    };
    let visible = if e.visible {
        "visible rollback"
    } else {
        "below 16 cm: not counted as a rollback"
    };
    let (before, after) = e.projectiles;
    let shots = if before == after {
        String::new()
    } else {
        format!(" · projectiles {before} → {after}")
    };
    format!(
        "you moved {:.1} cm ({visible}) · bot {:.1} cm{shots} · {confirmations_since} confirming rebases since",
        e.local_mm as f32 / 10.0,
        e.remote_mm as f32 / 10.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rollback::log::Why;
    use sim::rollback::{Divergence, RollbackRecord, Snapshot};

    #[test]
    fn the_server_footer_counts_what_it_did_with_your_inputs() {
        let t = RollbackServerTotals {
            ticks: 3600,
            held: 11,
            defaulted: 1,
            late: 4,
            duplicates: 10_700,
            ..RollbackServerTotals::default()
        };
        assert_eq!(
            authoritative_foot(&t),
            "server ran 3600 ticks · your inputs it held 11, defaulted 1, got late 4 · 10700 redundant copies"
        );
    }

    #[test]
    fn the_replayed_panel_names_the_tick_range_and_why() {
        let e = Entry {
            number: 812,
            record: RollbackRecord {
                from: Tick(1200),
                to: Tick(1211),
                discarded: vec![],
                restored: Snapshot::default(),
                resimulated: vec![],
                divergence: Divergence::default(),
            },
            why: Why::RemoteInput,
            local_mm: 234,
            remote_mm: 410,
            projectiles: (2, 3),
            visible: true,
            confirmations_before: 0,
        };
        assert_eq!(
            replayed_sub(Some((&e, 3, 24)), 900),
            "misprediction 3 of 24 (rebase #812) · ticks 1200–1211 · 11 re-simulated · the bot's input was mispredicted (hold-last)"
        );
        assert_eq!(
            replayed_foot(Some(&e), 35),
            "you moved 23.4 cm (visible rollback) · bot 41.0 cm · projectiles 2 → 3 · 35 confirming rebases since"
        );
        assert_eq!(
            replayed_sub(None, 40),
            "no misprediction yet · 40 rebases, each confirmed the prediction"
        );
    }

    #[test]
    fn the_predicted_footer_shows_how_far_ahead_and_why() {
        let m = RollbackMetrics {
            ticks_ahead: 9,
            input_buffer: Some(2.04),
            time_dilation: 1.012,
            ..RollbackMetrics::default()
        };
        let me = PlayerState {
            hp: 90,
            stun: 3,
            ..PlayerState::default()
        };
        assert_eq!(
            predicted_foot(Some(Tick(1234)), &m, Some(&me)),
            "tick 1234 · 9 ahead of the last State · input buffer 2.0 · dilation 1.012 · HP 90 · stunned"
        );
    }
}
