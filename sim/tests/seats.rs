//! A rollback room's per-seat numbers (issue 22) on a virtual clock: a
//! [`RollbackRoomHost`] with three pages on their own conditioned links
//! (each pinging, and reporting its RTT, input delay and dilation once a
//! second) and a spectator. Every page and the spectator receive
//! `Seats` rows naming every seat with the reporter's own RTT and the
//! server's buffer / missed / late for that tick (the same numbers as that
//! player's Ack of the tick); one player's lag spike moves only its own
//! row; forged and absurd reports are refused and counted; a silent
//! page's report goes stale after 3 s.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;
use sim::endpoints::rollback_room::RollbackRoomHost;
use sim::net::codec;
use sim::net::settings::LagSpike;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::rollback::wire::{Ids, ReportedStats, RollbackServerMsg, SeatReport, SeatsMsg};
use sim::rollback::{RollbackConfig, RollbackPredictor, Tick, TickRate};
use sim::room::{PlayerId, RoomClientMsg};
use sim::{NetSettings, SimTime, Vec2};
use std::collections::{HashMap, VecDeque};

/// One page of the room: its predictor, Pings and what it received.
struct Page {
    id: PlayerId,
    predictor: Option<RollbackPredictor>,
    rtt_ms: Option<f64>,
    pings: VecDeque<(u32, SimTime)>,
    next_ping: u32,
    /// Reports stop when false (the page went quiet).
    reporting: bool,
    /// Every report sent: (when, numbers).
    reported: Vec<(SimTime, ReportedStats)>,
    /// Every Seats received: (when, message).
    seats: Vec<(SimTime, SeatsMsg)>,
    /// Each Ack's (buffer, missed, late) by its tick.
    acks: HashMap<Tick, (Option<i8>, u32, u32)>,
}

struct Room {
    host: RollbackRoomHost,
    pages: Vec<Page>,
    now: SimTime,
    script: Pcg32,
    dirs: Vec<Vec2>,
}

fn send(host: &mut RollbackRoomHost, now: SimTime, id: PlayerId, msg: ClientMsg) {
    let len = codec::encode(&msg).len();
    host.receive_msg(now, id, len, msg).unwrap();
}

impl Room {
    /// `links` (RTT ms, jitter ms) for the players, then a spectator at
    /// RTT 100 ms.
    fn new(seed: u64, links: &[(u16, u16)]) -> Room {
        let config = RollbackConfig::at_rate(TickRate::Hz60);
        let mut host = RollbackRoomHost::new(config, links.len(), seed, SimTime::ZERO).unwrap();
        let now = SimTime::ZERO;
        let mut pages = Vec::new();
        for &(rtt, jitter) in links {
            let id = host.add_player(now).unwrap();
            let net = ClientMsg::SetNetSettings(NetSettings::symmetric(rtt, jitter, 0));
            send(&mut host, now, id, net);
            send(&mut host, now, id, ClientMsg::Room(RoomClientMsg::Join));
            pages.push(Page::new(id, Some(RollbackPredictor::new(config).unwrap())));
        }
        let watcher = host.add_spectator(now).unwrap();
        let net = ClientMsg::SetNetSettings(NetSettings::symmetric(100, 0, 0));
        send(&mut host, now, watcher, net);
        send(
            &mut host,
            now,
            watcher,
            ClientMsg::Room(RoomClientMsg::Watch),
        );
        pages.push(Page::new(watcher, None));
        Room {
            host,
            dirs: vec![Vec2::ZERO; links.len()],
            pages,
            now,
            script: Pcg32::seed_from_u64(seed),
        }
    }

    fn spectator(&self) -> &Page {
        self.pages.last().unwrap()
    }

