//! What the page draws and writes each frame in a shared room: the three
//! panels (`crate::render::room`), the timeline with the ammo counter and
//! its jumps, the panels' lines, the Metrics and Link cards (this player's
//! link, and the clock-sync estimate's error), the Room section's ammo,
//! shots and players.

use super::App;
use crate::readouts::Extra;
use crate::render::room::{self as draw_room, RoomFrame};
use crate::room_rules;
use crate::timeline::Offsets;
use macroquad::prelude::*;
use sim::room::Seq;
use sim::{SimTime, Vec2 as SimVec2};

/// Points kept in the Predicted panel's trail (10 s at 60 Hz).
const TRAIL_LEN: usize = 600;
/// How often the text read-outs are rewritten, ms.
const READOUTS_EVERY_MS: u64 = 100;

impl App {
    /// Records, draws and writes the room's frame.
    pub(super) fn draw_room(
        &mut self,
        t: SimTime,
        input: SimVec2,
        follow: Option<(SimVec2, f32)>,
        aim: Option<SimVec2>,
        layout: &crate::render::Layout,
    ) {
        let Some(room) = self.room.as_mut() else {
            return;
        };
        let e = &mut room.endpoint;
        let m = e.metrics(t);
        let drawn = e.client().drawn_position();
        if room.trail.len() >= TRAIL_LEN {
            room.trail.pop_front();
        }
        room.trail.push_back(drawn);
        let jump = e.ammo().jumps().last().copied();
        let new_jump = jump.filter(|j| room.last_jump.is_none_or(|at| j.at > at));
        if let Some(j) = new_jump {
            room.last_jump = Some(j.at);
        }
        let proxy_cm = e
            .proxies()
            .iter()
            .map(|p| (p.drawn_position() - p.position()).length())
            .fold(0.0, f32::max);
        room.timeline.record(
            t,
            &m,
            Offsets {
                mesh_cm: (drawn - e.client().state().position).length(),
                proxy_cm,
                ammo: Some(e.ammo().shown()),
                ammo_jump: new_jump.map_or(0, |j| i32::from(j.to) - i32::from(j.from)),
            },
        );
        let shots: Vec<_> = e.shots().iter().collect();
        let seqs: Vec<Seq> = shots.iter().map(|s| s.seq).collect();
        let shown = room.cursor.shown(&seqs);
        let shot = shots.iter().copied().find(|s| Some(s.seq) == shown);
        let newest_shot = shots
            .last()
            .map(|s| (*s, now_secs(t) - now_secs(s.fired_at)));
        clear_background(crate::render::view::PANEL_BG);
        draw_room::draw(
            &RoomFrame {
                endpoint: e,
                trail: &room.trail,
                input,
                push_zones: self.rules.server_effects,
                follow,
                aim,
                shot,
                newest_shot,
            },
            layout,
        );
        self.plots.draw(
            &room.timeline,
            t,
            f32::from(self.rules.max_position_error_tenth_cm) / 10.0,
            f32::from(self.rollback.input_buffer),
            self.settings.rtt_ms() as f32,
        );
        let older = shown.is_some_and(|s| seqs.first() != Some(&s));
        self.chrome
            .set_steppable(older, !room.cursor.follows_newest());
        self.net_controls.write(&self.settings);
        self.model_controls
            .write(&self.rules, &self.client_config, Default::default());
        self.room_controls.write();
        if t >= room.next_readouts {
            room.next_readouts = t.plus_millis(READOUTS_EVERY_MS);
            self.write_room_readouts(t, m);
        }
    }

