//! The model selector (`#model`: CMC / rollback) and the rollback model's
//! own controls: tick rate, input redundancy, hold-last limit, State
//! interval, input buffer, prediction window. Each slider is bound to its
//! `sim::controls` entry; each note says what the value in force means
//! (the tooltips in `www/index.html` name the equivalent in ggrs, UE's
//! Network Prediction plugin and Unity Netcode for Entities).

use crate::controls::sliders::{Slider, Toggle};
use crate::dom::{notify, select, select_value};
use sim::controls as c;
use sim::rollback::{RollbackConfig, TickRate};
use sim::Model;
use web_sys::{Document, Element, HtmlSelectElement};

/// Handles on the model's controls.
pub struct RollbackControls {
    model: Option<HtmlSelectElement>,
    model_note: Option<Element>,
    tick_rate: Option<HtmlSelectElement>,
    tick_rate_note: Option<Element>,
    redundancy: Slider,
    hold_last: Slider,
    state_interval: Slider,
    input_buffer: Slider,
    input_delay: Slider,
    max_prediction: Slider,
    rollback: Toggle,
}

impl RollbackControls {
    /// Looks the controls up; missing ones fall back to the defaults.
    pub fn new(doc: &Document) -> RollbackControls {
        let s = |spec| Slider::new(doc, spec, "");
        let note = |id: &str| crate::dom::query(doc, &format!("[data-note=\"{id}\"]"));
        RollbackControls {
            model: select(doc, "model"),
            model_note: note("model"),
            tick_rate: select(doc, "rollback-tick-rate"),
            tick_rate_note: note("rollback-tick-rate"),
            redundancy: s(c::ROLLBACK_REDUNDANCY),
            hold_last: s(c::ROLLBACK_HOLD_LAST),
            state_interval: s(c::ROLLBACK_STATE_INTERVAL),
            input_buffer: s(c::ROLLBACK_INPUT_BUFFER),
            input_delay: s(c::ROLLBACK_INPUT_DELAY),
            rollback: Toggle::new(doc, c::ROLLBACK),
            max_prediction: s(c::ROLLBACK_MAX_PREDICTION),
        }
    }

    /// `true` when the selector says rollback.
    pub fn rollback_selected(&self) -> bool {
        select_value(&self.model).as_deref() == Some("rollback")
    }

    /// The rollback settings the controls show, on top of `base` (which
    /// keeps what the page has no control for: the start tick, an
    /// unlimited window). A new tick rate moves a prediction window that
    /// sat at the old rate's default (500 ms) to the new rate's.
    pub fn config(&self, base: RollbackConfig) -> RollbackConfig {
        let tick_rate = select_value(&self.tick_rate)
            .and_then(|v| v.parse().ok())
            .and_then(TickRate::from_hz)
            .unwrap_or(base.tick_rate);
        let shown = self.max_prediction.value() as u16;
        let at_default =
            base.max_prediction == RollbackConfig::at_rate(base.tick_rate).max_prediction;
        let max_prediction =
            if tick_rate != base.tick_rate && at_default && base.max_prediction == Some(shown) {
                let w = RollbackConfig::at_rate(tick_rate).max_prediction;
                self.max_prediction
                    .show(w.map_or(c::ROLLBACK_MAX_PREDICTION.max, f64::from));
                w
            } else if base.max_prediction.is_none()
                && f64::from(shown) == c::ROLLBACK_MAX_PREDICTION.max
            {
                None
            } else {
                Some(shown)
            };
        RollbackConfig {
            tick_rate,
            redundancy: self.redundancy.value() as u8,
            hold_last_limit: self.hold_last.value() as u8,
            state_interval: self.state_interval.value() as u8,
            input_buffer: self.input_buffer.value() as u8,
            rollback: self.rollback.on(),
            input_delay: self.input_delay.value() as u8,
            max_prediction,
            start_tick: base.start_tick,
        }
    }

