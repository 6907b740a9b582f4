//! Scenario version 1 as first saved, from e6391dd to 5a983ea: one RTT,
//! jitter and loss setting for both directions, no lag spikes.

use super::v1b as next;
use serde::Deserialize;

/// A version-1 scenario of this layout, field for field.
#[derive(Deserialize)]
pub(super) struct Scenario {
    /// The version ([`super::read`] picked this decoder by it).
    #[serde(rename = "version")]
    _version: u16,
    name: String,
    description: String,
    seed: u64,
    arena: next::Arena,
    setup: Setup,
    changes: Vec<Change>,
    frames: Vec<next::FrameInput>,
    outcome: Option<next::Outcome>,
}

/// The link of this layout: the same both ways.
#[derive(Clone, Copy, Deserialize)]
struct NetSettings {
    /// Round-trip latency, ms; each direction got half.
    rtt_ms: u16,
    /// ± jitter of each packet's one-way latency, ms.
    jitter_ms: u16,
    /// Loss in each direction, percent.
    loss_percent: u8,
}

/// The settings of this layout.
#[derive(Clone, Copy, Deserialize)]
struct Setup {
    net: NetSettings,
    rules: next::ServerRules,
    client: next::ClientConfig,
    smoothing: next::SmoothingMode,
}

/// A setting change of this layout: no lag spikes yet.
#[derive(Clone, Copy, Deserialize)]
enum Setting {
    Net(NetSettings),
    Rules(next::ServerRules),
    Client(next::ClientConfig),
    Smoothing(next::SmoothingMode),
}

/// A change of this layout.
#[derive(Clone, Copy, Deserialize)]
struct Change {
    frame: u32,
    setting: Setting,
}

impl NetSettings {
    /// Per-direction links as the net-model merge made of these sliders:
    /// half the RTT each way, the same jitter and loss both ways (what the
    /// host of this layout applied to its one conditioner per direction).
    fn upgrade(self) -> next::NetSettings {
        next::NetSettings::symmetric(self.rtt_ms, self.jitter_ms, self.loss_percent)
    }
}

impl Setting {
    fn upgrade(self) -> next::Setting {
        match self {
            Setting::Net(n) => next::Setting::Net(n.upgrade()),
            Setting::Rules(r) => next::Setting::Rules(r),
            Setting::Client(c) => next::Setting::Client(c),
            Setting::Smoothing(m) => next::Setting::Smoothing(m),
        }
    }
}

impl Scenario {
    /// The later layout of version 1: the link split into its directions.
    fn upgrade(self) -> next::Scenario {
        let Scenario {
            _version,
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
            _version,
            name,
            description,
            seed,
            arena,
            setup: next::Setup {
                net: setup.net.upgrade(),
                rules: setup.rules,
                client: setup.client,
                smoothing: setup.smoothing,
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
