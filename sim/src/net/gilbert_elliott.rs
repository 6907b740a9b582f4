//! Bursty loss: the Gilbert–Elliott two-state Markov model (Gilbert 1960,
//! Elliott 1963), as in Linux `tc netem loss gemodel p r 1-h 1-k`
//! (tc-netem(8)).
//!
//! The link is either **good** or **bad**. Before each packet the state may
//! change: good → bad with probability `p` ([`GilbertElliott::enter_bad`]),
//! bad → good with probability `r` ([`GilbertElliott::leave_bad`]). The
//! packet is then lost with the loss rate of the state it is in: the link's
//! independent loss in the good state (netem's `1-k`), and
//! [`GilbertElliott::loss_in_bad`] in the bad state (netem's `1-h`).
//!
//! A stay in the bad state lasts a geometric number of packets with mean
//! `1 / r` — the mean burst length; the long-run share of packets sent in
//! the bad state is `p / (p + r)`.

use serde::{Deserialize, Serialize};

/// Parameters of the two-state chain (probabilities per packet,
/// `0.0..=1.0`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GilbertElliott {
    /// Probability of moving good → bad before a packet (netem `p`); 0
    /// turns bursts off.
    pub enter_bad: f64,
    /// Probability of moving bad → good before a packet (netem `r`); the
    /// mean burst length is `1 / leave_bad` packets.
    pub leave_bad: f64,
    /// Loss rate while bad (netem `1-h`).
    pub loss_in_bad: f64,
}

impl GilbertElliott {
    /// No bursts: the chain never leaves the good state.
    pub const OFF: GilbertElliott = GilbertElliott {
        enter_bad: 0.0,
        leave_bad: 1.0,
        loss_in_bad: 0.0,
    };

    /// Mean length of a stay in the bad state, packets (`1 / r`); infinite
    /// if the chain can never leave it.
    pub fn mean_burst_packets(&self) -> f64 {
        1.0 / self.leave_bad
    }

    /// Long-run share of packets sent in the bad state, `p / (p + r)`.
    pub fn bad_share(&self) -> f64 {
        if self.enter_bad <= 0.0 {
            0.0
        } else {
            self.enter_bad / (self.enter_bad + self.leave_bad)
        }
    }

    /// Long-run loss rate with `loss_in_good` as the good state's rate.
    pub fn mean_loss(&self, loss_in_good: f64) -> f64 {
        let bad = self.bad_share();
        (1.0 - bad) * loss_in_good + bad * self.loss_in_bad
    }
}

/// Which state the chain is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BurstState {
    bad: bool,
}

impl BurstState {
    /// Advances the chain by one packet with a uniform `roll` in `[0, 1)`
    /// and returns `true` if the packet is sent in the bad state.
    pub fn step(&mut self, model: &GilbertElliott, roll: f64) -> bool {
        if self.bad {
            if roll < model.leave_bad {
                self.bad = false;
            }
        } else if roll < model.enter_bad {
            self.bad = true;
        }
        self.bad
    }

    /// `true` while in the bad state.
    pub fn is_bad(&self) -> bool {
        self.bad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms() {
        let m = GilbertElliott {
            enter_bad: 0.01,
            leave_bad: 0.25,
            loss_in_bad: 1.0,
        };
        assert!((m.mean_burst_packets() - 4.0).abs() < 1e-12);
        assert!((m.bad_share() - 0.01 / 0.26).abs() < 1e-12);
        assert_eq!(GilbertElliott::OFF.bad_share(), 0.0);
        assert_eq!(GilbertElliott::OFF.mean_loss(0.1), 0.1);
    }

    #[test]
    fn off_never_enters_bad() {
        let mut s = BurstState::default();
        for i in 0..1000 {
            assert!(!s.step(&GilbertElliott::OFF, f64::from(i) / 1000.0));
        }
    }
}
