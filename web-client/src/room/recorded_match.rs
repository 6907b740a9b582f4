//! A saved rollback match recording opened in the page (issue 23,
//! `?match-recording=ID`): the relay's recording of a rollback room —
//! every tick's input per seat as the server used it, with where it came
//! from (received, held, empty; `001_…` §5.1) and the server's state hash
//! — re-run in wasm (`sim::rollback::playback::MatchPlayback`), every hash
//! compared with the relay's, and scrubbed on the card the room
//! recordings use (`super::recorded_card`): a seat to follow, play / pause,
//! the seek bar, and under it the followed seat's lane with a bar at every
//! tick the server ran without that seat's input (orange held, red
//! empty). The panels are drawn by `super::recorded_match_panels`.

use super::recorded::cut_short;
use super::recorded_card::{Card, Playhead, Recording};
use crate::clock::clock_ms;
use crate::dom::{query, write_text};
use crate::inspector::lane_paint::{Glyph, Lane, MarkSpec, Scene};
use sim::rollback::playback::{FillStory, MatchPlayback};
use sim::rollback::{InputFill, MatchRecording, Snapshot};
use web_sys::Document;

/// A seat's name in a recording: `P2`, or `bot 3` for a server bot's.
pub fn seat_name(p: &MatchPlayback, seat: usize) -> String {
    if p.is_bot(seat) {
        format!("bot {}", seat + 1)
    } else {
        format!("P{}", seat + 1)
    }
}

/// Whether anyone ever sat in `seat` (a match has up to 8 seats, most
/// often some empty).
fn sat(p: &MatchPlayback, seat: usize) -> bool {
    p.recording
        .joins
        .iter()
        .any(|j| usize::from(j.player) == seat)
}

/// The verdict line: whether the page's replay gave the relay's hashes,
/// and how often the server ran without someone's input.
pub fn verdict_line(p: &MatchPlayback, build_ms: f64) -> String {
    let ticks = p.ticks();
    let seats = p.recording.seats();
    let taken = (0..seats).filter(|&s| sat(p, s)).count();
    let (held, empty) = (0..seats)
        .map(|s| p.fill_counts(s))
        .fold((0, 0), |(h, e), c| (h + c.held, e + c.empty));
    match p.first_mismatch {
        None => format!(
            "replayed in this page in {build_ms:.0} ms: all {ticks} tick hashes equal the relay's · seats: {taken} of {seats} taken · the server filled {held} inputs by hold-last, {empty} with the empty input"
        ),
        Some(t) => format!(
            "replayed in this page: differs from the relay's recording from tick {} of {ticks}",
            t.0
        ),
    }
}

/// The followed seat's lane marks: a bar at each tick the server ran
/// without its input (µs from the first tick, at `tick_us` a tick).
pub fn fill_marks(p: &MatchPlayback, seat: usize, tick_us: u64) -> Vec<MarkSpec> {
    p.fills(seat)
        .iter()
        .map(|&(i, fill)| MarkSpec {
            t_us: i as u64 * tick_us,
            index: i,
            hollow: false,
            glyph: Glyph::Fill {
                empty: fill == InputFill::Empty,
            },
            rewound_from_us: None,
        })
        .collect()
}

/// The Replayed panel's line for `story`: which ticks the server filled,
/// how, and whether the guess was right.
pub fn story_line(p: &MatchPlayback, s: &FillStory) -> String {
    let who = seat_name(p, s.seat);
    let ticks = if s.first == s.last {
        format!("tick {}", s.first + 1)
    } else {
        format!("ticks {}–{}", s.first + 1, s.last + 1)
    };
    let how = match s.fill {
        InputFill::Empty => "the empty input",
        _ => "its last input held",
    };
    let verdict = match (s.next_received, s.changed) {
        (None, _) => "no input of its came after".to_owned(),
        (Some(_), false) => "its next input was the same: a right guess, nobody rebased".to_owned(),
        (Some(_), true) => format!(
            "its next input differs: a wrong guess, its page rebased onto the server's ({:.0} cm apart {:.1} s on)",
            s.apart_cm(),
            s.delivered.len() as f64 / f64::from(p.recording.config.tick_rate.hz())
        ),
    };
    format!("{who}'s input missing at {ticks}, run with {how} · {verdict}")
}

