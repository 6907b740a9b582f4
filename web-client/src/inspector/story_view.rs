//! What the correction inspector writes: a row per correction for the
//! list ([`row`]) and one correction's story laid out for the panel
//! ([`StoryView`]) — the sim's own words ([`sim::inspect::Story`],
//! [`sim::inspect::Rule::describe`], [`sim::inspect::Cause::describe`])
//! split into the parts the panel styles apart. Pure: tested natively.

use sim::inspect::{Cause, Corrected, Correction, Origin, Rule, Story};
use sim::net::conditioner::Fate;
use sim::net::trace::{Direction, PacketKind, PacketRecord};
use sim::SimTime;

/// One line of the corrections list.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// When it was applied, "8.95 s".
    pub at: String,
    /// What: "Adjustment @8783 ms" or "Rollback 310–322".
    pub what: String,
    /// The numbers: "17.8 cm · 10 replayed · error above threshold".
    pub detail: String,
}

/// The list row of correction `c`.
pub fn row(c: &Correction) -> Row {
    let at = format!("{:.2} s", c.at.secs_since(SimTime::ZERO));
    match &c.what {
        Corrected::Move(r) => Row {
            at,
            what: format!("Adjustment @{} ms", r.time_stamp.0),
            detail: format!(
                "{:.1} cm · {} replayed · {}",
                r.error_cm,
                r.moves_replayed,
                r.reason.label()
            ),
        },
        Corrected::Rollback(e) => Row {
            at,
            what: format!("Rollback {}–{}", e.from.0, e.to.0),
            detail: format!(
                "{:.1} cm · {} ticks re-simulated{}",
                f64::from(e.divergence.position_mm) / 10.0,
                e.to.0.saturating_sub(e.from.0),
                if e.divergence.discrete {
                    " · HP / action"
                } else {
                    ""
                }
            ),
        },
    }
}

/// A packet a cause names, to highlight on the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketRef {
    /// Which way it went.
    pub direction: Direction,
    /// Its index in that direction's send order.
    pub index: u64,
}

/// One cause: its words and the packets it names.
#[derive(Debug, Clone, PartialEq)]
pub struct CauseView {
    /// What kind of cause, for styling: `lost`, `echo`, `server`, `client`,
    /// `forced`, `unexplained`.
    pub kind: &'static str,
    /// The cause in words.
    pub text: String,
    /// The packets it names.
    pub packets: Vec<PacketRef>,
}

/// A story laid out for the inspector panel.
#[derive(Debug, Clone, PartialEq)]
pub struct StoryView {
    /// "Adjustment of move @8783 ms".
    pub title: String,
    /// "applied at 8.967 s · frame 537".
    pub when: String,
    /// The rule in words.
    pub rule: String,
    /// The rule's kind, for styling: `threshold`, `forced`, `clock`,
    /// `input`.
    pub rule_kind: &'static str,
    /// "(1234.5, 567.8) cm" for the client, the server, and the error
    /// vector with its length.
    pub client: String,
    /// Where the server had it.
    pub server: String,
    /// Server minus client, and its length.
    pub error: String,
    /// Whose doing it was, `network` or `client-hitch` (for styling and
    /// the tests), and in words; `None` where it is not told (a room's
    /// shots and jumps).
    pub origin: Option<(&'static str, String)>,
    /// Why, oldest first.
    pub causes: Vec<CauseView>,
    /// The moves or ticks replayed, in words.
    pub replayed: String,
    /// The what-ifs' labels, in the story's order.
    pub forks: Vec<String>,
}

impl StoryView {
    /// Lays `story` out.
    pub fn of(story: &Story) -> StoryView {
        let lines = story.lines();
        let e = story.error();
        let point = |p: sim::Vec2| format!("({:.1}, {:.1}) cm", p.x, p.y);
        StoryView {
            title: story.subject.clone(),
            when: format!(
                "applied at {:.3} s · frame {}",
                story.at.secs_since(SimTime::ZERO),
                story.frame
            ),
            rule: story.rule.describe(),
            rule_kind: rule_kind(&story.rule),
            client: point(story.client),
            server: point(story.server),
            error: format!("({:+.1}, {:+.1}) cm · {:.1} cm", e.x, e.y, e.length()),
            origin: Some((
                match story.origin {
                    Origin::Network => "network",
                    Origin::ClientHitch { .. } => "client-hitch",
                    Origin::ClientClock { .. } => "client-clock",
                },
                story.origin.describe(),
            )),
            causes: story.causes.iter().map(cause_view).collect(),
            // The story's last line says what was replayed.
            replayed: lines.last().cloned().unwrap_or_default(),
            forks: story.forks.iter().map(|f| f.label.clone()).collect(),
        }
    }

