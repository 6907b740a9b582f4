//! Golden runs of drawn proxies: Mirror #3423 (interpolation running dry
//! when the downlink slows down) and lightyear #1450 (a stopped proxy
//! slow to settle).

use super::shots::strafer;
use super::{Recorder, RunOutcome, FRAME};
use crate::cmc::smoothing::SmoothingMode;
use crate::cmc::wire::NetPosition;
use crate::endpoints::room::endpoint::RoomEndpoint;
use crate::endpoints::room::session::RoomSession;
use crate::foundation::bot::{Bot, Waypoint};
use crate::foundation::math::Vec2;
use crate::net::settings::{LinkSettings, NetSettings};
use crate::room::config::RoomConfig;

/// How an interpolated proxy moved while the downlink was slower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InterpTally {
    /// Proxy-frames drawn past the newest update (held there).
    pub starved: u64,
    /// Of those, from 300 ms after the downlink slowed down on.
    pub starved_late: u64,
    /// The longest run of frames the proxy was drawn where it was the
    /// frame before, from 300 ms after the downlink slowed down on.
    pub longest_stall: u64,
}

/// A player on `link` draws the strafing bot with interpolation; after
/// 4 s the downlink takes `extra_ms` more for `slow_ms`, then as before;
/// 3 s later the run ends.
pub fn interpolate_through_a_slower_downlink(
    seed: u64,
    link: NetSettings,
    extra_ms: u16,
    slow_ms: u32,
) -> (InterpTally, u64) {
    let Ok(mut s) = RoomSession::new(RoomConfig::default(), seed) else {
        return (InterpTally::default(), 0);
    };
    let (Ok(me), Ok(bot)) = (
        s.join(link),
        s.add_bot(strafer(false), Vec2::new(1000.0, 750.0)),
    ) else {
        return (InterpTally::default(), 0);
    };
    s.act(me, |e, _| e.set_smoothing(SmoothingMode::Interpolation));
    let slower = NetSettings {
        downlink: LinkSettings {
            latency_ms: link.downlink.latency_ms + extra_ms,
            ..link.downlink
        },
        ..link
    };
    let drawn = |s: &RoomSession| {
        let p = s.endpoint(me)?.proxies().get(bot)?;
        Some(NetPosition::quantize(p.drawn_position()))
    };
    let starved = |s: &RoomSession| s.endpoint(me).map_or(0, |e| e.proxies().counters().starved);
    let (mut rec, mut t) = (Recorder::default(), InterpTally::default());
    let (rise, fall) = (240, 240 + slow_ms * 60 / 1000);
    let (mut before, mut late, mut last, mut run) = (0, 0, None, 0);
    for frame in 0..(fall + 180) {
        if frame == rise {
            s.act(me, |e, _| e.set_net_settings(slower));
            before = starved(&s);
        }
        if frame == fall {
            s.act(me, |e, _| e.set_net_settings(link));
        }
        s.step(FRAME, |_, _: &RoomEndpoint| (Vec2::ZERO, false));
        rec.frame(&s, me);
        let now = drawn(&s);
        run = if now == last { run + 1 } else { 0 };
        last = now;
        // 300 ms after the rise: 18 frames.
        if frame == rise + 18 {
            late = starved(&s);
        }
        if frame >= rise + 18 {
            t.longest_stall = t.longest_stall.max(run);
        }
    }
    t.starved = starved(&s) - before;
    t.starved_late = starved(&s) - late;
    rec.value(t.starved)
        .value(t.starved_late)
        .value(t.longest_stall);
    (t, rec.finish())
}

/// Mirror #3423: RTT 100 ± 10 ms, the downlink 100 ms slower for 3 s.
pub fn mirror_3423() -> RunOutcome {
    let (t, fingerprint) =
        interpolate_through_a_slower_downlink(3423, NetSettings::symmetric(100, 10, 0), 100, 3000);
    RunOutcome {
        fingerprint,
        measures: vec![
            ("starved_frames", t.starved),
            ("starved_frames_from_300_ms", t.starved_late),
            ("longest_stall_frames", t.longest_stall),
        ],
    }
}

/// A player on `link` draws a bot with `smoothing` that walks 3.5 m and
/// stops for good. Returns how long after the first net update showing it
/// at rest arrived the drawn body reached that rest, ms, and the run's
/// fingerprint.
pub fn settle_after_a_stop(seed: u64, link: NetSettings, smoothing: SmoothingMode) -> (u64, u64) {
    let Ok(mut s) = RoomSession::new(RoomConfig::default(), seed) else {
        return (0, 0);
    };
    let stop = Bot::with_tour(vec![Waypoint {
        target: Vec2::new(1000.0, 1100.0),
        dash: false,
        pause: f32::MAX,
    }]);
    let (Ok(me), Ok(bot)) = (s.join(link), s.add_bot(stop, Vec2::new(1000.0, 750.0))) else {
        return (0, 0);
    };
    s.act(me, |e, _| e.set_smoothing(smoothing));
    let mut rec = Recorder::default();
    let mut seen = Vec::new();
    for _ in 0..(5 * 60) {
        s.step(FRAME, |_, _: &RoomEndpoint| (Vec2::ZERO, false));
        rec.frame(&s, me);
        let p = s.endpoint(me).and_then(|e| e.proxies().get(bot));
        seen.push(p.map(|p| (p.replicated(), p.drawn_position())));
    }
    let rest = s
        .host
        .hit_boxes(bot)
        .map(|b| NetPosition::quantize(b.center()).to_vec2());
    let at_rest = |i: usize, drawn: bool| {
        seen[i].is_some_and(|(r, d)| Some(if drawn { d } else { r }) == rest)
    };
    let arrived = (0..seen.len()).find(|&i| at_rest(i, false));
    let settled = (0..seen.len())
        .rev()
        .find(|&i| !at_rest(i, true))
        .map(|i| i + 1);
    let ms = match (arrived, settled) {
        (Some(a), Some(s)) => (s.saturating_sub(a) as u64 * 1000).div_ceil(60),
        _ => u64::MAX,
    };
    rec.value(ms);
    (ms, rec.finish())
}

/// lightyear #1450: RTT 100 ms, Linear smoothing, updates at 20 Hz.
pub fn lightyear_1450() -> RunOutcome {
    let (ms, fingerprint) = settle_after_a_stop(
        1450,
        NetSettings::symmetric(100, 0, 0),
        SmoothingMode::Linear,
    );
    RunOutcome {
        fingerprint,
        measures: vec![("settle_ms", ms)],
    }
}
