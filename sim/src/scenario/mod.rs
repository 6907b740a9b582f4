//! Scenarios: a run written down so that anyone can run it again and get
//! the same trajectories, Adjustments and packet fates, bit for bit.
//!
//! A [`Scenario`] holds everything a [`crate::LocalSession`] run depends
//! on: the PRNG seed (link conditioner and forced-loss rolls), the arena,
//! the settings at the start ([`Setup`]), every setting changed during the
//! run ([`Change`], stamped with the frame it applies before), and the
//! recorded input of every client frame ([`FrameInput`]: frame time in µs
//! and the quantized input). A run is a pure function of these, so
//! [`ScenarioRun`] gives the same result natively, in wasm, in the CLI and
//! in the page.
//!
//! Scenarios come from the page (Record → Save) or are written by hand
//! (JSON through the relay's API). [`Scenario::validate`] bounds every
//! value before a run or a store sees it; [`codec`] turns a scenario into
//! the compact bytes stored by the relay and carried in links.

pub mod codec;
mod run;

pub use run::{ScenarioRun, MAX_RECORDED_FRAMES};

use crate::client_config::ClientConfig;
use crate::controls;
use crate::math::Vec2;
use crate::model::Model;
use crate::movement::{dequantize_axis, quantize_axis};
use crate::net::protocol::{LagSpike, NetSettings, ServerRules, SettingsError};
use crate::net::trace::Direction;
use crate::smoothing::SmoothingMode;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Version of the [`Scenario`] schema. A scenario with another version is
/// rejected with [`ScenarioError::Version`] rather than misread. Version 2
/// (issue #16 onwards) added the model, the fire button and the client's
/// clock speed; version 1 scenarios were recorded with the model before
/// its six faults were fixed, so they would not replay to their outcome.
pub const SCENARIO_VERSION: u16 = 2;

/// Longest name, characters.
pub const MAX_NAME_CHARS: usize = 80;
/// Longest description, characters.
pub const MAX_DESCRIPTION_CHARS: usize = 2000;
/// Longest client frame a scenario may hold, µs (0.25 s: longer page
/// frames are clamped to this before they are simulated, like UE's
/// `MaxSimulationTimeStep`-style clamps keep one frame from teleporting).
pub const MAX_FRAME_US: u32 = 250_000;
/// Most setting changes in one scenario.
pub const MAX_CHANGES: usize = 10_000;

/// Which arena the run happens in. Only the built-in one exists today
/// ([`crate::World::arena`]); the enum keeps saved scenarios readable when
/// more arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Arena {
    /// The 24 × 15 m arena with pillars, the centre wall and the push zone.
    #[default]
    Standard,
}

/// Every setting the page's controls hold.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Setup {
    /// Link conditioner settings.
    pub net: NetSettings,
    /// The server's rules (ack interval, thresholds, server-only effects).
    pub rules: ServerRules,
    /// The client's mechanism switches.
    pub client: ClientConfig,
    /// Smoothing of corrections and of the simulated proxy.
    pub smoothing: SmoothingMode,
    /// The prediction model and its settings.
    #[serde(default)]
    pub model: Model,
}

impl Setup {
    /// Every setting of the setup, in the order a run applies them.
    pub fn settings(&self) -> [Setting; 5] {
        [
            Setting::Net(self.net),
            Setting::Rules(self.rules),
            Setting::Client(self.client),
            Setting::Smoothing(self.smoothing),
            Setting::Model(self.model),
        ]
    }

    /// This setup with `setting` applied (a lag spike is an event, not a
    /// setting: it changes nothing here).
    pub fn with(mut self, setting: Setting) -> Setup {
        match setting {
            Setting::Net(n) => self.net = n,
            Setting::Rules(r) => self.rules = r,
            Setting::Client(c) => self.client = c,
            Setting::Smoothing(m) => self.smoothing = m,
            Setting::Model(m) => self.model = m,
            Setting::LagSpike(_) | Setting::Deliver { .. } => {}
        }
        self
    }
}

