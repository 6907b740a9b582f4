//! The opening (issue #28 item 6): a link to the page without parameters
//! opens on [`sim::OPENING`] — RTT 200 ms, 10 % loss, and the Lag spike
//! button pressed for you 1.5 s into the run — so a correction shows within
//! seconds, and a strip above the panels says so and gives the clean link
//! back in one click (or `?link=clean` opens on it). The run clock counts
//! only while the run goes: from the relay's connection, or in the page.

use crate::dom::{query, set_flag, write_text, Clicks};
use web_sys::{Document, Element};

/// What the strip asks of the page this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Press the Lag spike button (its fields hold the opening's spike).
    Spike,
    /// Back to the default link, RTT 100 ms and no loss.
    CleanLink,
}

/// When the opening's one spike is due: pure, tested natively.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SpikeClock {
    /// Run time so far, s.
    ran_s: f64,
    pressed: bool,
}

impl SpikeClock {
    /// Advances by `dt` s of run time; `true` once, on the frame that
    /// crosses [`sim::Opening::spike_at_s`].
    pub fn advance(&mut self, dt: f64) -> bool {
        self.ran_s += dt;
        let due = !self.pressed && self.ran_s >= sim::OPENING.spike_at_s;
        self.pressed |= due;
        due
    }
}

/// The strip and the opening's spike.
pub struct Opening {
    strip: Option<Element>,
    clock: Option<SpikeClock>,
    spike: Clicks,
    clean: Clicks,
    hide: Clicks,
}

impl Opening {
    /// The strip, shown if `on` (the page was opened bare).
    pub fn new(doc: &Document, on: bool) -> Opening {
        let strip = query(doc, "#opening");
        if let Some(s) = &strip {
            set_flag(s, "hidden", !on);
        }
        let o = sim::OPENING;
        let clean = sim::NetSettings::default();
        for (key, text) in [
            (
                "what",
                format!(
                    "RTT {} ms, {} % loss, and a {} ms lag spike for {} s pressed for you {} s in",
                    o.settings.rtt_ms(),
                    o.settings.uplink.loss_tenth_percent / 10,
                    o.spike.extra_ms,
                    f64::from(o.spike.duration_ms) / 1000.0,
                    o.spike_at_s
                ),
            ),
            (
                "clean",
                format!("Clean link (RTT {} ms, no loss)", clean.rtt_ms()),
            ),
        ] {
            if let Some(e) = query(doc, &format!("[data-opening=\"{key}\"]")) {
                write_text(&e, &text);
            }
        }
        Opening {
            strip,
            clock: on.then(SpikeClock::default),
            spike: Clicks::on(doc, "opening-spike", "click"),
            clean: Clicks::on(doc, "opening-clean", "click"),
            hide: Clicks::on(doc, "opening-hide", "click"),
        }
    }

    /// One frame: `run_dt` s of run time went by (0 while the run waits).
    pub fn frame(&mut self, run_dt: f64) -> Option<Ask> {
        if self.hide.take() > 0 {
            self.hide();
        }
        if self.clean.take() > 0 {
            self.hide();
            return Some(Ask::CleanLink);
        }
        let due = self.clock.as_mut().is_some_and(|c| c.advance(run_dt));
        (due || self.spike.take() > 0).then_some(Ask::Spike)
    }

    /// Hides the strip; its spike, if not pressed yet, never is.
    pub fn hide(&mut self) {
        self.clock = None;
        if let Some(s) = &self.strip {
            set_flag(s, "hidden", true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spike_is_pressed_once_on_the_frame_that_crosses_1_5_s() {
        let mut c = SpikeClock::default();
        let frames: Vec<bool> = (0..120).map(|_| c.advance(1.0 / 60.0)).collect();
        assert_eq!(frames.iter().filter(|&&d| d).count(), 1);
        // Frame 90 ends at 1.5 s (within float rounding: 89 or 90).
        let at = frames.iter().position(|&d| d).unwrap();
        assert!((89..=90).contains(&at), "pressed on frame {at}");
        // A long wait (connecting) counts nothing: 0 s frames.
        let mut waiting = SpikeClock::default();
        assert!(!(0..1000).any(|_| waiting.advance(0.0)));
        assert!(waiting.advance(2.0));
    }
}
