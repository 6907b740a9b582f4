//! The three panels of a room recording open in the page
//! ([`super::recorded::RecordedRoom`]):
//!
//! * Predicted: the watched seat, followed (zoomed), with everyone's last
//!   second of path and the shots of the last [`RAY_FADE_S`], and the
//!   others as that seat's screen drew them (purple rings, a line to
//!   where the server had them), rebuilt from its net updates' recorded
//!   fates (`sim::endpoints::room::playback::RoomPlayback::screen`). A
//!   client's own prediction is not in a recording (only what reached
//!   the server), so the seat itself is where the server had it.
//! * Authoritative: the whole room on the server at the playhead.
//! * Replayed: the picked shot's views — 2 where the target was on the
//!   server at the verdict, 3 the rewound boxes tested, 4 where the
//!   target saw itself — with its ray (`super::panels::shot_panel`).

use super::panels::{outcome_color, ray, shot_panel, tag, RAY_FADE_S};
use super::recorded::{seat_name, RecordedRoom};
use super::recorded_card::link_words;
use super::rules;
use crate::canvas::arena::{self, character};
use crate::canvas::labels::Tags;
use crate::canvas::view::{with_alpha, View, CYAN, LABEL, ORANGE, PURPLE};
use crate::canvas::Layout;
use crate::panels::chrome::PanelChrome;
use sim::endpoints::room::playback::Drawing;
use sim::Vec2 as SimVec2;

/// How much path each character trails, ticks (1 s at 60 Hz).
const TRAIL_TICKS: usize = 60;

/// How far the watched seat's panel zooms in over the whole arena unless
/// its view selector says another zoom.
const SEAT_ZOOM: f32 = 2.0;

/// Draws the panels and writes their lines.
pub fn draw(r: &RecordedRoom, layout: &Layout, chrome: &PanelChrome) {
    let p = &r.playback;
    let Some(now) = p.tick_at(r.t()) else {
        return;
    };
    let at = |id| now.bodies.iter().find(|b| b.0 == id).map(|b| b.1);
    let (start, _) = p.span();
    // The index of `now` (the newest tick at or before the playhead).
    let tick = p.ticks.partition_point(|k| k.at <= r.t()).saturating_sub(1);
    let trail_from = tick.saturating_sub(TRAIL_TICKS);
    let trail = |v: &View, id| {
        let mut prev: Option<SimVec2> = None;
        for k in &p.ticks[trail_from..=tick] {
            let here = k.bodies.iter().find(|b| b.0 == id).map(|b| b.1);
            if let (Some(a), Some(b)) = (prev, here) {
                v.line(a, b, 2.0, with_alpha(LABEL, 0.5));
            }
            prev = here;
        }
    };
    let screen = p.screen(r.seat, r.t());
    let room = |v: &View, rays: bool| {
        arena::floor(v, &r.world);
        let mut tags = Tags::default();
        for &(id, pos) in &now.bodies {
            trail(v, id);
            let color = if id == r.seat { CYAN } else { ORANGE };
            character(v, pos, color);
            tag(v, &mut tags, pos, &seat_name(p, id), LABEL);
        }
        if let (true, Some(screen)) = (rays, &screen) {
            for &(id, drawn) in &screen.others {
                if let Some(server) = at(id) {
                    v.line(drawn, server, 1.0, with_alpha(PURPLE, 0.6));
                }
                arena::outline(v, drawn, PURPLE, 2.0);
            }
        }
        if rays {
            for s in p.shots_until(r.t()).iter().rev() {
                let age = r.t().secs_since(s.judged.at) as f32;
                if age >= RAY_FADE_S {
                    break;
                }
                let record = s.record(r.range_cm, &r.world);
                let c = outcome_color(rules::outcome(&record));
                ray(v, &record, 2.0, with_alpha(c, 1.0 - age / RAY_FADE_S));
            }
        }
        arena::scale_bar(v);
    };
    let zoom = chrome.zoom().unwrap_or(SEAT_ZOOM);
    if layout.predicted.is_drawable() {
        let follow = at(r.seat).map(|c| (c, zoom));
        room(&View::arena(layout.predicted, r.world.size, follow), true);
    }
    if layout.authoritative.is_drawable() {
        room(
            &View::fit(layout.authoritative, SimVec2::ZERO, r.world.size),
            false,
        );
    }
    let shot = r.shot.and_then(|i| p.shots.get(i));
    let record = r.shot.and_then(|i| r.shot_record(i));
    if let (true, Some(record)) = (layout.replayed.is_drawable(), &record) {
        shot_panel(record, &r.world, &|id| seat_name(p, id), layout.replayed);
    }
    let seat = p.seats.iter().find(|s| s.id == r.seat);
    let link = seat.and_then(|s| s.link_at(r.t())).map_or_else(
        || "a bot, run by the server".to_owned(),
        |l| link_words(&l.uplink, &l.downlink),
    );
    let bot = seat.is_some_and(|s| s.bot);
    let drew = screen.as_ref().map_or_else(
        || {
            match (bot, p.screens.any()) {
                (true, _) => "a bot has no screen",
                (false, true) => "no net update had reached its screen yet",
                (false, false) => "its screen is not in this recording (version 1)",
            }
            .to_owned()
        },
        |s| {
            let behind = r.t().secs_since(s.shows) * 1000.0;
            format!("purple: its screen, {behind:.0} ms behind")
        },
    );
    let sub = match at(r.seat) {
        Some(_) => format!(
            "{}'s seat, on the server · {link} · {drew}",
            seat_name(p, r.seat)
        ),
        None => format!("{} is not in the room at this time", seat_name(p, r.seat)),
    };
    chrome.text("predicted-sub", &sub);
    chrome.mark("predicted-sub", "replay");
    chrome.text(
        "authoritative-sub",
        &format!(
            "room recording {} · the server at {:.2} s (tick {tick})",
            r.id,
            r.t().secs_since(start)
        ),
    );
    chrome.text(
        "replayed-sub",
        &shot.map_or("pick a shot in the Room section".to_owned(), |s| {
            format!(
                "{}'s shot #{} · {}",
                seat_name(p, s.judged.shooter),
                s.number,
                s.judged.describe()
            )
        }),
    );
    chrome.show("replayed-empty", shot.is_none());
    chrome.text(
        "replayed-empty",
        "Pick a shot in the Room section's list (or press Play): its views show here, with the playhead at its verdict.",
    );
    let so_far = p.shots_until(r.t());
    // How the seat drew (an extrapolated screen without the smoothing's
    // mesh offset, which is not recorded).
    let how = screen.as_ref().map_or("", |s| match s.drawing {
        Drawing::Interpolated => " · purple interpolated",
        Drawing::Extrapolated => " · purple extrapolated",
    });
    chrome.text(
        "predicted-foot",
        &format!("followed ×{zoom} · paths: 1 s{how}"),
    );
    chrome.text(
        "authoritative-foot",
        &format!(
            "{} in the room · shots so far: {}, hits: {}",
            now.bodies.len(),
            so_far.len(),
            so_far.iter().filter(|s| s.judged.verdict.is_hit()).count()
        ),
    );
    chrome.text(
        "replayed-foot",
        match shot.map(|s| s.detail.result.target.is_some()) {
            Some(true) => "2 the target on the server at the verdict · 3 the rewound boxes tested · 4 where the target saw itself (view 1, the shooter's own screen, is not recorded)",
            Some(false) => "no one in front of the ray: the others where the server had them at the shot's hit time",
            None => "",
        },
    );
}
