//! What-if forks from an open story: the fork made and compared with the
//! run ([`super::scrub::Comparison`]), its result in words, and
//! Save B (`POST /api/scenarios`, like any scenario) with its links.

use super::panel::ForkView;
use super::story_view::row;
use super::{timed, Inspector};
use crate::runbar::share::{self, Reply};
use sim::scenario::codec;
use sim::Scenario;

impl Inspector {
    /// Forks the run with the open story's what-if `i`.
    pub fn fork(&mut self, i: usize) {
        let Some(open) = &self.open else {
            return;
        };
        let Some(option) = open.story.forks.get(i).cloned() else {
            return;
        };
        let open_index = (open.branch == 0).then_some(open.index);
        let Some(s) = &mut self.scrub else {
            return;
        };
        let label = option.label.clone();
        let ((), ms) = timed(|| s.fork(option));
        let Some(cmp) = s.compare() else {
            return;
        };
        let a = s.original();
        let names = |ins: &sim::inspect::Inspection, idx: &[usize]| {
            idx.iter()
                .map(|&k| row(&ins.corrections()[k]).what)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut lines = vec![match cmp.first_difference {
            None => "B went exactly as A, bit for bit: this change altered nothing.".to_owned(),
            Some(f) => format!(
                "B parts from A in frame {f} ({:.3} s); before it the two are the same run, bit for bit.",
                s.time_after(f + 1) as f64 / 1e6
            ),
        }];
        lines.push(format!(
            "Corrections: A {} · B {}",
            cmp.counts.0, cmp.counts.1
        ));
        if !cmp.gone.is_empty() {
            lines.push(format!("Gone in B: {}", names(a, &cmp.gone)));
        }
        if let Some(b) = s.branch(1).filter(|_| !cmp.added.is_empty()) {
            lines.push(format!("New in B: {}", names(&b.ins, &cmp.added)));
        }
        if let Some(k) = open_index {
            lines.push(if cmp.gone.contains(&k) {
                format!(
                    "The correction inspected ({}) does not happen in B.",
                    row(&a.corrections()[k]).what
                )
            } else {
                "The correction inspected still happens in B.".to_owned()
            });
        }
        self.costs.fork_ms = Some(ms);
        self.comparison = Some(cmp);
        self.fork_view = Some(ForkView {
            label,
            lines,
            shown: 1,
            saved: None,
        });
    }

    /// The fork's scenario (B), once made.
    pub fn fork_scenario(&self) -> Option<Scenario> {
        let b = self.scrub.as_ref()?.branch(1)?;
        Some(b.ins.scenario().clone())
    }

    /// Save B: `POST /api/scenarios`, the link shown in the fork's result.
    pub fn save_fork(&mut self) {
        let Some(f) = self.fork_scenario() else {
            return;
        };
        let text = match f.validate() {
            Err(e) => format!("Cannot save: {e}"),
            Ok(()) => {
                share::save(codec::encode(&f), self.save_box.clone());
                self.saving = Some(f);
                "Saving…".to_owned()
            }
        };
        if let Some(v) = &mut self.fork_view {
            v.saved = Some(text);
        }
    }

    /// Shows the relay's answer to Save B, once it came.
    pub fn take_fork_reply(&mut self) {
        let Some(reply) = self.save_box.borrow_mut().take() else {
            return;
        };
        let saved = self.saving.take();
        let text = match (reply, saved) {
            (Reply::Saved(id), Some(f)) => format!(
                "Saved: {}/s/{id} · self-contained: {}/#s={}",
                share::origin(),
                share::origin(),
                codec::to_fragment(&f)
            ),
            (Reply::Failed(reason), Some(f)) => format!(
                "Not stored ({reason}); the self-contained link plays anywhere: {}/#s={}",
                share::origin(),
                codec::to_fragment(&f)
            ),
            _ => return,
        };
        if let Some(v) = &mut self.fork_view {
            v.saved = Some(text);
        }
    }
}
