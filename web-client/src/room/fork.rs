//! What if the room had run with another rule of lag compensation, or its
//! players' screens had drawn the others otherwise (issues 23 and 24): the
//! relay's recording of the room (`GET /api/rooms/{name}/recording`)
//! replayed in the page as recorded and with one change
//! (`sim::endpoints::room::replay::fork`: rewind off, another rewind cap,
//! another net update rate, interpolation, extrapolation, the lost net
//! updates delivered), and every shot judged otherwise listed.

use super::lanes::{fork_marks, RoomLanes};
use super::recorded::cut_short;
use crate::dom::{emptied, query, select, write_text, Clicks};
use crate::inspector::lane_paint::MarkSpec;
use crate::runbar::share::{get_bytes, Mailbox, Reply};
use sim::endpoints::room::recording::RoomRecording;
use sim::endpoints::room::replay::{fork, Fork, RuleChange};
use sim::net::trace::{Direction, PacketKind, PacketRecord};
use sim::room::Seq;
use web_sys::{Document, HtmlSelectElement};

/// The id of the option a lost net update picked in the lanes puts in the
/// What if menu.
const LOST_OPTION: &str = "room-fork-lost";

/// The What if note before any fork (the page's own, `www/index.html`).
const DEFAULT_NOTE: &str = "every shot so far, judged again";

/// The change a `#room-fork` option names: `off`, `cap-MS`, `hz-HZ`,
/// `interpolation`, `extrapolation`, `deliver-lost`, or `deliver-TICK`
/// (the lost net update picked in the lanes, [`lost_net_update`]).
pub fn change_of(value: &str) -> Option<RuleChange> {
    match value {
        "off" => Some(RuleChange::RewindOff),
        "interpolation" => Some(RuleChange::Interpolation),
        "extrapolation" => Some(RuleChange::Extrapolation),
        "deliver-lost" => Some(RuleChange::DeliverLost { tick: None }),
        _ => {
            if let Some(hz) = number(value, "hz-") {
                return Some(RuleChange::NetUpdateHz { hz });
            }
            if let Some(tick) = number(value, "deliver-") {
                return Some(RuleChange::DeliverLost {
                    tick: Some(Seq(tick)),
                });
            }
            Some(RuleChange::RewindCap {
                ms: number(value, "cap-")?,
            })
        }
    }
}

/// The number after `prefix` in `value`.
fn number<T: std::str::FromStr>(value: &str, prefix: &str) -> Option<T> {
    value.strip_prefix(prefix)?.parse().ok()
}

/// The tick of the net update `p` is, if the link lost it on its way to
/// this player: what "deliver this lost packet" forks with.
pub fn lost_net_update(p: &PacketRecord) -> Option<Seq> {
    (p.kind == PacketKind::Proxy && p.direction == Direction::Down && !p.fate.delivered())
        .then_some(Seq(p.detail))
}

/// The fork's summary line and the shots judged otherwise, oldest first.
pub fn describe(f: &Fork) -> (String, Vec<String>) {
    let (shots, changed) = (f.base.shots.len(), f.changes.len());
    let redrawn = f
        .redrawn
        .map(|n| format!(" · {n} drawn otherwise, aim kept"))
        .unwrap_or_default();
    let summary = format!(
        "{}: {changed} of {shots} shots judged otherwise{redrawn} · hits {} → {}",
        f.change,
        f.base.hits(),
        f.forked.hits()
    );
    (summary, f.changes.iter().map(|c| c.to_string()).collect())
}

/// The Room section's What if row.
pub struct RoomFork {
    doc: Document,
    choice: Option<HtmlSelectElement>,
    run: Clicks,
    /// The recording asked for, and the rule to fork it with.
    asked: Option<RuleChange>,
    mailbox: Mailbox<Reply>,
    shown: String,
    /// The last fork run, for the Packets card's second lane.
    forked: Option<Fork>,
    /// The menu value a lost net update picked in the lanes put in, while
    /// its note stands.
    offered: Option<String>,
}