/// One setting changed during a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Setting {
    /// New link conditioner settings.
    Net(NetSettings),
    /// New server rules.
    Rules(ServerRules),
    /// New client switches.
    Client(ClientConfig),
    /// New smoothing mode.
    Smoothing(SmoothingMode),
    /// A lag spike starts (the Advanced network button).
    LagSpike(LagSpike),
    /// Another prediction model, or new rollback settings.
    Model(Model),
    /// What if: the link conditioner delivers the packet sent `index`-th
    /// (from 0, in send order since the connection began) in `direction`
    /// even if its loss roll says lost; every other packet keeps its fate
    /// ([`crate::net::conditioner::LinkConditioner::rescue`]). A fork made
    /// by the correction inspector ([`crate::inspect::fork`]). Only a run
    /// with both ends in process (local mode, scenarios) can do this: a
    /// relay session ignores it.
    Deliver {
        /// Which way the packet went.
        direction: Direction,
        /// Its place in that direction's send order, from 0.
        index: u32,
    },
}

impl Setting {
    /// What the setting sets: `net`, `rules`, `client`, `smoothing`,
    /// `lag-spike`, `model` or `deliver`.
    pub fn name(&self) -> &'static str {
        match self {
            Setting::Net(_) => "net",
            Setting::Rules(_) => "rules",
            Setting::Client(_) => "client",
            Setting::Smoothing(_) => "smoothing",
            Setting::LagSpike(_) => "lag-spike",
            Setting::Model(_) => "model",
            Setting::Deliver { .. } => "deliver",
        }
    }
}

/// A setting change applied just before client frame `frame` runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Index of the frame it precedes, `0..=frames.len()`.
    pub frame: u32,
    /// The new value.
    pub setting: Setting,
}

/// One client frame: how long it lasted and what the player pressed.
/// Input is quantized before it is simulated, so the recording *is* what
/// was simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FrameInput {
    /// Frame time, µs, `0..=MAX_FRAME_US`.
    pub dt_us: u32,
    /// Input direction x, `-32767..=32767` for −1.0..=1.0.
    pub x: i16,
    /// Input direction y (down is +), same scale.
    pub y: i16,
    /// Dash pressed this frame.
    pub dash: bool,
    /// Fire (the action button) held this frame.
    #[serde(default)]
    pub fire: bool,
}

impl FrameInput {
    /// Quantizes a page frame: `dt` seconds (clamped to
    /// `0..=MAX_FRAME_US`, rounded to µs) and a direction of length ≤ 1
    /// (each axis by [`quantize_axis`], the moves' own quantizer).
    pub fn quantize(dt: f64, direction: Vec2, dash: bool, fire: bool) -> FrameInput {
        let dt_us = if dt.is_finite() {
            (dt * 1e6).round().clamp(0.0, f64::from(MAX_FRAME_US)) as u32
        } else {
            0
        };
        FrameInput {
            dt_us,
            x: quantize_axis(direction.x),
            y: quantize_axis(direction.y),
            dash,
            fire,
        }
    }

    /// Frame time, s.
    pub fn dt(&self) -> f64 {
        f64::from(self.dt_us) / 1e6
    }

    /// Input direction, each axis `-1.0..=1.0`.
    pub fn direction(&self) -> Vec2 {
        Vec2::new(dequantize_axis(self.x), dequantize_axis(self.y))
    }
}

/// What a run ended with; stored with a recording so that a replay (or
/// the CLI in a regression test) can check it got the same.
///
/// The fields are named after the CMC model; a rollback run fills them
/// with the analogous numbers (as [`crate::Metrics`] does). The counters
/// are the model's in force at the end: a model switch starts them again,
/// while the trajectory hash covers every frame of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// Frames run.
    pub frames: u32,
    /// Hash of the final predicted state: the character's
    /// ([`crate::CharacterState::state_hash`]), or in the rollback model
    /// the whole snapshot's ([`crate::rollback::Snapshot::state_hash`]).
    pub state_hash: u64,
    /// Hash of the whole trajectory: every frame's predicted state hash
    /// folded in order.
    pub trajectory_hash: u64,
    /// Adjustments the client received; rollback: visible rollbacks.
    pub adjustments: u64,
    /// Moves re-simulated by replays; rollback: ticks re-simulated by
    /// rebases.
    pub replayed_moves: u64,
    /// Acks the client received; rollback: Acks received (one per server
    /// tick).
    pub acks: u64,
    /// ServerMoves the client sent; rollback: input packets sent.
    pub moves_sent: u64,
}

