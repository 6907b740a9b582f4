//! Three relays behind nginx (`deploy/nginx.conf`) sharing PostgreSQL: the
//! room decides the relay, so two players of one shared room land on one
//! relay and see each other; a dropped socket resumes on the relay that
//! kept it; killing a relay moves only its rooms and its players get back in
//! through nginx while the others notice nothing; a draining relay takes no
//! new players, hands its shared rooms on at once (their players resume
//! their seats on the next relay) and lets its private sessions play on to
//! the end of the drain; a scenario saved through one relay opens through another;
//! the per-address cap counts the clients behind nginx. Needs nginx and
//! PostgreSQL: `scripts/test.sh` runs these with `--ignored`.

mod common;

use common::cluster::{Cluster, Nginx};
use common::*;
use futures_util::{SinkExt, StreamExt};
use sim::net::codec;
use sim::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::room::{PlayerId, RoomClientMsg, RoomServerMsg};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A loopback source address of its own for client `i` (the relays count
/// sessions per client address).
fn client_ip(net: u8, i: usize) -> IpAddr {
    IpAddr::from([127, net, (i / 250) as u8, (i % 250 + 1) as u8])
}

/// Connects to `room` through nginx: the socket and the relay it reached.
async fn connect(nginx: &Nginx, room: &str, from: IpAddr) -> (Ws, String) {
    let (ws, res) = ws_connect(&nginx.ws_url(room), &[], Some(from))
        .await
        .unwrap_or_else(|status| panic!("room {room}: upgrade refused with {status}"));
    assert_eq!(header(&res, "x-relay-room"), room);
    (ws, header(&res, "x-relay-instance").to_owned())
}

/// The first word in `room`: Hello for a private session (`p-…`), Join for
/// a shared room.
fn greeting(room: &str) -> ClientMsg {
    if room.starts_with("p-") {
        ClientMsg::Hello
    } else {
        ClientMsg::Room(RoomClientMsg::Join)
    }
}

/// The first word in `room` (Hello or Join), and the session's resume
/// token.
async fn hello(ws: &mut Ws, room: &str) -> ResumeToken {
    send(ws, &greeting(room)).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let msg = tokio::time::timeout_at(deadline, ws.next())
            .await
            .expect("a SessionToken within 5 s");
        if let Some(Ok(Message::Binary(b))) = msg {
            if let Ok(ServerMsg::SessionToken { token, .. }) = codec::decode(&b) {
                return token;
            }
        }
    }
}

/// Sends `Resume { token }` and reads the answer: `true` if the session
/// came back (a Welcome, or a room's Joined), `false` on "resume failed".
async fn resume(ws: &mut Ws, token: ResumeToken) -> bool {
    send(ws, &ClientMsg::Resume { token }).await;
    for m in drain(ws, 500).await {
        match m {
            ServerMsg::Welcome { .. } | ServerMsg::Room(RoomServerMsg::Joined { .. }) => {
                return true
            }
            ServerMsg::Error { reason } if reason.contains("resume failed") => return false,
            _ => {}
        }
    }
    panic!("no answer to the Resume");
}

/// What a playing client saw.
#[derive(Debug, Default)]
struct Seen {
    pongs: Vec<Instant>,
    closed: Option<(Instant, Option<u16>)>,
}

/// Pings at the page's rate (`PING_INTERVAL_MS`) and records the pongs until the
/// socket closes or `stop` is set.
fn play(mut ws: Ws, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<Seen> {
    tokio::spawn(async move {
        let mut seen = Seen::default();
        let mut tick = tokio::time::interval(Duration::from_millis(
            sim::endpoints::link::PING_INTERVAL_MS,
        ));
        let mut id = 0u32;
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    id += 1;
                    let frame = codec::encode(&ClientMsg::Ping { id });
                    if ws.send(Message::Binary(frame.into())).await.is_err() {
                        seen.closed = Some((Instant::now(), None));
                        break;
                    }
                }
                msg = ws.next() => match msg {
                    Some(Ok(Message::Binary(b))) => {
                        if let Ok(ServerMsg::Pong { .. }) = codec::decode(&b) {
                            seen.pongs.push(Instant::now());
                        }
                    }
                    Some(Ok(Message::Close(f))) => {
                        seen.closed = Some((Instant::now(), f.map(|f| u16::from(f.code))));
                        break;
                    }
                    Some(Ok(_)) => {}
                    _ => {
                        seen.closed = Some((Instant::now(), None));
                        break;
                    }
                },
            }
        }
        seen
    })
}