    /// Every packet the causes name.
    pub fn packets(&self) -> impl Iterator<Item = PacketRef> + '_ {
        self.causes.iter().flat_map(|c| c.packets.iter().copied())
    }
}

fn rule_kind(rule: &Rule) -> &'static str {
    match rule {
        Rule::Threshold { .. } => "threshold",
        Rule::ForcedAdjustment | Rule::ForcedPositionUpdate => "forced",
        Rule::TimeStamp | Rule::DeltaClamp | Rule::TimeDiscrepancy => "clock",
        Rule::MissedInput | Rule::RemoteInput => "input",
    }
}

fn cause_view(c: &Cause) -> CauseView {
    let kind = match c {
        Cause::MissingMoves { .. } | Cause::DroppedByClient { .. } | Cause::MissedInputs { .. } => {
            "lost"
        }
        Cause::LateMoves { .. } => "late",
        Cause::Echo { .. } => "echo",
        Cause::Clamped { .. }
        | Cause::TimeCut { .. }
        | Cause::ForcedUpdate { .. }
        | Cause::PushZone { .. }
        | Cause::RemoteInputs => "server",
        Cause::ClientOnly { .. } => "client",
        Cause::ForcedRoll => "forced",
        Cause::Unexplained | Cause::NotInTrace => "unexplained",
    };
    CauseView {
        kind,
        text: c.describe(),
        packets: c
            .packets()
            .iter()
            .map(|p| PacketRef {
                direction: p.direction,
                index: p.index,
            })
            .collect(),
    }
}

/// A packet in one line, for the timeline's status bar: "↑ ServerMove #585
/// · move @8716 ms (+ pending @8700) · 16 B · sent 8.716 s · lost".
pub fn packet_text(p: &PacketRecord) -> String {
    let arrow = match p.direction {
        Direction::Up => "↑",
        Direction::Down => "↓",
    };
    let what = match p.kind {
        PacketKind::ServerMove => {
            let mut s = format!("ServerMove #{} · move @{} ms", p.index, p.detail);
            for (name, ts) in [("pending", p.also[0]), ("old", p.also[1])] {
                if ts != 0 {
                    s += &format!(" + {name} @{ts}");
                }
            }
            s
        }
        PacketKind::Inputs => format!("Inputs #{} · up to tick {}", p.index, p.detail),
        PacketKind::Ping => format!("Ping #{} · id {}", p.index, p.detail),
        PacketKind::Pong => format!("Pong #{} · id {}", p.index, p.detail),
        PacketKind::Ack => format!("Ack #{} · move @{} ms", p.index, p.detail),
        PacketKind::Adjustment => format!("Adjustment #{} · move @{} ms", p.index, p.detail),
        PacketKind::RollbackAck => format!(
            "Ack #{} · tick {} · missed {} · late {}",
            p.index, p.detail, p.also[0], p.also[1]
        ),
        PacketKind::State => format!("State #{} · tick {}", p.index, p.detail),
        PacketKind::Proxy => format!("net update #{} · tick {}", p.index, p.detail),
        PacketKind::Shot => format!("shot #{} · action {}", p.index, p.detail),
        PacketKind::Verdict => format!(
            "verdict #{} · shot {} · {} · rewound {} ms",
            p.index,
            p.detail,
            verdict_name(p.also[0]),
            p.also[1]
        ),
        PacketKind::Ammo => format!(
            "ammo #{} · after action {} · {} rounds",
            p.index, p.detail, p.also[0]
        ),
        PacketKind::Reload => format!("reload #{} · action {}", p.index, p.detail),
        PacketKind::Clock => format!("clock sync #{}", p.index),
        PacketKind::Other => format!("packet #{}", p.index),
    };
    let sent = p.sent.secs_since(SimTime::ZERO);
    let fate = match p.fate {
        Fate::Delivered {
            at,
            duplicate,
            overtook,
            resent,
            held,
        } => format!(
            "arrived after {:.1} ms{}{}{}{}",
            at.secs_since(p.sent) * 1000.0,
            if overtook { ", overtaking" } else { "" },
            if duplicate { ", duplicated" } else { "" },
            if resent { ", resent after the RTO" } else { "" },
            if held {
                ", held behind a resent packet"
            } else {
                ""
            }
        ),
        Fate::Lost { in_burst: true } => "lost in a burst".to_owned(),
        Fate::Lost { in_burst: false } => "lost".to_owned(),
        Fate::Overflowed => "dropped by a full queue".to_owned(),
    };
    format!("{arrow} {what} · {} B · sent {sent:.3} s · {fate}", p.bytes)
}

