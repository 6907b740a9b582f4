//! A rollback match's lanes (issue 22), beside its panels: this page's
//! link as the relay's trace has it (Inputs and Pings up; Acks, States
//! and Pongs down; each with its fate) and, as ◆ on the client row, the
//! rebases a remote player's mispredicted input caused, listed beside the
//! lanes; a click on one holds it in the Replayed panel. Pure (tested
//! natively): the match's frame draws and writes what this computes.

use super::match_rules::rebase_cause;
use super::match_run::Rebase;
use crate::inspector::lane_paint::{Glyph, MarkSpec};
use crate::inspector::story_view::Row;
use sim::SimTime;
use std::collections::VecDeque;

/// The ◆ of each rebase in `rebases`, at the page time it was applied;
/// its index is its place in the list.
pub fn marks(rebases: &VecDeque<Rebase>) -> Vec<MarkSpec> {
    rebases
        .iter()
        .enumerate()
        .map(|(index, r)| MarkSpec {
            t_us: r.at.0,
            index,
            glyph: Glyph::Correction,
            ..MarkSpec::default()
        })
        .collect()
}

/// The list's rows, oldest first, as seen by seat `local`: when (page
/// time), the tick it rebased to, who caused it and how many ticks were
/// re-simulated.
pub fn rows(rebases: &VecDeque<Rebase>, local: usize) -> Vec<Row> {
    rebases
        .iter()
        .map(|r| {
            let rec = &r.replay.record;
            Row {
                at: format!("{:.2} s", r.at.secs_since(SimTime::ZERO)),
                what: format!("Rebase to tick {}", rec.from.0),
                detail: rebase_cause(rec.resimulated.len(), &r.replay.caused_by, local),
            }
        })
        .collect()
}

/// The place in the list of the rebase applied at `pinned`, if it is
/// still kept.
pub fn place(rebases: &VecDeque<Rebase>, pinned: Option<SimTime>) -> Option<usize> {
    let at = pinned?;
    rebases.iter().position(|r| r.at == at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::match_run::Replay;
    use sim::rollback::sync_test::{rebase_case, REBASE_STATE_TICK, REBASE_TICKS};

    /// Two rebases of the bench's case (a State for tick 100 restored and
    /// 8 ticks re-simulated), caused by P2 at 1.5 s and by P2 and P3 at
    /// 2.25 s, seen from seat P1.
    fn two() -> VecDeque<Rebase> {
        let (mut client, state) = rebase_case(3).unwrap();
        client.receive_state(state).unwrap();
        assert!(client.rebase_if_due());
        let record = client.last_rollback().unwrap().clone();
        [(1_500_000, vec![1]), (2_250_000, vec![1, 2])]
            .into_iter()
            .map(|(us, caused_by)| Rebase {
                at: SimTime(us),
                replay: Replay {
                    record: record.clone(),
                    caused_by,
                },
            })
            .collect()
    }

    #[test]
    fn each_rebase_is_a_diamond_at_its_time_and_a_row_naming_who_caused_it() {
        let rebases = two();
        let m = marks(&rebases);
        assert_eq!(
            m.iter().map(|m| (m.t_us, m.index)).collect::<Vec<_>>(),
            [(1_500_000, 0), (2_250_000, 1)]
        );
        assert!(m
            .iter()
            .all(|m| m.glyph == Glyph::Correction && m.clickable()));
        assert_eq!((REBASE_STATE_TICK, REBASE_TICKS), (100, 8));
        let r = rows(&rebases, 0);
        assert_eq!(
            (r[0].at.as_str(), r[0].what.as_str(), r[0].detail.as_str()),
            (
                "1.50 s",
                "Rebase to tick 100",
                "P2's input mispredicted · 8 ticks re-simulated"
            )
        );
        assert_eq!(
            r[1].detail,
            "P2, P3's input mispredicted · 8 ticks re-simulated"
        );
    }

    #[test]
    fn a_pinned_rebase_is_found_by_its_time_until_it_is_pushed_out() {
        let mut rebases = two();
        assert_eq!(place(&rebases, Some(SimTime(2_250_000))), Some(1));
        assert_eq!(place(&rebases, None), None);
        rebases.pop_front();
        assert_eq!(place(&rebases, Some(SimTime(2_250_000))), Some(0));
        assert_eq!(place(&rebases, Some(SimTime(1_500_000))), None);
    }
}
