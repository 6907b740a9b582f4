//! Scenario version 4, saved from the prediction and reconciliation
//! switches until version 5: the link had no transport setting (every
//! run carried datagrams). Everything else is version 5's.

use super::current as next;
use serde::Deserialize;

pub(super) use next::{
    Arena, ClientConfig, Direction, FrameInput, LagSpike, Model, NetSettings, Outcome,
    RollbackConfig, ServerRules, SmoothingMode, Tick, TickRate,
};

/// A version-4 scenario, field for field.
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

/// The settings of version 4: no transport.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct Setup {
    pub(super) net: NetSettings,
    pub(super) rules: ServerRules,
    pub(super) client: ClientConfig,
    pub(super) smoothing: SmoothingMode,
    pub(super) model: Model,
}

/// A setting change of version 4: no transport change.
#[derive(Clone, Copy, Deserialize)]
pub(super) enum Setting {
    Net(NetSettings),
    Rules(ServerRules),
    Client(ClientConfig),
    Smoothing(SmoothingMode),
    LagSpike(LagSpike),
    Model(Model),
    Deliver { direction: Direction, index: u32 },
}

/// A change of version 4.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct Change {
    pub(super) frame: u32,
    pub(super) setting: Setting,
}

impl Setting {
    fn upgrade(self) -> next::Setting {
        match self {
            Setting::Net(n) => next::Setting::Net(n),
            Setting::Rules(r) => next::Setting::Rules(r),
            Setting::Client(c) => next::Setting::Client(c),
            Setting::Smoothing(m) => next::Setting::Smoothing(m),
            Setting::LagSpike(s) => next::Setting::LagSpike(s),
            Setting::Model(m) => next::Setting::Model(m),
            Setting::Deliver { direction, index } => next::Setting::Deliver { direction, index },
        }
    }
}

impl Scenario {
    /// Version 5: the same run over datagrams, as every version-4 run was.
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
            version: 5,
            name,
            description,
            seed,
            arena,
            setup: next::Setup {
                net: setup.net,
                transport: next::LinkTransport::Datagram,
                rules: setup.rules,
                client: setup.client,
                smoothing: setup.smoothing,
                model: setup.model,
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
