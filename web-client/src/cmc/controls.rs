//! The prediction model's controls: the server's rules (ack and adjustment
//! intervals, error threshold, forced adjustments, push zone,
//! time-discrepancy resolution), the client's mechanisms (send rate,
//! forced ServerMove loss, clock speed, combining, old moves, speed buff,
//! the dash bug, and the two techniques that can be switched off:
//! prediction and reconciliation) and smoothing. Each shows the value in force and a note:
//! the UE setting it mirrors, and for the send rate what was achieved.

use crate::controls::sliders::{Slider, Toggle};
use crate::dom::{notify, select, select_value};
use sim::controls as c;
use sim::protocol::Setup;
use sim::{ClientConfig, ServerRules, SmoothingMode};
use web_sys::{Document, HtmlSelectElement};

/// What the send rate's note reports: the page's frame rate and the
/// ServerMoves that left per second, both over the last second.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Achieved {
    /// Page frames per second (real time).
    pub fps: Option<f64>,
    /// ServerMoves sent per second of the run's clock.
    pub moves_per_s: Option<f64>,
}

/// Handles on the model's controls.
pub struct ModelControls {
    ack_interval: Slider,
    adjustment_interval: Slider,
    error_threshold: Slider,
    forced_adjustment: Slider,
    push_zones: Toggle,
    td_resolution: Toggle,
    send_rate: Slider,
    forced_move_loss: Slider,
    clock_speed: Slider,
    combining: Toggle,
    old_moves: Toggle,
    speed_buff: Toggle,
    dash_bug: Toggle,
    fixed_step: Toggle,
    prediction: Toggle,
    reconciliation: Toggle,
    smoothing: Option<HtmlSelectElement>,
}

impl ModelControls {
    /// Looks the controls up; missing ones fall back to the defaults.
    pub fn new(doc: &Document) -> ModelControls {
        let s = |spec| Slider::new(doc, spec, "");
        let t = |spec| Toggle::new(doc, spec);
        ModelControls {
            ack_interval: s(c::ACK_INTERVAL),
            adjustment_interval: s(c::ADJUSTMENT_INTERVAL),
            error_threshold: s(c::ERROR_THRESHOLD),
            forced_adjustment: s(c::FORCED_ADJUSTMENT),
            push_zones: t(c::PUSH_ZONES),
            td_resolution: t(c::TD_RESOLUTION),
            send_rate: s(c::SEND_RATE),
            forced_move_loss: s(c::FORCED_MOVE_LOSS),
            clock_speed: s(c::CLOCK_SPEED),
            combining: t(c::COMBINING),
            old_moves: t(c::OLD_MOVES),
            speed_buff: t(c::SPEED_BUFF),
            dash_bug: t(c::DASH_BUG),
            fixed_step: t(c::FIXED_STEP),
            prediction: t(c::PREDICTION),
            reconciliation: t(c::RECONCILIATION),
            smoothing: select(doc, "smoothing"),
        }
    }

    /// The server rules the controls show.
    pub fn server_rules(&self) -> ServerRules {
        ServerRules {
            ack_interval_ms: self.ack_interval.value() as u16,
            adjustment_interval_ms: self.adjustment_interval.value() as u16,
            max_position_error_tenth_cm: (self.error_threshold.value() * 10.0).round() as u16,
            forced_adjustment_percent: self.forced_adjustment.value() as u8,
            server_effects: self.push_zones.on(),
            time_discrepancy_resolution: self.td_resolution.on(),
        }
    }

    /// The client's switches the controls show.
    pub fn client_config(&self) -> ClientConfig {
        ClientConfig {
            combine_moves: self.combining.on(),
            send_interval: (1.0 / self.send_rate.value()) as f32,
            old_move_redundancy: self.old_moves.on(),
            forced_move_loss_percent: self.forced_move_loss.value() as f32,
            speed_buff: self.speed_buff.on(),
            dash_outside_saved_move: self.dash_bug.on(),
            clock_speed: self.clock_speed.value() as f32,
            prediction: self.prediction.on(),
            reconciliation: self.reconciliation.on(),
        }
    }

    /// The page's client runs in fixed 1/60 s steps
    /// ([`crate::runbar::fixed_step`]).
    pub fn fixed_step(&self) -> bool {
        self.fixed_step.on()
    }

    /// The smoothing mode selected.
    pub fn smoothing(&self) -> SmoothingMode {
        select_value(&self.smoothing)
            .and_then(|v| SmoothingMode::parse(&v))
            .unwrap_or_default()
    }

