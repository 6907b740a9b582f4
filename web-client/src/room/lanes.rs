//! A room player's lanes (issue 23): their own link's packets (the
//! relay's trace) and the room's events as marks — the shots they fired
//! (▲ on the client row, coloured by verdict, the server's rewind drawn
//! back from its judgement on the server row), the shots judged with them
//! as the target (▼ on the server row), proxy jumps (violet ◆), net
//! updates that came late or twice (ticks), ammo jumps (bars) — and the
//! list beside them: the shots and the jumps, each opening its story.
//! A room playback's lanes are the same shot marks for one seat over the
//! recording ([`playback_marks`], [`shot_mark`] serves both). Pure
//! (tested natively): the room's frame and the playback's card draw and
//! write what this computes.

use crate::inspector::lane_paint::{Glyph, MarkSpec, Outcome};
use crate::inspector::story_view::{CauseView, PacketRef, Row, StoryView};
use sim::endpoints::room::playback::RoomPlayback;
use sim::endpoints::room::recording::JudgedShot;
use sim::endpoints::room::replay::Fork;
use sim::endpoints::room::{RoomEndpoint, UpdateFate};
use sim::net::trace::{Direction, PacketKind};
use sim::room::shots::ShotViews;
use sim::room::wire::{ShotResult, Verdict};
use sim::room::{PlayerId, Seq};
use sim::{SimTime, Vec2};
use std::collections::BTreeMap;

/// Net updates shown around a proxy jump, µs each side.
pub const AROUND_JUMP_US: u64 = 500_000;
/// Proxy jumps listed at most (the newest). Shots are bounded by their
/// own logs and never pushed out by jumps: a bot turning at 600 cm/s
/// jumps several times a second.
pub const JUMPS_KEPT: usize = 48;

/// Something of the room's the list shows and a click opens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item {
    /// A shot: fired by this player (it has a `number`) or judged with
    /// them as its target.
    Shot {
        /// Its action number.
        seq: Seq,
        /// For this player's own shots, its shot number
        /// (`ShotRecord::number`: 1, 2, 3 … counting shots only); `None`
        /// for another's, whose number is not known here (the relay's
        /// trace carries the action number only).
        number: Option<u32>,
        /// Who fired.
        shooter: PlayerId,
        /// When it was fired (mine) or judged (page clock).
        at: SimTime,
        /// The verdict, once known.
        result: Option<ShotResult>,
        /// When the server judged it (page clock), if the trace said.
        judged: Option<SimTime>,
    },
    /// A net update moved proxy `who` by `cm`.
    Jump {
        /// When it arrived (page clock).
        at: SimTime,
        /// The proxy.
        who: PlayerId,
        /// How far, cm.
        cm: f32,
        /// The update's replication counter.
        seq: Seq,
    },
}

/// What names an item across frames: a shot by its shooter and action
/// number, a jump by its proxy and update counter. The list is rebuilt
/// every frame and an item's place in it moves (a new jump, an old one
/// dropped), so a click on a row is resolved by this, not by its place.
pub type ItemKey = (bool, u32, u32);

impl Item {
    fn at(&self) -> SimTime {
        match self {
            Item::Shot { at, .. } | Item::Jump { at, .. } => *at,
        }
    }

    /// This item's [`ItemKey`].
    pub fn key(&self) -> ItemKey {
        match self {
            Item::Shot { shooter, seq, .. } => (false, shooter.0, seq.0),
            Item::Jump { who, seq, .. } => (true, who.0, seq.0),
        }
    }
}

impl RoomLanes {
    /// Where the item keyed `key` is now, if still listed.
    pub fn place(&self, key: ItemKey) -> Option<usize> {
        self.items.iter().position(|i| i.key() == key)
    }
}

/// The room's lanes: the items, their marks and the list's rows.
#[derive(Debug, Clone, Default)]
pub struct RoomLanes {
    /// The items, oldest first (a mark's and a row's index).
    pub items: Vec<Item>,
    /// Every mark: the items', then the ones a click does not open.
    pub marks: Vec<MarkSpec>,
    /// The list's rows, one per item.
    pub rows: Vec<Row>,
}

