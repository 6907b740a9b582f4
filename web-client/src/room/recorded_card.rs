//! The `#recorded-room` card that a saved recording opened in the page
//! drives — a CMC room's (`super::recorded`) or a rollback match's
//! (`super::recorded_match`): the verdict line, Play / Pause, the seek
//! bar, the seat to follow, Close, the list of picks (a room's shots)
//! and the lanes under it. [`Playhead`] is the time both move through,
//! µs from the recording's first tick.

use super::controls::on_button;
use crate::dom::{input, query, query_all, select, set_flag, write_text, Clicks};
use crate::inspector::gesture::Action;
use crate::inspector::lane_canvas::LaneCanvas;
use sim::net::settings::LinkSettings;
use std::cell::Cell;
use std::rc::Rc;
use web_sys::{Document, HtmlInputElement, HtmlSelectElement};

/// A seat's link in words, as a recording's Predicted panel names it:
/// "RTT 200 ms, loss 0.0 %" (the uplink's loss).
pub fn link_words(up: &LinkSettings, down: &LinkSettings) -> String {
    format!(
        "RTT {} ms, loss {:.1} %",
        u32::from(up.latency_ms) + u32::from(down.latency_ms),
        f32::from(up.loss_tenth_percent) / 10.0
    )
}

/// Seek bar steps per second of recording.
const SEEK_STEPS_PER_S: f64 = 100.0;

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

/// Which recording the card plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recording {
    /// A CMC room's (`super::recorded`).
    Room,
    /// A rollback match's (`super::recorded_match`).
    Match,
}

impl Recording {
    /// The card's title.
    fn title(self) -> &'static str {
        match self {
            Recording::Room => "Room recording",
            Recording::Match => "Match recording",
        }
    }

    /// The `data-recording` of its legend's items (`#recorded-legend`).
    fn legend(self) -> &'static str {
        match self {
            Recording::Room => "room",
            Recording::Match => "match",
        }
    }
}

/// Where a recording's playback is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Playhead {
    /// µs from the recording's first tick, `0..=end_us`.
    pub t_us: u64,
    /// The recording's length, µs.
    pub end_us: u64,
    /// Whether it moves with the page's clock.
    pub playing: bool,
}

impl Playhead {
    /// Paused at the start of a recording `end_us` long.
    pub fn new(end_us: u64) -> Playhead {
        Playhead {
            t_us: 0,
            end_us,
            playing: false,
        }
    }

    /// Puts it at `t_us` (clamped), paused.
    pub fn seek(&mut self, t_us: u64) {
        self.t_us = t_us.min(self.end_us);
        self.playing = false;
    }

    /// Play from where it is (from the start once at the end), or pause.
    pub fn toggle(&mut self) {
        self.playing = !self.playing;
        if self.playing && self.t_us >= self.end_us {
            self.t_us = 0;
        }
    }

    /// Moves on by `dt_s` of page time while playing; stops at the end.
    pub fn advance(&mut self, dt_s: f64) {
        if self.playing {
            self.t_us = (self.t_us + (dt_s.max(0.0) * 1e6) as u64).min(self.end_us);
            self.playing = self.t_us < self.end_us;
        }
    }
}

/// What the card's events asked for in one frame.
#[derive(Debug, Default)]
pub struct Asked {
    /// Close was clicked.
    pub close: bool,
    /// The seat selector's new value.
    pub seat: Option<String>,
    /// A pick in the list, or a mark on the lanes, by index.
    pub pick: Option<usize>,
}

/// The card's elements and their events.
pub struct Card {
    /// The page.
    pub doc: Document,
    seat: Option<HtmlSelectElement>,
    seek: Option<HtmlInputElement>,
    seat_changed: Clicks,
    seeked: Clicks,
    play: Clicks,
    close: Clicks,
    picked: Rc<Cell<Option<usize>>>,
    /// The pick list's last signature (`crate::dom::emptied`).
    pub shown: String,
    /// The lanes under the card.
    pub lanes: LaneCanvas,
}

