//! Rollback rooms through the real relay (issue 22): three
//! tokio-tungstenite clients, each driving a `sim` rollback predictor,
//! play one match in `/ws?room=NAME&model=rollback` over their own links
//! and converge to the server's world after their inputs stop;
//! `/api/rooms` shows the model; a fourth player over the room's flag, and
//! one asking the room for another model, are refused with their reasons.
//! A spectator (`Room(Watch)`, issue 22) of a full match of two takes no
//! seat and receives Views whose hashes are the States' the players
//! converge to; watching a CMC room or no room is refused with its reason.
//! Both players and the spectator receive `Seats` rows naming both
//! players with the RTTs each reported (issue 22).

mod common;

use common::*;
use futures_util::{SinkExt, StreamExt};
use relay_server::{AppState, Limits};
use sim::net::codec;
use sim::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::rollback::wire::{Ids, RollbackServerMsg, SeatsMsg};
use sim::rollback::{RollbackConfig, RollbackPredictor};
use sim::room::{RoomClientMsg, RoomServerMsg};
use sim::Vec2;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A loopback address of its own for each connection (a room holds two
/// seats of one address).
fn next_address() -> IpAddr {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    IpAddr::from([127, 2, (n / 250) as u8, (n % 250 + 1) as u8])
}

/// Opens `/ws?{query}` and sends Room(Join).
async fn open(relay: &Served, query: &str) -> Ws {
    open_as(relay, query, RoomClientMsg::Join).await
}

/// Opens `/ws?{query}` and sends `greeting` (Join, or a spectator's Watch).
async fn open_as(relay: &Served, query: &str, greeting: RoomClientMsg) -> Ws {
    let (mut ws, _) = ws_connect(&relay.ws_url(query), &[], Some(next_address()))
        .await
        .unwrap();
    send(&mut ws, &ClientMsg::Room(greeting)).await;
    ws
}

/// One page of the match: its socket and predictor, and the newest
/// State's hash and tick it took.
struct Page {
    ws: Ws,
    predictor: RollbackPredictor,
    newest_state: Option<(sim::rollback::Tick, u64)>,
    /// The newest Start: the seat's ids and the tick it started from.
    start: Option<(Ids, sim::rollback::Tick)>,
    /// The relay's resume token for this connection.
    token: Option<ResumeToken>,
    /// The RTT this page reports once a second, ms (`None`: no reports).
    report_rtt_ms: Option<f64>,
    /// Every Seats received.
    seats: Vec<SeatsMsg>,
}

impl Page {
    async fn join(relay: &Served, room: &str) -> Page {
        Page::over(open(relay, &format!("room={room}&model=rollback")).await)
    }

    /// A page over `ws`, which has sent its greeting (or Resume).
    fn over(ws: Ws) -> Page {
        Page {
            ws,
            predictor: RollbackPredictor::new(RollbackConfig::default()).unwrap(),
            newest_state: None,
            start: None,
            token: None,
            report_rtt_ms: None,
            seats: Vec::new(),
        }
    }

    /// Plays for `ms` at 60 frames/s holding `direction` (turning a
    /// quarter every 500 ms), as the page does.
    async fn play(&mut self, ms: u64, mut direction: Vec2) {
        let end = tokio::time::Instant::now() + Duration::from_millis(ms);
        let mut frames = tokio::time::interval(Duration::from_micros(16_667));
        let mut last = Instant::now();
        let mut turned = Instant::now();
        let mut reports = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(end) => break,
                _ = reports.tick(), if self.report_rtt_ms.is_some() => {
                    if let Some(r) = self.predictor.seat_report(self.report_rtt_ms) {
                        send(&mut self.ws, &ClientMsg::SeatReport(r)).await;
                    }
                }
                _ = frames.tick() => {
                    let dt = last.elapsed().as_secs_f64();
                    last = Instant::now();
                    if turned.elapsed() >= Duration::from_millis(500) {
                        turned = Instant::now();
                        direction = Vec2::new(-direction.y, direction.x);
                    }
                    for packet in self.predictor.frame(dt, direction, 0) {
                        let frame = codec::encode(&ClientMsg::Inputs(packet));
                        self.ws.send(Message::Binary(frame.into())).await.unwrap();
                    }
                }
                msg = self.ws.next() => match msg {
                    Some(Ok(Message::Binary(b))) => match codec::decode::<ServerMsg>(&b) {
                        Ok(ServerMsg::SessionToken { token, .. }) => self.token = Some(token),
                        Ok(ServerMsg::Rollback(RollbackServerMsg::Seats(s))) => self.seats.push(s),
                        Ok(ServerMsg::Rollback(m)) => {
                            if let RollbackServerMsg::Start(s) = &m {
                                self.start = Some((s.ids, s.snapshot.tick));
                            }
                            if let RollbackServerMsg::State(s) = &m {
                                let tick = s.snapshot.tick;
                                let hash = u64::from_le_bytes(s.hash);
                                if self.predictor.receive(m).is_ok() {
                                    self.newest_state = Some((tick, hash));
                                }
                            } else {
                                let _ = self.predictor.receive(m);
                            }
                        }
                        _ => {}
                    },
                    Some(Ok(Message::Close(f))) => panic!("closed: {f:?}"),
                    Some(Ok(_)) => {}
                    _ => panic!("the socket ended"),
                },
            }
        }
    }
}