/// A shot's mark, live or in a playback: a ▲ on the client row when the
/// lane's player fired it (`mine`), else a ▼ on the server row (judged
/// with them as the target), at `t_us` (µs), coloured by its `verdict`
/// (`None`: not answered yet); `judged` is when the server judged it, µs,
/// and how far it rewound, ms, drawn back from there on the server row
/// (nothing when it did not rewind).
/// `index` is what a click on it opens.
pub fn shot_mark(
    index: usize,
    t_us: u64,
    mine: bool,
    verdict: Option<Verdict>,
    judged: Option<(u64, u16)>,
) -> MarkSpec {
    let outcome = Outcome::of(verdict);
    MarkSpec {
        t_us,
        index,
        glyph: if mine {
            Glyph::Shot(outcome)
        } else {
            Glyph::ShotAt(outcome)
        },
        // No rewind (lag compensation off): no bar, rather than one from
        // the verdict back to the shot.
        rewound_from_us: judged
            .filter(|&(_, ms)| ms > 0)
            .map(|(at, ms)| at.saturating_sub(u64::from(ms) * 1000)),
        ..MarkSpec::default()
    }
}

/// Seat `seat`'s lanes over a room playback: a ▲ for each shot it fired
/// and a ▼ for each judged with it as the target (another's shot), both
/// at the verdict's time, µs since the recording's first tick (as the
/// card's clock counts), the rewind drawn back from it. A
/// mark's index is its shot's in `p.shots`, so a click opens it as the
/// card's shot list does. A recording holds only what reached the
/// server: no packets, no ammo, no proxies.
pub fn playback_marks(p: &RoomPlayback, seat: PlayerId) -> Vec<MarkSpec> {
    let start = p.span().0 .0;
    p.shots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let j = &s.judged;
            let mine = j.shooter == seat;
            let at = j.at.0.saturating_sub(start);
            (mine || j.target == Some(seat))
                .then(|| shot_mark(i, at, mine, Some(j.verdict), Some((at, j.rewind_ms))))
        })
        .collect()
}

/// The playback lanes' line: "P1 · ▲ 13 fired · ▼ 2 at them" (`name`:
/// the seat's name; the counts from [`playback_marks`]).
pub fn playback_line(name: &str, marks: &[MarkSpec]) -> String {
    let fired = marks
        .iter()
        .filter(|m| matches!(m.glyph, Glyph::Shot(_)))
        .count();
    format!(
        "{name} · ▲ {fired} fired · ▼ {} at them",
        marks.len() - fired
    )
}

/// The second lane of a fork of the room (`super::fork`): each shot of
/// `lanes` the fork judged again (by shooter and action number), where
/// the first lane has it, coloured by the fork's verdict, its rewind drawn
/// back from when the first lane has it judged. A click on one opens the
/// shot as it ran.
pub fn fork_marks(lanes: &RoomLanes, fork: &Fork) -> Vec<MarkSpec> {
    let again: BTreeMap<(PlayerId, u32), &JudgedShot> = fork
        .forked
        .shots
        .iter()
        .map(|s| ((s.shooter, s.seq.0), s))
        .collect();
    lanes
        .items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| {
            let Item::Shot {
                seq,
                number,
                shooter,
                at,
                judged,
                ..
            } = *item
            else {
                return None;
            };
            let f = again.get(&(shooter, seq.0))?;
            Some(shot_mark(
                index,
                at.0,
                number.is_some(),
                Some(f.verdict),
                judged.map(|j| (j.0, f.rewind_ms)),
            ))
        })
        .collect()
}

