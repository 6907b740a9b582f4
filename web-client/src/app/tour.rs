//! The guided tour in the loop (issue 24): a stop's run is recorded in the
//! page from `sim::tour`, played to its moment and paused there, so the
//! panels, the Packets card and the Metrics show that frame; the card
//! (`crate::tour::card`) says what to see. The run is an ordinary
//! scenario's playback: ▶ plays on, keys take over, Save shares it.

use super::App;
use crate::tour::card::{Ask, Shown};
use crate::tour::texts::{body, number, words};
use sim::tour::{stops, Variant};

/// Where the tour is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TourAt {
    /// The stop, from 0.
    pub index: usize,
    /// Its run as the stop sets it, or with its control turned.
    pub variant: Variant,
}

impl App {
    /// The card's buttons and keys.
    pub(super) fn tour_frame(&mut self) {
        let Some(ask) = self.tour_card.take() else {
            return;
        };
        let count = stops().len();
        match (ask, self.tour) {
            (Ask::Open, _) => self.open_tour(0, Variant::Shown, true),
            (Ask::Close, _) => {
                self.tour = None;
                self.tour_card.hide();
            }
            (Ask::Move(d), Some(at)) => {
                let to = (at.index as i64 + i64::from(d)).clamp(0, count as i64 - 1) as usize;
                if to != at.index {
                    self.open_tour(to, Variant::Shown, false);
                }
            }
            (Ask::Try, Some(at)) => {
                let other = match at.variant {
                    Variant::Shown => Variant::Tried,
                    Variant::Tried => Variant::Shown,
                };
                self.open_tour(at.index, other, false);
            }
            (Ask::Move(_) | Ask::Try, None) => {}
        }
    }

    /// Opens stop `index` (from 0) of the tour in `variant`: leaves a room
    /// or a match, records the stop's run, plays it to its moment and
    /// pauses there. `focus`: the card's heading takes the focus.
    pub(super) fn open_tour(&mut self, index: usize, variant: Variant, focus: bool) {
        let all = stops();
        let Some(stop) = all.get(index) else {
            return;
        };
        let Some(w) = words(stop.key) else {
            return;
        };
        self.leave_room(None);
        self.leave_match(None);
        self.opening.hide();
        let mut scenario = stop.record(variant);
        let found = stop.find(&scenario, variant);
        let n = number(stop.reading, found.value);
        scenario.name = format!("Tour {}: {}", index + 1, w.title);
        scenario.description = format!("{} (reference {})", body(w, variant, &n), w.reference);
        self.start_playback(scenario);
        if let Some(run) = self.driver.run_mut() {
            while run.frame_index() < found.frame && run.step_recorded() {}
        }
        self.time.paused = true;
        self.show_state();
        self.tour = Some(TourAt { index, variant });
        self.tour_card.show(
            &Shown {
                index,
                count: all.len(),
                words: w,
                variant,
                reading: stop.reading,
                found,
            },
            focus,
        );
    }
}