    /// The model the selector shows, with `rollback` as its settings.
    pub fn model(&self, rollback: RollbackConfig) -> Model {
        if self.rollback_selected() {
            Model::Rollback(rollback)
        } else {
            Model::Cmc
        }
    }

    /// Moves the controls to `model` (a scenario being played back); a CMC
    /// model leaves the rollback settings as they are.
    pub fn show(&self, model: &Model) {
        if let Some(e) = &self.model {
            if e.value() != model.name() {
                e.set_value(model.name());
                notify(e);
            }
        }
        let Model::Rollback(r) = model else {
            return;
        };
        if let Some(e) = &self.tick_rate {
            let hz = r.tick_rate.hz().to_string();
            if e.value() != hz {
                e.set_value(&hz);
            }
        }
        self.redundancy.show(r.redundancy.into());
        self.hold_last.show(r.hold_last_limit.into());
        self.state_interval.show(r.state_interval.into());
        self.input_buffer.show(r.input_buffer.into());
        self.input_delay.show(r.input_delay.into());
        self.rollback.show(r.rollback);
        self.max_prediction.show(
            r.max_prediction
                .map_or(c::ROLLBACK_MAX_PREDICTION.max, f64::from),
        );
    }

    /// Writes every read-out and note for `model` (the one in force) and
    /// the rollback settings the controls hold.
    pub fn write(&self, model: &Model, r: &RollbackConfig) {
        for s in [
            &self.redundancy,
            &self.hold_last,
            &self.state_interval,
            &self.input_buffer,
            &self.input_delay,
        ] {
            s.write_readout(None);
        }
        self.max_prediction
            .write_readout(r.max_prediction.is_none().then_some("∞"));
        let hz = r.tick_rate.hz();
        let ms = |ticks: u32| f64::from(ticks) * 1000.0 / f64::from(hz);
        if let Some(n) = &self.model_note {
            crate::dom::write_text(n, &model_note(model));
        }
        if let Some(n) = &self.tick_rate_note {
            crate::dom::write_text(n, &format!("dt = {:.1} ms per tick", ms(1)));
        }
        let k = r.redundancy;
        self.redundancy.write_note(&if k == 1 {
            "no redundancy: every lost packet is a lost input".to_owned()
        } else {
            format!("each packet carries the last {k} inputs: {k} losses in a row lose one")
        });
        let h = u32::from(r.hold_last_limit);
        self.hold_last.write_note(&if h == 0 {
            "a missing input is the empty input at once".to_owned()
        } else {
            format!(
                "a missing input repeats the last for ≤ {h} ticks ({:.0} ms), then empty",
                ms(h)
            )
        });
        let s = u32::from(r.state_interval);
        self.state_interval.write_note(&format!(
            "a State every {:.1} ms: {:.0} per second",
            ms(s),
            f64::from(hz) / f64::from(s)
        ));
        let b = u32::from(r.input_buffer);
        self.input_buffer.write_note(&format!(
            "aim: {b} ticks ({:.0} ms) of your input waiting at the server",
            ms(b)
        ));
        let d = u32::from(r.input_delay);
        self.input_delay.write_note(&if d == 0 {
            "none: your input is simulated in the tick it is pressed".to_owned()
        } else {
            format!(
                "your input is simulated {d} ticks ({:.0} ms) after you press it",
                ms(d)
            )
        });
        self.max_prediction.write_note(&match r.max_prediction {
            Some(w) => format!(
                "{:.0} ms at {hz} Hz past the last State, then the client waits",
                ms(w.into())
            ),
            None => "unlimited: a long stall can outrun the history (reported)".to_owned(),
        });
    }
}

/// The model selector's note: what the model in force sends.
fn model_note(model: &Model) -> String {
    match model {
        Model::Cmc => {
            "UE CharacterMovement: positions per move, Ack / Adjustment, replay".to_owned()
        }
        Model::Rollback(r) => format!(
            "fixed {} Hz ticks: inputs up, a State every {} ticks down, rebase and re-simulate",
            r.tick_rate.hz(),
            r.state_interval
        ),
    }
}
