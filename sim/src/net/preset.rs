//! Named link profiles with their sources: UE's editor network-emulation
//! profiles, naia's `LinkConditionerConfig` presets, and a mobile and a
//! satellite profile justified below. Each sets both directions. And
//! [`OPENING`], what a bare link to the page opens on.

use super::settings::{LagSpike, LinkSettings, NetSettings};

/// A link to start on and a lag spike pressed once into the run: what the
/// page opens on so that a correction shows within seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Opening {
    /// The link, both directions.
    pub settings: NetSettings,
    /// The spike pressed once (the Lag spike button's two fields).
    pub spike: LagSpike,
    /// When the spike is pressed, s of run time: the page's bot starts its
    /// tour at the run's start (it waits for the relay), so where it is —
    /// and whether it turns while the server hears nothing — is this
    /// time's.
    pub spike_at_s: f64,
}

/// What a bare link to the page opens on (issue #28 item 6: "open on
/// something worth seeing"): RTT 200 ms and 10 % loss both ways, and a
/// 400 ms spike for 0.5 s pressed 1.5 s in. Loss alone does not promise a
/// correction soon — UE's old-move redundancy (`000_…` §8.3,
/// OldMove) hides most lost ServerMoves, and at this link the bot's first
/// correction came anywhere from 1.2 s to never in 10 s over seeds —; the
/// spike silences the client for longer than UE's forced-update limit
/// (`MAXCLIENTUPDATEINTERVAL` 0.25 s, `000_…` §9.5), so the server moves
/// the character on on its last input while the bot, on its tour from its
/// first waypoint, turns: the server guessed wrong and corrects it, on
/// every seed and frame rate (`sim/tests/opening.rs`: by 3.3 s). Pressed
/// elsewhere on the tour it may correct nothing: a character running
/// straight through a silence is guessed right.
pub const OPENING: Opening = Opening {
    settings: NetSettings::symmetric(200, 0, 10),
    spike: LagSpike {
        extra_ms: 400,
        duration_ms: 500,
    },
    spike_at_s: 1.5,
};

/// A named [`NetSettings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// UE editor profile **Average** (Editor Preferences → Level Editor →
    /// Play → Multiplayer Options → Network Emulation; "Simulates average
    /// internet conditions"): `PktLagMin=30 PktLagMax=60 PktLoss=1` and the
    /// same incoming (`PktIncomingLagMin/Max/Loss`), from the engine's
    /// `BaseEngine.ini` `[PacketSimulationProfile.Average]`. UE draws the
    /// lag uniformly between min and max: 45 ± 15 ms each way, 1 % loss.
    UeAverage,
    /// UE editor profile **Bad** ("Simulates laggy internet conditions"):
    /// `PktLagMin=100 PktLagMax=200 PktLoss=5` both ways
    /// (`[PacketSimulationProfile.Bad]`): 150 ± 50 ms each way, 5 % loss.
    UeBad,
    /// naia `LinkConditionerConfig::perfect_condition`: 1 ms, ± 0, 0 %.
    /// naia conditions incoming traffic at both ends, so each direction
    /// gets it.
    NaiaPerfect,
    /// naia `very_good_condition`: 12 ms, ± 3 ms, 0.1 %.
    NaiaVeryGood,
    /// naia `good_condition`: 40 ms, ± 10 ms, 0.2 %.
    NaiaGood,
    /// naia `average_condition`: 100 ms, ± 25 ms, 2 %.
    NaiaAverage,
    /// naia `poor_condition` as the issue lists it (naia 0.x): 350 ms,
    /// ± 30 ms, 10 %. Later naia versions use 200 ms, ± 50 ms, 4 %.
    NaiaPoor,
    /// A mid-quality 4G/LTE phone link: RTT ≈ 150 ms, asymmetric (uplink
    /// 85 ± 30 ms: a phone waits for an LTE scheduling grant before it may
    /// send; downlink 65 ± 25 ms), 1 % random loss plus Gilbert–Elliott
    /// bursts (0.5 % chance per packet to enter, mean 5 packets ≈ 80 ms at
    /// 60 Hz — a fade or a handover —, 60 % lost inside) for ≈ 2.4 % mean
    /// loss. Within FishNet's guidance for mobile testing (100–300 ms,
    /// 2–5 % loss, plus jitter; "Simulating Bad Network Connections").
    Mobile,
    /// A geostationary satellite link: the bent pipe alone is
    /// 2 × 35 786 km / 299 792 km/s ≈ 239 ms each way; with ground-segment
    /// processing 300 ± 15 ms each way (RTT ≈ 600 ms, the usual GEO
    /// figure), 0.5 % loss with rare rain-fade bursts (0.2 % to enter,
    /// mean 10 packets, 50 % lost), and a 16 kB/s (128 kbit/s) return
    /// channel as on small VSAT terminals.
    Satellite,
}