    /// Runs the room for `seconds` in 1 ms steps: frames in, every
    /// page's 16 ms frame, a Ping every 250 ms, a report every second.
    fn run_for(&mut self, seconds: f64) {
        let end = self.now.0 + (seconds * 1e6) as u64;
        while self.now.0 < end {
            self.now = SimTime(self.now.0 + 1000);
            let now = self.now;
            let ms = now.0 / 1000;
            for (_, id, frame) in self.host.poll_until(now) {
                let page = self.pages.iter_mut().find(|p| p.id == id).unwrap();
                page.receive(now, codec::decode::<ServerMsg>(&frame).unwrap());
            }
            for (k, page) in self.pages.iter_mut().enumerate() {
                let mut out = Vec::new();
                if ms % 16 == 0 {
                    if let Some(p) = &mut page.predictor {
                        if k < self.dirs.len() && self.script.next_u32() % 30 == 0 {
                            let mut axis = || (self.script.next_u32() % 3) as f32 - 1.0;
                            self.dirs[k] = Vec2::new(axis(), axis());
                        }
                        out.extend(
                            p.frame(0.016, self.dirs[k], 0)
                                .into_iter()
                                .map(ClientMsg::Inputs),
                        );
                    }
                }
                if ms % 250 == 0 {
                    page.next_ping += 1;
                    page.pings.push_back((page.next_ping, now));
                    out.push(ClientMsg::Ping { id: page.next_ping });
                }
                // Reports once a second, each page at its own offset.
                if ms % 1000 == 100 * k as u64 && page.reporting {
                    let report = page
                        .predictor
                        .as_ref()
                        .and_then(|p| p.seat_report(page.rtt_ms));
                    if let Some(r) = report {
                        page.reported.push((now, r.stats));
                        out.push(ClientMsg::SeatReport(r));
                    }
                }
                for msg in out {
                    send(&mut self.host, now, page.id, msg);
                }
            }
        }
    }
}

impl Page {
    fn new(id: PlayerId, predictor: Option<RollbackPredictor>) -> Page {
        Page {
            id,
            predictor,
            rtt_ms: None,
            pings: VecDeque::new(),
            next_ping: 0,
            reporting: true,
            reported: Vec::new(),
            seats: Vec::new(),
            acks: HashMap::new(),
        }
    }

    fn receive(&mut self, now: SimTime, msg: ServerMsg) {
        match msg {
            ServerMsg::Pong { id, .. } => {
                while let Some(&(sent_id, sent)) = self.pings.front() {
                    if sent_id > id {
                        break;
                    }
                    self.pings.pop_front();
                    if sent_id == id {
                        self.rtt_ms = Some(now.micros_since(sent) as f64 / 1000.0);
                    }
                }
            }
            ServerMsg::Rollback(RollbackServerMsg::Seats(s)) => self.seats.push((now, s)),
            ServerMsg::Rollback(m) => {
                if let RollbackServerMsg::Ack(a) = &m {
                    self.acks.insert(a.tick, (a.buffer, a.missed, a.late));
                }
                if let Some(p) = &mut self.predictor {
                    p.receive(m).unwrap();
                }
            }
            _ => {}
        }
    }
}

/// Seat `seat`'s reported RTT in each of `seats` received in
/// `from_s..to_s` (s).
fn rtts(seats: &[(SimTime, SeatsMsg)], seat: u8, from_s: f64, to_s: f64) -> Vec<u16> {
    in_window(seats, from_s, to_s)
        .filter_map(|s| s.rows.iter().find(|r| r.seat == seat)?.report?.rtt_ms)
        .collect()
}

/// Seat `seat`'s buffer depth in each of `seats` received in
/// `from_s..to_s` (s).
fn buffers(seats: &[(SimTime, SeatsMsg)], seat: u8, from_s: f64, to_s: f64) -> Vec<i8> {
    in_window(seats, from_s, to_s)
        .filter_map(|s| s.rows.iter().find(|r| r.seat == seat)?.buffer)
        .collect()
}

fn in_window(
    seats: &[(SimTime, SeatsMsg)],
    from_s: f64,
    to_s: f64,
) -> impl Iterator<Item = &SeatsMsg> {
    seats
        .iter()
        .filter(move |(t, _)| (from_s..to_s).contains(&(t.0 as f64 / 1e6)))
        .map(|(_, s)| s)
}