/// The room's lanes for endpoint `e`, naming players with `name`.
pub fn room_lanes(e: &RoomEndpoint, name: impl Fn(PlayerId) -> String) -> RoomLanes {
    let me = e.me();
    let trace = e.trace();
    let judged = |shooter: PlayerId, seq: Seq| {
        let t = trace?;
        let s = t
            .shots()
            .filter(|s| s.shooter == shooter && s.result.seq == seq)
            .last()?;
        t.to_page(s.at)
    };
    let mut items: Vec<Item> = Vec::new();
    if let Some(me) = me {
        items.extend(e.shots().iter().map(|s| Item::Shot {
            seq: s.seq,
            number: Some(s.number),
            shooter: me,
            at: s.fired_at,
            result: s.result,
            judged: judged(me, s.seq),
        }));
    }
    if let Some(t) = trace {
        for s in t.shots().filter(|s| Some(s.shooter) != me) {
            let Some(at) = t.to_page(s.at) else { continue };
            items.push(Item::Shot {
                seq: s.result.seq,
                number: None,
                shooter: s.shooter,
                at,
                result: Some(s.result),
                judged: Some(at),
            });
        }
    }
    let mut jumps: Vec<Item> = e
        .events()
        .updates()
        .filter(|u| u.is_jump())
        .filter_map(|u| {
            let (who, cm) = u.jump?;
            Some(Item::Jump {
                at: u.at,
                who,
                cm,
                seq: u.seq,
            })
        })
        .collect();
    items.extend(jumps.split_off(jumps.len().saturating_sub(JUMPS_KEPT)));
    items.sort_by_key(Item::at);
    let mut marks: Vec<MarkSpec> = items
        .iter()
        .enumerate()
        .map(|(index, item)| match *item {
            Item::Shot {
                number,
                at,
                result,
                judged,
                ..
            } => shot_mark(
                index,
                at.0,
                number.is_some(),
                result.map(|r| r.verdict),
                judged.zip(result).map(|(j, r)| (j.0, r.rewind_ms)),
            ),
            Item::Jump { at, .. } => MarkSpec {
                t_us: at.0,
                index,
                glyph: Glyph::Jump,
                ..MarkSpec::default()
            },
        })
        .collect();
    marks.extend(
        e.events()
            .updates()
            .filter(|u| u.fate != UpdateFate::Applied)
            .map(|u| MarkSpec {
                t_us: u.at.0,
                glyph: Glyph::Stale {
                    duplicate: u.fate == UpdateFate::Duplicate,
                },
                ..MarkSpec::default()
            }),
    );
    marks.extend(e.ammo().jumps().map(|j| MarkSpec {
        t_us: j.at.0,
        glyph: Glyph::AmmoJump,
        ..MarkSpec::default()
    }));
    let rows = items.iter().map(|i| row(i, &name)).collect();
    RoomLanes { items, marks, rows }
}

/// A verdict, and how far back the server went, in words.
fn verdict_words(r: &ShotResult) -> String {
    let verdict = crate::room::rules::verdict_text(r.verdict);
    match r.verdict {
        Verdict::HitHead | Verdict::HitBody | Verdict::Miss => {
            format!("{verdict} · rewound {} ms", r.rewind_ms)
        }
        _ => format!("{verdict} · {} ms back", r.rewind_ms),
    }
}

fn row(item: &Item, name: &impl Fn(PlayerId) -> String) -> Row {
    let at = format!("{:.2} s", item.at().secs_since(SimTime::ZERO));
    match *item {
        Item::Shot {
            seq,
            number,
            shooter,
            result,
            ..
        } => Row {
            at,
            what: match number {
                Some(n) => {
                    let target = result
                        .and_then(|r| r.target)
                        .map_or(String::new(), |t| format!(" → {}", name(t.id)));
                    format!("your shot #{n}{target}")
                }
                None => format!("shot at you by {} (action {})", name(shooter), seq.0),
            },
            detail: result.map_or("awaiting its verdict".to_owned(), |r| verdict_words(&r)),
        },
        Item::Jump { who, cm, seq, .. } => Row {
            at,
            what: format!("{} jumped {cm:.0} cm", name(who)),
            detail: format!("net update {}", seq.0),
        },
    }
}