/// The lane's line: `P2 · 3780 ticks seated · 9 held, 7 empty: run
/// without its input`.
pub fn fill_line(p: &MatchPlayback, seat: usize) -> String {
    let c = p.fill_counts(seat);
    format!(
        "{} · {3} ticks seated · {1} held, {2} empty: run without its input",
        seat_name(p, seat),
        c.held,
        c.empty,
        c.received + c.held + c.empty
    )
}

/// A match recording open in the page.
pub struct RecordedMatch {
    /// Its id in the store.
    pub id: String,
    /// The playback.
    pub playback: MatchPlayback,
    /// The playhead, from the first tick.
    pub playhead: Playhead,
    /// The seat followed.
    pub seat: usize,
    /// One tick, µs (the match's rate).
    pub tick_us: u64,
    /// The worlds of the last second up to the playhead, oldest first,
    /// and the tick count they end at (recomputed when the playhead
    /// moves to another tick).
    trail: (usize, Vec<Snapshot>),
    /// The followed seat's newest run of fills at or before the
    /// playhead, and the (seat, tick count) it was told for.
    story: ((usize, usize), Option<FillStory>),
    card: Card,
}

/// Ticks of path drawn behind each player: 1 s at the match's rate.
fn trail_ticks(p: &MatchPlayback) -> usize {
    p.recording.config.tick_rate.hz() as usize
}

impl RecordedMatch {
    /// Decodes `bytes` (the relay's compact match recording), plays it
    /// back and shows its card, paused at the start.
    ///
    /// # Errors
    /// Why the bytes are not a match recording, or why it does not replay.
    pub fn open(doc: &Document, id: String, bytes: &[u8]) -> Result<RecordedMatch, String> {
        let recording = MatchRecording::from_bytes(bytes).map_err(|e| e.to_string())?;
        let started = clock_ms();
        let playback = MatchPlayback::play(recording).map_err(|e| e.to_string())?;
        let build_ms = clock_ms() - started;
        let seat = (0..playback.recording.seats())
            .find(|&s| !playback.is_bot(s))
            .unwrap_or(0);
        let tick_us = 1_000_000 / u64::from(playback.recording.config.tick_rate.hz());
        let end_us = playback.ticks() as u64 * tick_us;
        let verdict = verdict_line(&playback, build_ms)
            + &cut_short(playback.recording.truncated, playback.seconds());
        let seats: Vec<(String, String)> = (0..playback.recording.seats())
            .filter(|&s| sat(&playback, s))
            .map(|s| (s.to_string(), seat_name(&playback, s)))
            .collect();
        let card = Card::on(doc);
        card.show(
            Recording::Match,
            &verdict,
            playback.identical(),
            &seats,
            &seat.to_string(),
            end_us,
        );
        card.hide_picks();
        // The model selector says what ran (it is off while a recording
        // is open).
        if let Some(model) = crate::dom::select(doc, "model") {
            model.set_value("rollback");
        }
        let mut m = RecordedMatch {
            id,
            playhead: Playhead::new(end_us),
            seat,
            tick_us,
            trail: (usize::MAX, Vec::new()),
            story: ((usize::MAX, 0), None),
            playback,
            card,
        };
        m.write();
        Ok(m)
    }

    /// Ticks run by the playhead (`0..=ticks`).
    pub fn tick(&self) -> usize {
        ((self.playhead.t_us / self.tick_us) as usize).min(self.playback.ticks())
    }

    /// The world at the playhead and the last second before it, oldest
    /// first (the last is the world at the playhead; the recording's
    /// start alone at tick 0).
    pub fn trail(&self) -> &[Snapshot] {
        &self.trail.1
    }

    /// The followed seat's newest run of fills at or before the playhead
    /// (`sim::rollback::playback::MatchPlayback::fill_story`).
    pub fn story(&self) -> Option<&FillStory> {
        self.story.1.as_ref()
    }

