//! UE's console on the page: the lines UE users type in PIE to emulate a
//! network or debug CharacterMovement (`003_…` lists the packet-lag ones),
//! each turned into the same [`Setting`] its slider makes — so a console
//! change moves the slider, goes through the same validation and is
//! recorded in a scenario like any other change.
//!
//! | line | effect |
//! |---|---|
//! | `Net PktLag=<ms>` | one-way latency both ways (RTT = 2 × ms), as PIE applies the emulation profile on both ends |
//! | `Net PktLagVariance=<ms>` | ± jitter both ways |
//! | `Net PktLoss=<%>` | loss both ways |
//! | `Net PktDup=<%>` | duplicates both ways |
//! | `Net PktOrder=<0\|1>` | reordering off / on ([`PKT_ORDER_PERCENT`] of packets overtake) |
//! | `Net PktIncomingLagMin=<ms>`, `…Max=<ms>` | the downlink only: latency and jitter from the range |
//! | `p.NetForceClientAdjustmentPercent <%>` | forced adjustments |
//! | `p.NetForceClientServerMoveLossPercent <%>` | forced ServerMove loss |
//! | `p.NetEnableMoveCombining <0\|1>` | move combining |
//! | `p.NetShowCorrections <0\|1>`, `p.NetCorrectionLifetime <s>` | what the panels draw (not a simulation setting) |
//! | `stat net` | a text summary of the link and the model |
//! | `help` | this list |
//!
//! Names are case-insensitive, as in UE. A value out of its control's range
//! is refused with the range, and nothing changes.
//!
//! Layer 7, a tool beside the inspector: it may import every layer below
//! (the ranges from the layers that own them), not `crate::controls`.

use crate::foundation::control::SettingsError;
use crate::net::controls;
use crate::net::settings::{LinkSettings, NetSettings};
use crate::protocol::{Setting, Setup};
use thiserror::Error;

/// Share of packets that overtake the queue when `Net PktOrder=1`,
/// percent: UE's PktOrder shuffles the packets of one flush; the link
/// conditioner's netem-style reordering is the closest knob.
pub const PKT_ORDER_PERCENT: u8 = 10;

/// Longest a correction is drawn with `p.NetCorrectionLifetime`, s.
pub const MAX_CORRECTION_LIFETIME_S: f32 = 60.0;

/// What a console line does.
#[derive(Debug, Clone, PartialEq)]
pub enum ConsoleAction {
    /// Change a setting (its slider follows).
    Set(Setting),
    /// Show or hide correction marks (UE `p.NetShowCorrections`).
    ShowCorrections(bool),
    /// How long correction marks stay drawn, s (UE
    /// `p.NetCorrectionLifetime`).
    CorrectionLifetime(f32),
    /// Print the link and model summary (UE `stat net`).
    StatNet,
    /// Print the list of commands.
    Help,
}

/// Why a line was refused; nothing changed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConsoleError {
    /// Not a command this console knows.
    #[error("unknown command \"{0}\" (type help for the list)")]
    Unknown(String),
    /// The command needs a number and got none or garbage.
    #[error("{command} needs a number, got \"{got}\"")]
    NotANumber {
        /// The command.
        command: &'static str,
        /// What followed it.
        got: String,
    },
    /// The value is outside the command's range.
    #[error("{command} = {value} is outside {min}–{max}")]
    OutOfRange {
        /// The command.
        command: &'static str,
        /// The value given.
        value: f64,
        /// Lowest allowed.
        min: f64,
        /// Highest allowed.
        max: f64,
    },
    /// The settings the command would make are out of a control's range.
    #[error(transparent)]
    Setting(#[from] SettingsError),
}