/// A point in words.
fn point(p: Vec2) -> String {
    format!("({:.1}, {:.1}) cm", p.x, p.y)
}

/// Item `i`'s story: a shot's verdict and views, or a proxy jump with the
/// net updates around it (each packet chip selects its line).
pub fn story(e: &RoomEndpoint, item: &Item, name: impl Fn(PlayerId) -> String) -> StoryView {
    match *item {
        Item::Shot {
            seq,
            number,
            shooter,
            at,
            result,
            judged,
        } => {
            let mine = number.is_some();
            let views = if mine {
                e.shots()
                    .iter()
                    .find(|s| s.seq == seq)
                    .and_then(|s| s.views())
            } else {
                result.and_then(|r| {
                    let t = r.target?;
                    Some(ShotViews {
                        id: t.id,
                        shooter_saw: None,
                        server_now: t.server_now.to_vec2(),
                        tested: t.tested.to_vec2(),
                        target_saw: t.target_saw.to_vec2(),
                    })
                })
            };
            let mut causes = Vec::new();
            if let Some(v) = views {
                let line = |text: String| CauseView {
                    kind: "server",
                    text,
                    packets: Vec::new(),
                };
                if let Some(p) = v.shooter_saw {
                    causes.push(line(format!(
                        "1 · the shooter saw {} at {}",
                        name(v.id),
                        point(p)
                    )));
                }
                causes.push(line(format!(
                    "2 · on the server now at {}",
                    point(v.server_now)
                )));
                causes.push(line(format!("3 · the server tested {}", point(v.tested))));
                causes.push(line(format!(
                    "4 · {} saw themself at {}",
                    name(v.id),
                    point(v.target_saw)
                )));
                causes.push(line(crate::room::rules::views_line(Some(v))));
            }
            let verdict_packets: Vec<PacketRef> = e
                .trace()
                .into_iter()
                .flat_map(|t| t.log().records())
                .filter(|r| {
                    matches!(r.kind, PacketKind::Shot | PacketKind::Verdict) && r.detail == seq.0
                })
                .filter(|_| mine)
                .map(|r| PacketRef {
                    direction: r.direction,
                    index: r.index,
                })
                .collect();
            if !verdict_packets.is_empty() {
                causes.push(CauseView {
                    kind: "lost",
                    text: "the shot and its verdict on your link".to_owned(),
                    packets: verdict_packets,
                });
            }
            StoryView {
                title: match number {
                    Some(n) => format!("Your shot #{n} (action {})", seq.0),
                    None => format!("Shot at you by {} (action {})", name(shooter), seq.0),
                },
                when: format!(
                    "{} at {:.3} s{}",
                    if mine { "fired" } else { "judged" },
                    at.secs_since(SimTime::ZERO),
                    judged.filter(|_| mine).map_or(String::new(), |j| format!(
                        " · judged at {:.3} s",
                        j.secs_since(SimTime::ZERO)
                    ))
                ),
                rule: result.map_or("awaiting its verdict".to_owned(), |r| verdict_words(&r)),
                rule_kind: "threshold",
                origin: None,
                client: views
                    .and_then(|v| v.shooter_saw)
                    .map_or("—".to_owned(), point),
                server: views.map_or("—".to_owned(), |v| point(v.tested)),
                error: views
                    .and_then(|v| Some((v.shooter_saw? - v.tested).length()))
                    .map_or("—".to_owned(), |cm| format!("{cm:.1} cm between 1 and 3")),
                causes,
                replayed: if mine {
                    "The Replayed panel shows its four views.".to_owned()
                } else {
                    "The shooter's own view stays on their page.".to_owned()
                },
                forks: Vec::new(),
            }
        }
        Item::Jump { at, who, cm, seq } => {
            let lo = SimTime(at.0.saturating_sub(AROUND_JUMP_US));
            let hi = at.plus_micros(AROUND_JUMP_US);
            let updates: Vec<_> = e
                .events()
                .updates()
                .filter(|u| (lo..=hi).contains(&u.at))
                .collect();
            let packets = |u_seq: Seq| -> Vec<PacketRef> {
                e.trace()
                    .into_iter()
                    .flat_map(|t| t.log().records())
                    .filter(|r| {
                        r.direction == Direction::Down
                            && r.kind == PacketKind::Proxy
                            && r.detail == u_seq.0
                    })
                    .map(|r| PacketRef {
                        direction: r.direction,
                        index: r.index,
                    })
                    .collect()
            };
            let causes = updates
                .iter()
                .map(|u| CauseView {
                    kind: match u.fate {
                        UpdateFate::Applied if u.seq == seq => "lost",
                        UpdateFate::Applied => "server",
                        _ => "late",
                    },
                    text: format!(
                        "net update {} · server {:.3} s · arrived {:.3} s · {}{}",
                        u.seq.0,
                        u.server_time.secs_since(SimTime::ZERO),
                        u.at.secs_since(SimTime::ZERO),
                        match u.fate {
                            UpdateFate::Applied => "applied",
                            UpdateFate::Late => "late: ignored",
                            UpdateFate::Duplicate => "duplicate: ignored",
                        },
                        u.jump.map_or(String::new(), |(p, cm)| format!(
                            " · moved {} {cm:.0} cm",
                            name(p)
                        ))
                    ),
                    packets: packets(u.seq),
                })
                .collect();
            StoryView {
                title: format!("{} jumped {cm:.0} cm", name(who)),
                when: format!("net update {} arrived at {:.3} s", seq.0, at.secs_since(SimTime::ZERO)),
                rule: format!(
                    "a net update moved the proxy {cm:.0} cm from where it was extrapolated (≥ {:.0} cm)",
                    sim::endpoints::room::PROXY_JUMP_CM
                ),
                rule_kind: "threshold",
                origin: None,
                client: "—".to_owned(),
                server: "—".to_owned(),
                error: format!("{cm:.1} cm"),
                causes,
                replayed: format!(
                    "{} net updates within {} ms of it",
                    updates.len(),
                    AROUND_JUMP_US / 1000
                ),
                forks: Vec::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::endpoints::room::RoomSession;
    use sim::net::trace_wire::TraceRequest;
    use sim::room::RoomConfig;
    use sim::NetSettings;

    fn name(id: PlayerId) -> String {
        format!("P{}", id.0)
    }

    #[test]
    fn a_shot_is_listed_and_marked_for_its_shooter_and_its_target() {
        let mut s = RoomSession::new(RoomConfig::default(), 5).unwrap();
        let a = s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
        let b = s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
        for id in [a, b] {
            s.act(id, |e, _| e.request_trace(TraceRequest::default()));
        }
        let still = |_: PlayerId, _: &RoomEndpoint| (Vec2::ZERO, false);
        for _ in 0..60 {
            s.step(1.0 / 60.0, still);
        }
        let at = s
            .endpoint(a)
            .unwrap()
            .proxies()
            .get(b)
            .unwrap()
            .drawn_position();
        s.act(a, |e, now| e.fire(now, at)).unwrap().unwrap();
        for _ in 0..30 {
            s.step(1.0 / 60.0, still);
        }
        let mine = room_lanes(s.endpoint(a).unwrap(), name);
        assert_eq!(mine.rows.len(), 1);
        assert_eq!(mine.rows[0].what, "your shot #1 → P2");
        assert!(
            mine.rows[0].detail.starts_with("hit "),
            "{}",
            mine.rows[0].detail
        );
        assert!(matches!(mine.marks[0].glyph, Glyph::Shot(Outcome::Hit)));
        assert!(mine.marks[0].rewound_from_us.is_some());
        let theirs = room_lanes(s.endpoint(b).unwrap(), name);
        assert_eq!(theirs.rows.len(), 1);
        assert_eq!(theirs.rows[0].what, "shot at you by P1 (action 1)");
        assert_eq!(theirs.rows[0].detail, mine.rows[0].detail);
        assert!(matches!(theirs.marks[0].glyph, Glyph::ShotAt(Outcome::Hit)));
        let story = story(s.endpoint(b).unwrap(), &theirs.items[0], name);
        assert_eq!(story.title, "Shot at you by P1 (action 1)");
        assert_eq!(story.causes.len(), 4, "three views and how far apart");
    }

    #[test]
    fn a_row_is_found_again_by_its_key_when_a_jump_moves_it() {
        let shot = Item::Shot {
            seq: Seq(3),
            number: None,
            shooter: PlayerId(1),
            at: SimTime(2_000_000),
            result: None,
            judged: None,
        };
        let jump = |at, seq| Item::Jump {
            at: SimTime(at),
            who: PlayerId(1),
            cm: 26.0,
            seq: Seq(seq),
        };
        let drawn = RoomLanes {
            items: vec![jump(1_000_000, 7), shot],
            ..RoomLanes::default()
        };
        // A frame later a new jump came in before the shot and the oldest
        // was dropped: the row clicked at place 1 is the shot, now at 2.
        let now = RoomLanes {
            items: vec![jump(1_500_000, 8), jump(1_900_000, 9), shot],
            ..RoomLanes::default()
        };
        let clicked = drawn.items[1].key();
        assert_eq!(now.place(clicked), Some(2));
        assert_eq!(now.items[2], shot);
        assert_eq!(
            now.place(drawn.items[0].key()),
            None,
            "a dropped jump opens nothing"
        );
    }

    #[test]
    fn shots_are_numbered_1_2_3_across_a_reload() {
        // A reload takes an action number too (shots are actions 1, 2 and
        // 4): the list and the story name the shot, the story the action.
        let mut s = RoomSession::new(RoomConfig::default(), 5).unwrap();
        let a = s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
        let b = s.join(NetSettings::symmetric(100, 0, 0)).unwrap();
        let still = |_: PlayerId, _: &RoomEndpoint| (Vec2::ZERO, false);
        let wait = |s: &mut RoomSession, frames: u32| {
            for _ in 0..frames {
                s.step(1.0 / 60.0, still);
            }
        };
        wait(&mut s, 60);
        let at = |s: &RoomSession| {
            s.endpoint(a)
                .unwrap()
                .proxies()
                .get(b)
                .unwrap()
                .drawn_position()
        };
        let mut actions = Vec::new();
        for _ in 0..2 {
            let aim = at(&s);
            actions.push(s.act(a, |e, now| e.fire(now, aim)).unwrap().unwrap().0);
            wait(&mut s, 12);
        }
        actions.push(s.act(a, |e, now| e.reload(now)).unwrap().unwrap().0);
        wait(&mut s, 120); // the reload's 1.5 s and a margin
        let aim = at(&s);
        actions.push(s.act(a, |e, now| e.fire(now, aim)).unwrap().unwrap().0);
        wait(&mut s, 30);
        assert_eq!(actions, [1, 2, 3, 4]);
        let lanes = room_lanes(s.endpoint(a).unwrap(), name);
        let what: Vec<&str> = lanes.rows.iter().map(|r| r.what.as_str()).collect();
        assert_eq!(
            what,
            [
                "your shot #1 → P2",
                "your shot #2 → P2",
                "your shot #3 → P2"
            ]
        );
        let story = story(s.endpoint(a).unwrap(), &lanes.items[2], name);
        assert_eq!(story.title, "Your shot #3 (action 4)");
    }

    #[test]
    fn a_forks_lane_recolours_the_shots_of_the_first_at_their_places() {
        // The golden duel forked with rewind off: P1's head shots miss.
        let text = include_str!("../../../scenarios/rooms/duel-150-200ms-3pct.json");
        let file = sim::endpoints::room::recording::RoomRecordingFile::from_json(text).unwrap();
        let f = sim::endpoints::room::replay::fork(
            &file.recording().unwrap(),
            sim::endpoints::room::replay::RuleChange::RewindOff,
        )
        .unwrap();
        let shot = |seq, at_ms| Item::Shot {
            seq: Seq(seq),
            number: Some(seq),
            shooter: PlayerId(1),
            at: SimTime::from_millis(at_ms),
            result: None,
            judged: Some(SimTime::from_millis(at_ms + 100)),
        };
        let lanes = RoomLanes {
            // Shot 999 was never fired in the recording: no mark.
            items: vec![shot(1, 4000), shot(2, 4300), shot(999, 4600)],
            ..RoomLanes::default()
        };
        let marks = fork_marks(&lanes, &f);
        assert_eq!(marks.len(), 2);
        assert_eq!(
            marks.iter().map(|m| (m.index, m.t_us)).collect::<Vec<_>>(),
            [(0, 4_000_000), (1, 4_300_000)]
        );
        assert!(marks
            .iter()
            .all(|m| matches!(m.glyph, Glyph::Shot(Outcome::Miss))));
        // Rewind off: no rewind drawn.
        assert_eq!(marks[0].rewound_from_us, None);
    }

    #[test]
    fn a_playbacks_lanes_mark_a_seats_shots_at_their_verdicts() {
        use crate::inspector::lanes::Window;
        use sim::endpoints::room::playback::play;
        use sim::endpoints::room::recording::RoomRecordingFile;
        let text = include_str!("../../../scenarios/rooms/duel-150-200ms-3pct.json");
        let file = RoomRecordingFile::from_json(text).unwrap();
        let p = play(&file.recording().unwrap()).unwrap();
        let fired_by = |id| p.shots.iter().filter(|s| s.judged.shooter == id).count();
        let p1 = playback_marks(&p, PlayerId(1));
        let up: Vec<&MarkSpec> = p1
            .iter()
            .filter(|m| matches!(m.glyph, Glyph::Shot(_)))
            .collect();
        // The golden duel: P1 fires 26 head shots at P2 at RTT 200 ms.
        assert_eq!(up.len(), 26);
        assert_eq!(up.len(), fired_by(PlayerId(1)));
        assert_eq!(p1.len(), 26, "no shot judged at P1");
        assert!(up.iter().all(|m| m.glyph == Glyph::Shot(Outcome::Hit)));
        // On a 1000 px plot over the recording, each ▲ stands at its
        // verdict's time and opens its shot.
        let (start, end) = p.span();
        let w = Window::new(start.0, end.0, 0.0, 1000.0);
        assert_eq!(start.0, 0, "the duel's first tick");
        for m in &up {
            let s = &p.shots[m.index];
            assert_eq!(m.t_us, s.judged.at.0);
            let x = 1000.0 * s.judged.at.secs_since(start) / end.secs_since(start);
            assert!((w.x_of(m.t_us) - x).abs() < 1e-6);
        }
        // The first: judged at 4.280823 s of 12 s (x 356.7 of 1000 px),
        // the server rewound 164 ms (the line back from 343.1 px).
        assert_eq!(up[0].t_us, 4_280_823);
        assert_eq!(end.0, 12_000_000);
        assert!((w.x_of(up[0].t_us) - 356.735).abs() < 1e-3);
        assert_eq!(up[0].rewound_from_us, Some(4_116_823));
        assert!((w.x_of(4_116_823) - 343.069).abs() < 1e-3);
        // P2 fired none; all 26 were judged with it as the target.
        let p2 = playback_marks(&p, PlayerId(2));
        assert!(p2.iter().all(|m| m.glyph == Glyph::ShotAt(Outcome::Hit)));
        assert_eq!(
            p2.iter().map(|m| m.index).collect::<Vec<_>>(),
            p1.iter().map(|m| m.index).collect::<Vec<_>>()
        );
        assert_eq!(playback_line("P1", &p1), "P1 · ▲ 26 fired · ▼ 0 at them");
        assert_eq!(playback_line("P2", &p2), "P2 · ▲ 0 fired · ▼ 26 at them");
    }
}
