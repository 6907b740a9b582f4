//! What the console line answers ([`answer`]): the command parsed by
//! [`sim::console::parse`] against the settings in force, and the lines
//! echoed under it — the effect of a setting, the `help` list, the
//! `stat net` summary, or why a line was refused (nothing changes then).
//! Pure: tested natively; `console_line` does the DOM.

use sim::console::{parse, ConsoleAction, HELP};
use sim::endpoints::metrics::Metrics;
use sim::net::settings::LinkSettings;
use sim::protocol::{Setting, Setup};
use sim::Model;

/// How an answer line is styled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// The command as typed.
    Command,
    /// A change made.
    Ok,
    /// Information (`help`, `stat net`).
    Info,
    /// Refused; nothing changed.
    Error,
}

impl Tone {
    /// The `data-tone` attribute value.
    pub fn name(self) -> &'static str {
        match self {
            Tone::Command => "command",
            Tone::Ok => "ok",
            Tone::Info => "info",
            Tone::Error => "error",
        }
    }
}

/// A console line's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Lines to echo, the command first.
    pub lines: Vec<(Tone, String)>,
    /// What to do (`None`: refused, or nothing to do).
    pub action: Option<ConsoleAction>,
}

/// Answers `line` with the settings in force (`setup`) and the read-out
/// (`m`, for `stat net`).
pub fn answer(line: &str, setup: &Setup, m: &Metrics) -> Answer {
    let mut lines = vec![(Tone::Command, format!("> {}", line.trim()))];
    if line.trim().is_empty() {
        return Answer {
            lines: Vec::new(),
            action: None,
        };
    }
    let action = match parse(line, setup) {
        Ok(a) => a,
        Err(e) => {
            lines.push((Tone::Error, format!("{e} — nothing changed")));
            return Answer {
                lines,
                action: None,
            };
        }
    };
    match &action {
        ConsoleAction::Set(s) => lines.push((Tone::Ok, effect(s, setup))),
        ConsoleAction::ShowCorrections(on) => lines.push((
            Tone::Ok,
            format!(
                "corrections {} in the Authoritative and Replayed panels",
                if *on { "drawn" } else { "hidden" }
            ),
        )),
        ConsoleAction::CorrectionLifetime(s) => lines.push((
            Tone::Ok,
            format!("corrections stay drawn for {s} s in the Authoritative panel"),
        )),
        ConsoleAction::StatNet => {
            lines.extend(stat_net(setup, m).into_iter().map(|l| (Tone::Info, l)))
        }
        ConsoleAction::Help => lines.extend(
            HELP.iter()
                .map(|(cmd, what)| (Tone::Info, format!("{cmd:<44} {what}"))),
        ),
    }
    Answer {
        lines,
        action: Some(action),
    }
}

/// A link direction in a few words: "50 ms ±0, 1.0 % loss".
fn link(l: &LinkSettings) -> String {
    let mut s = format!(
        "{} ms ±{}, {:.1} % loss",
        l.latency_ms,
        l.jitter_ms,
        l.mean_loss() * 100.0
    );
    if l.duplicate_tenth_percent > 0 {
        s += &format!(", {:.1} % dup", f64::from(l.duplicate_tenth_percent) / 10.0);
    }
    if l.reorder_percent > 0 {
        s += &format!(", {} % reordered", l.reorder_percent);
    }
    s
}

/// What a setting made of `before`, in words.
fn effect(s: &Setting, before: &Setup) -> String {
    match s {
        Setting::Net(n) => format!(
            "link now ↑ {} · ↓ {} (RTT {} ms): the Link sliders moved",
            link(&n.uplink),
            link(&n.downlink),
            n.rtt_ms()
        ),
        Setting::Rules(r) => format!(
            "forced adjustments {} % (was {} %)",
            r.forced_adjustment_percent, before.rules.forced_adjustment_percent
        ),
        Setting::Client(c) if c.combine_moves != before.client.combine_moves => format!(
            "move combining {}",
            if c.combine_moves { "on" } else { "off" }
        ),
        Setting::Client(c) => format!(
            "forced ServerMove loss {} % (was {} %)",
            c.forced_move_loss_percent, before.client.forced_move_loss_percent
        ),
        other => format!("{} changed", other.name()),
    }
}

