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
//! * Replayed: the followed seat's newest run of fills at or before the
//!   playhead (`sim::rollback::playback::FillStory`): the seat's path as
//!   the server ran it (red, dashed) beside the path had its input arrived
//!   — estimated as its next received input — in its colour, the filled
//!   ticks dotted, framed on both. A right guess draws one path.

use super::match_panels::{authoritative, colour, everyone};
use super::recorded_card::link_words;
use super::recorded_match::{seat_name, story_line, RecordedMatch};
use crate::canvas::arena;
use crate::canvas::view::{with_alpha, RectF, View, CYAN, LABEL, RED};
use crate::canvas::Layout;
use crate::panels::chrome::PanelChrome;
use macroquad::prelude::{Color, WHITE};
use sim::foundation::world::World;
use sim::rollback::playback::FillStory;
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
    // One link per seating (the newest its page set), so named as such.
    let seat_line = match p.link_at(m.seat, n.saturating_sub(1)) {
        _ if p.is_bot(m.seat) => "a bot, run by the server: no page, no prediction".to_owned(),
        Some(l) => format!(
            "link as last set: {} · its prediction and rebases are on its page, not in the recording",
            link_words(&l.up, &l.down)
        ),
        None => "its link not in the recording · its prediction and rebases are on its page"
            .to_owned(),
    };
    chrome.text(
        "predicted-sub",
        &format!("{name}'s seat, on the server · {seat_line}"),
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
    let story = m.story();
    if let (Some(st), true) = (story, layout.replayed.is_drawable()) {
        fill_story(st, world, m.seat, layout.replayed);
    }
    chrome.text(
        "replayed-sub",
        &story.map_or_else(
            || format!("{name}: no input missing so far"),
            |st| story_line(p, st),
        ),
    );
    chrome.show("replayed-empty", story.is_none());
    chrome.text(
        "replayed-empty",
        "A rollback recording holds what the server used: each seat's input per tick and whether it arrived in time. Here: the followed seat's newest run of ticks the server had to fill (held or empty), and where the seat would have gone had its input arrived.",
    );
    chrome.text(
        "replayed-foot",
        if story.is_some_and(|st| st.changed) {
            "red dashed: as the server ran it · solid: had the input arrived (estimated as the seat's next input received) · dots: the filled ticks"
        } else if story.is_some() {
            "the seat's path as the server ran it, the filled ticks dotted: its next input was the one the server used"
        } else {
            ""
        },
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
}

/// The Replayed panel: the story's seat as the server ran it and had its
/// input arrived, framed on both paths.
fn fill_story(st: &FillStory, world: &World, seat: usize, area: RectF) {
    let path = |w: &[sim::rollback::Snapshot]| -> Vec<SimVec2> {
        w.iter()
            .filter_map(|s| s.players.get(st.seat))
            .map(|p| p.position.to_cm())
            .collect()
    };
    let (ran, arrived) = (path(&st.recorded), path(&st.delivered));
    let v = View::framing(area, ran.iter().chain(&arrived).copied(), 1.6);
    arena::floor(&v, world);
    let own = if st.seat == seat {
        CYAN
    } else {
        colour(st.seat, NOBODY)
    };
    if st.changed {
        for (i, w) in ran.windows(2).enumerate() {
            if i % 2 == 0 {
                v.line(w[0], w[1], 2.0, with_alpha(RED, 0.85));
            }
        }
        for w in arrived.windows(2) {
            v.line(w[0], w[1], 2.5, own);
        }
        if let Some(end) = arrived.last() {
            v.circle(*end, 4.0, own);
            let (x, y) = v.pt(*end);
            v.label("had it arrived", x + 8.0, y + 4.0, 12.0, LABEL);
        }
    } else {
        for w in ran.windows(2) {
            v.line(w[0], w[1], 2.5, own);
        }
    }
    let dot = if st.fill == InputFill::Empty {
        RED
    } else {
        HELD
    };
    for at in ran.iter().take(st.last - st.first + 1) {
        v.circle(*at, 3.5, dot);
    }
    if let Some(end) = ran.last() {
        v.ring(*end, 7.0, 2.0, WHITE);
        let (x, y) = v.pt(*end);
        v.label("as the server ran it", x + 10.0, y - 8.0, 12.0, LABEL);
    }
    arena::scale_bar(&v);
}
