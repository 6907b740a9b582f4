//! [`Scenario::validate`]: every value of a scenario bounded before a run
//! or a store sees it — text, frames, changes, the settings against their
//! controls' ranges ([`crate::controls`]), the outcome against the run.

use super::{
    checkpoint_count, Scenario, ScenarioError, MAX_CHANGES, MAX_DESCRIPTION_CHARS, MAX_FRAME_US,
    MAX_NAME_CHARS, MAX_RECORDED_FRAMES, SCENARIO_VERSION,
};
use crate::cmc::client_config::ClientConfig;
use crate::cmc::controls;
use crate::foundation::control::{Range, SettingsError};
use crate::protocol::{Model, Setting};

fn check_text(
    field: &'static str,
    s: &str,
    max: usize,
    multiline: bool,
) -> Result<(), ScenarioError> {
    let problem = if s.chars().count() > max {
        Some("too long")
    } else if s
        .chars()
        .any(|c| c.is_control() && !(multiline && (c == '\n' || c == '\t')))
    {
        Some("holds control characters")
    } else {
        None
    };
    problem.map_or(Ok(()), |problem| {
        Err(ScenarioError::Text { field, problem })
    })
}

/// Checks a client config the way [`Scenario::validate`] needs: finite
/// rates in the page controls' ranges ([`controls::SEND_RATE`] as its
/// interval, [`controls::FORCED_MOVE_LOSS`], [`controls::CLOCK_SPEED`]).
fn check_client(c: &ClientConfig) -> Result<(), String> {
    let rate = controls::SEND_RATE;
    let interval = (1.0 / rate.max) as f32..=(1.0 / rate.min) as f32;
    if !(c.send_interval.is_finite() && interval.contains(&c.send_interval)) {
        return Err(format!(
            "client send_interval = {} s is outside 1/{}–1/{}",
            c.send_interval, rate.max, rate.min
        ));
    }
    let within = |v: f32, r: &Range| v.is_finite() && r.contains(f64::from(v));
    for (name, value, range) in [
        (
            "forced_move_loss_percent",
            c.forced_move_loss_percent,
            controls::FORCED_MOVE_LOSS,
        ),
        ("clock_speed", c.clock_speed, controls::CLOCK_SPEED),
    ] {
        if !within(value, &range) {
            return Err(format!(
                "client {name} = {value} is outside {}–{}",
                range.min, range.max
            ));
        }
    }
    Ok(())
}

fn check_setting(s: &Setting) -> Result<(), String> {
    let settings = |e: SettingsError| e.to_string();
    match s {
        Setting::Net(n) => n.validate().map_err(settings),
        Setting::Rules(r) => r.validate().map_err(settings),
        Setting::Client(c) => check_client(c),
        Setting::Smoothing(_) => Ok(()),
        Setting::LagSpike(spike) => spike.validate().map_err(settings),
        Setting::Model(Model::Cmc) => Ok(()),
        Setting::Model(Model::Rollback(c)) => c.validate().map_err(settings),
        Setting::Deliver { .. } | Setting::Transport(_) => Ok(()),
    }
}