/// A verdict's trace code in words (`sim::protocol::verdict_code`).
pub fn verdict_name(code: u32) -> &'static str {
    match code {
        0 => "hit head",
        1 => "hit body",
        2 => "miss",
        3 => "refused: too old",
        4 => "refused: fire rate",
        5 => "refused: reloading",
        6 => "refused: no ammo",
        _ => "refused: clock ahead",
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::golden;
    use super::*;
    use sim::inspect::Inspection;

    #[test]
    fn the_lost_move_story_names_its_rule_and_its_packet() {
        let ins = Inspection::of(golden("golden-bot-150ms-10pct"));
        let view = StoryView::of(&ins.explain(1).expect("a correction"));
        assert_eq!(view.title, "Adjustment of move @8783 ms");
        assert_eq!(view.when, "applied at 8.967 s · frame 537");
        assert_eq!(view.rule_kind, "threshold");
        assert_eq!(view.rule, "position error 17.8 cm over the 16 cm threshold");
        assert!(view.error.ends_with("· 17.8 cm"), "{}", view.error);
        assert_eq!(view.causes.len(), 1);
        assert_eq!(view.causes[0].kind, "lost");
        assert!(
            view.causes[0].text.contains("ServerMove #585"),
            "{}",
            view.causes[0].text
        );
        assert_eq!(
            view.packets().collect::<Vec<_>>(),
            vec![PacketRef {
                direction: Direction::Up,
                index: 585
            }]
        );
        assert!(view.replayed.starts_with("Replayed 10 moves: @"));
        assert_eq!(
            view.forks[0],
            "deliver ServerMove #585 sent at 8.717 s, lost"
        );
    }

    #[test]
    fn an_echo_is_styled_as_one_and_names_the_packet_behind_the_correction_it_repeats() {
        let ins = Inspection::of(golden("golden-bot-150ms-10pct"));
        let view = StoryView::of(&ins.explain(2).expect("a correction"));
        assert_eq!(view.causes[0].kind, "echo");
        assert!(view.causes[0].text.contains("@8783"));
        assert!(view.causes[0].packets.is_empty());
        // The chain goes on to @8783's first cause: ServerMove #585, lost.
        assert_eq!(view.causes[1].kind, "lost");
        let named: Vec<u64> = view.packets().map(|p| p.index).collect();
        assert_eq!(named, [585]);
    }

    #[test]
    fn a_packet_reads_as_one_line_with_its_fate() {
        let ins = Inspection::of(golden("golden-bot-150ms-10pct"));
        let log = ins.run().host().packets().expect("inspected");
        let lost = log
            .records()
            .iter()
            .find(|p| p.direction == Direction::Up && p.index == 585)
            .expect("#585");
        let text = packet_text(lost);
        assert!(
            text.starts_with("↑ ServerMove #585 · move @8716 ms"),
            "{text}"
        );
        assert!(text.ends_with("· 15 B · sent 8.717 s · lost"), "{text}");
        let ack = log
            .records()
            .iter()
            .find(|p| p.kind == PacketKind::Ack)
            .expect("an Ack");
        assert_eq!(
            packet_text(ack),
            "↓ Ack #2 · move @16 ms · 4 B · sent 0.095 s · arrived after 65.6 ms"
        );
    }

    #[test]
    fn list_rows_say_when_what_and_how_much() {
        let ins = Inspection::of(golden("golden-bot-150ms-10pct"));
        let r = row(&ins.corrections()[1]);
        assert_eq!(r.at, "8.97 s");
        assert_eq!(r.what, "Adjustment @8783 ms");
        assert_eq!(r.detail, "17.8 cm · 10 replayed · error above threshold");
        let rollbacks = Inspection::of(golden("rollback-bot-150ms-5pct"));
        let r = row(&rollbacks.corrections()[0]);
        assert!(r.what.starts_with("Rollback "), "{}", r.what);
        assert!(r.detail.contains("ticks re-simulated"), "{}", r.detail);
    }
}
