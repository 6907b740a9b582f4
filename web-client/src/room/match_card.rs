//! The Room section's rollback match card (issue 22): your seat, everyone's
//! predicted position, the confirmed HP and tick, the last rebase, and a
//! per-player table — for each remote player the ticks their input was
//! mispredicted and the rebases that caused (`RemoteCounters`), and for
//! everyone the RTT, input delay, input buffer at the server, time
//! dilation and missed / late inputs: yours as the Metrics card shows
//! them, the others' from the room's newest Seats (their own reports and
//! the server's counters; `–` when stale). A spectator's card says
//! watching and lists the seated players, with the newest View's
//! positions, HP and tick and every seat's numbers. Written a few times a
//! second (DOM writes cost); the table only when a cell changed.

use super::match_rules::{
    fresh_seats, hp, name, positions, remote_line, remote_row, replayed_line, seat_cells,
    seat_taken, seated_line,
};
use super::match_run::MatchRun;
use crate::dom::{emptied, query, set_flag, write_text};
use sim::rollback::wire::{SeatsMsg, ViewMsg};
use sim::SimTime;
use web_sys::Document;

/// How often the card is written, µs.
const WRITE_EVERY_US: u64 = 200_000;

/// Handles on the match card.
pub struct MatchCard {
    doc: Document,
    next_write: SimTime,
    table_shown: String,
}

impl MatchCard {
    /// Looks the card up.
    pub fn new(doc: &Document) -> MatchCard {
        MatchCard {
            doc: doc.clone(),
            next_write: SimTime::ZERO,
            table_shown: String::new(),
        }
    }

    /// Shows the card (in a rollback room) or hides it.
    pub fn show(&mut self, on: bool) {
        if let Some(e) = self.doc.get_element_by_id("match-card") {
            set_flag(&e, "hidden", !on);
        }
        if !on {
            for m in [
                "match-players",
                "match-hp",
                "match-tick",
                "match-remote",
                "match-replayed",
            ] {
                self.metric(m, "–");
            }
            self.table_shown.clear();
        }
        self.next_write = SimTime::ZERO;
    }

    fn metric(&self, name: &str, text: &str) {
        if let Some(el) = query(&self.doc, &format!("[data-metric=\"{name}\"]")) {
            write_text(&el, text);
        }
    }

    /// Writes the card from `run` at page time `t`, if due.
    pub fn write(&mut self, t: SimTime, run: &MatchRun) {
        if t < self.next_write {
            return;
        }
        self.next_write = SimTime(t.0 + WRITE_EVERY_US);
        let seats = fresh_seats(run.seats.as_ref(), t.0);
        if run.watch {
            self.write_watching(run, seats);
            return;
        }
        let Some(local) = run.seat else {
            self.metric("match-state", &format!("{}: joining…", run.name));
            return;
        };
        let p = &run.predictor;
        let players = p.confirmed().map_or(0, |s| s.players.len());
        self.metric("room-state", &format!("{} (rollback)", run.name));
        self.metric(
            "match-state",
            &format!("{}: seat P{} of {players} (rollback)", run.name, local + 1),
        );
        let seated = run.seated();
        if let Some(s) = p.predicted() {
            self.metric("match-players", &positions(s, seated));
        }
        if let Some(s) = p.confirmed() {
            self.metric("match-hp", &hp(s, seated));
            self.metric("match-tick", &s.tick.0.to_string());
        }
        let counters = run.remote_counters();
        self.metric("match-remote", &remote_line(counters, local, seated));
        if let Some(r) = &run.replay {
            let rec = &r.record;
            let line = replayed_line(rec.from.0, rec.resimulated.len(), &r.caused_by, local);
            self.metric("match-replayed", &line);
        }
        let m = p.metrics();
        let mut rows = vec![[
            name(local, local),
            "–".to_owned(),
            "–".to_owned(),
            rtt_text(run.rtt_ms),
            format!("{} ticks", p.config().input_delay),
            m.input_buffer
                .map_or("–".to_owned(), |b| format!("{b:.1} ticks")),
            crate::rollback::readouts::dilation_text(&m),
            format!("{} / {}", m.missed_inputs, m.late_inputs),
        ]];
        let remote = |i: usize| i != local && seat_taken(seated, i);
        for (i, c) in counters.iter().enumerate().filter(|(i, _)| remote(*i)) {
            let [who, mis, caused] = remote_row(i, local, c);
            let [rtt, delay, buffer, dilation, missed] = seat_cells(seats, i);
            rows.push([who, mis, caused, rtt, delay, buffer, dilation, missed]);
        }
        self.write_table(rows);
    }

    /// A spectator's card (issue 22): watching, who is seated, the newest
    /// View's world; a row per seated player with its numbers from
    /// `seats`.
    fn write_watching(&mut self, run: &MatchRun, seats: Option<&SeatsMsg>) {
        let Some(w) = &run.watched else {
            self.metric("match-state", &format!("{}: watching… (joining)", run.name));
            return;
        };
        let v = &w.view;
        self.metric("room-state", &format!("{} (rollback, watching)", run.name));
        self.metric(
            "match-state",
            &format!(
                "{}: watching (rollback) · seated {}",
                run.name,
                seated_line(v.players, v.bots)
            ),
        );
        let seated = v.players | v.bots;
        self.metric("match-players", &positions(&v.snapshot, seated));
        self.metric("match-hp", &hp(&v.snapshot, seated));
        self.metric("match-tick", &v.snapshot.tick.0.to_string());
        self.metric("match-remote", "watching: no prediction");
        self.metric("match-replayed", "–");
        let dash = || "–".to_owned();
        let mut rows = vec![[
            "you (watching)".to_owned(),
            dash(),
            dash(),
            rtt_text(run.rtt_ms),
            dash(),
            dash(),
            dash(),
            dash(),
        ]];
        let bots = v.bots;
        for p in ViewMsg::seats(v.players | bots) {
            let who = if bots & (1 << p) != 0 {
                format!("P{} (bot)", p + 1)
            } else {
                format!("P{}", p + 1)
            };
            let [rtt, delay, buffer, dilation, missed] = seat_cells(seats, p);
            rows.push([who, dash(), dash(), rtt, delay, buffer, dilation, missed]);
        }
        self.write_table(rows);
    }

    /// Writes the per-player table when its rows changed.
    fn write_table(&mut self, rows: Vec<[String; 8]>) {
        let signature = rows
            .iter()
            .flatten()
            .fold(String::new(), |s, c| s + c + "|");
        let Some(body) = emptied(&self.doc, "match-table", &mut self.table_shown, signature) else {
            return;
        };
        for row in rows {
            let Ok(tr) = self.doc.create_element("tr") else {
                return;
            };
            for cell in row {
                if let Ok(td) = self.doc.create_element("td") {
                    td.set_text_content(Some(&cell));
                    let _ = tr.append_child(&td);
                }
            }
            let _ = body.append_child(&tr);
        }
    }
}

/// Your RTT cell: the newest Ping's round trip, whole ms.
fn rtt_text(rtt_ms: Option<f64>) -> String {
    rtt_ms.map_or("–".to_owned(), |ms| format!("{ms:.0} ms"))
}