impl RoomFork {
    /// The row's controls.
    pub fn new(doc: &Document) -> RoomFork {
        RoomFork {
            doc: doc.clone(),
            choice: select(doc, "room-fork"),
            run: Clicks::on(doc, "room-fork-run", "click"),
            asked: None,
            mailbox: Mailbox::default(),
            shown: String::new(),
            forked: None,
            offered: None,
        }
    }

    /// Offers "net update of tick TICK delivered" in the menu, chosen: a lost net
    /// update was clicked in the lanes (one such option, the newest).
    pub fn offer_lost(&mut self, tick: Seq) {
        let Some(choice) = &self.choice else {
            return;
        };
        let option = self.doc.get_element_by_id(LOST_OPTION).or_else(|| {
            let o = self.doc.create_element("option").ok()?;
            o.set_id(LOST_OPTION);
            let group = self.doc.get_element_by_id("room-fork-screens");
            group.as_deref().unwrap_or(choice).append_child(&o).ok()?;
            Some(o)
        });
        let Some(option) = option else {
            return;
        };
        let value = format!("deliver-{}", tick.0);
        let _ = option.set_attribute("value", &value);
        option.set_text_content(Some(&format!(
            "net update of tick {} delivered (picked in the lanes)",
            tick.0
        )));
        choice.set_value(&value);
        self.offered = Some(value);
        self.write(
            &format!(
                "the net update of tick {} was lost on its way to you: Fork to see the shots it would have changed",
                tick.0
            ),
            &[],
        );
    }

    /// One frame in room `name`: a click asks the relay for the room's
    /// recording; its answer is forked and written.
    pub fn frame(&mut self, name: &str) {
        let value = self.choice.as_ref().map(|s| s.value()).unwrap_or_default();
        // Another choice than the lost net update picked: its note goes.
        if self.offered.as_ref().is_some_and(|o| *o != value) {
            self.offered = None;
            self.write(DEFAULT_NOTE, &[]);
        }
        if self.run.take() > 0 && self.asked.is_none() {
            self.offered = None;
            if let Some(change) = change_of(&value) {
                self.asked = Some(change);
                self.write("asking the relay for the room's recording…", &[]);
                get_bytes(
                    format!("/api/rooms/{name}/recording?room={name}"),
                    format!("the relay has no recording of {name}"),
                    self.mailbox.clone(),
                );
            }
        }
        let Some(reply) = self.mailbox.borrow_mut().take() else {
            return;
        };
        let Some(change) = self.asked.take() else {
            return;
        };
        let result = match reply {
            Reply::Loaded(bytes) => RoomRecording::from_bytes(&bytes)
                .and_then(|r| Ok((fork(&r, change)?, cut_short(r.truncated, r.seconds()))))
                .map_err(|e| e.to_string()),
            Reply::Failed(why) | Reply::Saved(why) => Err(why),
        };
        match result {
            Ok((f, short)) => {
                let (summary, lines) = describe(&f);
                self.write(&(summary + &short), &lines);
                self.forked = Some(f);
            }
            Err(why) => {
                self.write(&format!("no fork: {why}"), &[]);
                self.forked = None;
            }
        }
    }

    /// The Packets card's second lane for the last fork: its title ("B ·
    /// what if: rewind off") and the shots of `lanes` it judged.
    pub fn lane(&self, lanes: &RoomLanes) -> Option<(String, Vec<MarkSpec>)> {
        let f = self.forked.as_ref()?;
        Some((format!("B · what if: {}", f.change), fork_marks(lanes, f)))
    }