/// The commands `help` lists, with what each does.
pub const HELP: &[(&str, &str)] = &[
    (
        "Net PktLag=<ms>",
        "one-way latency both ways (RTT = 2 × ms)",
    ),
    ("Net PktLagVariance=<ms>", "± jitter both ways"),
    ("Net PktLoss=<%>", "packet loss both ways"),
    ("Net PktDup=<%>", "duplicated packets both ways"),
    ("Net PktOrder=<0|1>", "let packets overtake each other"),
    (
        "Net PktIncomingLagMin=<ms> / PktIncomingLagMax=<ms>",
        "the downlink's latency range",
    ),
    (
        "p.NetForceClientAdjustmentPercent <%>",
        "correct this share of moves regardless of error",
    ),
    (
        "p.NetForceClientServerMoveLossPercent <%>",
        "drop this share of ServerMoves before sending",
    ),
    ("p.NetEnableMoveCombining <0|1>", "combine alike moves"),
    ("p.NetShowCorrections <0|1>", "draw corrections"),
    (
        "p.NetCorrectionLifetime <s>",
        "how long corrections stay drawn",
    ),
    ("stat net", "link and model summary"),
    ("help", "this list"),
];

/// Parses one console line against the settings in force.
///
/// # Errors
/// [`ConsoleError::Unknown`], [`ConsoleError::NotANumber`],
/// [`ConsoleError::OutOfRange`] or [`ConsoleError::Setting`].
pub fn parse(line: &str, setup: &Setup) -> Result<ConsoleAction, ConsoleError> {
    let line = line.trim();
    let lower = line.to_ascii_lowercase();
    if lower == "help" || lower == "?" {
        return Ok(ConsoleAction::Help);
    }
    if lower.split_whitespace().collect::<Vec<_>>() == ["stat", "net"] {
        return Ok(ConsoleAction::StatNet);
    }
    if let Some(rest) = lower.strip_prefix("net ") {
        return net_command(rest.trim(), setup.net);
    }
    let mut words = line.split_whitespace();
    let command = words.next().unwrap_or_default().to_ascii_lowercase();
    let value = words.collect::<Vec<_>>().join(" ");
    match command.as_str() {
        "p.netforceclientadjustmentpercent" => {
            let name = "p.NetForceClientAdjustmentPercent";
            let v = whole(name, &value, 0, 100)?;
            let mut rules = setup.rules;
            rules.forced_adjustment_percent = v as u8;
            Ok(ConsoleAction::Set(Setting::Rules(rules)))
        }
        "p.netforceclientservermovelosspercent" => {
            let name = "p.NetForceClientServerMoveLossPercent";
            let v = whole(name, &value, 0, 100)?;
            let mut client = setup.client;
            client.forced_move_loss_percent = v as f32;
            Ok(ConsoleAction::Set(Setting::Client(client)))
        }
        "p.netenablemovecombining" => {
            let v = whole("p.NetEnableMoveCombining", &value, 0, 1)?;
            let mut client = setup.client;
            client.combine_moves = v == 1;
            Ok(ConsoleAction::Set(Setting::Client(client)))
        }
        "p.netshowcorrections" => {
            let v = whole("p.NetShowCorrections", &value, 0, 1)?;
            Ok(ConsoleAction::ShowCorrections(v == 1))
        }
        "p.netcorrectionlifetime" => {
            let name = "p.NetCorrectionLifetime";
            let v = number(name, &value)?;
            if !(0.0..=f64::from(MAX_CORRECTION_LIFETIME_S)).contains(&v) {
                return Err(out_of_range(name, v, 0, MAX_CORRECTION_LIFETIME_S as u32));
            }
            Ok(ConsoleAction::CorrectionLifetime(v as f32))
        }
        _ => Err(ConsoleError::Unknown(line.to_owned())),
    }
}

