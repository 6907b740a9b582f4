//! The A/B view's decisions: which one setting the B column changes
//! ([`Difference`]: a [`Knob`] and B's value), B's settings derived from
//! A's ([`Difference::b_setup`]), the settings to send B when A's change
//! ([`settings_to_send`]) and each column's header; the row of paired
//! numbers is [`super::paired`]'s. Pure: tested natively.
//!
//! Column A runs the settings the page's controls show; B runs the same
//! settings with one difference, the same seed and the same input from the
//! same frame on ([`super::twin::Twin`] is B, forked from A's run). Everything B's
//! run depends on is A's run plus the difference, which is why a what-if
//! fork from any frame of a scenario (issue #14's packet inspector) is
//! the same call.

use sim::controls as c;
use sim::net::transport::LinkTransport;
use sim::protocol::{Setting, Setup};
use sim::rollback::{RollbackConfig, TickRate};
use sim::{Model, SmoothingMode};

/// One setting the B column changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    /// The other model (CMC ↔ rollback).
    Model,
    /// Rollback: inputs per packet.
    Redundancy,
    /// Rollback: ticks the server holds a missing input.
    HoldLast,
    /// Rollback: ticks between two States.
    StateInterval,
    /// Rollback: target input buffer, ticks.
    InputBuffer,
    /// Rollback: prediction window, ticks.
    MaxPrediction,
    /// Rollback: local input delay, ticks (ggrs `input_delay`).
    InputDelay,
    /// Rollback: predict and re-simulate on (1), or draw the States only
    /// (0), `001_…` §8.
    Rollback,
    /// Rollback: ticks per second.
    TickRate,
    /// CMC: min time between Acks, ms.
    AckInterval,
    /// CMC: min time between Adjustments, ms.
    AdjustmentInterval,
    /// CMC: position error that triggers an Adjustment, cm.
    ErrorThreshold,
    /// CMC: ServerMoves per second at most.
    SendRate,
    /// Both: how the drawn position catches up after a correction.
    Smoothing,
    /// CMC: client-side prediction on (1) or off (0), `000_…` §3.3.
    Prediction,
    /// CMC: reconciliation (replay after an Adjustment) on (1) or off
    /// (0), `000_…` §6.3–§6.4.
    Reconciliation,
    /// Both: the link's transport, datagrams (0) or reliable-ordered (1,
    /// TCP-like: [`sim::net::transport`]).
    Transport,
}

/// The smoothing modes B can take, by index (the knob's value).
/// Interpolation in the past needs a room's buffer (on this page it smooths
/// as Exponential), so it is not offered; Extrapolation is, against
/// Exponential: the same dead reckoning with its overshoot shown instead of
/// smoothed.
const SMOOTHING: [SmoothingMode; 4] = [
    SmoothingMode::Disabled,
    SmoothingMode::Linear,
    SmoothingMode::Exponential,
    SmoothingMode::Extrapolation,
];

impl Knob {
    /// Every knob, in the order of the page's `#ab-knob`.
    pub const ALL: [Knob; 17] = [
        Knob::Model,
        Knob::Redundancy,
        Knob::HoldLast,
        Knob::StateInterval,
        Knob::InputBuffer,
        Knob::MaxPrediction,
        Knob::InputDelay,
        Knob::Rollback,
        Knob::TickRate,
        Knob::AckInterval,
        Knob::AdjustmentInterval,
        Knob::ErrorThreshold,
        Knob::SendRate,
        Knob::Smoothing,
        Knob::Prediction,
        Knob::Reconciliation,
        Knob::Transport,
    ];

