//! The settings that span the models: every setting the page's controls
//! hold ([`Setup`]) and one change of them ([`Setting`]) — the link, the
//! CMC server's rules and client switches, smoothing, and which model runs
//! with its settings. An endpoint starts from a setup and applies
//! settings; a scenario records them.

use super::model::Model;
use crate::cmc::client_config::ClientConfig;
use crate::cmc::rules::ServerRules;
use crate::cmc::smoothing::SmoothingMode;
use crate::net::settings::{LagSpike, NetSettings};
use crate::net::trace::Direction;
use crate::net::transport::LinkTransport;
use serde::{Deserialize, Serialize};

/// Every setting the page's controls hold.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Setup {
    /// Link conditioner settings.
    pub net: NetSettings,
    /// How the link carries packets, both directions alike.
    pub transport: LinkTransport,
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
    pub fn settings(&self) -> [Setting; 6] {
        [
            Setting::Net(self.net),
            Setting::Transport(self.transport),
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
            Setting::Transport(t) => self.transport = t,
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
    /// by the correction inspector. Only a run with both ends in process
    /// (local mode, scenarios) can do this: a relay session ignores it.
    Deliver {
        /// Which way the packet went.
        direction: Direction,
        /// Its place in that direction's send order, from 0.
        index: u32,
    },
    /// Datagrams or reliable-ordered (TCP-like) from now on, both
    /// directions ([`crate::net::transport`]).
    Transport(LinkTransport),
}

impl Setting {
    /// What the setting sets: `net`, `rules`, `client`, `smoothing`,
    /// `lag-spike`, `model`, `deliver` or `transport`.
    pub fn name(&self) -> &'static str {
        match self {
            Setting::Net(_) => "net",
            Setting::Rules(_) => "rules",
            Setting::Client(_) => "client",
            Setting::Smoothing(_) => "smoothing",
            Setting::LagSpike(_) => "lag-spike",
            Setting::Model(_) => "model",
            Setting::Deliver { .. } => "deliver",
            Setting::Transport(_) => "transport",
        }
    }
}
