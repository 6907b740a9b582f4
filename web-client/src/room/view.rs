//! What the page draws and writes each frame in a shared room: the three
//! panels ([`super::panels`]), the timeline with the ammo counter and its
//! jumps, the panels' lines, the Metrics and Link cards (this player's
//! link, and the clock-sync estimate's error), the Room section's ammo,
//! shots and players.

use super::controls::RoomControls;
use super::link::RoomRun;
use super::panels::{self as draw_room, RoomFrame};
use super::rules;
use crate::canvas::Layout;
use crate::cmc::readouts::{Extra, Readouts};
use crate::controls::link_card::LinkCard;
use crate::panels::chrome::PanelChrome;
use crate::timeline::plots::Plots;
use crate::timeline::samples::Offsets;
use sim::net::transport::LinkTransport;
use sim::room::Seq;
use sim::{NetSettings, ServerRules, SimTime, Vec2 as SimVec2};

/// Points kept in the Predicted panel's trail (10 s at 60 Hz).
const TRAIL_LEN: usize = 600;
/// How often the text read-outs are rewritten, ms.
const READOUTS_EVERY_MS: u64 = 100;

/// The page's parts a room writes each frame, and the settings in force.
pub struct RoomPage<'a> {
    /// The HTML around the panels.
    pub chrome: &'a PanelChrome,
    /// The Timeline card.
    pub plots: &'a mut Plots,
    /// The Metrics card.
    pub readouts: &'a Readouts,
    /// The Link card.
    pub link_card: &'a mut LinkCard,
    /// The Room section.
    pub controls: &'a mut RoomControls,
    /// The server's rules (push zones, the error threshold).
    pub rules: ServerRules,
    /// This player's link.
    pub settings: NetSettings,
    /// How this player's link carries packets.
    pub transport: LinkTransport,
    /// The rollback input buffer's target, ticks (the plots' reference
    /// line in that model).
    pub buffer_target: f32,
    /// The bot drives this player.
    pub bot_driving: bool,
}

/// Where the Predicted panel looks and where a click there fires.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sight {
    /// The follow camera (centre, cm; zoom), `None` for the whole arena.
    pub follow: Option<(SimVec2, f32)>,
    /// The mouse over the Predicted panel, cm.
    pub aim: Option<SimVec2>,
}

impl RoomRun {
    /// Records, draws and writes the room's frame.
    pub fn draw(
        &mut self,
        t: SimTime,
        input: SimVec2,
        sight: Sight,
        layout: &Layout,
        page: &mut RoomPage,
    ) {
        let e = &mut self.endpoint;
        let m = e.metrics(t);
        let drawn = e.client().drawn_position();
        if self.trail.len() >= TRAIL_LEN {
            self.trail.pop_front();
        }
        self.trail.push_back(drawn);
        let jump = e.ammo().jumps().last().copied();
        let new_jump = jump.filter(|j| self.last_jump.is_none_or(|at| j.at > at));
        if let Some(j) = new_jump {
            self.last_jump = Some(j.at);
        }
        let proxy_cm = e
            .proxies()
            .iter()
            .map(|p| (p.drawn_position() - p.position()).length())
            .fold(0.0, f32::max);
        let proxy_extrapolation_cm = (e.proxies().iter())
            .filter_map(|p| p.extrapolation_error())
            .fold(0.0, f32::max);
        self.timeline.record(
            t,
            &m,
            Offsets {
                mesh_cm: (drawn - e.client().state().position).length(),
                proxy_cm,
                proxy_extrapolation_cm,
                ammo: Some(e.ammo().shown()),
                ammo_jump: new_jump.map_or(0, |j| i32::from(j.to) - i32::from(j.from)),
            },
        );
        let shots: Vec<_> = e.shots().iter().collect();
        let seqs: Vec<Seq> = shots.iter().map(|s| s.seq).collect();
        let shown = self.cursor.shown(&seqs);
        let shot = shots.iter().copied().find(|s| Some(s.seq) == shown);
        let newest_shot = shots
            .last()
            .map(|s| (*s, now_secs(t) - now_secs(s.fired_at)));
        crate::canvas::clear();
        draw_room::draw(
            &RoomFrame {
                endpoint: e,
                trail: &self.trail,
                input,
                push_zones: page.rules.server_effects,
                follow: sight.follow,
                aim: sight.aim,
                shot,
                newest_shot,
            },
            layout,
        );
        page.plots.draw(
            &self.timeline,
            t,
            f32::from(page.rules.max_position_error_tenth_cm) / 10.0,
            page.buffer_target,
            page.settings.rtt_ms() as f32,
        );
        let older = shown.is_some_and(|s| seqs.first() != Some(&s));
        page.chrome
            .set_steppable(older, !self.cursor.follows_newest());
        page.controls.write();
        if t >= self.next_readouts {
            self.next_readouts = t.plus_millis(READOUTS_EVERY_MS);
            self.write_readouts(t, m, page);
        }
    }