    /// The `<option>` value.
    pub fn id(self) -> &'static str {
        match self {
            Knob::Model => "model",
            Knob::Redundancy => "redundancy",
            Knob::HoldLast => "hold-last",
            Knob::StateInterval => "state-interval",
            Knob::InputBuffer => "input-buffer",
            Knob::MaxPrediction => "max-prediction",
            Knob::InputDelay => "input-delay",
            Knob::Rollback => "rollback",
            Knob::TickRate => "tick-rate",
            Knob::AckInterval => "ack-interval",
            Knob::AdjustmentInterval => "adjustment-interval",
            Knob::ErrorThreshold => "error-threshold",
            Knob::SendRate => "send-rate",
            Knob::Smoothing => "smoothing",
            Knob::Prediction => "prediction",
            Knob::Reconciliation => "reconciliation",
            Knob::Transport => "transport",
        }
    }

    /// The knob with this `<option>` value.
    pub fn parse(id: &str) -> Option<Knob> {
        Knob::ALL.into_iter().find(|k| k.id() == id)
    }

    /// What it is called in the headers.
    pub fn name(self) -> &'static str {
        match self {
            Knob::Model => "model",
            Knob::Redundancy => "redundancy",
            Knob::HoldLast => "hold-last",
            Knob::StateInterval => "State interval",
            Knob::InputBuffer => "input buffer",
            Knob::MaxPrediction => "prediction window",
            Knob::InputDelay => "input delay",
            Knob::Rollback => "rollback",
            Knob::TickRate => "tick rate",
            Knob::AckInterval => "ack interval",
            Knob::AdjustmentInterval => "adjustment interval",
            Knob::ErrorThreshold => "error threshold",
            Knob::SendRate => "send rate",
            Knob::Smoothing => "smoothing",
            Knob::Prediction => "prediction",
            Knob::Reconciliation => "reconciliation",
            Knob::Transport => "transport",
        }
    }

    /// `true` when the knob changes something in `model` (a rollback
    /// setting does nothing to a CMC run and the other way round).
    pub fn applies_to(self, model: &Model) -> bool {
        match self {
            Knob::Model | Knob::Smoothing | Knob::Transport => true,
            Knob::Redundancy
            | Knob::HoldLast
            | Knob::StateInterval
            | Knob::InputBuffer
            | Knob::MaxPrediction
            | Knob::InputDelay
            | Knob::Rollback
            | Knob::TickRate => matches!(model, Model::Rollback(_)),
            Knob::AckInterval
            | Knob::AdjustmentInterval
            | Knob::ErrorThreshold
            | Knob::SendRate
            | Knob::Prediction
            | Knob::Reconciliation => *model == Model::Cmc,
        }
    }

    /// The values offered for B, in the control's units (the model knob
    /// has one: "the other"; smoothing counts [`SMOOTHING`]). Within the
    /// control's range in `sim::controls`.
    pub fn choices(self) -> Vec<f64> {
        let every = |r: &c::Range| {
            let n = ((r.max - r.min) / r.step).round() as usize;
            (0..=n).map(|i| r.min + i as f64 * r.step).collect()
        };
        match self {
            Knob::Model => vec![1.0],
            Knob::Redundancy => every(&c::ROLLBACK_REDUNDANCY),
            Knob::HoldLast => every(&c::ROLLBACK_HOLD_LAST),
            Knob::StateInterval => every(&c::ROLLBACK_STATE_INTERVAL),
            Knob::InputBuffer => every(&c::ROLLBACK_INPUT_BUFFER),
            Knob::InputDelay => every(&c::ROLLBACK_INPUT_DELAY),
            Knob::MaxPrediction => vec![8.0, 15.0, 30.0, 60.0, 120.0, 240.0, 448.0],
            Knob::TickRate => TickRate::ALL.iter().map(|r| f64::from(r.hz())).collect(),
            Knob::AckInterval | Knob::AdjustmentInterval => {
                vec![0.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
            }
            Knob::ErrorThreshold => vec![1.7, 5.0, 16.0, 32.0, 100.0],
            Knob::SendRate => vec![10.0, 20.0, 30.0, 60.0, 90.0, 120.0],
            Knob::Smoothing => (0..SMOOTHING.len()).map(|i| i as f64).collect(),
            Knob::Prediction | Knob::Reconciliation | Knob::Rollback | Knob::Transport => {
                vec![0.0, 1.0]
            }
        }
    }

    /// B's value when the knob is picked: the one a reader would try first
    /// (redundancy 1 against 4, acks every move against every 0.10 s, …).
    pub fn default_b(self) -> f64 {
        match self {
            Knob::Model | Knob::Redundancy | Knob::Transport => 1.0,
            Knob::HoldLast | Knob::InputBuffer | Knob::AckInterval => 0.0,
            Knob::AdjustmentInterval | Knob::Smoothing => 0.0,
            Knob::Prediction | Knob::Reconciliation | Knob::Rollback => 0.0,
            Knob::StateInterval => 6.0,
            Knob::MaxPrediction | Knob::InputDelay => 8.0,
            Knob::TickRate => 30.0,
            Knob::ErrorThreshold => 1.7,
            Knob::SendRate => 30.0,
        }
    }

    /// The knob's value in `s` (model: 0 CMC, 1 rollback; a rollback knob
    /// of a CMC setup: `None`).
    pub fn value(self, s: &Setup) -> Option<f64> {
        let r = match s.model {
            Model::Rollback(r) => Some(r),
            Model::Cmc => None,
        };
        Some(match self {
            Knob::Model => f64::from(u8::from(r.is_some())),
            Knob::Redundancy => r?.redundancy.into(),
            Knob::HoldLast => r?.hold_last_limit.into(),
            Knob::StateInterval => r?.state_interval.into(),
            Knob::InputBuffer => r?.input_buffer.into(),
            Knob::InputDelay => r?.input_delay.into(),
            Knob::Rollback => f64::from(u8::from(r?.rollback)),
            Knob::MaxPrediction => r?.max_prediction.map_or(f64::INFINITY, f64::from),
            Knob::TickRate => r?.tick_rate.hz().into(),
            Knob::AckInterval => s.rules.ack_interval_ms.into(),
            Knob::AdjustmentInterval => s.rules.adjustment_interval_ms.into(),
            Knob::ErrorThreshold => f64::from(s.rules.max_position_error_tenth_cm) / 10.0,
            Knob::SendRate => (1.0 / f64::from(s.client.send_interval)).round(),
            Knob::Smoothing => SMOOTHING.iter().position(|m| *m == s.smoothing)? as f64,
            Knob::Prediction => f64::from(u8::from(s.client.prediction)),
            Knob::Reconciliation => f64::from(u8::from(s.client.reconciliation)),
            Knob::Transport => f64::from(u8::from(s.transport == LinkTransport::ReliableOrdered)),
        })
    }

    /// `v` as the headers write it: `4 inputs`, `100 ms`, `exponential`.
    pub fn format(self, v: f64) -> String {
        let plural =
            |n: f64, one: &str, many: &str| format!("{n} {}", if n == 1.0 { one } else { many });
        match self {
            Knob::Model => String::new(),
            Knob::Redundancy => plural(v, "input", "inputs"),
            Knob::HoldLast | Knob::StateInterval | Knob::InputBuffer | Knob::InputDelay => {
                plural(v, "tick", "ticks")
            }
            Knob::MaxPrediction if v.is_infinite() => "unlimited".to_owned(),
            Knob::MaxPrediction => plural(v, "tick", "ticks"),
            Knob::TickRate => format!("{v} Hz"),
            Knob::AckInterval | Knob::AdjustmentInterval => format!("{v} ms"),
            Knob::ErrorThreshold => format!("{v} cm"),
            Knob::SendRate => format!("{v} Hz"),
            Knob::Smoothing => SMOOTHING
                .get(v as usize)
                .map_or("–", |m| m.name())
                .to_owned(),
            Knob::Prediction | Knob::Reconciliation | Knob::Rollback => {
                if v == 0.0 { "off" } else { "on" }.to_owned()
            }
            Knob::Transport => if v == 0.0 {
                "datagrams"
            } else {
                "reliable-ordered"
            }
            .to_owned(),
        }
    }
}