impl Scenario {
    /// Checks every value against the limits above and the controls'
    /// ranges, so that a stored or linked scenario can always be run.
    ///
    /// # Errors
    /// The first problem found, as a [`ScenarioError`] whose message names
    /// the field.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != SCENARIO_VERSION {
            return Err(ScenarioError::Version {
                found: self.version,
                expected: SCENARIO_VERSION,
            });
        }
        if self.name.trim().is_empty() {
            return Err(ScenarioError::Text {
                field: "name",
                problem: "empty",
            });
        }
        check_text("name", &self.name, MAX_NAME_CHARS, false)?;
        check_text(
            "description",
            &self.description,
            MAX_DESCRIPTION_CHARS,
            true,
        )?;
        for s in self.setup.settings() {
            check_setting(&s).map_err(|e| ScenarioError::Setup(format!("{}: {e}", s.name())))?;
        }
        if self.frames.len() > MAX_RECORDED_FRAMES {
            return Err(ScenarioError::TooMany {
                what: "frames",
                count: self.frames.len(),
                max: MAX_RECORDED_FRAMES,
            });
        }
        if self.changes.len() > MAX_CHANGES {
            return Err(ScenarioError::TooMany {
                what: "changes",
                count: self.changes.len(),
                max: MAX_CHANGES,
            });
        }
        for (index, f) in self.frames.iter().enumerate() {
            let problem = if f.dt_us > MAX_FRAME_US {
                Some("dt_us is over 250000")
            } else if f.x == i16::MIN || f.y == i16::MIN {
                Some("input axis is outside -32767–32767")
            } else if i64::from(f.x).pow(2) + i64::from(f.y).pow(2) > 32768_i64.pow(2) {
                Some("input direction is longer than 1")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(ScenarioError::Frame { index, problem });
            }
        }
        let mut last = 0;
        for (index, c) in self.changes.iter().enumerate() {
            let problem = if c.frame < last {
                Some("frames out of order".to_owned())
            } else if c.frame as usize > self.frames.len() {
                Some(format!(
                    "frame {} is past the last frame ({})",
                    c.frame,
                    self.frames.len()
                ))
            } else {
                check_setting(&c.setting).err()
            };
            if let Some(problem) = problem {
                return Err(ScenarioError::Change { index, problem });
            }
            last = c.frame;
        }
        if let Some(o) = &self.outcome {
            if o.frames as usize != self.frames.len() {
                return Err(ScenarioError::Outcome {
                    claimed: o.frames,
                    actual: self.frames.len(),
                });
            }
            let duration_us = self.duration_us();
            let expected = checkpoint_count(duration_us);
            if !o.checkpoints.is_empty() && o.checkpoints.len() != expected {
                return Err(ScenarioError::Checkpoints {
                    claimed: o.checkpoints.len(),
                    expected,
                    duration_ms: duration_us / 1000,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::rules::ServerRules;
    use crate::cmc::smoothing::SmoothingMode;
    use crate::scenario::{Change, FrameInput, Setup};
    use crate::Vec2;

    #[test]
    fn validate_names_the_bad_field() {
        let mut s = Scenario::new("ok", 1, Setup::default());
        assert_eq!(s.validate(), Ok(()));
        s.name = " ".into();
        assert_eq!(s.validate().unwrap_err().to_string(), "name: empty");
        s.name = "x".repeat(81);
        assert_eq!(s.validate().unwrap_err().to_string(), "name: too long");
        s.name = "a\u{7}b".into();
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "name: holds control characters"
        );
        s.name = "ok".into();
        s.description = "line one\nline two".into();
        assert_eq!(s.validate(), Ok(()));
        s.version = 1;
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            format!("scenario version 1 is not this build's layout (version {SCENARIO_VERSION})")
        );
        s.version = SCENARIO_VERSION;
        s.setup.net.uplink.latency_ms = 5000;
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "setup: net: uplink.latency_ms = 5000 is outside 0–1000"
        );
        s.setup.net.uplink.latency_ms = 50;
        s.setup.client.send_interval = f32::NAN;
        assert!(s
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("setup: client: "));
    }

    #[test]
    fn validate_bounds_frames_and_changes() {
        let mut s = Scenario::new("ok", 1, Setup::default());
        s.frames = vec![FrameInput::quantize(0.016, Vec2::new(1.0, 0.0), false, false); 3];
        s.frames[1].dt_us = 250_001;
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "frame 1: dt_us is over 250000"
        );
        s.frames[1].dt_us = 16_000;
        s.frames[2].y = 32_767;
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "frame 2: input direction is longer than 1"
        );
        s.frames[2].y = 0;
        s.changes.push(Change {
            frame: 4,
            setting: Setting::Smoothing(SmoothingMode::Linear),
        });
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "change 0: frame 4 is past the last frame (3)"
        );
        s.changes[0].frame = 3;
        assert_eq!(s.validate(), Ok(()));
        s.changes.insert(
            0,
            Change {
                frame: 1,
                setting: Setting::Rules(ServerRules {
                    max_position_error_tenth_cm: 0,
                    ..ServerRules::default()
                }),
            },
        );
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "change 0: max_position_error_tenth_cm = 0 is outside 1–1000"
        );
        s.changes.swap(0, 1);
        assert!(s
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("change 1: frames out of order"));
    }

    #[test]
    fn an_outcome_has_one_checkpoint_per_half_second_or_none() {
        let mut s = Scenario::new("ok", 1, Setup::default());
        s.frames = vec![FrameInput::quantize(0.25, Vec2::ZERO, false, false); 5];
        s.outcome = Some(crate::scenario::Outcome {
            frames: 5,
            checkpoints: vec![1, 2],
            ..Default::default()
        });
        assert_eq!(s.validate(), Ok(()));
        s.outcome.as_mut().unwrap().checkpoints.clear();
        assert_eq!(s.validate(), Ok(()), "not kept");
        s.outcome.as_mut().unwrap().checkpoints = vec![1, 2, 3];
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "outcome has 3 checkpoints but a run of 1250 ms has 2 (or none)"
        );
    }
}
