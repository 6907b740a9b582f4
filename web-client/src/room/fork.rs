//! What if the room had run with another rule of lag compensation (issues
//! 23 and 24): the relay's recording of the room (`GET
//! /api/rooms/{name}/recording`) replayed in the page as recorded and with
//! one rule changed (`sim::endpoints::room::replay::fork`: rewind off, or
//! another rewind cap), and every shot judged otherwise listed.

use super::recorded::cut_short;
use crate::dom::{emptied, query, select, write_text, Clicks};
use crate::runbar::share::{get_bytes, Mailbox, Reply};
use sim::endpoints::room::recording::RoomRecording;
use sim::endpoints::room::replay::{fork, Fork, RuleChange};
use web_sys::{Document, HtmlSelectElement};

/// The rule a `#room-fork` option names: `off`, or `cap-MS`.
pub fn change_of(value: &str) -> Option<RuleChange> {
    match value {
        "off" => Some(RuleChange::RewindOff),
        _ => {
            let ms = value.strip_prefix("cap-")?.parse().ok()?;
            Some(RuleChange::RewindCap { ms })
        }
    }
}

/// The fork's summary line and the shots judged otherwise, oldest first.
pub fn describe(f: &Fork) -> (String, Vec<String>) {
    let (shots, changed) = (f.base.shots.len(), f.changes.len());
    let summary = format!(
        "{}: {changed} of {shots} shots judged otherwise · hits {} → {}",
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
        }
    }

    /// One frame in room `name`: a click asks the relay for the room's
    /// recording; its answer is forked and written.
    pub fn frame(&mut self, name: &str) {
        if self.run.take() > 0 && self.asked.is_none() {
            let value = self.choice.as_ref().map(|s| s.value()).unwrap_or_default();
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
            }
            Err(why) => self.write(&format!("no fork: {why}"), &[]),
        }
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