#[test]
fn every_page_and_the_spectator_get_each_seats_reported_rtt_and_the_servers_counters() {
    // A at RTT 180 ms, B at 60, C at 100 (10 ms jitter each way, no loss).
    let mut room = Room::new(21, &[(180, 10), (60, 10), (100, 10)]);
    room.run_for(12.0);
    // Seats twice a second: about 24 in 12 s, at every page and the
    // spectator (the first within half a second plus the link).
    let a_reported: Vec<u16> = room.pages[0]
        .reported
        .iter()
        .filter_map(|(_, r)| r.rtt_ms)
        .collect();
    println!("A reported RTTs {a_reported:?}");
    assert!(a_reported.len() >= 10);
    assert!(
        a_reported.iter().all(|ms| (155..=215).contains(ms)),
        "{a_reported:?}"
    );
    for (k, page) in room.pages.iter().enumerate() {
        assert!(
            (22..=24).contains(&page.seats.len()),
            "page {k}: {}",
            page.seats.len()
        );
        let seats: Vec<u8> = page.seats[0].1.rows.iter().map(|r| r.seat).collect();
        assert_eq!(seats, [0, 1, 2], "page {k}");
        // After the first reports arrived, A's row holds an RTT A itself
        // reported: 155–215 ms (180 ± 10 ms jitter each way).
        let seen = rtts(&page.seats, 0, 3.0, 12.0);
        println!("page {k} saw A's RTT {seen:?}");
        assert!(seen.len() >= 15, "page {k}: {seen:?}");
        for ms in &seen {
            assert!(a_reported.contains(ms), "page {k}: {ms} not reported by A");
        }
        // B's and C's rows hold their own links' RTTs (± 20 ms jitter).
        let (b, c) = (
            rtts(&page.seats, 1, 3.0, 12.0),
            rtts(&page.seats, 2, 3.0, 12.0),
        );
        println!("page {k} saw B's {b:?}, C's {c:?}");
        assert!(b.len() >= 15 && b.iter().all(|ms| (40..=85).contains(ms)));
        assert!(c.len() >= 15 && c.iter().all(|ms| (80..=125).contains(ms)));
        // Every row's buffer, missed and late are that seat's Ack of the
        // same tick: the server's own counters then.
        let mut compared = 0;
        for (_, s) in &page.seats {
            for r in &s.rows {
                assert!(!r.bot);
                let report = r.report.unwrap_or_default();
                assert_eq!(report.input_delay, 0);
                assert!(report.dilation_permille.abs() <= 100);
                if let Some(ack) = room.pages[usize::from(r.seat)].acks.get(&s.tick) {
                    assert_eq!(
                        *ack,
                        (r.buffer, r.missed, r.late),
                        "page {k} seat {}",
                        r.seat
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared >= 60, "page {k}: {compared}");
    }
    // The spectator reported nothing and is in no row.
    assert!(room.spectator().reported.is_empty());
    assert_eq!(room.host.game().reports_refused().total(), 0);
}

#[test]
fn one_players_lag_spike_moves_only_its_own_row() {
    let mut room = Room::new(5, &[(60, 5), (100, 5), (140, 5)]);
    room.run_for(10.0);
    // +400 ms each way for 2 s on player 0's link.
    let spike = ClientMsg::LagSpike(LagSpike {
        extra_ms: 400,
        duration_ms: 2000,
    });
    let (now, id) = (room.now, room.pages[0].id);
    send(&mut room.host, now, id, spike);
    let missed_before: Vec<u64> = (0..3)
        .map(|i| room.host.game().inputs(i).missed())
        .collect();
    room.run_for(8.0);
    // As player 1 and the spectator see it.
    for k in [1, 3] {
        let seats = &room.pages[k].seats;
        for seat in 0..3u8 {
            let base_rtt = *rtts(seats, seat, 5.0, 10.0).iter().max().unwrap();
            let spike_rtt = *rtts(seats, seat, 10.0, 16.0).iter().max().unwrap();
            let base = buffers(seats, seat, 5.0, 10.0);
            let during = buffers(seats, seat, 10.0, 16.0);
            let mean =
                f64::from(base.iter().map(|&b| i32::from(b)).sum::<i32>()) / base.len() as f64;
            let worst = during
                .iter()
                .map(|&b| (f64::from(b) - mean).abs())
                .fold(0.0, f64::max);
            println!(
                "page {k}, seat {seat}: RTT {base_rtt} → {spike_rtt} ms, buffer {mean:.1} (moved {worst:.1}) {during:?}"
            );
            if seat == 0 {
                assert!(spike_rtt >= 800, "seat 0's RTT {spike_rtt}");
                assert!(worst >= 5.0, "seat 0's buffer moved {worst}");
            } else {
                assert!(
                    spike_rtt <= base_rtt + 20,
                    "seat {seat}: {base_rtt} → {spike_rtt}"
                );
                assert!(worst <= 2.0, "seat {seat}'s buffer moved {worst}");
            }
        }
        // By the end the spike is over: seat 0's RTT is back.
        let last = rtts(seats, 0, 17.0, 18.0);
        assert!(last.iter().all(|&ms| ms <= 90), "{last:?}");
    }
    let missed: Vec<u64> = (0..3)
        .map(|i| room.host.game().inputs(i).missed() - missed_before[i])
        .collect();
    assert!(missed[0] > 10 && missed[1..] == [0, 0], "{missed:?}");
}

#[test]
fn forged_and_absurd_reports_are_refused_and_counted_and_a_silent_page_goes_stale() {
    let mut room = Room::new(9, &[(80, 0), (80, 0)]);
    room.run_for(4.0);
    let match_id = room.host.game().match_id();
    let ids_b = room.pages[1]
        .predictor
        .as_ref()
        .unwrap()
        .seat_report(None)
        .unwrap()
        .ids;
    let fine = ReportedStats {
        rtt_ms: Some(80),
        input_delay: 0,
        dilation_permille: 0,
    };
    let forged = [
        // B claiming A's seat (B's session on seat 0), and seat 0 with no
        // session B knows.
        SeatReport {
            ids: Ids { player: 0, ..ids_b },
            stats: fine,
        },
        SeatReport {
            ids: Ids::new(0, match_id, 0),
            stats: fine,
        },
        // An older match; a seat nobody holds.
        SeatReport {
            ids: Ids {
                match_id: match_id.wrapping_sub(1),
                ..ids_b
            },
            stats: fine,
        },
        SeatReport {
            ids: Ids { player: 5, ..ids_b },
            stats: fine,
        },
    ];
    let absurd = [
        ReportedStats {
            rtt_ms: Some(60_000),
            ..fine
        },
        ReportedStats {
            input_delay: 200,
            ..fine
        },
        ReportedStats {
            dilation_permille: -128,
            ..fine
        },
    ];
    let b = room.pages[1].id;
    let now = room.now;
    for r in forged {
        send(&mut room.host, now, b, ClientMsg::SeatReport(r));
    }
    for stats in absurd {
        let r = SeatReport { ids: ids_b, stats };
        send(&mut room.host, now, b, ClientMsg::SeatReport(r));
    }
    // The spectator's report, with B's ids, never reaches the match.
    let watcher = room.spectator().id;
    send(
        &mut room.host,
        now,
        watcher,
        ClientMsg::SeatReport(SeatReport {
            ids: ids_b,
            stats: fine,
        }),
    );
    room.run_for(1.0);
    let refused = room.host.game().reports_refused();
    assert_eq!((refused.identity, refused.out_of_range), (4, 3));
    assert_eq!(room.host.spectator_reports_refused(), 1);
    // A page's own rounding clamps into the ranges.
    let m = ReportedStats::measured(Some(12_345.6), 99, 1.3);
    assert_eq!(
        (m.rtt_ms, m.input_delay, m.dilation_permille),
        (Some(10_000), 15, 100)
    );
    assert!(m.in_range());
    // A goes quiet: its row keeps its report for 3 s, then shows none.
    room.pages[0].reporting = false;
    let quiet_at = room.now.0 as f64 / 1e6;
    room.run_for(5.0);
    let seats = &room.pages[1].seats;
    let last_fresh = in_window(seats, quiet_at, quiet_at + 10.0)
        .filter(|s| s.rows[0].report.is_some())
        .count();
    let stale = in_window(seats, quiet_at + 3.7, quiet_at + 10.0)
        .map(|s| s.rows[0].report)
        .collect::<Vec<_>>();
    assert!((4..=8).contains(&last_fresh), "{last_fresh}");
    assert!(
        !stale.is_empty() && stale.iter().all(Option::is_none),
        "{stale:?}"
    );
    // B's row stays fresh.
    assert!(in_window(seats, quiet_at + 3.7, quiet_at + 10.0).all(|s| s.rows[1].report.is_some()));
}

#[test]
fn a_report_and_the_seats_of_two_players_and_a_bot_are_small() {
    use sim::rollback::wire::SeatRow;
    let report = codec::encode(&ClientMsg::SeatReport(SeatReport {
        ids: Ids::new(u32::MAX, u32::MAX, 1),
        stats: ReportedStats::measured(Some(180.4), 2, 1.004),
    }));
    // Version, variant, ids 2+1+5+5+1, RTT 1+2, delay 1, dilation 1.
    assert_eq!(report.len(), 21);
    let row = |seat, report: Option<ReportedStats>| SeatRow {
        seat,
        bot: report.is_none(),
        buffer: Some(2),
        missed: 14,
        late: 3,
        report,
    };
    let stats = ReportedStats::measured(Some(180.0), 0, 0.996);
    let seats = codec::encode(&ServerMsg::Rollback(RollbackServerMsg::Seats(SeatsMsg {
        match_id: u32::MAX,
        tick: Tick(70_000),
        rows: vec![row(0, Some(stats)), row(1, Some(stats)), row(2, None)],
    })));
    // Version, two variants, match 5, tick 3, 1 row count; a player's row
    // seat 1, bot 1, buffer 2, missed 1, late 1, report 1+3+1+1 = 12; a
    // bot's 7.
    assert_eq!(seats.len(), 43);
}