/// `Net Pkt…=<value>` (after `Net `).
fn net_command(rest: &str, net: NetSettings) -> Result<ConsoleAction, ConsoleError> {
    let (key, value) = rest.split_once('=').unwrap_or((rest, ""));
    let (key, value) = (key.trim(), value.trim());
    let both = |f: &dyn Fn(&mut LinkSettings)| {
        let mut n = net;
        f(&mut n.uplink);
        f(&mut n.downlink);
        n
    };
    let n = match key {
        // Both ways alike, as the RTT and jitter sliders set them: no more
        // than those sliders can show (half the RTT range one way).
        "pktlag" => {
            let max = (controls::RTT.max / 2.0) as u32;
            let ms = whole("Net PktLag", value, 0, max)? as u16;
            both(&|l| l.latency_ms = ms)
        }
        "pktlagvariance" => {
            let ms = whole("Net PktLagVariance", value, 0, controls::JITTER.max as u32)? as u16;
            both(&|l| l.jitter_ms = ms)
        }
        "pktloss" => {
            let tenths = tenths("Net PktLoss", value, 500)?;
            both(&|l| l.loss_tenth_percent = tenths)
        }
        "pktdup" => {
            let tenths = tenths("Net PktDup", value, 500)?;
            both(&|l| l.duplicate_tenth_percent = tenths)
        }
        "pktorder" => {
            let on = whole("Net PktOrder", value, 0, 1)? == 1;
            both(&|l| l.reorder_percent = if on { PKT_ORDER_PERCENT } else { 0 })
        }
        "pktincominglagmin" | "pktincominglagmax" => {
            let command = if key.ends_with("min") {
                "Net PktIncomingLagMin"
            } else {
                "Net PktIncomingLagMax"
            };
            let ms = whole(command, value, 0, controls::LATENCY.max as u32)?;
            let d = net.downlink;
            let (lo, hi) = (
                u32::from(d.latency_ms.saturating_sub(d.jitter_ms)),
                u32::from(d.latency_ms) + u32::from(d.jitter_ms),
            );
            let (lo, hi) = if key.ends_with("min") {
                (ms, hi.max(ms))
            } else {
                (lo.min(ms), ms)
            };
            let mut n = net;
            n.downlink.latency_ms = ((lo + hi) / 2) as u16;
            n.downlink.jitter_ms = ((hi - lo) / 2) as u16;
            n
        }
        _ => return Err(ConsoleError::Unknown(format!("Net {rest}"))),
    };
    n.validate()?;
    Ok(ConsoleAction::Set(Setting::Net(n)))
}

fn number(command: &'static str, value: &str) -> Result<f64, ConsoleError> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| ConsoleError::NotANumber {
            command,
            got: value.trim().to_owned(),
        })
}

fn out_of_range(command: &'static str, value: f64, min: u32, max: u32) -> ConsoleError {
    ConsoleError::OutOfRange {
        command,
        value,
        min: f64::from(min),
        max: f64::from(max),
    }
}

/// A whole number in `min..=max`.
fn whole(command: &'static str, value: &str, min: u32, max: u32) -> Result<u32, ConsoleError> {
    let v = number(command, value)?;
    if v < f64::from(min) || v > f64::from(max) {
        return Err(out_of_range(command, v, min, max));
    }
    Ok(v.round() as u32)
}

