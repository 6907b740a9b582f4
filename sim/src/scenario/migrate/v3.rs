//! Scenario version 3, saved from the checkpoints in the outcome until
//! version 4: the client's switches had no prediction and no
//! reconciliation switch (both techniques were always on), the rollback
//! settings no rollback switch (always on) and no input delay (it was 0).
//! Everything else is version 4's ([`super::v4`]).

use super::v4 as next;
use serde::Deserialize;

pub(super) use next::{
    Arena, FrameInput, LagSpike, NetSettings, Outcome, ServerRules, SmoothingMode,
};

/// A version-3 scenario, field for field.
#[derive(Deserialize)]
pub(super) struct Scenario {
    /// The version ([`super::read`] picked this decoder by it).
    #[serde(rename = "version")]
    pub(super) _version: u16,
    pub(super) name: String,
    pub(super) description: String,
    pub(super) seed: u64,
    pub(super) arena: Arena,
    pub(super) setup: Setup,
    pub(super) changes: Vec<Change>,
    pub(super) frames: Vec<FrameInput>,
    pub(super) outcome: Option<Outcome>,
}

/// The settings of version 3: its client switches.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct Setup {
    pub(super) net: NetSettings,
    pub(super) rules: ServerRules,
    pub(super) client: ClientConfig,
    pub(super) smoothing: SmoothingMode,
    pub(super) model: Model,
}

/// A setting change of version 3.
#[derive(Clone, Copy, Deserialize)]
pub(super) enum Setting {
    Net(NetSettings),
    Rules(ServerRules),
    Client(ClientConfig),
    Smoothing(SmoothingMode),
    LagSpike(LagSpike),
    Model(Model),
    Deliver {
        direction: next::Direction,
        index: u32,
    },
}

/// A change of version 3.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct Change {
    pub(super) frame: u32,
    pub(super) setting: Setting,
}

/// The client's switches of version 3: no prediction or reconciliation
/// switch.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct ClientConfig {
    pub(super) combine_moves: bool,
    pub(super) send_interval: f32,
    pub(super) old_move_redundancy: bool,
    pub(super) forced_move_loss_percent: f32,
    pub(super) speed_buff: bool,
    pub(super) dash_outside_saved_move: bool,
    pub(super) clock_speed: f32,
}

/// The model of version 3.
#[derive(Clone, Copy, Deserialize)]
pub(super) enum Model {
    Cmc,
    Rollback(RollbackConfig),
}

/// The rollback settings of version 3: no rollback switch, no input
/// delay.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct RollbackConfig {
    tick_rate: next::TickRate,
    redundancy: u8,
    hold_last_limit: u8,
    state_interval: u8,
    max_prediction: Option<u16>,
    input_buffer: u8,
    start_tick: next::Tick,
}

impl Model {
    /// Version 4's model: rollback on and no input delay, as every
    /// version-3 run had.
    fn upgrade(self) -> next::Model {
        match self {
            Model::Cmc => next::Model::Cmc,
            Model::Rollback(r) => next::Model::Rollback(next::RollbackConfig {
                tick_rate: r.tick_rate,
                redundancy: r.redundancy,
                hold_last_limit: r.hold_last_limit,
                state_interval: r.state_interval,
                max_prediction: r.max_prediction,
                input_buffer: r.input_buffer,
                rollback: true,
                input_delay: 0,
                start_tick: r.start_tick,
            }),
        }
    }
}

impl ClientConfig {
    /// Version 4's switches: prediction and reconciliation on, as every
    /// version-3 client had them.
    fn upgrade(self) -> next::ClientConfig {
        next::ClientConfig {
            combine_moves: self.combine_moves,
            send_interval: self.send_interval,
            old_move_redundancy: self.old_move_redundancy,
            forced_move_loss_percent: self.forced_move_loss_percent,
            speed_buff: self.speed_buff,
            dash_outside_saved_move: self.dash_outside_saved_move,
            clock_speed: self.clock_speed,
            prediction: true,
            reconciliation: true,
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
            Setting::Model(m) => next::Setting::Model(m.upgrade()),
            Setting::Deliver { direction, index } => next::Setting::Deliver { direction, index },
        }
    }
}

impl Scenario {
    /// Version 4: the same run, prediction and reconciliation on, no
    /// input delay.
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
            _version: 4,
            name,
            description,
            seed,
            arena,
            setup: next::Setup {
                net: setup.net,
                rules: setup.rules,
                client: setup.client.upgrade(),
                smoothing: setup.smoothing,
                model: setup.model.upgrade(),
            },
            changes: changes
                .into_iter()
                .map(|c| next::Change {
                    frame: c.frame,
                    setting: c.setting.upgrade(),
                })
                .collect(),
            frames,
            outcome,
        }
    }
}

impl super::Layout for Scenario {
    fn into_current(self) -> crate::Scenario {
        self.upgrade().into_current()
    }
}