/// What B changes: a knob and B's value for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// The setting that differs.
    pub knob: Knob,
    /// B's value ([`Knob::choices`]); unused for [`Knob::Model`].
    pub b: f64,
}

impl Default for Difference {
    /// The two models side by side.
    fn default() -> Self {
        Difference {
            knob: Knob::Model,
            b: 1.0,
        }
    }
}

impl Difference {
    /// `knob` with its default B value.
    #[cfg(test)]
    pub fn of(knob: Knob) -> Difference {
        Difference {
            knob,
            b: knob.default_b(),
        }
    }

    /// B's settings: `a` with the difference. The model knob runs the
    /// other model (`rollback`: the rollback settings the page shows, for
    /// when A runs CMC); a knob that does not apply to A's model changes
    /// nothing.
    pub fn b_setup(&self, a: &Setup, rollback: RollbackConfig) -> Setup {
        let mut b = *a;
        if !self.knob.applies_to(&a.model) {
            return b;
        }
        let v = self.b;
        match (self.knob, &mut b.model) {
            (Knob::Model, Model::Cmc) => b.model = Model::Rollback(rollback),
            (Knob::Model, Model::Rollback(_)) => b.model = Model::Cmc,
            (Knob::Redundancy, Model::Rollback(r)) => r.redundancy = v as u8,
            (Knob::HoldLast, Model::Rollback(r)) => r.hold_last_limit = v as u8,
            (Knob::StateInterval, Model::Rollback(r)) => r.state_interval = v as u8,
            (Knob::InputBuffer, Model::Rollback(r)) => r.input_buffer = v as u8,
            (Knob::InputDelay, Model::Rollback(r)) => r.input_delay = v as u8,
            (Knob::Rollback, Model::Rollback(r)) => r.rollback = v != 0.0,
            (Knob::MaxPrediction, Model::Rollback(r)) => r.max_prediction = Some(v as u16),
            (Knob::TickRate, Model::Rollback(r)) => {
                r.tick_rate = TickRate::from_hz(v as u32).unwrap_or(r.tick_rate);
            }
            (Knob::AckInterval, _) => b.rules.ack_interval_ms = v as u16,
            (Knob::AdjustmentInterval, _) => b.rules.adjustment_interval_ms = v as u16,
            (Knob::ErrorThreshold, _) => {
                b.rules.max_position_error_tenth_cm = (v * 10.0).round() as u16;
            }
            (Knob::SendRate, _) => b.client.send_interval = (1.0 / v) as f32,
            (Knob::Smoothing, _) => {
                b.smoothing = SMOOTHING.get(v as usize).copied().unwrap_or(b.smoothing);
            }
            (Knob::Prediction, _) => b.client.prediction = v != 0.0,
            (Knob::Reconciliation, _) => b.client.reconciliation = v != 0.0,
            (Knob::Transport, _) => {
                b.transport = if v != 0.0 {
                    LinkTransport::ReliableOrdered
                } else {
                    LinkTransport::Datagram
                };
            }
            _ => {}
        }
        b
    }

    /// The column headers: what each side runs, the difference named.
    pub fn headers(&self, a: &Setup, b: &Setup) -> (String, String) {
        let side = |s: &Setup| {
            let model = model_name(&s.model);
            match (self.knob, self.knob.value(s)) {
                (Knob::Model, _) => model,
                (k, Some(v)) => format!("{model} · {} {}", k.name(), k.format(v)),
                (k, None) => format!("{model} · {} n/a", k.name()),
            }
        };
        (side(a), side(b))
    }
}

/// A model as the headers name it: `CMC`, `rollback 60 Hz`.
pub fn model_name(m: &Model) -> String {
    match m {
        Model::Cmc => "CMC".to_owned(),
        Model::Rollback(r) => format!("rollback {} Hz", r.tick_rate.hz()),
    }
}

/// The settings that take a run from `from` to `to`, in the order a run
/// applies them (nothing when they are equal).
pub fn settings_to_send(from: &Setup, to: &Setup) -> Vec<Setting> {
    from.settings()
        .into_iter()
        .zip(to.settings())
        .filter(|(f, t)| f != t)
        .map(|(_, t)| t)
        .collect()
}

#[cfg(test)]
mod tests;
