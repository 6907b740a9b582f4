//! The A/B view's row of paired numbers: each column's corrections,
//! states restored, steps re-simulated, missed inputs, re-simulation time,
//! bytes/s each way and packets held behind a resend ([`Numbers`]), side
//! by side with B / A ([`paired_rows`]). Pure: tested natively.

use sim::endpoints::metrics::Metrics;

/// One column's numbers for the paired row.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Numbers {
    /// Corrections the player saw: Adjustments (CMC) or visible rollbacks.
    pub corrections: u64,
    /// States restored: Adjustments (CMC) or rebases (every State).
    pub restored: u64,
    /// Steps re-simulated: moves replayed or ticks re-simulated.
    pub resimulated: u64,
    /// Inputs the server held or defaulted (rollback only).
    pub missed: Option<u32>,
    /// Mean wall time of a frame that re-simulated, µs.
    pub resim_us: Option<f64>,
    /// Uplink bytes/s.
    pub up_bps: u64,
    /// Downlink bytes/s.
    pub down_bps: u64,
    /// Packets held behind a resend, both directions (the reliable-ordered
    /// transport's head-of-line blocking; 0 over datagrams).
    pub held: u64,
}

impl Numbers {
    /// A column's numbers from its read-out and its re-simulation clock.
    pub fn from_metrics(m: &Metrics, resim_us: Option<f64>) -> Numbers {
        Numbers {
            corrections: m.adjustments,
            restored: m.rollback.map_or(m.adjustments, |r| r.rebases),
            resimulated: m.replayed_moves,
            missed: m.rollback.map(|r| r.missed_inputs),
            resim_us,
            up_bps: m.up_bps,
            down_bps: m.down_bps,
            held: u64::from(m.link.up.held) + u64::from(m.link.down.held),
        }
    }
}

/// One cell group of the paired row: `data-metric` suffix, A, B, B / A.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    /// `ab-a-<id>`, `ab-b-<id>`, `ab-ratio-<id>`.
    pub id: &'static str,
    /// A's value.
    pub a: String,
    /// B's value.
    pub b: String,
    /// B / A.
    pub ratio: String,
}

/// The paired numbers of the two columns, in the table's order.
pub fn paired_rows(a: &Numbers, b: &Numbers) -> Vec<Paired> {
    let count = |id, x: u64, y: u64| Paired {
        id,
        a: x.to_string(),
        b: y.to_string(),
        ratio: ratio(x as f64, y as f64),
    };
    let opt = |id, x: Option<f64>, y: Option<f64>, digits: usize| Paired {
        id,
        a: x.map_or("–".to_owned(), |v| format!("{v:.digits$}")),
        b: y.map_or("–".to_owned(), |v| format!("{v:.digits$}")),
        ratio: match (x, y) {
            (Some(x), Some(y)) => ratio(x, y),
            _ => "–".to_owned(),
        },
    };
    vec![
        count("corrections", a.corrections, b.corrections),
        count("restored", a.restored, b.restored),
        count("resimulated", a.resimulated, b.resimulated),
        opt(
            "missed",
            a.missed.map(f64::from),
            b.missed.map(f64::from),
            0,
        ),
        opt("resim-us", a.resim_us, b.resim_us, 1),
        count("up-bps", a.up_bps, b.up_bps),
        count("down-bps", a.down_bps, b.down_bps),
        count("held", a.held, b.held),
    ]
}

/// B / A as the table writes it: `×2.50`, `×0.61`, two significant
/// digits under 0.1 (`×0.0034`: 5 ticks against 1472 is not "×0.00"),
/// `×0` when B is 0, `=` when both are 0, `A 0` when only A is.
pub fn ratio(a: f64, b: f64) -> String {
    if a != 0.0 {
        let r = b / a;
        let digits = if r != 0.0 && r.abs() < 0.1 {
            ((-r.abs().log10()).floor() as usize + 2).min(6)
        } else {
            2
        };
        if r == 0.0 {
            "×0".to_owned()
        } else {
            format!("×{r:.digits$}")
        }
    } else if b == 0.0 {
        "=".to_owned()
    } else {
        "A 0".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_numbers_carry_the_ratio_b_over_a() {
        let a = Numbers {
            corrections: 4,
            restored: 1700,
            resimulated: 18_000,
            missed: Some(2),
            resim_us: Some(6.0),
            up_bps: 1659,
            down_bps: 3639,
            held: 0,
        };
        let b = Numbers {
            corrections: 10,
            missed: Some(0),
            resim_us: None,
            held: 42,
            ..a
        };
        let rows = paired_rows(&a, &b);
        assert_eq!(rows[0].ratio, "×2.50");
        assert_eq!(rows[1].ratio, "×1.00");
        assert_eq!((rows[3].a.as_str(), rows[3].b.as_str()), ("2", "0"));
        assert_eq!(rows[3].ratio, "×0");
        assert_eq!(ratio(1472.0, 5.0), "×0.0034");
        assert_eq!(ratio(188.0, 2.0), "×0.011");
        assert_eq!(ratio(20.0, 1.0), "×0.050");
        assert_eq!((rows[4].b.as_str(), rows[4].ratio.as_str()), ("–", "–"));
        assert_eq!(ratio(0.0, 0.0), "=");
        assert_eq!(ratio(0.0, 3.0), "A 0");
        let held = rows.last().unwrap();
        assert_eq!(
            (
                held.id,
                held.a.as_str(),
                held.b.as_str(),
                held.ratio.as_str()
            ),
            ("held", "0", "42", "A 0")
        );
    }
}
