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

use super::lanes::{playback_line, playback_marks};
use super::recorded_card::{Card, Playhead, Recording};
use crate::clock::clock_ms;
use crate::dom::{append_button, emptied, query, write_text};
use crate::inspector::lane_paint::{Lane, Scene};
use sim::endpoints::room::playback::{play, RoomPlayback};
use sim::endpoints::room::recording::RoomRecording;
use sim::room::shots::ShotRecord;
use sim::room::PlayerId;
use sim::{SimTime, World};
use web_sys::Document;

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
    /// The playhead, from the recording's first tick.
    pub playhead: Playhead,
    /// The seat watched from.
    pub seat: PlayerId,
    /// The shot in the Replayed panel (an index into the playback's).
    pub shot: Option<usize>,
    card: Card,
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
        let (start, end) = playback.span();
        let room = RecordedRoom {
            id,
            world: World::arena(),
            range_cm: f32::from(recording.config.weapon.range_cm),
            playhead: Playhead::new(end.0 - start.0),
            seat,
            shot: None,
            playback,
            card: Card::on(doc),
        };
        let verdict = verdict_line(&room.playback, build_ms)
            + &cut_short(recording.truncated, recording.seconds());
        let seats: Vec<(String, String)> = room
            .playback
            .seats
            .iter()
            .map(|s| (s.id.0.to_string(), seat_name(&room.playback, s.id)))
            .collect();
        room.card.show(
            Recording::Room,
            &verdict,
            room.playback.identical(),
            &seats,
            &room.seat.0.to_string(),
            room.playhead.end_us,
        );
        Ok(room)
    }

    /// The playhead's time on the room's clock.
    pub fn t(&self) -> SimTime {
        self.playback.span().0.plus_micros(self.playhead.t_us)
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
        let tick_us = 1_000_000 / sim::room::config::TICK_HZ;
        let asked = self.card.take(&mut self.playhead, tick_us);
        if asked.close {
            return false;
        }
        if let Some(id) = asked.seat.and_then(|v| v.parse().ok()) {
            self.seat = PlayerId(id);
        }
        if let Some(i) = asked.pick.filter(|&i| i < self.playback.shots.len()) {
            let judged = &self.playback.shots[i].judged;
            let at = judged.at.0.saturating_sub(self.playback.span().0 .0);
            self.seat = judged.shooter;
            self.shot = Some(i);
            self.playhead.seek(at);
        }
        self.playhead.advance(dt);
        // While playing, the newest shot judged by the playhead.
        if self.playhead.playing {
            let n = self.playback.shots_until(self.t()).len();
            self.shot = n.checked_sub(1).or(self.shot);
        }
        self.write();
        true
    }

    /// The per-frame parts of the card: time, seek bar, play button, the
    /// shot list (every shot of the room, newest first; the one shown
    /// marked).
    fn write(&mut self) {
        let doc = self.card.doc.clone();
        let (start, end) = self.playback.span();
        self.card.write(&self.playhead, &self.seat.0.to_string());
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
            playhead_us: Some(self.playhead.t_us),
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