/// A saved run. See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Schema version, [`SCENARIO_VERSION`].
    pub version: u16,
    /// Short title, 1..=[`MAX_NAME_CHARS`] characters, no control
    /// characters.
    pub name: String,
    /// Free text, ≤ [`MAX_DESCRIPTION_CHARS`] characters; newlines and
    /// tabs allowed, other control characters not.
    pub description: String,
    /// Seed of the link conditioner and the client's forced-loss rolls.
    pub seed: u64,
    /// The arena.
    pub arena: Arena,
    /// Settings at frame 0.
    pub setup: Setup,
    /// Settings changed during the run, in frame order.
    pub changes: Vec<Change>,
    /// Every client frame, in order; ≤ [`MAX_RECORDED_FRAMES`].
    pub frames: Vec<FrameInput>,
    /// What the recording ended with, if known.
    pub outcome: Option<Outcome>,
}

/// Why a scenario was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScenarioError {
    /// Schema version this build does not read.
    #[error("scenario version {found} is not supported (this build reads version {expected})")]
    Version {
        /// Version in the scenario.
        found: u16,
        /// [`SCENARIO_VERSION`].
        expected: u16,
    },
    /// A text field is empty, too long or holds control characters.
    #[error("{field}: {problem}")]
    Text {
        /// `name` or `description`.
        field: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
    /// More frames or changes than allowed.
    #[error("{what}: {count} is more than the limit of {max}")]
    TooMany {
        /// `frames` or `changes`.
        what: &'static str,
        /// How many the scenario holds.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A frame's time or input is out of range.
    #[error("frame {index}: {problem}")]
    Frame {
        /// Index of the frame.
        index: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// A change is out of order, past the end, or holds a bad setting.
    #[error("change {index}: {problem}")]
    Change {
        /// Index of the change.
        index: usize,
        /// What is wrong.
        problem: String,
    },
    /// A setting at frame 0 is out of its control's range.
    #[error("setup: {0}")]
    Setup(String),
    /// The outcome disagrees with the frames it claims to summarize.
    #[error("outcome covers {claimed} frames but the scenario has {actual}")]
    Outcome {
        /// `outcome.frames`.
        claimed: u32,
        /// `frames.len()`.
        actual: usize,
    },
}

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
            "client send_interval = {} s is outside 1/{}..=1/{}",
            c.send_interval, rate.max, rate.min
        ));
    }
    let within = |v: f32, r: &controls::Range| v.is_finite() && r.contains(f64::from(v));
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
                "client {name} = {value} is outside {}..={}",
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
        Setting::Deliver { .. } => Ok(()),
    }
}

impl Scenario {
    /// An empty scenario (no frames yet) starting from `setup`.
    pub fn new(name: &str, seed: u64, setup: Setup) -> Scenario {
        Scenario {
            version: SCENARIO_VERSION,
            name: name.to_owned(),
            description: String::new(),
            seed,
            arena: Arena::Standard,
            setup,
            changes: Vec::new(),
            frames: Vec::new(),
            outcome: None,
        }
    }

    /// Recorded duration, s (sum of frame times).
    pub fn duration_secs(&self) -> f64 {
        self.frames.iter().map(|f| f64::from(f.dt_us)).sum::<f64>() / 1e6
    }

    /// The settings in force when frame `frame` runs: the setup with every
    /// change up to and including that frame's applied.
    pub fn settings_at(&self, frame: usize) -> Setup {
        self.changes
            .iter()
            .take_while(|c| c.frame as usize <= frame)
            .fold(self.setup, |s, c| s.with(c.setting))
    }

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
                Some("input axis is outside -32767..=32767")
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
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_rounds_and_clamps() {
        let f = FrameInput::quantize(1.0 / 60.0, Vec2::new(0.70710677, -0.70710677), true, true);
        assert_eq!(
            (f.dt_us, f.x, f.y, f.dash, f.fire),
            (16_667, 23_170, -23_170, true, true)
        );
        let f = FrameInput::quantize(3.0, Vec2::new(f32::NAN, 2.0), false, false);
        assert_eq!((f.dt_us, f.x, f.y), (250_000, 0, 32_767));
        assert_eq!(
            FrameInput::quantize(f64::NAN, Vec2::ZERO, false, false).dt_us,
            0
        );
        assert_eq!(
            FrameInput::quantize(-1.0, Vec2::ZERO, false, false).dt_us,
            0
        );
    }

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
            "scenario version 1 is not supported (this build reads version 2)"
        );
        s.version = 2;
        s.setup.net.uplink.latency_ms = 5000;
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "setup: net: uplink.latency_ms = 5000 is outside 0..=1000"
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
            "change 0: max_position_error_tenth_cm = 0 is outside 1..=1000"
        );
        s.changes.swap(0, 1);
        assert!(s
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("change 1: frames out of order"));
    }
}