    /// The room's text read-outs: panels' lines, Metrics and Link cards,
    /// the Room section.
    fn write_readouts(&mut self, t: SimTime, m: sim::Metrics, page: &mut RoomPage) {
        let e = &self.endpoint;
        let c = page.chrome;
        let me = e.me().map_or("–".to_owned(), |id| draw_room::name(e, id));
        let others = e.proxies().iter().count();
        let driver = if page.bot_driving {
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
        let delay =
            sim::foundation::interpolation::render_delay_us(e.settings().net_update_hz) / 1000;
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
        let shown = self.cursor.shown(&seqs);
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
                    format!("shot {i} of {} · {}", seqs.len(), rules::shot_line(s))
                }
                None => "the four views of a shot".to_owned(),
            },
        );
        c.text(
            "replayed-foot",
            &shot.map_or(String::new(), |s| rules::views_line(s.views())),
        );
        // Metrics and Link cards: this player's link and character; a room
        // reports no observer view, so the server's counters stay blank.
        page.readouts.write_metrics(
            &m,
            &Extra {
                smoothing: e.smoothing(),
                counters: e.client().counters(),
                server: Default::default(),
                mesh_offset_cm: self.timeline.newest().map_or(0.0, |s| s.mesh_offset_cm),
                proxy_offset_peak_cm: self.timeline.peak(|s| s.proxy_offset_cm),
                proxy_extrapolation_peak_cm: self.timeline.peak(|s| s.proxy_extrapolation_cm),
                key_delay_ms: e.client().key_delay_ms(),
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
            page.controls.metric(name, "– (room)");
        }
        let since = match self.measured {
            Some((s, at)) if s == page.settings => t.secs_since(at),
            _ => {
                self.measured = Some((page.settings, t));
                0.0
            }
        };
        page.link_card
            .write(&page.settings, page.transport, &m, since);
        let client_now = t;
        let clock = e.clock();
        page.controls
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
        page.controls.metric(
            "ammo",
            &format!("{} / {}{reloading}", a.shown(), e.weapon().magazine),
        );
        page.controls.metric(
            "ammo-server",
            match a.mode() {
                sim::room::AmmoMode::Naive => "naive",
                sim::room::AmmoMode::Sequence => "sequence",
            },
        );
        page.controls
            .metric("ammo-jumps", &rules::upward_jumps(a.timeline()).to_string());
        let (hits, judged, rejected) = rules::tally(shots.iter().copied());
        page.controls.metric(
            "shot-verdict",
            &shots.last().map_or("–".to_owned(), |s| match s.result {
                Some(r) => rules::verdict_text(r.verdict).to_owned(),
                None => "…".to_owned(),
            }),
        );
        page.controls.metric(
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
        page.controls.metric("room-players", &players.join(" "));
        let others: Vec<String> = e
            .proxies()
            .iter()
            .map(|p| {
                let at = p.drawn_position();
                format!("{} {:.0},{:.0}", draw_room::name(e, p.id()), at.x, at.y)
            })
            .collect();
        page.controls.metric("room-others", &others.join(" · "));
        page.controls.metric(
            "room-state",
            &format!("{} · {} in the room", self.name, e.roster().len()),
        );
        page.controls.write_shots(&shots, shown);
    }
}

fn now_secs(t: SimTime) -> f32 {
    t.secs_since(SimTime::ZERO) as f32
}