    /// Moves the controls to `setup` (a scenario being played back), all
    /// but the link's ([`crate::controls::link::NetControls::show`]). What the
    /// controls can show is read back by the caller: a value between steps
    /// shows as the nearest step.
    pub fn show(&self, setup: &Setup) {
        let (r, cl) = (setup.rules, setup.client);
        self.ack_interval.show(r.ack_interval_ms.into());
        self.adjustment_interval
            .show(r.adjustment_interval_ms.into());
        self.error_threshold
            .show(f64::from(r.max_position_error_tenth_cm) / 10.0);
        self.forced_adjustment
            .show(r.forced_adjustment_percent.into());
        self.push_zones.show(r.server_effects);
        self.td_resolution.show(r.time_discrepancy_resolution);
        self.send_rate
            .show((1.0 / f64::from(cl.send_interval)).round());
        self.forced_move_loss
            .show(cl.forced_move_loss_percent.into());
        self.clock_speed.show(cl.clock_speed.into());
        self.combining.show(cl.combine_moves);
        self.old_moves.show(cl.old_move_redundancy);
        self.speed_buff.show(cl.speed_buff);
        self.dash_bug.show(cl.dash_outside_saved_move);
        self.prediction.show(cl.prediction);
        self.reconciliation.show(cl.reconciliation);
        if let Some(e) = &self.smoothing {
            if e.value() != setup.smoothing.name() {
                e.set_value(setup.smoothing.name());
                notify(e);
            }
        }
    }

    /// Writes every read-out and note for the rules and switches in force.
    pub fn write(&self, rules: &ServerRules, client: &ClientConfig, achieved: Achieved) {
        for s in [
            &self.ack_interval,
            &self.adjustment_interval,
            &self.error_threshold,
            &self.forced_adjustment,
            &self.send_rate,
            &self.forced_move_loss,
            &self.clock_speed,
        ] {
            s.write_readout(None);
        }
        self.ack_interval.write_note(&format!(
            "NetworkMinTimeBetweenClientAckGoodMoves={:.2}",
            f64::from(rules.ack_interval_ms) / 1000.0
        ));
        self.adjustment_interval.write_note(&format!(
            "NetworkMinTimeBetweenClientAdjustments={:.2}",
            f64::from(rules.adjustment_interval_ms) / 1000.0
        ));
        let cm = f64::from(rules.max_position_error_tenth_cm) / 10.0;
        self.error_threshold
            .write_note(&format!("MAXPOSITIONERRORSQUARED={:.0}", cm * cm));
        self.forced_adjustment.write_note(&format!(
            "p.NetForceClientAdjustmentPercent={}",
            rules.forced_adjustment_percent
        ));
        self.forced_move_loss.write_note(&format!(
            "p.NetForceClientServerMoveLossPercent={}",
            client.forced_move_loss_percent
        ));
        self.clock_speed.write_note(&clock_note(client.clock_speed));
        self.send_rate
            .write_note(&send_rate_note(client.send_interval, achieved));
    }
}

/// The clock speed's note: what the client claims per second.
fn clock_note(speed: f32) -> String {
    if speed == 1.0 {
        "honest: 1 s of movement per second".to_owned()
    } else {
        format!("speed hack: claims {speed:.2} s of movement per second")
    }
}

/// The send rate's note: UE's interval, the frame rate and the rate
/// achieved, and why they differ.
pub fn send_rate_note(send_interval: f32, a: Achieved) -> String {
    let cvar = format!("ClientNetSendMoveDeltaTime={send_interval:.4}");
    match (a.fps, a.moves_per_s) {
        (Some(fps), Some(sent)) => {
            let why = if sent + 1.5 < 1.0 / f64::from(send_interval) && sent + 1.5 >= fps {
                " (at most one move per frame)"
            } else {
                ""
            };
            format!("{cvar} · sent {sent:.0}/s · page {fps:.0} fps{why}")
        }
        _ => cvar,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_send_rate_note_says_when_the_frame_rate_limits_it() {
        let a = Achieved {
            fps: Some(30.0),
            moves_per_s: Some(29.6),
        };
        assert_eq!(
            send_rate_note(1.0 / 90.0, a),
            "ClientNetSendMoveDeltaTime=0.0111 · sent 30/s · page 30 fps (at most one move per frame)"
        );
        let slow = Achieved {
            fps: Some(60.0),
            moves_per_s: Some(20.0),
        };
        assert_eq!(
            send_rate_note(1.0 / 20.0, slow),
            "ClientNetSendMoveDeltaTime=0.0500 · sent 20/s · page 60 fps"
        );
        assert_eq!(
            send_rate_note(1.0 / 90.0, Achieved::default()),
            "ClientNetSendMoveDeltaTime=0.0111"
        );
    }
}