    /// One page frame of `dt` s: the card's events, then the playhead.
    /// Returns `false` once Close was clicked.
    pub fn frame(&mut self, dt: f64) -> bool {
        let asked = self.card.take(&mut self.playhead, self.tick_us);
        if asked.close {
            return false;
        }
        if let Some(s) = asked.seat.and_then(|v| v.parse().ok()) {
            self.seat = s;
        }
        self.playhead.advance(dt);
        self.write();
        true
    }

    /// The trail for the playhead's tick, the card's readouts and the
    /// followed seat's lane.
    fn write(&mut self) {
        let n = self.tick();
        if self.trail.0 != n {
            let from = n.saturating_sub(trail_ticks(&self.playback));
            let mut worlds = vec![self.playback.world_after(from)];
            worlds.extend(self.playback.worlds_between(from, n));
            self.trail = (n, worlds);
        }
        if self.story.0 != (self.seat, n) {
            let story = n
                .checked_sub(1)
                .and_then(|i| self.playback.fill_story(self.seat, i));
            self.story = ((self.seat, n), story);
        }
        self.card.write(&self.playhead, &self.seat.to_string());
        let title = seat_name(&self.playback, self.seat);
        if let Some(e) = query(&self.card.doc, "[data-metric=\"recorded-lanes\"]") {
            write_text(&e, &fill_line(&self.playback, self.seat));
        }
        let scene = Scene {
            lanes: vec![Lane {
                title: &title,
                records: &crate::inspector::view::NONE,
                marks: fill_marks(&self.playback, self.seat, self.tick_us),
                highlight: &[],
                divergence_us: None,
                rollbacks: Vec::new(),
            }],
            extent: (0, self.playhead.end_us),
            live: false,
            playhead_us: Some(self.playhead.t_us),
            bands: Vec::new(),
            message: None,
            selected: None,
            open: None,
            default_transit_us: 0,
        };
        self.card.lanes.draw(&scene, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn four() -> MatchPlayback {
        let bytes = include_bytes!("../../../scenarios/matches/4p-rtt100-200-5pct.bin");
        MatchPlayback::play(MatchRecording::from_bytes(bytes).unwrap()).unwrap()
    }

    #[test]
    fn the_verdict_line_counts_the_servers_fills_or_says_where_it_parts() {
        let mut p = four();
        assert_eq!(
            verdict_line(&p, 12.4),
            "replayed in this page in 12 ms: all 3780 tick hashes equal the relay's · seats: 4 of 4 taken · the server filled 35 inputs by hold-last, 34 with the empty input"
        );
        p.first_mismatch = Some(sim::rollback::Tick(150));
        assert_eq!(
            verdict_line(&p, 12.4),
            "replayed in this page: differs from the relay's recording from tick 150 of 3780"
        );
    }

    #[test]
    fn a_seats_lane_has_a_bar_at_each_tick_the_server_filled() {
        let p = four();
        let tick_us = 1_000_000 / 60;
        let marks = fill_marks(&p, 1, tick_us);
        assert_eq!(marks.len(), 16);
        let empty = marks
            .iter()
            .filter(|m| m.glyph == Glyph::Fill { empty: true })
            .count();
        assert_eq!(empty, 7);
        assert!(marks.iter().all(|m| !m.clickable()));
        assert_eq!(marks[0].t_us, marks[0].index as u64 * 16_666);
        assert_eq!(
            fill_line(&p, 1),
            "P2 · 3780 ticks seated · 9 held, 7 empty: run without its input"
        );
        assert_eq!(seat_name(&p, 3), "P4");
    }

    #[test]
    fn a_fill_run_is_told_right_or_wrong() {
        let p = four();
        let wrong = p.fill_story(1, 2546).unwrap();
        assert_eq!(
            story_line(&p, &wrong),
            "P2's input missing at tick 2547, run with its last input held · its next input differs: a wrong guess, its page rebased onto the server's (18 cm apart 0.5 s on)"
        );
        let (i, _) = p.fills(0)[0];
        let first = p.fill_story(0, i).unwrap();
        assert!(!first.changed);
        assert!(story_line(&p, &first)
            .ends_with("its next input was the same: a right guess, nobody rebased"));
    }
}