/// Longest gap between pongs from `from` on (and to the last pong).
fn longest_gap(pongs: &[Instant], from: Instant) -> Duration {
    let mut last = from;
    let mut gap = Duration::ZERO;
    for &p in pongs.iter().filter(|&&p| p >= from) {
        gap = gap.max(p - last);
        last = p;
    }
    gap
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn one_room_lands_on_one_relay_and_a_hundred_rooms_spread_over_three() {
    let cluster = Cluster::start(&[]).await;
    // Two players of one room, from two addresses: one relay.
    let (_a, first) = connect(&cluster.nginx, "lobby", client_ip(2, 0)).await;
    let (_b, second) = connect(&cluster.nginx, "lobby", client_ip(2, 1)).await;
    assert_eq!(first, second);

    let mut by_relay: BTreeMap<String, usize> = BTreeMap::new();
    let mut placed = Vec::new();
    for i in 0..100 {
        let room = format!("room-{i:03}");
        let (ws, instance) = connect(&cluster.nginx, &room, client_ip(3, i)).await;
        drop(ws);
        *by_relay.entry(instance.clone()).or_default() += 1;
        placed.push((room, instance));
    }
    println!("100 rooms over the relays: {by_relay:?}");
    assert_eq!(by_relay.len(), 3, "{by_relay:?}");
    assert!(by_relay.values().all(|&n| n <= 50), "{by_relay:?}");
    // The same rooms again: the same relays.
    for (i, (room, instance)) in placed.iter().enumerate().step_by(7) {
        let (_ws, again) = connect(&cluster.nginx, room, client_ip(4, i)).await;
        assert_eq!(&again, instance, "{room}");
    }
    cluster.finish().await;
}

/// The ids in the net updates `ws` receives over `ms` (pinging as a page
/// does, so the room keeps sending).
async fn seen_in_room(ws: &mut Ws, ms: u64) -> std::collections::BTreeSet<PlayerId> {
    let mut seen = std::collections::BTreeSet::new();
    let end = tokio::time::Instant::now() + Duration::from_millis(ms);
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut id = 0;
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(end) => return seen,
            _ = tick.tick() => {
                id += 1;
                send(ws, &ClientMsg::Ping { id }).await;
            }
            msg = ws.next() => match msg {
                Some(Ok(Message::Binary(b))) => {
                    if let Ok(ServerMsg::Room(RoomServerMsg::Proxies(batch))) = codec::decode(&b) {
                        seen.extend(batch.characters.iter().map(|c| c.id));
                    }
                }
                Some(Ok(_)) => {}
                _ => return seen,
            },
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn two_players_of_one_shared_room_land_on_one_relay_and_see_each_other() {
    let cluster = Cluster::start(&[]).await;
    let (mut a, on_a) = connect(&cluster.nginx, "arena", client_ip(11, 0)).await;
    hello(&mut a, "arena").await;
    let (mut b, on_b) = connect(&cluster.nginx, "arena", client_ip(11, 1)).await;
    hello(&mut b, "arena").await;
    assert_eq!(on_a, on_b);
    let (seen_by_a, seen_by_b) = tokio::join!(seen_in_room(&mut a, 600), seen_in_room(&mut b, 600));
    assert_eq!(seen_by_a.into_iter().collect::<Vec<_>>(), vec![PlayerId(2)]);
    assert_eq!(seen_by_b.into_iter().collect::<Vec<_>>(), vec![PlayerId(1)]);
    // The room list, asked with the room's name, comes from its relay.
    let listed = http(&cluster.nginx.addr, "GET /api/rooms?room=arena", "", b"")
        .await
        .unwrap();
    assert_eq!(listed.header("x-relay-instance"), Some(on_a.as_str()));
    assert_eq!(
        listed.json()["rooms"],
        serde_json::json!([{"room": "arena", "players": 2, "bots": 0, "spectators": 0, "max_players": 16, "model": "cmc"}])
    );
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn a_dropped_socket_resumes_on_the_relay_that_kept_its_session() {
    let cluster = Cluster::start(&[]).await;
    // Private sessions and seats in shared rooms alike.
    for i in 0..9 {
        let room = if i % 2 == 0 {
            format!("p-{i:024x}")
        } else {
            format!("shared-{i}")
        };
        let (mut ws, instance) = connect(&cluster.nginx, &room, client_ip(5, i)).await;
        let token = hello(&mut ws, &room).await;
        // The socket drops without a close handshake.
        drop(ws);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (mut back, again) = connect(&cluster.nginx, &room, client_ip(5, i)).await;
        assert_eq!(again, instance, "{room}");
        assert!(
            resume(&mut back, token).await,
            "{room}: the session was not there"
        );
    }
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn killing_a_relay_moves_only_its_rooms_and_the_others_notice_nothing() {
    // Leases renewed (with the rooms' checkpoints) every second.
    let mut cluster = Cluster::start(&["--room-lease-ms", "3000"]).await;
    let stop = Arc::new(AtomicBool::new(false));
    let mut players = Vec::new();
    for i in 0..30 {
        // Private sessions and shared rooms, alternately.
        let room = if i % 2 == 0 {
            format!("p-{i:024x}")
        } else {
            format!("game-{i:02}")
        };
        let (mut ws, instance) = connect(&cluster.nginx, &room, client_ip(6, i)).await;
        let token = hello(&mut ws, &room).await;
        players.push((room, instance, token, play(ws, stop.clone())));
    }
    let victim = players[0].1.clone();
    let on_victim = players.iter().filter(|p| p.1 == victim).count();
    assert!(on_victim < 30, "every room on {victim}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let killed_at = Instant::now();
    cluster.relay(&victim).kill();

    // The victim's players get back in through nginx, on another relay: a
    // shared room's seat comes back with the room (the relay that takes it
    // over has its checkpoint); a private session died with the relay, so
    // its resume is refused and it starts anew (as the page does).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut moved = BTreeMap::new();
    for (i, (room, instance, token, _)) in players.iter().enumerate() {
        if *instance != victim {
            continue;
        }
        let t = Instant::now();
        let (mut ws, now_on) = connect(&cluster.nginx, room, client_ip(7, i)).await;
        assert_ne!(now_on, victim, "{room}");
        let shared = !room.starts_with("p-");
        assert_eq!(
            resume(&mut ws, *token).await,
            shared,
            "{room}: a shared room's seat comes back, a private session's does not"
        );
        if !shared {
            hello(&mut ws, room).await;
        }
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{room}: {:?}",
            t.elapsed()
        );
        moved.insert(room.clone(), now_on);
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    stop.store(true, Ordering::Relaxed);

    let mut stayed = 0;
    for (room, instance, _, task) in players {
        let seen = task.await.unwrap();
        if instance == victim {
            let (closed_at, _) = seen.closed.expect("the victim's players lost their socket");
            assert!(closed_at - killed_at < Duration::from_secs(1), "{room}");
        } else {
            // Nothing: no close, a pong every ping interval throughout.
            assert!(seen.closed.is_none(), "{room}: {:?}", seen.closed);
            let gap = longest_gap(&seen.pongs, killed_at - Duration::from_millis(500));
            assert!(
                gap < Duration::from_millis(800),
                "{room}: pongs stopped for {gap:?}"
            );
            assert!(seen.pongs.len() >= 8, "{room}: {} pongs", seen.pongs.len());
            stayed += 1;
        }
    }
    // Placement now: the moved rooms where their players went, every other
    // room where it was.
    for (i, (room, now_on)) in moved.iter().enumerate() {
        let (_ws, again) = connect(&cluster.nginx, room, client_ip(8, i)).await;
        assert_eq!(&again, now_on, "{room}");
    }
    println!(
        "{victim} killed: {} rooms moved to {:?}, {stayed} rooms stayed",
        moved.len(),
        moved.values().collect::<std::collections::BTreeSet<_>>()
    );
    assert_eq!(moved.len(), on_victim);
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn a_draining_relay_hands_its_rooms_on_at_once_and_its_private_sessions_play_on() {
    let mut cluster = Cluster::start(&["--drain-delay-ms", "1500"]).await;
    let private = "p-00000000000000000000d001";
    let (mut ws, draining) = connect(&cluster.nginx, private, client_ip(9, 0)).await;
    hello(&mut ws, private).await;
    let stop = Arc::new(AtomicBool::new(false));
    let player = play(ws, stop.clone());
    // A shared room on the same relay.
    let mut found = None;
    for i in 0..30 {
        let room = format!("drain-me-{i}");
        let (mut ws, on) = connect(&cluster.nginx, &room, client_ip(9, 10 + i)).await;
        if on == draining {
            let token = hello(&mut ws, &room).await;
            found = Some((room, ws, token, client_ip(9, 10 + i)));
            break;
        }
    }
    let (room, mut seated, token, from) = found.expect("a room on the same relay");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let relay_addr = cluster.relay(&draining).addr.clone();
    let terminated = Instant::now();
    cluster.relay(&draining).terminate();
    // The room's player is told to go at once (1012), not at the drain's end.
    let mut moved = None;
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_secs(3), seated.next()).await {
        if let Message::Close(f) = m {
            moved = f.map(|f| (u16::from(f.code), terminated.elapsed()));
            break;
        }
    }
    let (code, after) = moved.expect("the room's player was closed");
    assert_eq!(code, 1012);
    assert!(after < Duration::from_millis(1500), "{after:?}");
    let health = http(&relay_addr, "GET /healthz", "", b"").await.unwrap();
    assert_eq!(
        (health.status, health.json()["status"].as_str()),
        (503, Some("draining"))
    );
    // Back in through nginx (the draining relay answers 503, nginx tries
    // the next): the seat resumes there, and a newcomer finds the room.
    let (mut back, home) = connect(&cluster.nginx, &room, from).await;
    assert_ne!(home, draining);
    assert!(
        resume(&mut back, token).await,
        "the seat moved with its room"
    );
    let (_newcomer, elsewhere) = connect(&cluster.nginx, &room, client_ip(9, 1)).await;
    assert_eq!(elsewhere, home);
    // The drain delay ends: the private player, who played on, is told
    // 1001 and the relay exits.
    assert!(cluster.relay(&draining).wait_exit(Duration::from_secs(6)));
    let seen = player.await.unwrap();
    stop.store(true, Ordering::Relaxed);
    let (_, code) = seen.closed.expect("closed at the end of the drain");
    assert_eq!(code, Some(1001));
    assert!(
        seen.pongs.len() >= 6,
        "played on while draining: {} pongs",
        seen.pongs.len()
    );
    // It reconnects to another relay.
    let (_back, now_on) = connect(&cluster.nginx, private, client_ip(9, 0)).await;
    assert_ne!(now_on, draining);
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn a_scenario_saved_through_one_relay_opens_through_another_with_the_same_hash() {
    let cluster = Cluster::start(&[]).await;
    let mut run = sim::ScenarioRun::record("shared", 4, sim::protocol::Setup::default());
    let mut bot = sim::Bot::new();
    for _ in 0..300 {
        let (dir, dash) = bot.input(run.endpoint().position(), 1.0 / 60.0);
        run.step_live(1.0 / 60.0, dir, dash, false);
    }
    run.stop_recording();
    let scenario = run.scenario().clone();
    let saved = http(
        &cluster.nginx.addr,
        "POST /api/scenarios",
        "Content-Type: application/octet-stream\r\n",
        &codec_bytes(&scenario),
    )
    .await
    .unwrap();
    assert_eq!(saved.status, 201, "{}", saved.text());
    let saved_on = saved.header("x-relay-instance").unwrap().to_owned();
    let id = saved.json()["id"].as_str().unwrap().to_owned();
    // Through nginx (round robin) until another relay answers.
    let mut other = None;
    for _ in 0..6 {
        let page = http(&cluster.nginx.addr, &format!("GET /s/{id}"), "", b"")
            .await
            .unwrap();
        assert_eq!(page.status, 200);
        let on = page.header("x-relay-instance").unwrap().to_owned();
        if on != saved_on {
            other = Some(on);
            break;
        }
    }
    let other = other.expect("round robin reached another relay");
    // And at each relay directly: the same bytes, the same replay.
    for relay in &cluster.relays {
        let got = http(
            &relay.addr,
            &format!("GET /api/scenarios/{id}"),
            "Accept: application/octet-stream\r\n",
            b"",
        )
        .await
        .unwrap();
        assert_eq!(got.status, 200, "{}", relay.instance);
        let loaded = sim::scenario::codec::decode(&got.body).unwrap();
        let outcome = sim::ScenarioRun::run_to_end(loaded);
        assert_eq!(Some(outcome), scenario.outcome, "{}", relay.instance);
    }
    let unknown = http(&cluster.nginx.addr, "GET /s/AAAAAAAAAAAA", "", b"")
        .await
        .unwrap();
    assert_eq!(unknown.status, 404);
    println!("saved on {saved_on}, opened on {other} and every relay");
    cluster.finish().await;
}

fn codec_bytes(s: &sim::Scenario) -> Vec<u8> {
    sim::scenario::codec::encode(s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nginx and PostgreSQL: scripts/test.sh runs these with --ignored"]
async fn behind_nginx_the_per_address_cap_counts_each_client_and_cannot_be_forged() {
    let cluster = Cluster::start(&["--max-connections-per-ip", "4"]).await;
    let me = client_ip(10, 0);
    let mut open = Vec::new();
    for _ in 0..4 {
        open.push(connect(&cluster.nginx, "capped", me).await.0);
    }
    let url = cluster.nginx.ws_url("capped");
    assert_eq!(ws_connect(&url, &[], Some(me)).await.err(), Some(429));
    // nginx appends the real address to whatever the client claims.
    let forged = [("x-forwarded-for", "10.1.2.3")];
    assert_eq!(ws_connect(&url, &forged, Some(me)).await.err(), Some(429));
    // Another client in the same room is let in.
    assert!(ws_connect(&url, &[], Some(client_ip(10, 1))).await.is_ok());
    drop(open);
    cluster.finish().await;
}