    fn write(&mut self, summary: &str, lines: &[String]) {
        if let Some(e) = query(&self.doc, "[data-metric=\"room-fork\"]") {
            write_text(&e, summary);
        }
        let signature = lines.join("\n");
        if let Some(list) = emptied(&self.doc, "room-fork-changes", &mut self.shown, signature) {
            for line in lines {
                if let Ok(li) = self.doc.create_element("li") {
                    li.set_text_content(Some(line));
                    let _ = li.set_attribute("title", line);
                    let _ = list.append_child(&li);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_name_a_rule() {
        assert_eq!(change_of("off"), Some(RuleChange::RewindOff));
        assert_eq!(
            change_of("cap-100"),
            Some(RuleChange::RewindCap { ms: 100 })
        );
        assert_eq!(change_of("cap-x"), None);
        assert_eq!(change_of("on"), None);
        assert_eq!(change_of("hz-10"), Some(RuleChange::NetUpdateHz { hz: 10 }));
        assert_eq!(change_of("hz-"), None);
        assert_eq!(change_of("interpolation"), Some(RuleChange::Interpolation));
        assert_eq!(change_of("extrapolation"), Some(RuleChange::Extrapolation));
        assert_eq!(
            change_of("deliver-lost"),
            Some(RuleChange::DeliverLost { tick: None })
        );
        assert_eq!(
            change_of("deliver-412"),
            Some(RuleChange::DeliverLost {
                tick: Some(Seq(412))
            })
        );
        assert_eq!(change_of("deliver-x"), None);
    }

    #[test]
    fn only_a_net_update_lost_on_the_way_down_is_offered() {
        use sim::net::conditioner::Fate;
        use sim::SimTime;
        let packet = |kind, direction, fate| PacketRecord {
            direction,
            index: 7,
            kind,
            detail: 412,
            also: [0, 0],
            bytes: 40,
            sent: SimTime::ZERO,
            fate,
        };
        let lost = Fate::Lost { in_burst: false };
        let arrived = Fate::Delivered {
            at: SimTime::from_millis(80),
            duplicate: false,
            overtook: false,
            resent: false,
            held: false,
        };
        let down = Direction::Down;
        assert_eq!(
            lost_net_update(&packet(PacketKind::Proxy, down, lost)),
            Some(Seq(412))
        );
        assert_eq!(
            lost_net_update(&packet(PacketKind::Proxy, down, Fate::Overflowed)),
            Some(Seq(412))
        );
        assert_eq!(
            lost_net_update(&packet(PacketKind::Proxy, down, arrived)),
            None
        );
        assert_eq!(
            lost_net_update(&packet(PacketKind::Shot, Direction::Up, lost)),
            None
        );
        assert_eq!(lost_net_update(&packet(PacketKind::Pong, down, lost)), None);
    }

    #[test]
    fn every_option_of_the_page_names_a_change() {
        let html = include_str!("../../../www/index.html");
        let select = &html[html.find("<select id=\"room-fork\">").unwrap()..];
        let select = &select[..select.find("</select>").unwrap()];
        let values: Vec<&str> = select
            .split("<option value=\"")
            .skip(1)
            .map(|o| &o[..o.find('"').unwrap()])
            .collect();
        assert_eq!(values.len(), 12, "{values:?}");
        assert!(html.contains(&format!("data-metric=\"room-fork\">{DEFAULT_NOTE}</p>")));
        for v in values {
            assert!(change_of(v).is_some(), "{v}");
        }
    }

    #[test]
    fn a_fork_of_the_screens_says_how_many_shots_it_redrew() {
        let text = include_str!("../../../scenarios/rooms/duel-150-200ms-3pct.json");
        let file = sim::endpoints::room::recording::RoomRecordingFile::from_json(text).unwrap();
        let f = fork(&file.recording().unwrap(), RuleChange::Interpolation).unwrap();
        let (summary, lines) = describe(&f);
        assert_eq!(
            summary,
            "interpolation: 25 of 26 shots judged otherwise · 26 drawn otherwise, aim kept · hits 26 → 2"
        );
        assert_eq!(
            lines[0],
            "shot #1 (player 1, action 1): hit head 2 → rejected: too old"
        );
    }

    #[test]
    fn a_fork_of_a_golden_room_lists_the_shots_it_turns() {
        let text = include_str!("../../../scenarios/rooms/duel-150-200ms-3pct.json");
        let file = sim::endpoints::room::recording::RoomRecordingFile::from_json(text).unwrap();
        let f = fork(&file.recording().unwrap(), RuleChange::RewindOff).unwrap();
        let (summary, lines) = describe(&f);
        assert_eq!(lines.len(), f.changes.len());
        assert!(
            !lines.is_empty(),
            "rewind off turns some of the duel's head shots"
        );
        assert!(
            summary.starts_with(&format!(
                "rewind off: {} of {} shots",
                lines.len(),
                f.base.shots.len()
            )),
            "{summary}"
        );
        println!("{summary}\n{}", lines.join("\n"));
    }
}