/// UE's `stat net`, in text: the link configured and measured, traffic,
/// and the model's counters.
pub fn stat_net(setup: &Setup, m: &Metrics) -> Vec<String> {
    let ms = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.0} ms"));
    let pct = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{:.1} %", v * 100.0));
    let n = setup.net;
    let model = match setup.model {
        Model::Cmc => format!(
            "CMC · {} ServerMoves sent · {} acks · {} adjustments received · {} moves replayed",
            m.moves_sent, m.acks, m.adjustments, m.replayed_moves
        ),
        Model::Rollback(c) => format!(
            "rollback {} Hz · {} input packets sent · {} visible rollbacks",
            c.tick_rate.hz(),
            m.moves_sent,
            m.adjustments
        ),
    };
    vec![
        format!(
            "configured  ↑ {} · ↓ {} · RTT {} ms",
            link(&n.uplink),
            link(&n.downlink),
            n.rtt_ms()
        ),
        format!(
            "measured    RTT {} (p50 {}, p99 {}, {} Pongs) · jitter {} · loss ↑ {} ↓ {}",
            ms(m.rtt_ms),
            ms(m.rtt_p50_ms),
            ms(m.rtt_p99_ms),
            m.rtt_samples,
            m.jitter_ms.map_or("–".to_owned(), |v| format!("{v:.1} ms")),
            pct(m.loss_up),
            pct(m.loss_down)
        ),
        format!(
            "traffic     ↑ {} B/s · ↓ {} B/s · in flight ↑ {} ↓ {}",
            m.up_bps, m.down_bps, m.link.up.in_flight, m.link.down.in_flight
        ),
        format!("model       {model}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::NetSettings;

    fn run(line: &str) -> Answer {
        answer(line, &Setup::default(), &Metrics::default())
    }

    #[test]
    fn a_link_command_sets_the_link_and_says_what_it_made() {
        let a = run("Net PktLag=200");
        assert_eq!(
            a.action,
            Some(ConsoleAction::Set(Setting::Net(NetSettings::symmetric(
                400, 0, 0
            ))))
        );
        assert_eq!(a.lines[0], (Tone::Command, "> Net PktLag=200".to_owned()));
        assert_eq!(
            a.lines[1],
            (
                Tone::Ok,
                "link now ↑ 200 ms ±0, 0.0 % loss · ↓ 200 ms ±0, 0.0 % loss (RTT 400 ms): \
                 the Link sliders moved"
                    .to_owned()
            )
        );
        assert!(run("Net PktDup=2").lines[1].1.contains("2.0 % dup"));
        assert!(run("Net PktOrder=1").lines[1].1.contains("10 % reordered"));
    }

    #[test]
    fn every_listed_command_is_answered_with_a_change() {
        for (line, words) in [
            ("Net PktLoss=5", "5.0 % loss"),
            ("Net PktLagVariance=30", "±30"),
            ("Net PktIncomingLagMin=20", "↓ 35 ms ±15"),
            ("Net PktIncomingLagMax=150", "↓ 100 ms ±50"),
            (
                "p.NetForceClientAdjustmentPercent 25",
                "forced adjustments 25 % (was 0 %)",
            ),
            (
                "p.NetForceClientServerMoveLossPercent 10",
                "forced ServerMove loss 10 % (was 0 %)",
            ),
            ("p.NetEnableMoveCombining 0", "move combining off"),
            ("p.NetShowCorrections 0", "corrections hidden"),
            ("p.NetCorrectionLifetime 4", "stay drawn for 4 s"),
        ] {
            let a = run(line);
            assert!(a.action.is_some(), "{line}");
            assert_eq!(a.lines.len(), 2, "{line}");
            assert_eq!(a.lines[1].0, Tone::Ok, "{line}");
            assert!(a.lines[1].1.contains(words), "{line}: {}", a.lines[1].1);
        }
    }

    #[test]
    fn help_lists_every_command_and_stat_net_summarises() {
        let help = run("help");
        assert_eq!(help.lines.len(), 1 + HELP.len());
        assert!(help.lines[1].1.starts_with("Net PktLag=<ms>"));
        let mut m = Metrics {
            rtt_ms: Some(151.4),
            moves_sent: 1200,
            adjustments: 3,
            ..Metrics::default()
        };
        m.up_bps = 930;
        let lines = stat_net(&Setup::default(), &m);
        assert_eq!(lines.len(), 4);
        assert!(lines[0].contains("RTT 100 ms"), "{}", lines[0]);
        assert!(
            lines[1].starts_with("measured    RTT 151 ms"),
            "{}",
            lines[1]
        );
        assert!(lines[2].contains("↑ 930 B/s"));
        assert!(lines[3].contains("1200 ServerMoves sent") && lines[3].contains("3 adjustments"));
    }

    #[test]
    fn bad_lines_are_refused_with_the_reason_and_change_nothing() {
        let a = run("Net PktLag=5000");
        assert_eq!(a.action, None);
        assert_eq!(
            a.lines[1],
            (
                Tone::Error,
                "Net PktLag = 5000 is outside 0–500 — nothing changed".to_owned()
            )
        );
        let a = run("r.ScreenPercentage 50");
        assert_eq!(a.action, None);
        assert!(a.lines[1].1.starts_with("unknown command"));
        assert_eq!(run("   ").lines, Vec::new());
    }
}
