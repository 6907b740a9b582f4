//! [`LatencyBudget`]: what a viewer feels between pressing a key and
//! seeing the server's verdict on it, term by term, for the settings in
//! force — beside the same terms measured from the packet timeline.
//!
//! The terms, in the order a move lives them (`000_…` §3–§7):
//! input sampling (half a frame), the send throttle (combining holds a
//! move up to `ClientNetSendMoveDeltaTime`; a rollback input waits for its
//! tick), the uplink's one-way delay, the wait for the server's next
//! response (UE `NetworkMinTimeBetweenClientAckGoodMoves`; a rollback
//! State every `state_interval` ticks), the downlink's one-way delay, and
//! the smoothing that eases the correction in (`SmoothLocationTime`,
//! `000_…` §7.2), and the host's own processing (receive → simulate →
//! reply), which the model takes as none. A wait for something periodic
//! is half its period on average; jitter is symmetric, so it adds nothing
//! on average.
//!
//! On the relay the measured terms come from its packet trace: the one
//! way terms add the real network's share (half the round trip outside
//! the relay that the trace's clock sample measures) to the
//! conditioner's, and the host's processing is what the relay measured
//! ([`RelayCost`], [`LatencyBudget::with_relay`]). In the page the host
//! runs between frames on the run's clock: its processing is not
//! measurable there.

use crate::cmc::smoothing::{SmoothingMode, SMOOTH_LOCATION_TIME};
use crate::foundation::time::SimTime;
use crate::net::trace::{Direction, PacketKind, PacketLog, PacketRecord};
use crate::protocol::Model;
use crate::protocol::Setup;

/// The frame rate the expected input-sampling term assumes, Hz (the
/// page's refresh on most screens).
const NOMINAL_FRAME_HZ: f64 = 60.0;

/// One term of the budget, ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetTerm {
    /// What it is.
    pub name: &'static str,
    /// What the settings make it on average, ms.
    pub expected_ms: f64,
    /// What the packet timeline shows, ms (`None`: not measurable there).
    pub measured_ms: Option<f64>,
}

/// What a relay run's trace adds to the measured terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelayCost {
    /// The relay's receive → simulate → reply, mean, ms (`None` before
    /// it measured any).
    pub processing_ms: Option<f64>,
    /// One way through the real network, ms: half the round trip outside
    /// the relay.
    pub network_one_way_ms: f64,
}

/// The term the relay's processing is.
pub const RELAY_PROCESSING: &str = "relay processing";

/// The terms of one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyBudget {
    /// In the order a move lives them.
    pub terms: Vec<BudgetTerm>,
}

impl LatencyBudget {
    /// The budget for `setup`, measured over the packets sent in
    /// `from..=to` (`packets`: `None` when the run keeps no timeline, as
    /// over the relay) with frames of `frame_dt_s` s.
    pub fn new(
        setup: &Setup,
        frame_dt_s: f64,
        packets: Option<&PacketLog>,
        from: SimTime,
        to: SimTime,
    ) -> LatencyBudget {
        let window: Vec<&PacketRecord> =
            packets.map_or(Vec::new(), |p| p.between(from, to).collect());
        let of = |dir: Direction, kinds: &[PacketKind]| -> Vec<&PacketRecord> {
            window
                .iter()
                .filter(|p| p.direction == dir && kinds.contains(&p.kind))
                .copied()
                .collect()
        };
        let up = of(Direction::Up, &[PacketKind::ServerMove, PacketKind::Inputs]);
        let responses = of(
            Direction::Down,
            &[PacketKind::Ack, PacketKind::Adjustment, PacketKind::State],
        );
        let (throttle_ms, response_ms) = match setup.model {
            Model::Cmc => (
                if setup.client.combine_moves {
                    secs_to_ms(setup.client.send_interval)
                } else {
                    0.0
                },
                f64::from(setup.rules.ack_interval_ms),
            ),
            Model::Rollback(c) => {
                let tick_ms = 1000.0 / f64::from(c.tick_rate.hz());
                (tick_ms, tick_ms * f64::from(c.state_interval))
            }
        };
        let frame_ms = frame_dt_s * 1000.0;
        let smoothing_ms = match setup.smoothing {
            SmoothingMode::Disabled => 0.0,
            _ => secs_to_ms(SMOOTH_LOCATION_TIME),
        };
        let terms = vec![
            BudgetTerm {
                name: "input sampling",
                expected_ms: 500.0 / NOMINAL_FRAME_HZ,
                measured_ms: Some(frame_ms / 2.0),
            },
            BudgetTerm {
                name: "send throttle",
                expected_ms: throttle_ms / 2.0,
                measured_ms: mean_gap_ms(&up).map(|g| (g - frame_ms).max(0.0) / 2.0),
            },
            BudgetTerm {
                name: "one way up",
                expected_ms: f64::from(setup.net.uplink.latency_ms),
                measured_ms: mean_transit_ms(&up),
            },
            BudgetTerm {
                name: "response interval",
                expected_ms: response_ms / 2.0,
                measured_ms: mean_gap_ms(&responses).map(|g| g / 2.0),
            },
            BudgetTerm {
                name: "one way down",
                expected_ms: f64::from(setup.net.downlink.latency_ms),
                measured_ms: mean_transit_ms(&responses),
            },
            BudgetTerm {
                name: "smoothing",
                expected_ms: smoothing_ms,
                measured_ms: None,
            },
            BudgetTerm {
                name: RELAY_PROCESSING,
                expected_ms: 0.0,
                measured_ms: None,
            },
        ];
        LatencyBudget { terms }
    }

    /// The budget of a relay run: the real network's share added to the
    /// measured one way terms, and the relay's processing measured.
    pub fn with_relay(mut self, cost: RelayCost) -> LatencyBudget {
        for t in &mut self.terms {
            match t.name {
                "one way up" | "one way down" => {
                    if let Some(m) = &mut t.measured_ms {
                        *m += cost.network_one_way_ms;
                    }
                }
                RELAY_PROCESSING => t.measured_ms = cost.processing_ms,
                _ => {}
            }
        }
        self
    }

    /// The sum of the expected terms, ms.
    pub fn expected_ms(&self) -> f64 {
        self.terms.iter().map(|t| t.expected_ms).sum()
    }

    /// The sum of the measured terms, ms, taking the expected value where
    /// a term cannot be measured.
    pub fn measured_ms(&self) -> f64 {
        self.terms
            .iter()
            .map(|t| t.measured_ms.unwrap_or(t.expected_ms))
            .sum()
    }
}

/// An `f32` setting in seconds as ms, to the µs (0.1 s is 100 ms, not
/// 100.0000015).
fn secs_to_ms(s: f32) -> f64 {
    (f64::from(s) * 1e6).round() / 1e3
}

/// Mean time between consecutive sends, ms.
fn mean_gap_ms(packets: &[&PacketRecord]) -> Option<f64> {
    let (first, last) = (packets.first()?, packets.last()?);
    (packets.len() > 1)
        .then(|| last.sent.secs_since(first.sent) * 1000.0 / (packets.len() - 1) as f64)
}

/// Mean send-to-arrival time of the delivered ones, ms.
fn mean_transit_ms(packets: &[&PacketRecord]) -> Option<f64> {
    let transits: Vec<f64> = packets
        .iter()
        .filter_map(|p| match p.fate {
            crate::net::conditioner::Fate::Delivered { at, .. } => {
                Some(at.secs_since(p.sent) * 1000.0)
            }
            _ => None,
        })
        .collect();
    (!transits.is_empty()).then(|| transits.iter().sum::<f64>() / transits.len() as f64)
}
