//! The three panels of a match recording open in the page
//! ([`super::recorded_match::RecordedMatch`]):
//!
//! * Predicted: the followed seat, zoomed, with everyone's last second of
//!   path; a dot on a path at each tick the server ran without that
//!   player's input (orange held, red empty). A client's own prediction
//!   and rebases are not in a recording (only what the server used), so
//!   this is the server's match around that seat.
//! * Authoritative: the whole match on the server at the playhead, every
//!   seat in its colour (`super::match_panels`).
//! * Replayed: empty, saying why: a rebase happens on a player's page.

use super::match_panels::{authoritative, colour, everyone};
use super::recorded_match::{seat_name, RecordedMatch};
use crate::canvas::arena;
use crate::canvas::view::{with_alpha, View, CYAN, RED};
use crate::canvas::Layout;
use crate::panels::chrome::PanelChrome;
use macroquad::prelude::Color;
use sim::rollback::InputFill;
use sim::Vec2 as SimVec2;

/// How far the followed seat's panel zooms in over the whole arena unless
/// its view selector says another zoom.
const SEAT_ZOOM: f32 = 2.0;

/// No seat drawn as "you": every seat in its own colour.
const NOBODY: usize = usize::MAX;

/// The held-input colour (the lanes' orange).
const HELD: Color = Color::new(0.98, 0.57, 0.24, 1.0);

/// Draws the panels and writes their lines.
pub fn draw(m: &RecordedMatch, layout: &Layout, chrome: &PanelChrome) {
    let p = &m.playback;
    let trail = m.trail();
    let Some(now) = trail.last() else {
        return;
    };
    let world = p.arena().world();
    let n = m.tick();
    // The seats taken at the playhead's tick (the start's at tick 0).
    let seated = p.seated_mask(n.saturating_sub(1));
    let first = n + 1 - trail.len();
    if layout.predicted.is_drawable() {
        let follow = now
            .players
            .get(m.seat)
            .map(|st| (st.position.to_cm(), chrome.zoom().unwrap_or(SEAT_ZOOM)));
        let v = View::arena(layout.predicted, world.size, follow);
        arena::floor(&v, world);
        for s in 0..now.players.len() {
            let path: Vec<SimVec2> = trail
                .iter()
                .filter_map(|w| w.players.get(s))
                .map(|st| st.position.to_cm())
                .collect();
            for w in path.windows(2) {
                v.line(w[0], w[1], 2.0, with_alpha(colour(s, NOBODY), 0.45));
            }
            // trail[k] is the world after `first + k` ticks: recorded
            // tick `first + k - 1` stepped it there.
            for (k, at) in path.iter().enumerate().skip(1) {
                let i = first + k - 1;
                if !p.occupied(s, i) {
                    continue;
                }
                match p.recording.ticks[i].inputs.get(s).map(|u| u.fill) {
                    Some(InputFill::Held) => v.circle(*at, 3.0, HELD),
                    Some(InputFill::Empty) => v.circle(*at, 3.0, RED),
                    _ => {}
                }
            }
        }
        everyone(&v, now, NOBODY, seated, 1.0);
        if let Some(st) = now.players.get(m.seat) {
            v.ring(st.position.to_cm(), 14.0, 2.0, CYAN);
        }
        arena::scale_bar(&v);
    }
    if layout.authoritative.is_drawable() {
        authoritative(now, world, NOBODY, seated, layout.authoritative);
    }
    let name = seat_name(p, m.seat);
    let c = p.fill_counts(m.seat);
    chrome.text(
        "predicted-sub",
        &format!(
            "{name}'s seat, on the server · its own prediction and rebases are on its page, not in the recording"
        ),
    );
    chrome.mark("predicted-sub", "replay");
    chrome.text(
        "authoritative-sub",
        &format!(
            "match recording {} · the server after tick {n} of {} ({:.2} s)",
            m.id,
            p.ticks(),
            m.playhead.t_us as f64 / 1e6
        ),
    );
    chrome.text(
        "replayed-sub",
        "a rebase happens on a player's page: the recording holds the server's side",
    );
    chrome.show("replayed-empty", true);
    chrome.text(
        "replayed-empty",
        "A rollback recording holds what the server used: each seat's input per tick and whether it arrived in time. The dots in the Predicted panel mark the ticks the server had to fill (orange: held the last input, red: the empty input); each was mispredicted on that player's page whenever the late input differed.",
    );
    chrome.text(
        "predicted-foot",
        &format!(
            "followed ×{} · paths: the last second · dots: the server filled the input (orange held, red empty)",
            chrome.zoom().unwrap_or(SEAT_ZOOM)
        ),
    );
    chrome.text(
        "authoritative-foot",
        &format!(
            "{name}: {} received · {} held · {} empty (hold-last ≤ {} ticks, then empty: 001 §5.1)",
            c.received, c.held, c.empty, p.recording.config.hold_last_limit
        ),
    );
    chrome.text("replayed-foot", "");
}
