//! A saved room recording opened in the page (issue 23, `?room-recording=
//! ID`): the relay's recording of a CMC room played back in wasm
//! (`sim::endpoints::room::playback::play`), checked tick by tick against
//! the hashes the relay recorded, and scrubbed like a run: a seat to watch
//! from, play / pause, a seek bar, and the room's shots — one click puts a
//! shot's views in the Replayed panel and the playhead at its verdict.
//! Under the card, the followed seat's lanes over the recording's time
//! (`super::lanes::playback_marks`, drawn by the inspector's lane
//! canvas): its shots ▲, the shots judged at it ▼, the playhead; a click
//! on a mark opens its shot as the list does, a press or a drag on the
//! lanes seeks. The panels are drawn by `super::recorded_panels`.

use super::controls::on_button;
use super::lanes::{playback_line, playback_marks};
use crate::clock::clock_ms;
use crate::dom::{append_button, emptied, input, query, select, set_flag, write_text, Clicks};
use crate::inspector::gesture::Action;
use crate::inspector::lane_canvas::LaneCanvas;
use crate::inspector::lane_paint::{Lane, Scene};
use sim::endpoints::room::playback::{play, RoomPlayback};
use sim::endpoints::room::recording::RoomRecording;
use sim::room::shots::ShotRecord;
use sim::room::PlayerId;
use sim::{SimTime, World};
use std::cell::Cell;
use std::rc::Rc;
use web_sys::{Document, HtmlInputElement, HtmlSelectElement};

/// Seek bar steps per second of room.
const SEEK_STEPS_PER_S: f64 = 100.0;

/// A character's name: `P2`, or `bot 3`.
pub fn seat_name(p: &RoomPlayback, id: PlayerId) -> String {
    if p.seats.iter().any(|s| s.id == id && s.bot) {
        format!("bot {}", id.0)
    } else {
        format!("P{}", id.0)
    }
}

