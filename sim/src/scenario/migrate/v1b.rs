//! Scenario version 1 as saved from the net-model merge (cd740f1) to
//! db05a66: per-direction links and lag spikes, before the model, the
//! fire button and the client's clock speed existed.

use super::v2 as next;
use serde::Deserialize;

pub(super) use next::{Arena, NetSettings, Outcome, ServerRules, SmoothingMode};

/// A version-1 scenario of this layout, field for field.
#[derive(Deserialize)]
pub(super) struct Scenario {
    /// The version ([`super::read`] picked this decoder by it).
    #[serde(rename = "version")]
    pub(super) _version: u16,
    pub(super) name: String,
    pub(super) description: String,
    pub(super) seed: u64,
    pub(super) arena: next::Arena,
    pub(super) setup: Setup,
    pub(super) changes: Vec<Change>,
    pub(super) frames: Vec<FrameInput>,
    pub(super) outcome: Option<next::Outcome>,
}

/// The settings of this layout: no model (CMC was the only one).
#[derive(Clone, Copy, Deserialize)]
pub(super) struct Setup {
    pub(super) net: NetSettings,
    pub(super) rules: next::ServerRules,
    pub(super) client: ClientConfig,
    pub(super) smoothing: next::SmoothingMode,
}

/// A setting change of this layout.
#[derive(Clone, Copy, Deserialize)]
pub(super) enum Setting {
    Net(NetSettings),
    Rules(next::ServerRules),
    Client(ClientConfig),
    Smoothing(next::SmoothingMode),
    LagSpike(next::LagSpike),
}

/// A change of this layout.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct Change {
    pub(super) frame: u32,
    pub(super) setting: Setting,
}

/// A frame of version 1: no fire button.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct FrameInput {
    dt_us: u32,
    x: i16,
    y: i16,
    dash: bool,
}

/// The client's switches of version 1: no clock speed.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct ClientConfig {
    combine_moves: bool,
    send_interval: f32,
    old_move_redundancy: bool,
    forced_move_loss_percent: f32,
    speed_buff: bool,
    dash_outside_saved_move: bool,
}

impl FrameInput {
    /// Version 2's frame: fire not pressed (there was no such button).
    fn upgrade(self) -> next::FrameInput {
        next::FrameInput {
            dt_us: self.dt_us,
            x: self.x,
            y: self.y,
            dash: self.dash,
            fire: false,
        }
    }
}

impl ClientConfig {
    /// Version 2's switches: an honest clock (1×), as every version-1
    /// client had.
    fn upgrade(self) -> next::ClientConfig {
        next::ClientConfig {
            combine_moves: self.combine_moves,
            send_interval: self.send_interval,
            old_move_redundancy: self.old_move_redundancy,
            forced_move_loss_percent: self.forced_move_loss_percent,
            speed_buff: self.speed_buff,
            dash_outside_saved_move: self.dash_outside_saved_move,
            clock_speed: 1.0,
        }
    }
}

impl Setting {
    fn upgrade(self) -> next::Setting {
        match self {
            Setting::Net(n) => next::Setting::Net(n),
            Setting::Rules(r) => next::Setting::Rules(r),
            Setting::Client(c) => next::Setting::Client(c.upgrade()),
            Setting::Smoothing(m) => next::Setting::Smoothing(m),
            Setting::LagSpike(s) => next::Setting::LagSpike(s),
        }
    }
}

impl Scenario {
    /// Version 2: the CMC model (the only one then), fire never pressed,
    /// an honest client clock.
    fn upgrade(self) -> next::Scenario {
        let Scenario {
            _version: _,
            name,
            description,
            seed,
            arena,
            setup,
            changes,
            frames,
            outcome,
        } = self;
        next::Scenario {
            _version: 2,
            name,
            description,
            seed,
            arena,
            setup: next::Setup {
                net: setup.net,
                rules: setup.rules,
                client: setup.client.upgrade(),
                smoothing: setup.smoothing,
                model: next::Model::Cmc,
            },
            changes: changes
                .into_iter()
                .map(|c| next::Change {
                    frame: c.frame,
                    setting: c.setting.upgrade(),
                })
                .collect(),
            frames: frames.into_iter().map(FrameInput::upgrade).collect(),
            outcome,
        }
    }
}

impl super::Layout for Scenario {
    fn into_current(self) -> crate::Scenario {
        self.upgrade().into_current()
    }
}