/// Reads until the socket closes: the Refused reason and the close frame.
async fn refusal(ws: &mut Ws) -> (Option<String>, Option<(u16, String)>) {
    let mut refused = None;
    while let Ok(Some(Ok(msg))) = tokio::time::timeout(Duration::from_secs(3), ws.next()).await {
        match msg {
            Message::Binary(b) => {
                if let Ok(ServerMsg::Room(RoomServerMsg::Refused { reason })) = codec::decode(&b) {
                    refused = Some(reason);
                }
            }
            Message::Close(f) => {
                return (
                    refused,
                    f.map(|f| (u16::from(f.code), f.reason.to_string())),
                );
            }
            _ => {}
        }
    }
    (refused, None)
}

/// A relay whose rollback matches seat at most `players`.
async fn match_relay(players: usize) -> Served {
    let limits = Limits {
        max_rollback_players: players,
        ..Limits::default()
    };
    Served::start(AppState::with_limits("/nonexistent", 1, limits)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_pages_in_one_rollback_match_converge_to_the_servers_world() {
    let relay = match_relay(3).await;
    let mut a = Page::join(&relay, "duel").await;
    let mut b = Page::join(&relay, "duel").await;
    let mut c = Page::join(&relay, "duel").await;
    // Three seconds of input, each page its own way, then two without.
    tokio::join!(
        a.play(3000, Vec2::new(1.0, 0.0)),
        b.play(3000, Vec2::new(0.0, 1.0)),
        c.play(3000, Vec2::new(-1.0, 0.0)),
    );
    tokio::join!(
        a.play(2000, Vec2::ZERO),
        b.play(2000, Vec2::ZERO),
        c.play(2000, Vec2::ZERO),
    );
    let mut players = Vec::new();
    for (name, page) in [("a", &mut a), ("b", &mut b), ("c", &mut c)] {
        // Apply the newest State taken (the next frame would).
        page.predictor.frame(0.0, Vec2::ZERO, 0);
        let m = page.predictor.metrics();
        let remote: Vec<_> = page
            .predictor
            .client()
            .unwrap()
            .remote_counters()
            .iter()
            .map(|r| (r.mispredicted_ticks, r.rebases_caused))
            .collect();
        println!(
            "{name}: hash checks {}, mismatches {}, rebases {}, rollbacks {}, missed {}, late {}, \
             buffer {:?}, (mispredicted ticks, rebases caused) per player {remote:?}",
            m.hash_checks,
            m.hash_mismatches,
            m.rebases,
            m.rollbacks,
            m.missed_inputs,
            m.late_inputs,
            m.input_buffer
        );
        assert_eq!(m.hash_mismatches, 0, "{name}: {m:?}");
        // 5 s of States every 2 ticks at 60 Hz, minus the start-up.
        assert!(m.hash_checks >= 100, "{name}: {m:?}");
        assert!(m.acks >= 200, "{name}: {m:?}");
        let confirmed = page.predictor.confirmed().unwrap();
        // The confirmed world is the server's: the newest State's hash.
        let (tick, hash) = page.newest_state.expect("States arrived");
        assert_eq!(confirmed.tick, tick, "{name}");
        assert_eq!(confirmed.state_hash(), hash, "{name}");
        assert_eq!(confirmed.players.len(), 3);
        // Nobody moves any more: the prediction agrees with it.
        assert_eq!(
            page.predictor.predicted().unwrap().players,
            confirmed.players,
            "{name}"
        );
        players.push(confirmed.players.clone());
    }
    // Everyone sees the same world (States of different ticks, one world).
    assert_eq!(players[0], players[1]);
    assert_eq!(players[1], players[2]);
    // Each page walked: nobody stands at their spawn.
    let spawns = sim::rollback::arena::SPAWNS_CM;
    for (p, s) in players[0].iter().zip(spawns) {
        assert_ne!(p.position, sim::rollback::snapshot::MmVec::from_cm(s));
    }

    let listed = rooms_listed(&relay).await;
    assert_eq!(
        listed,
        serde_json::json!([{"room": "duel", "players": 3, "bots": 0, "spectators": 0, "max_players": 3, "model": "rollback"}])
    );

    // A fourth is over the room's flag.
    let mut late = open(&relay, "room=duel&model=rollback").await;
    let (refused, close) = refusal(&mut late).await;
    assert_eq!(refused.as_deref(), Some("the room is full (3 players)"));
    assert_eq!(
        close,
        Some((1013, "room duel: the room is full (3 players)".into()))
    );
    // One asking the rollback room for the CMC model.
    let mut other = open(&relay, "room=duel&model=cmc").await;
    let (refused, close) = refusal(&mut other).await;
    let reason =
        "room duel runs the rollback model, not cmc: join it without model= or choose another room";
    assert_eq!(refused.as_deref(), Some(reason));
    assert_eq!(close, Some((4000, reason.into())));
}

/// What a spectator read: whether Watch came, every View's tick and
/// hash, every Seats, and how many other rollback messages.
type Watched = (bool, Vec<(sim::rollback::Tick, u64)>, Vec<SeatsMsg>, usize);

/// Reads a spectator's socket for `ms`: whether Watch came, every View's
/// tick and hash (checked against its world), every Seats, and anything
/// else rollback.
async fn watch(ws: &mut Ws, ms: u64) -> Watched {
    let end = tokio::time::Instant::now() + Duration::from_millis(ms);
    let (mut watched, mut views, mut seats, mut other) = (false, Vec::new(), Vec::new(), 0);
    let mut pings = tokio::time::interval(Duration::from_millis(250));
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(end) => break,
            // A spectator's page sends Pings (a silent seat is closed).
            _ = pings.tick() => send(ws, &ClientMsg::Ping { id: 1 }).await,
            msg = ws.next() => match msg {
                Some(Ok(Message::Binary(b))) => match codec::decode::<ServerMsg>(&b) {
                    Ok(ServerMsg::Rollback(RollbackServerMsg::Watch(_))) => watched = true,
                    Ok(ServerMsg::Rollback(RollbackServerMsg::View(v))) => {
                        assert_eq!(v.hash(), v.snapshot.state_hash());
                        assert_eq!((v.players, v.bots), (0b11, 0));
                        views.push((v.snapshot.tick, v.hash()));
                    }
                    Ok(ServerMsg::Rollback(RollbackServerMsg::Seats(s))) => seats.push(s),
                    Ok(ServerMsg::Rollback(_)) => other += 1,
                    _ => {}
                },
                Some(Ok(Message::Close(f))) => panic!("closed: {f:?}"),
                Some(Ok(_)) => {}
                _ => panic!("the socket ended"),
            },
        }
    }
    (watched, views, seats, other)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_of_a_full_match_sees_the_world_the_players_converge_to() {
    let relay = match_relay(2).await;
    // Nothing to watch yet.
    let mut early = open_as(&relay, "room=final&model=rollback", RoomClientMsg::Watch).await;
    let (refused, close) = refusal(&mut early).await;
    let reason = "room final does not exist: there is no match to watch";
    assert_eq!(refused.as_deref(), Some(reason));
    assert_eq!(close, Some((4000, reason.into())));

    let mut a = Page::join(&relay, "final").await;
    let mut b = Page::join(&relay, "final").await;
    // Each reports its own RTT once a second (issue 22).
    a.report_rtt_ms = Some(123.4);
    b.report_rtt_ms = Some(234.0);
    let mut spectator = open_as(&relay, "room=final&model=rollback", RoomClientMsg::Watch).await;
    let ((), (), (watched, mut views, mut seats, other)) = tokio::join!(
        a.play(2500, Vec2::new(1.0, 0.0)),
        b.play(2500, Vec2::new(0.0, -1.0)),
        watch(&mut spectator, 2500),
    );
    let ((), (), (_, later, later_seats, more)) = tokio::join!(
        a.play(1500, Vec2::ZERO),
        b.play(1500, Vec2::ZERO),
        watch(&mut spectator, 1500),
    );
    views.extend(later);
    seats.extend(later_seats);
    // Watch, then Views and Seats only: no Acks, no States, no Start.
    assert!(watched);
    assert_eq!(other + more, 0);
    // Seats twice a second to both players and the spectator: rows for
    // seats 0 and 1 (a seated first), the server's counters, and from
    // the first reports on each one's own RTT.
    for (name, got) in [("a", &a.seats), ("b", &b.seats), ("spectator", &seats)] {
        assert!(got.len() >= 6, "{name}: {} Seats", got.len());
        let rtts: Vec<_> = got
            .iter()
            .map(|s| {
                let seated: Vec<u8> = s.rows.iter().map(|r| r.seat).collect();
                assert_eq!(seated, [0, 1], "{name}");
                assert!(s.rows.iter().all(|r| !r.bot && r.buffer.is_some()));
                s.rows
                    .iter()
                    .map(|r| r.report.and_then(|p| p.rtt_ms))
                    .collect::<Vec<_>>()
            })
            .collect();
        let last = rtts.last().unwrap();
        assert_eq!(last, &[Some(123), Some(234)], "{name}: {rtts:?}");
    }
    assert_eq!(
        b.seats.last().unwrap().rows[0].report.unwrap().input_delay,
        0
    );
    // A View with every State: 4 s at 30 States/s on a perfect link.
    assert!(views.len() >= 100, "{} views", views.len());
    for (name, page) in [("a", &a), ("b", &b)] {
        let (tick, hash) = page.newest_state.expect("States arrived");
        let seen = views.iter().find(|(t, _)| *t == tick);
        assert_eq!(
            seen,
            Some(&(tick, hash)),
            "{name}: the spectator saw its newest State"
        );
        assert_eq!(page.predictor.metrics().hash_mismatches, 0, "{name}");
    }

    let listed = rooms_listed(&relay).await;
    assert_eq!(
        listed,
        serde_json::json!([{"room": "final", "players": 2, "bots": 0, "spectators": 1, "max_players": 2, "model": "rollback"}])
    );

    // A CMC room is not watched.
    let _cmc = open(&relay, "room=lobby").await;
    let mut other = open_as(&relay, "room=lobby", RoomClientMsg::Watch).await;
    let (refused, close) = refusal(&mut other).await;
    let reason = "room lobby runs the cmc model: only a rollback match is watched";
    assert_eq!(refused.as_deref(), Some(reason));
    assert_eq!(close, Some((4000, reason.into())));
}

/// A dropped socket is not a leave (issue 22, reference `003_…` §六
/// 断线重连): the relay keeps the seat for its resume grace period — a
/// full match of 2 still refuses a third player meanwhile — and a Resume
/// on a new socket brings the match's Start again with the same ids
/// (player, session, match) and the world as it stands, ticks later; the
/// page's predictor starts over from it and takes the next States.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_player_resumes_their_seat_with_the_same_ids() {
    let relay = match_relay(2).await;
    let mut a = Page::join(&relay, "rejoin").await;
    let mut b = Page::join(&relay, "rejoin").await;
    a.play(600, Vec2::new(1.0, 0.0)).await;
    b.play(300, Vec2::new(0.0, 1.0)).await;
    let (ids, first) = a.start.expect("a Start");
    let token = a.token.expect("a resume token");
    // The TCP connection ends with no Close frame: a drop, not a goodbye.
    drop(a.ws);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut third = open(&relay, "room=rejoin&model=rollback").await;
    let (refused, _) = refusal(&mut third).await;
    assert_eq!(refused.as_deref(), Some("the room is full (2 players)"));

    let (mut ws, _) = ws_connect(
        &relay.ws_url("room=rejoin&model=rollback"),
        &[],
        Some(next_address()),
    )
    .await
    .unwrap();
    send(&mut ws, &ClientMsg::Resume { token }).await;
    let mut back = Page::over(ws);
    back.play(1000, Vec2::new(-1.0, 0.0)).await;
    let (again, resumed_at) = back.start.expect("the Start again after the Resume");
    assert_eq!(again, ids, "the same seat, session and match");
    assert!(
        resumed_at.0 >= first.0 + 60,
        "the match went on while the socket was gone: tick {} → {}",
        first.0,
        resumed_at.0
    );
    let (state_tick, _) = back.newest_state.expect("States after the Resume");
    assert!(state_tick.0 > resumed_at.0);
    assert_eq!(back.predictor.counters().identity_rejected, 0);
}
