//! The latency budget card (`#budget`): what a viewer feels between a key
//! press and the server's verdict on it, term by term — expected from the
//! settings in force beside measured from the packet timeline
//! ([`sim::inspect::LatencyBudget`]) — and the totals. On the relay the
//! timeline is the relay's trace: the one way terms add the real
//! network's share and the relay's own processing is measured.

use crate::dom::write_text;
use sim::inspect::LatencyBudget;
use web_sys::{Document, Element};

/// One line of the card.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The term.
    pub name: &'static str,
    /// Expected, "12.5".
    pub expected: String,
    /// Measured, "11.9", or "—" when it cannot be measured.
    pub measured: String,
}

/// The card's lines, the total last (its measured sum takes the expected
/// value of a term that cannot be measured, and says so with "≈").
pub fn lines(b: &LatencyBudget) -> Vec<Line> {
    let ms = |v: f64| format!("{v:.1}");
    let mut out: Vec<Line> = b
        .terms
        .iter()
        .map(|t| Line {
            name: t.name,
            expected: ms(t.expected_ms),
            measured: t.measured_ms.map_or_else(|| "—".to_owned(), ms),
        })
        .collect();
    let partly = b.terms.iter().any(|t| t.measured_ms.is_none());
    out.push(Line {
        name: "total",
        expected: ms(b.expected_ms()),
        measured: format!("{}{}", if partly { "≈ " } else { "" }, ms(b.measured_ms())),
    });
    out
}

/// The card's table body.
pub struct BudgetCard {
    body: Option<Element>,
    doc: Document,
    note: Option<Element>,
}

impl BudgetCard {
    /// Finds `#budget-body` and `#budget-note`.
    pub fn new(doc: &Document) -> BudgetCard {
        BudgetCard {
            body: doc.get_element_by_id("budget-body"),
            note: doc.get_element_by_id("budget-note"),
            doc: doc.clone(),
        }
    }

    /// Writes `budget`, measured over `what` ("the last 10 s", "around the
    /// playhead", "no packet timeline on the relay").
    pub fn write(&self, budget: &LatencyBudget, what: &str) {
        let Some(body) = &self.body else {
            return;
        };
        let lines = lines(budget);
        let rows = body.children();
        for (i, line) in lines.iter().enumerate() {
            let row = rows.item(i as u32).or_else(|| {
                let tr = self.doc.create_element("tr").ok()?;
                for tag in ["th", "td", "td"] {
                    let cell = self.doc.create_element(tag).ok()?;
                    let _ = tr.append_child(&cell);
                }
                let _ = body.append_child(&tr);
                Some(tr)
            });
            let Some(row) = row else {
                continue;
            };
            let cells = row.children();
            for (j, text) in [line.name, &line.expected, &line.measured]
                .into_iter()
                .enumerate()
            {
                if let Some(cell) = cells.item(j as u32) {
                    write_text(&cell, text);
                }
            }
            crate::dom::set_flag(&row, "data-total", line.name == "total");
            crate::dom::write_attr(&row, "data-term", line.name);
        }
        if let Some(note) = &self.note {
            write_text(note, what);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::inspect::BudgetTerm;

    #[test]
    fn the_total_says_when_it_leans_on_expected_terms() {
        let b = LatencyBudget {
            terms: vec![
                BudgetTerm {
                    name: "one way up",
                    expected_ms: 100.0,
                    measured_ms: Some(101.26),
                },
                BudgetTerm {
                    name: "smoothing",
                    expected_ms: 100.0,
                    measured_ms: None,
                },
            ],
        };
        let l = lines(&b);
        assert_eq!(l[0].measured, "101.3");
        assert_eq!(l[1].measured, "—");
        assert_eq!(
            l[2],
            Line {
                name: "total",
                expected: "200.0".into(),
                measured: "≈ 201.3".into()
            }
        );
    }
}