/// Whether `id` can be a stored id: 12 characters of base64url (the
/// relay's `store::ID_CHARS`), so a blank or mangled link is named at once
/// rather than asked for.
pub fn is_id(id: &str) -> bool {
    id.len() == 12
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// What the relay's recording leaves out: `" · the relay stopped
/// recording at 3.00 s (its event limit)"` when it was `truncated`, else
/// nothing.
pub fn cut_short(truncated: bool, seconds: f64) -> String {
    if truncated {
        format!(" · the relay stopped recording at {seconds:.2} s (its event limit)")
    } else {
        String::new()
    }
}

/// The page's link to room `name` (a checked room name): `/?room=NAME`,
/// with `&model=rollback` for a `rollback` match and `&watch=1` to watch
/// it. Join during a playback opens it (the recording closes, the room
/// is joined).
pub fn join_link(name: &str, rollback: bool, watch: bool) -> String {
    let model = if rollback { "&model=rollback" } else { "" };
    let watch = if watch { "&watch=1" } else { "" };
    format!("/?room={name}{model}{watch}")
}

/// The verdict line: whether the page's replay gave the relay's hashes.
pub fn verdict_line(p: &RoomPlayback, build_ms: f64) -> String {
    let ticks = p.outcome.tick_hashes.len();
    match p.outcome.first_divergence {
        None => format!(
            "replayed in this page in {build_ms:.0} ms: all {ticks} tick hashes equal the relay's · shots: {}, hits: {}",
            p.shots.len(),
            p.outcome.hits()
        ),
        Some(k) => format!(
            "replayed in this page: differs from the relay's recording from tick {k} of {ticks} ({:.2} s)",
            k as f64 / sim::room::config::TICK_HZ as f64
        ),
    }
}

/// The controls that do nothing while a recording is open, and why; the
/// packet lanes and the timeline (a live run's) are hidden. Close
/// reloads the page, which restores them.
const OFF_WHILE_OPEN: [&str; 7] = [
    "play-pause",
    "step-frame",
    "rec-toggle",
    "restart",
    "save-scenario",
    "model",
    "ab",
];

/// Turns off what does nothing while a recording is open.
fn set_aside(doc: &Document) {
    for id in OFF_WHILE_OPEN {
        if let Some(e) = doc.get_element_by_id(id) {
            set_flag(&e, "disabled", true);
            let _ = e.set_attribute(
                "title",
                "A room recording is open: Close it (Room section) to run the page again",
            );
        }
    }
    for selector in ["#inspector", ".timeline-card"] {
        if let Some(e) = query(doc, selector) {
            set_flag(&e, "hidden", true);
        }
    }
}

/// A room recording open in the page.
pub struct RecordedRoom {
    /// Its id in the store.
    pub id: String,
    /// The playback.
    pub playback: RoomPlayback,
    /// The arena it ran in.
    pub world: World,
    /// The weapon's range, cm (for the rays).
    pub range_cm: f32,
    /// The playhead.
    pub t: SimTime,
    /// Whether the playhead moves with the page's clock.
    pub playing: bool,
    /// The seat watched from.
    pub seat: PlayerId,
    /// The shot in the Replayed panel (an index into the playback's).
    pub shot: Option<usize>,
    card: Card,
}

/// The `#recorded-room` card's elements and their events.
struct Card {
    doc: Document,
    seat: Option<HtmlSelectElement>,
    seek: Option<HtmlInputElement>,
    seat_changed: Clicks,
    seeked: Clicks,
    play: Clicks,
    close: Clicks,
    picked: Rc<Cell<Option<usize>>>,
    shown: String,
    lanes: LaneCanvas,
}

impl RecordedRoom {
    /// Decodes `bytes` (the relay's compact recording), plays it back and
    /// shows its card, paused at the start.
    ///
    /// # Errors
    /// Why the bytes are not a room recording, or why it does not replay.
    pub fn open(doc: &Document, id: String, bytes: &[u8]) -> Result<RecordedRoom, String> {
        let recording = RoomRecording::from_bytes(bytes).map_err(|e| e.to_string())?;
        let started = clock_ms();
        let playback = play(&recording).map_err(|e| e.to_string())?;
        let build_ms = clock_ms() - started;
        let seat = playback
            .seats
            .iter()
            .find(|s| !s.bot)
            .or(playback.seats.first())
            .map_or(PlayerId(1), |s| s.id);
        let picked = Rc::new(Cell::new(None));
        let slot = picked.clone();
        on_button(doc, "recorded-shots", "data-shot", move |v| {
            slot.set(v.parse().ok());
        });
        let card = Card {
            doc: doc.clone(),
            seat: select(doc, "recorded-seat"),
            seek: input(doc, "recorded-seek"),
            seat_changed: Clicks::on(doc, "recorded-seat", "change"),
            seeked: Clicks::on(doc, "recorded-seek", "input"),
            play: Clicks::on(doc, "recorded-play", "click"),
            close: Clicks::on(doc, "recorded-close", "click"),
            picked,
            shown: String::new(),
            lanes: LaneCanvas::on(doc, "recorded-lanes"),
        };
        let mut room = RecordedRoom {
            id,
            world: World::arena(),
            range_cm: f32::from(recording.config.weapon.range_cm),
            t: playback.span().0,
            playing: false,
            seat,
            shot: None,
            playback,
            card,
        };
        room.card.lanes.seek_in_lanes();
        let verdict = verdict_line(&room.playback, build_ms)
            + &cut_short(recording.truncated, recording.seconds());
        room.show_card(&verdict);
        set_aside(doc);
        Ok(room)
    }

    /// Shot `i` as a record for the Replayed panel. A shot judged against
    /// no one gets the others where the server had them at its hit time
    /// (the tick at or before it), so its panel shows what the ray
    /// passed; a judged shot's views come from the server's answer.
    pub fn shot_record(&self, i: usize) -> Option<ShotRecord> {
        let s = self.playback.shots.get(i)?;
        let mut record = s.record(self.range_cm, &self.world);
        if s.detail.result.target.is_none() {
            if let Some(k) = self.playback.tick_at(s.detail.shot.hit_time) {
                record.saw = k
                    .bodies
                    .iter()
                    .filter(|b| b.0 != s.judged.shooter)
                    .copied()
                    .collect();
            }
        }
        Some(record)
    }

    /// One page frame of `dt` s: the card's events, then the playhead.
    /// Returns `false` once Close was clicked.
    pub fn frame(&mut self, dt: f64) -> bool {
        if self.card.close.take() > 0 {
            return false;
        }
        let (start, end) = self.playback.span();
        // The lanes: a mark opens its shot as the list does, a press seeks.
        let tick_us = 1_000_000 / sim::room::config::TICK_HZ;
        // The lanes count µs from the recording's first tick.
        for a in self.card.lanes.take_actions((0, end.0 - start.0)) {
            let to = match a {
                Action::Open { index, .. } => {
                    self.card.picked.set(Some(index));
                    continue;
                }
                Action::Seek(us) => start.0 + us,
                Action::Step(n) if n < 0 => self.t.0.saturating_sub(n.unsigned_abs() * tick_us),
                Action::Step(n) => self.t.0 + n.unsigned_abs() * tick_us,
                _ => continue,
            };
            self.t = SimTime(to.clamp(start.0, end.0));
            self.playing = false;
        }
        let c = &self.card;
        if c.play.take() > 0 {
            self.playing = !self.playing;
            if self.playing && self.t >= end {
                self.t = start;
            }
        }
        if c.seat_changed.take() > 0 {
            let value = c.seat.as_ref().map(|s| s.value()).unwrap_or_default();
            if let Ok(id) = value.parse() {
                self.seat = PlayerId(id);
            }
        }
        if c.seeked.take() > 0 {
            if let Some(v) = c.seek.as_ref().map(|s| s.value_as_number()) {
                self.t = start.plus_micros((v / SEEK_STEPS_PER_S * 1e6) as u64);
                self.playing = false;
            }
        }
        if let Some(i) = c.picked.take().filter(|&i| i < self.playback.shots.len()) {
            self.shot = Some(i);
            self.t = self.playback.shots[i].judged.at;
            self.seat = self.playback.shots[i].judged.shooter;
            self.playing = false;
        }
        if self.playing {
            self.t = self.t.plus_micros((dt * 1e6) as u64);
            if self.t >= end {
                self.t = end;
                self.playing = false;
            }
        }
        // While playing, the newest shot judged by the playhead.
        if self.playing {
            let n = self.playback.shots_until(self.t).len();
            self.shot = n.checked_sub(1).or(self.shot);
        }
        self.write();
        true
    }

    /// The card: the seats, the shots and the verdict line.
    fn show_card(&self, verdict: &str) {
        let doc = &self.card.doc;
        if let Some(card) = doc.get_element_by_id("recorded-room") {
            set_flag(&card, "hidden", false);
        }
        if let Some(e) = query(doc, "[data-metric=\"recorded-verdict\"]") {
            write_text(&e, verdict);
            let _ = e.set_attribute(
                "data-state",
                if self.playback.identical() {
                    "same"
                } else {
                    "differs"
                },
            );
        }
        if let Some(s) = &self.card.seat {
            s.set_inner_html("");
            for seat in &self.playback.seats {
                if let Ok(o) = doc.create_element("option") {
                    let _ = o.set_attribute("value", &seat.id.0.to_string());
                    o.set_text_content(Some(&seat_name(&self.playback, seat.id)));
                    let _ = s.append_child(&o);
                }
            }
            s.set_value(&self.seat.0.to_string());
        }
        if let Some(seek) = &self.card.seek {
            let (start, end) = self.playback.span();
            let steps = end.secs_since(start) * SEEK_STEPS_PER_S;
            let _ = seek.set_attribute("max", &format!("{steps:.0}"));
        }
    }

    /// The per-frame parts of the card: time, seek bar, play button, the
    /// shot list (every shot of the room, newest first; the one shown
    /// marked).
    fn write(&mut self) {
        let doc = self.card.doc.clone();
        let (start, end) = self.playback.span();
        if let Some(e) = query(&doc, "[data-metric=\"recorded-time\"]") {
            write_text(
                &e,
                &format!(
                    "{:.2} / {:.2} s",
                    self.t.secs_since(start),
                    end.secs_since(start)
                ),
            );
        }
        if let Some(seek) = &self.card.seek {
            seek.set_value_as_number((self.t.secs_since(start) * SEEK_STEPS_PER_S).round());
        }
        if let Some(b) = doc.get_element_by_id("recorded-play") {
            write_text(&b, if self.playing { "Pause" } else { "Play" });
        }
        if let Some(s) = &self.card.seat {
            if s.value() != self.seat.0.to_string() {
                s.set_value(&self.seat.0.to_string());
            }
        }
        let p = &self.playback;
        let marks = playback_marks(p, self.seat);
        let title = seat_name(p, self.seat);
        if let Some(e) = query(&doc, "[data-metric=\"recorded-lanes\"]") {
            write_text(&e, &playback_line(&title, &marks));
        }
        let scene = Scene {
            lanes: vec![Lane {
                title: &title,
                records: &crate::inspector::view::NONE,
                marks,
                highlight: &[],
                divergence_us: None,
                rollbacks: Vec::new(),
            }],
            extent: (0, end.0 - start.0),
            live: false,
            playhead_us: Some(self.t.0 - start.0),
            bands: Vec::new(),
            message: None,
            selected: None,
            open: self.shot.map(|i| (0, i)),
            default_transit_us: 0,
        };
        self.card.lanes.draw(&scene, 0);
        let shots = &p.shots;
        let signature = format!("{:?}", self.shot);
        if let Some(list) = emptied(&doc, "recorded-shots", &mut self.card.shown, signature) {
            for (i, s) in shots.iter().enumerate().rev() {
                let who = seat_name(p, s.judged.shooter);
                let title = format!(
                    "{who}'s shot #{} at {:.2} s",
                    s.number,
                    s.judged.at.secs_since(start)
                );
                let outcome = super::rules::outcome(&s.record(self.range_cm, &self.world));
                append_button(
                    &doc,
                    &list,
                    &[
                        ("data-shot", &i.to_string()),
                        ("data-verdict", outcome.name()),
                        ("title", &title),
                    ],
                    self.shot == Some(i),
                    &[
                        (None, &format!("{who} #{}", s.number)),
                        (Some("verdict"), &s.judged.describe()),
                        (None, &format!("{} ms back", s.judged.rewind_ms)),
                    ],
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::endpoints::room::recording::RoomRecordingFile;

    fn duel() -> RoomPlayback {
        let text = include_str!("../../../scenarios/rooms/duel-150-200ms-3pct.json");
        let file = RoomRecordingFile::from_json(text).unwrap();
        play(&file.recording().unwrap()).unwrap()
    }

    #[test]
    fn the_verdict_line_says_the_hashes_agree_or_where_they_part() {
        let mut p = duel();
        assert_eq!(
            verdict_line(&p, 41.6),
            "replayed in this page in 42 ms: all 721 tick hashes equal the relay's · shots: 26, hits: 26"
        );
        p.outcome.first_divergence = Some(150);
        assert_eq!(
            verdict_line(&p, 41.6),
            "replayed in this page: differs from the relay's recording from tick 150 of 721 (2.50 s)"
        );
    }

    #[test]
    fn a_recording_cut_short_says_where() {
        assert_eq!(
            cut_short(true, 3.0),
            " · the relay stopped recording at 3.00 s (its event limit)"
        );
        assert_eq!(cut_short(false, 3.0), "");
    }

    #[test]
    fn only_a_stored_id_shape_is_asked_for() {
        assert!(is_id("AbCdEfGh-_12"));
        assert!(!is_id(""));
        assert!(!is_id("AbCdEfGh-_1"));
        assert!(!is_id("AbCdEfGh/_12"));
        assert!(!is_id(&"x".repeat(3000)));
    }

    #[test]
    fn join_opens_the_rooms_link() {
        assert_eq!(join_link("lobby", false, false), "/?room=lobby");
        assert_eq!(
            join_link("arena-2", true, false),
            "/?room=arena-2&model=rollback"
        );
        assert_eq!(
            join_link("arena-2", true, true),
            "/?room=arena-2&model=rollback&watch=1"
        );
    }

    #[test]
    fn seats_are_named_as_in_a_room() {
        let mut p = duel();
        assert_eq!(seat_name(&p, PlayerId(2)), "P2");
        p.seats[1].bot = true;
        assert_eq!(seat_name(&p, PlayerId(2)), "bot 2");
    }
}
