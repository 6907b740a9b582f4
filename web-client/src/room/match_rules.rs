//! The words and numbers a rollback room shows (issue 22), pure: the
//! players' names, their positions and HP as read-outs, which remote
//! players caused a rebase, the Replayed line, and one row of the
//! per-player table (a seat's numbers from the room's Seats message); for
//! a spectator, who is seated and which View to keep.

use sim::rollback::wire::{SeatRow, SeatsMsg, ViewMsg};
use sim::rollback::{RemoteCounters, Snapshot};

/// A player's name in a match: `P1`… by seat, `you` for the local one.
pub fn name(player: usize, local: usize) -> String {
    if player == local {
        "you".to_owned()
    } else {
        format!("P{}", player + 1)
    }
}

/// Every seated player's position as `P1 x,y · P2 x,y` (cm, rounded), by
/// seat (`P<seat + 1>` for everyone, so two pages' lines compare);
/// `seated` is a mask of seats, bit 0 = P1.
pub fn positions(s: &Snapshot, seated: u8) -> String {
    s.players
        .iter()
        .enumerate()
        .filter(|(i, _)| is_seated(seated, *i))
        .map(|(i, p)| {
            let at = p.position.to_cm();
            format!("P{} {:.0},{:.0}", i + 1, at.x, at.y)
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Whether seat `i` is in the mask of `seated` seats (bit `i`;
/// [`EVERY_SEAT`] for all).
fn is_seated(seated: u8, i: usize) -> bool {
    i >= 8 || seated & (1 << i) != 0
}

/// The mask of every seat: what a page shows before it knows who sits
/// where.
pub const EVERY_SEAT: u8 = u8::MAX;

/// The seats taken (a mask, bit 0 = P1) as the room's newest `seats`
/// message has them — its rows, players and bots — plus the page's own
/// `local` seat; [`EVERY_SEAT`] before any Seats came. The empty seats of
/// a match still stand in the world (at their spawns, the empty input):
/// the card leaves them out and the panels draw them as empty.
pub fn seated_mask(seats: Option<&SeatsMsg>, local: usize) -> u8 {
    seats.map_or(EVERY_SEAT, |s| {
        s.rows
            .iter()
            .filter(|r| r.seat < 8)
            .fold(1u8.checked_shl(local as u32).unwrap_or(0), |m, r| {
                m | 1 << r.seat
            })
    })
}

/// Whether seat `i` is taken in the `seated` mask.
pub fn seat_taken(seated: u8, i: usize) -> bool {
    is_seated(seated, i)
}

/// Every seated player's HP as `P1 100 · P2 90`, by seat (`seated`: a
/// mask of seats, bit 0 = P1).
pub fn hp(s: &Snapshot, seated: u8) -> String {
    s.players
        .iter()
        .enumerate()
        .filter(|(i, _)| is_seated(seated, *i))
        .map(|(i, p)| format!("P{} {}", i + 1, p.hp))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The remote players whose rebases-caused count grew from `before` to
/// `after`: whose mispredicted input the rebase just applied corrected.
pub fn caused_by(before: &[RemoteCounters], after: &[RemoteCounters]) -> Vec<usize> {
    after
        .iter()
        .enumerate()
        .filter(|(i, a)| a.rebases_caused > before.get(*i).map_or(0, |b| b.rebases_caused))
        .map(|(i, _)| i)
        .collect()
}

/// The Replayed panel's line for a rebase restoring tick `from` and
/// re-simulating `ticks` ticks, caused by `players` (seats).
pub fn replayed_line(from: u32, ticks: usize, players: &[usize], local: usize) -> String {
    format!(
        "rebase to tick {from}: {}",
        rebase_cause(ticks, players, local)
    )
}

/// Who a rebase of `ticks` re-simulated ticks is about, as seen by seat
/// `local`: `P2's input mispredicted · 9 ticks re-simulated`.
pub fn rebase_cause(ticks: usize, players: &[usize], local: usize) -> String {
    let who = if players.is_empty() {
        "no remote input mispredicted".to_owned()
    } else {
        let names: Vec<_> = players.iter().map(|&p| name(p, local)).collect();
        format!("{}'s input mispredicted", names.join(", "))
    };
    format!("{who} · {ticks} ticks re-simulated")
}

/// One remote player's row of the table: name, mispredicted ticks,
/// rebases caused.
pub fn remote_row(player: usize, local: usize, c: &RemoteCounters) -> [String; 3] {
    [
        name(player, local),
        c.mispredicted_ticks.to_string(),
        c.rebases_caused.to_string(),
    ]
}

/// The `match-remote` read-out: `P2 12/3 · P3 0/0` (mispredicted ticks /
/// rebases caused) for every remote player.
pub fn remote_line(counters: &[RemoteCounters], local: usize, seated: u8) -> String {
    counters
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != local && is_seated(seated, *i))
        .map(|(i, c)| format!("P{} {}/{}", i + 1, c.mispredicted_ticks, c.rebases_caused))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Who a spectator sees seated (a View's seat masks): `P1, P3 · bots P2`,
/// by seat; `nobody seated` when no seat is taken.
pub fn seated_line(players: u8, bots: u8) -> String {
    let names = |mask| {
        ViewMsg::seats(mask)
            .map(|p| format!("P{}", p + 1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (players, bots) {
        (0, 0) => "nobody seated".to_owned(),
        (_, 0) => names(players),
        (0, _) => format!("bots {}", names(bots)),
        _ => format!("{} · bots {}", names(players), names(bots)),
    }
}

/// Whether a spectator keeps `next` over its newest View `kept`: the first,
/// one of another match (a restart), or a later tick (Views may arrive out
/// of order over a jittery link).
pub fn newer_view(kept: Option<&ViewMsg>, next: &ViewMsg) -> bool {
    kept.is_none_or(|k| k.match_id != next.match_id || next.snapshot.tick.is_after(k.snapshot.tick))
}

/// A Seats message older than this, µs of page time, is stale: its
/// numbers show as `–` (the relay sends one every 0.5 s).
pub const SEATS_STALE_US: u64 = 3_000_000;

/// The newest Seats as of `now_us` (page time, µs): `kept` (arrived at
/// its `.0`) unless older than [`SEATS_STALE_US`].
pub fn fresh_seats(kept: Option<&(u64, SeatsMsg)>, now_us: u64) -> Option<&SeatsMsg> {
    kept.filter(|(at, _)| now_us.saturating_sub(*at) <= SEATS_STALE_US)
        .map(|(_, s)| s)
}

/// Whether a page keeps `next` over its newest Seats `kept`: the first,
/// another match's, or a later tick (the link may reorder).
pub fn newer_seats(kept: Option<&SeatsMsg>, next: &SeatsMsg) -> bool {
    kept.is_none_or(|k| k.match_id != next.match_id || next.tick.is_after(k.tick))
}

/// The table's RTT, input delay, buffer, dilation and missed / late cells
/// for `seat` from the room's `seats` (`–` where nobody said: a bot's
/// report, a stale or missing report, no Seats).
pub fn seat_cells(seats: Option<&SeatsMsg>, seat: usize) -> [String; 5] {
    let dash = || "–".to_owned();
    let Some(r): Option<&SeatRow> =
        seats.and_then(|s| s.rows.iter().find(|r| usize::from(r.seat) == seat))
    else {
        return [dash(), dash(), dash(), dash(), dash()];
    };
    let report = r.report;
    [
        report
            .and_then(|p| p.rtt_ms)
            .map_or_else(dash, |ms| format!("{ms} ms")),
        report.map_or_else(dash, |p| format!("{} ticks", p.input_delay)),
        r.buffer.map_or_else(dash, |b| format!("{b} ticks")),
        report.map_or_else(dash, |p| format!("{:.3}", p.dilation())),
        format!("{} / {}", r.missed, r.late),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(v: &[(u64, u64)]) -> Vec<RemoteCounters> {
        v.iter()
            .map(|&(m, r)| RemoteCounters {
                mispredicted_ticks: m,
                rebases_caused: r,
            })
            .collect()
    }

    #[test]
    fn a_seats_row_fills_its_cells_and_goes_stale() {
        use sim::rollback::wire::ReportedStats;
        let seats = SeatsMsg {
            match_id: 4,
            tick: sim::rollback::Tick(300),
            rows: vec![
                SeatRow {
                    seat: 0,
                    bot: false,
                    buffer: Some(2),
                    missed: 14,
                    late: 3,
                    report: Some(ReportedStats::measured(Some(181.4), 1, 1.004)),
                },
                SeatRow {
                    seat: 2,
                    bot: true,
                    buffer: Some(-1),
                    missed: 0,
                    late: 0,
                    report: None,
                },
            ],
        };
        let cells = |seat| seat_cells(Some(&seats), seat).map(|c| c.to_owned());
        assert_eq!(
            cells(0),
            ["181 ms", "1 ticks", "2 ticks", "1.004", "14 / 3"]
        );
        assert_eq!(cells(2), ["–", "–", "-1 ticks", "–", "0 / 0"]);
        assert_eq!(cells(1), ["–"; 5]);
        assert_eq!(seat_cells(None, 0), ["–"; 5].map(String::from));
        let kept = (1_000_000, seats.clone());
        assert!(fresh_seats(Some(&kept), 4_000_000).is_some());
        assert!(fresh_seats(Some(&kept), 4_000_001).is_none());
        let later = SeatsMsg {
            tick: sim::rollback::Tick(330),
            ..seats.clone()
        };
        // P1 and a bot in P3, seen from P2: seats 1–3 taken, 4–8 empty.
        assert_eq!(seated_mask(Some(&seats), 1), 0b111);
        assert_eq!(seated_mask(Some(&seats), 5), 0b10_0101);
        assert_eq!(seated_mask(None, 1), EVERY_SEAT);
        assert!(seat_taken(0b101, 2) && !seat_taken(0b101, 1));
        assert!(newer_seats(None, &seats));
        assert!(newer_seats(Some(&seats), &later));
        assert!(!newer_seats(Some(&later), &seats));
    }

    #[test]
    fn the_players_whose_rebases_grew_caused_it() {
        let before = counters(&[(0, 0), (4, 2), (1, 1)]);
        let after = counters(&[(0, 0), (6, 3), (1, 1)]);
        assert_eq!(caused_by(&before, &after), vec![1]);
        assert_eq!(caused_by(&[], &after), vec![1, 2]);
        assert!(caused_by(&after, &after).is_empty());
    }

    #[test]
    fn lines_name_seats_and_the_local_player() {
        assert_eq!(name(0, 0), "you");
        assert_eq!(name(2, 0), "P3");
        assert_eq!(
            replayed_line(120, 7, &[1], 0),
            "rebase to tick 120: P2's input mispredicted · 7 ticks re-simulated"
        );
        assert_eq!(
            replayed_line(5, 0, &[], 1),
            "rebase to tick 5: no remote input mispredicted · 0 ticks re-simulated"
        );
        let c = counters(&[(3, 1), (0, 0), (9, 4)]);
        assert_eq!(remote_line(&c, 1, EVERY_SEAT), "P1 3/1 · P3 9/4");
        assert_eq!(remote_line(&c, 1, 0b011), "P1 3/1");
        assert_eq!(remote_row(2, 1, &c[2]), ["P3", "9", "4"].map(String::from));
    }

    #[test]
    fn positions_and_hp_read_by_seat() {
        let arena = sim::rollback::arena::Arena::with_players(Default::default(), 2).unwrap();
        let s = arena.initial(sim::rollback::Tick::default());
        assert_eq!(positions(&s, EVERY_SEAT), "P1 400,750 · P2 1450,1300");
        assert_eq!(hp(&s, EVERY_SEAT), "P1 100 · P2 100");
        // A spectator lists the seated only.
        assert_eq!(positions(&s, 0b10), "P2 1450,1300");
        assert_eq!(hp(&s, 0b01), "P1 100");
    }

    #[test]
    fn a_spectator_names_the_seated_and_keeps_the_newest_view() {
        assert_eq!(seated_line(0b101, 0b010), "P1, P3 · bots P2");
        assert_eq!(seated_line(0b11, 0), "P1, P2");
        assert_eq!(seated_line(0, 0b1000_0000), "bots P8");
        assert_eq!(seated_line(0, 0), "nobody seated");
        let arena = sim::rollback::arena::Arena::with_players(Default::default(), 2).unwrap();
        let view = |match_id, tick| ViewMsg {
            match_id,
            tick_rate: Default::default(),
            hash: [0; 8],
            snapshot: arena.initial(sim::rollback::Tick(tick)),
            players: 0b11,
            bots: 0,
        };
        assert!(newer_view(None, &view(1, 10)));
        assert!(newer_view(Some(&view(1, 10)), &view(1, 12)));
        assert!(!newer_view(Some(&view(1, 12)), &view(1, 10)));
        assert!(!newer_view(Some(&view(1, 12)), &view(1, 12)));
        // A restarted match starts again from its start tick.
        assert!(newer_view(Some(&view(1, 900)), &view(2, 0)));
    }
}