    /// The room's text read-outs: panels' lines, Metrics and Link cards,
    /// the Room section.
    fn write_room_readouts(&mut self, t: SimTime, m: sim::Metrics) {
        let Some(room) = self.room.as_mut() else {
            return;
        };
        let e = &room.endpoint;
        let c = &self.chrome;
        let me = e.me().map_or("–".to_owned(), |id| draw_room::name(e, id));
        let others = e.proxies().iter().count();
        let driver = if self.bot_driving {
            "bot driving (B)"
        } else {
            "you drive"
        };
        c.text(
            "predicted-sub",
            &format!(
                "you are {me} · {driver} · F fires at the nearest player, a click here fires there"
            ),
        );
        c.mark("predicted-sub", "live");
        let delay = sim::room::interpolation::render_delay_us(e.settings().net_update_hz) / 1000;
        let smoothing = match e.smoothing() {
            sim::SmoothingMode::Interpolation => format!("interpolation, {delay} ms behind"),
            m => m.name().to_owned(),
        };
        c.text(
            "predicted-foot",
            &format!(
                "ammo {} / {} · {others} other{} · smoothing {smoothing}",
                e.ammo().shown(),
                e.weapon().magazine,
                if others == 1 { "" } else { "s" }
            ),
        );
        let counters = e.proxies().counters();
        c.text(
            "authoritative-sub",
            &format!(
                "the others as the newest net update put them · {} Hz (yours) · no smoothing",
                e.settings().net_update_hz
            ),
        );
        c.text(
            "authoritative-foot",
            &match e.proxies().newest() {
                Some((seq, _)) => format!(
                    "net update #{} · {} applied · {} late, {} duplicated (ignored: newest wins)",
                    seq.0, counters.applied, counters.late, counters.duplicate
                ),
                None => "no net update yet".to_owned(),
            },
        );
        let shots: Vec<_> = e.shots().iter().collect();
        let seqs: Vec<Seq> = shots.iter().map(|s| s.seq).collect();
        let shown = room.cursor.shown(&seqs);
        let shot = shots.iter().copied().find(|s| Some(s.seq) == shown);
        c.show("replayed-empty", shot.is_none());
        c.text(
            "replayed-empty",
            "No shot yet: press F (or click the Predicted panel) to fire at another player. Each shot shows here in four views: 1 where you saw the target, 2 where it is on the server now, 3 the rewound boxes the server tested, 4 where the target saw itself.",
        );
        c.text(
            "replayed-sub",
            &match shot {
                Some(s) => {
                    let i = seqs.iter().position(|&q| q == s.seq).map_or(0, |i| i + 1);
                    format!("shot {i} of {} · {}", seqs.len(), room_rules::shot_line(s))
                }
                None => "the four views of a shot".to_owned(),
            },
        );
        c.text(
            "replayed-foot",
            &shot.map_or(String::new(), |s| room_rules::views_line(s.views())),
        );
        // Metrics and Link cards: this player's link and character; a room
        // reports no observer view, so the server's counters stay blank.
        self.readouts.write_metrics(
            &m,
            &Extra {
                smoothing: e.smoothing(),
                counters: e.client().counters(),
                server: Default::default(),
                mesh_offset_cm: room.timeline.newest().map_or(0.0, |s| s.mesh_offset_cm),
                proxy_offset_peak_cm: room
                    .timeline
                    .last(1_000_000)
                    .map(|s| s.proxy_offset_cm)
                    .fold(0.0, f32::max),
            },
        );
        for name in [
            "server-moves",
            "server-acks",
            "server-adjustments",
            "forced-updates",
            "time-discrepancy",
            "pos-error-cm",
            "state-hash",
        ] {
            self.room_controls.metric(name, "– (room)");
        }
        let since = match room.measured {
            Some((s, at)) if s == self.settings => t.secs_since(at),
            _ => {
                room.measured = Some((self.settings, t));
                0.0
            }
        };
        self.link_card.write(&self.settings, &m, since);
        let client_now = t;
        let clock = e.clock();
        self.room_controls
            .write_clock(clock.error_bound_us(client_now).zip(clock.best()).map(
                |(bound, best)| {
                    (
                        bound as f64 / 1000.0,
                        format!(
                            "best of {} requests: RTT {:.0} ms · shown world {:.0} ms old",
                            sim::room::clock::CLOCK_WINDOW,
                            best.rtt_us as f64 / 1000.0,
                            clock
                                .server_time(client_now)
                                .zip(e.render_time(client_now))
                                .map_or(0.0, |(s, r)| s.micros_since(r) as f64 / 1000.0)
                        ),
                    )
                },
            ));
        // The Room section.
        let a = e.ammo();
        let reloading = if a.is_reloading(t) {
            " · reloading"
        } else {
            ""
        };
        self.room_controls.metric(
            "ammo",
            &format!("{} / {}{reloading}", a.shown(), e.weapon().magazine),
        );
        self.room_controls.metric(
            "ammo-server",
            match a.mode() {
                sim::room::AmmoMode::Naive => "naive",
                sim::room::AmmoMode::Sequence => "sequence",
            },
        );
        self.room_controls.metric(
            "ammo-jumps",
            &room_rules::upward_jumps(a.timeline()).to_string(),
        );
        let (hits, judged, rejected) = room_rules::tally(shots.iter().copied());
        self.room_controls.metric(
            "shot-verdict",
            &shots.last().map_or("–".to_owned(), |s| match s.result {
                Some(r) => room_rules::verdict_text(r.verdict).to_owned(),
                None => "…".to_owned(),
            }),
        );
        self.room_controls.metric(
            "shot-tally",
            &format!(
                "{hits} / {judged}{}",
                if rejected > 0 {
                    format!(" · {rejected} rejected")
                } else {
                    String::new()
                }
            ),
        );
        let players: Vec<String> = e
            .roster()
            .iter()
            .map(|r| draw_room::name(e, r.id))
            .collect();
        self.room_controls
            .metric("room-players", &players.join(" "));
        let others: Vec<String> = e
            .proxies()
            .iter()
            .map(|p| {
                let at = p.drawn_position();
                format!("{} {:.0},{:.0}", draw_room::name(e, p.id()), at.x, at.y)
            })
            .collect();
        self.room_controls
            .metric("room-others", &others.join(" · "));
        self.room_controls.metric(
            "room-state",
            &format!("{} · {} in the room", room.name, e.roster().len()),
        );
        self.room_controls.write_shots(&shots, shown);
    }
}

fn now_secs(t: SimTime) -> f32 {
    t.secs_since(SimTime::ZERO) as f32
}