impl Preset {
    /// Every preset, in the order the page lists them.
    pub const ALL: [Preset; 9] = [
        Preset::UeAverage,
        Preset::UeBad,
        Preset::NaiaPerfect,
        Preset::NaiaVeryGood,
        Preset::NaiaGood,
        Preset::NaiaAverage,
        Preset::NaiaPoor,
        Preset::Mobile,
        Preset::Satellite,
    ];

    /// The settings, both directions.
    pub fn settings(self) -> NetSettings {
        let both = |latency_ms, jitter_ms, loss_tenth_percent| {
            let l = LinkSettings {
                loss_tenth_percent,
                ..LinkSettings::simple(latency_ms, jitter_ms, 0)
            };
            NetSettings {
                uplink: l,
                downlink: l,
            }
        };
        match self {
            Preset::UeAverage => both(45, 15, 10),
            Preset::UeBad => both(150, 50, 50),
            Preset::NaiaPerfect => both(1, 0, 0),
            Preset::NaiaVeryGood => both(12, 3, 1),
            Preset::NaiaGood => both(40, 10, 2),
            Preset::NaiaAverage => both(100, 25, 20),
            Preset::NaiaPoor => both(350, 30, 100),
            Preset::Mobile => {
                let bursty = LinkSettings {
                    loss_tenth_percent: 10,
                    burst_enter_tenth_percent: 5,
                    burst_leave_percent: 20,
                    burst_loss_percent: 60,
                    ..LinkSettings::simple(0, 0, 0)
                };
                NetSettings {
                    uplink: LinkSettings {
                        latency_ms: 85,
                        jitter_ms: 30,
                        ..bursty
                    },
                    downlink: LinkSettings {
                        latency_ms: 65,
                        jitter_ms: 25,
                        ..bursty
                    },
                }
            }
            Preset::Satellite => {
                let link = LinkSettings {
                    loss_tenth_percent: 5,
                    burst_enter_tenth_percent: 2,
                    burst_leave_percent: 10,
                    burst_loss_percent: 50,
                    ..LinkSettings::simple(300, 15, 0)
                };
                NetSettings {
                    uplink: LinkSettings {
                        bandwidth_bytes_per_s: 16_000,
                        ..link
                    },
                    downlink: link,
                }
            }
        }
    }

    /// A label for people, naming the source.
    pub fn label(self) -> &'static str {
        match self {
            Preset::UeAverage => "UE editor: Average",
            Preset::UeBad => "UE editor: Bad",
            Preset::NaiaPerfect => "naia: perfect",
            Preset::NaiaVeryGood => "naia: very good",
            Preset::NaiaGood => "naia: good",
            Preset::NaiaAverage => "naia: average",
            Preset::NaiaPoor => "naia: poor",
            Preset::Mobile => "Mobile (4G/LTE, bursty)",
            Preset::Satellite => "Satellite (GEO)",
        }
    }

    /// A stable id (the page's `<option value>`).
    pub fn id(self) -> &'static str {
        match self {
            Preset::UeAverage => "ue-average",
            Preset::UeBad => "ue-bad",
            Preset::NaiaPerfect => "naia-perfect",
            Preset::NaiaVeryGood => "naia-very-good",
            Preset::NaiaGood => "naia-good",
            Preset::NaiaAverage => "naia-average",
            Preset::NaiaPoor => "naia-poor",
            Preset::Mobile => "mobile",
            Preset::Satellite => "satellite",
        }
    }

    /// The preset with this [`Preset::id`].
    pub fn parse(id: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opening_is_valid() {
        OPENING.settings.validate().unwrap();
        OPENING.spike.validate().unwrap();
    }

    #[test]
    fn every_preset_is_valid_and_round_trips_its_id() {
        for p in Preset::ALL {
            p.settings().validate().unwrap();
            assert_eq!(Preset::parse(p.id()), Some(p));
        }
    }

    #[test]
    fn sources_numbers() {
        let ue_bad = Preset::UeBad.settings();
        assert_eq!(ue_bad.rtt_ms(), 300);
        assert_eq!(ue_bad.downlink.jitter_ms, 50);
        assert_eq!(Preset::NaiaVeryGood.settings().uplink.loss_tenth_percent, 1);
        let mobile = Preset::Mobile.settings().uplink.mean_loss();
        assert!((0.02..=0.05).contains(&mobile), "mobile mean loss {mobile}");
        assert_eq!(Preset::Satellite.settings().rtt_ms(), 600);
    }
}