/// A percentage in `0..=max_tenths / 10`, as tenths of a percent.
fn tenths(command: &'static str, value: &str, max_tenths: u32) -> Result<u16, ConsoleError> {
    let v = number(command, value)?;
    let t = (v * 10.0).round();
    if !(0.0..=f64::from(max_tenths)).contains(&t) {
        return Err(out_of_range(command, v, 0, max_tenths / 10));
    }
    Ok(t as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::rules::ServerRules;

    fn set(line: &str) -> Setting {
        match parse(line, &Setup::default()) {
            Ok(ConsoleAction::Set(s)) => s,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn net(line: &str) -> NetSettings {
        match set(line) {
            Setting::Net(n) => n,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn every_packet_lag_command_sets_what_its_slider_sets() {
        assert_eq!(net("Net PktLag=200"), NetSettings::symmetric(400, 0, 0));
        assert_eq!(net("net pktlag = 35").rtt_ms(), 70);
        assert_eq!(
            f64::from(net("Net PktLag=500").rtt_ms()),
            controls::RTT.max,
            "the largest lag is the RTT slider's end"
        );
        assert_eq!(net("Net PktLagVariance=30").uplink.jitter_ms, 30);
        assert_eq!(net("Net PktLoss=5"), NetSettings::symmetric(100, 0, 5));
        assert_eq!(net("Net PktLoss=2.5").downlink.loss_tenth_percent, 25);
        assert_eq!(net("Net PktDup=2").uplink.duplicate_tenth_percent, 20);
        assert_eq!(net("Net PktOrder=1").downlink.reorder_percent, 10);
        assert_eq!(net("Net PktOrder=0").downlink.reorder_percent, 0);
        // Default downlink 50 ms ± 0: min 20 → 20..50 = 35 ± 15.
        let d = net("Net PktIncomingLagMin=20").downlink;
        assert_eq!((d.latency_ms, d.jitter_ms), (35, 15));
        let d = net("Net PktIncomingLagMax=150").downlink;
        assert_eq!((d.latency_ms, d.jitter_ms), (100, 50));
        assert_eq!(net("Net PktIncomingLagMax=150").uplink.latency_ms, 50);
    }

    #[test]
    fn cvars_set_rules_and_client_switches() {
        assert_eq!(
            set("p.NetForceClientAdjustmentPercent 25"),
            Setting::Rules(ServerRules {
                forced_adjustment_percent: 25,
                ..ServerRules::default()
            })
        );
        match set("p.NetForceClientServerMoveLossPercent 100") {
            Setting::Client(c) => assert_eq!(c.forced_move_loss_percent, 100.0),
            other => panic!("{other:?}"),
        }
        match set("P.NETENABLEMOVECOMBINING 0") {
            Setting::Client(c) => assert!(!c.combine_moves),
            other => panic!("{other:?}"),
        }
        let s = Setup::default();
        assert_eq!(
            parse("p.NetShowCorrections 1", &s),
            Ok(ConsoleAction::ShowCorrections(true))
        );
        assert_eq!(
            parse("p.NetCorrectionLifetime 4", &s),
            Ok(ConsoleAction::CorrectionLifetime(4.0))
        );
        assert_eq!(parse("stat net", &s), Ok(ConsoleAction::StatNet));
        assert_eq!(parse("  HELP ", &s), Ok(ConsoleAction::Help));
    }

    #[test]
    fn bad_lines_are_answered_and_change_nothing() {
        let s = Setup::default();
        let err = |line: &str| parse(line, &s).unwrap_err().to_string();
        // One way, both ways: the RTT slider's 1000 ms is 500 each way.
        assert_eq!(err("Net PktLag=600"), "Net PktLag = 600 is outside 0–500");
        assert_eq!(
            err("Net PktLagVariance=101"),
            "Net PktLagVariance = 101 is outside 0–100"
        );
        assert_eq!(
            err("Net PktLoss=abc"),
            "Net PktLoss needs a number, got \"abc\""
        );
        assert_eq!(err("Net PktLoss=60"), "Net PktLoss = 60 is outside 0–50");
        assert_eq!(
            err("Net PktWarp=1"),
            "unknown command \"Net pktwarp=1\" (type help for the list)"
        );
        assert_eq!(
            err("r.ScreenPercentage 50"),
            "unknown command \"r.ScreenPercentage 50\" (type help for the list)"
        );
        assert_eq!(
            err("p.NetCorrectionLifetime -1"),
            "p.NetCorrectionLifetime = -1 is outside 0–60"
        );
        assert_eq!(
            err("p.NetForceClientAdjustmentPercent"),
            "p.NetForceClientAdjustmentPercent needs a number, got \"\""
        );
    }
}