impl Card {
    /// Listens to the card's controls; a click on a list item's
    /// `data-shot` index is a pick.
    pub fn on(doc: &Document) -> Card {
        let picked = Rc::new(Cell::new(None));
        let slot = picked.clone();
        on_button(doc, "recorded-shots", "data-shot", move |v| {
            slot.set(v.parse().ok());
        });
        let mut card = Card {
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
        card.lanes.seek_in_lanes();
        card
    }

    /// Shows the card of a `recording` with its `verdict` (`same`: every
    /// hash equal), the seats to follow (`(value, name)`, `seat` chosen)
    /// and the seek bar's length; turns off what does nothing while a
    /// recording is open and shows that recording's legend.
    pub fn show(
        &self,
        recording: Recording,
        verdict: &str,
        same: bool,
        seats: &[(String, String)],
        seat: &str,
        end_us: u64,
    ) {
        let doc = &self.doc;
        if let Some(card) = doc.get_element_by_id("recorded-room") {
            set_flag(&card, "hidden", false);
        }
        if let Some(e) = doc.get_element_by_id("recorded-title") {
            write_text(&e, recording.title());
        }
        if let Some(e) = query(doc, "[data-metric=\"recorded-verdict\"]") {
            write_text(&e, verdict);
            let _ = e.set_attribute("data-state", if same { "same" } else { "differs" });
        }
        if let Some(s) = &self.seat {
            s.set_inner_html("");
            for (value, name) in seats {
                if let Ok(o) = doc.create_element("option") {
                    let _ = o.set_attribute("value", value);
                    o.set_text_content(Some(name));
                    let _ = s.append_child(&o);
                }
            }
            s.set_value(seat);
        }
        if let Some(seek) = &self.seek {
            let steps = end_us as f64 / 1e6 * SEEK_STEPS_PER_S;
            let _ = seek.set_attribute("max", &format!("{steps:.0}"));
        }
        set_aside(doc, recording);
    }

    /// Hides the pick list (a recording with nothing to pick).
    pub fn hide_picks(&self) {
        if let Some(e) = self.doc.get_element_by_id("recorded-shots") {
            set_flag(&e, "hidden", true);
        }
    }

    /// The frame's events: Play, the seek bar, the lanes (a press or drag
    /// seeks, an arrow key steps one tick of `tick_us`, a mark is a pick),
    /// the seat selector, the list, Close.
    pub fn take(&mut self, ph: &mut Playhead, tick_us: u64) -> Asked {
        let mut asked = Asked {
            close: self.close.take() > 0,
            ..Asked::default()
        };
        for a in self.lanes.take_actions((0, ph.end_us)) {
            match a {
                Action::Open { index, .. } => asked.pick = Some(index),
                Action::Seek(us) => ph.seek(us),
                Action::Step(n) if n < 0 => {
                    ph.seek(ph.t_us.saturating_sub(n.unsigned_abs() * tick_us));
                }
                Action::Step(n) => ph.seek(ph.t_us + n.unsigned_abs() * tick_us),
                _ => {}
            }
        }
        if self.play.take() > 0 {
            ph.toggle();
        }
        if self.seat_changed.take() > 0 {
            asked.seat = self.seat.as_ref().map(|s| s.value());
        }
        if self.seeked.take() > 0 {
            if let Some(v) = self.seek.as_ref().map(|s| s.value_as_number()) {
                ph.seek((v / SEEK_STEPS_PER_S * 1e6) as u64);
            }
        }
        if let Some(i) = self.picked.take() {
            asked.pick = Some(i);
        }
        asked
    }

    /// The per-frame readouts: the time, the seek bar, Play / Pause and
    /// the seat followed (`seat`, a selector value).
    pub fn write(&self, ph: &Playhead, seat: &str) {
        let doc = &self.doc;
        if let Some(e) = query(doc, "[data-metric=\"recorded-time\"]") {
            let (t, end) = (ph.t_us as f64 / 1e6, ph.end_us as f64 / 1e6);
            write_text(&e, &format!("{t:.2} / {end:.2} s"));
        }
        if let Some(seek) = &self.seek {
            seek.set_value_as_number((ph.t_us as f64 / 1e6 * SEEK_STEPS_PER_S).round());
        }
        if let Some(b) = doc.get_element_by_id("recorded-play") {
            write_text(&b, if ph.playing { "Pause" } else { "Play" });
        }
        if let Some(s) = &self.seat {
            if s.value() != seat {
                s.set_value(seat);
            }
        }
    }
}

/// Turns off what does nothing while a recording is open, and puts the
/// `recording`'s legend in place of the live one.
fn set_aside(doc: &Document, recording: Recording) {
    for id in OFF_WHILE_OPEN {
        if let Some(e) = doc.get_element_by_id(id) {
            set_flag(&e, "disabled", true);
            let _ = e.set_attribute(
                "title",
                "A recording is open: Close it (Room section) to run the page again",
            );
        }
    }
    for selector in [
        "#inspector",
        ".timeline-card",
        "#link-controls",
        "section[aria-labelledby=\"link-title\"]",
    ] {
        if let Some(e) = query(doc, selector) {
            set_flag(&e, "hidden", true);
        }
    }
    for ul in query_all(doc, ".legend > ul") {
        set_flag(&ul, "hidden", ul.id() != "recorded-legend");
    }
    for li in query_all(doc, "#recorded-legend [data-recording]") {
        let other = li.get_attribute("data-recording").as_deref() != Some(recording.legend());
        set_flag(&li, "hidden", other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_named_by_its_round_trip_and_uplink_loss() {
        let up = LinkSettings::simple(75, 10, 3);
        let down = LinkSettings::simple(125, 10, 0);
        assert_eq!(link_words(&up, &down), "RTT 200 ms, loss 3.0 %");
    }

    #[test]
    fn the_playhead_plays_to_the_end_and_starts_over_from_there() {
        let mut ph = Playhead::new(2_000_000);
        ph.advance(0.5);
        assert_eq!(ph.t_us, 0, "paused");
        ph.toggle();
        ph.advance(0.5);
        assert_eq!((ph.t_us, ph.playing), (500_000, true));
        ph.advance(5.0);
        assert_eq!((ph.t_us, ph.playing), (2_000_000, false));
        ph.toggle();
        assert_eq!((ph.t_us, ph.playing), (0, true));
        ph.seek(9_000_000);
        assert_eq!((ph.t_us, ph.playing), (2_000_000, false));
    }
}
