//! A shared CMC room's recording through the real relay (issue 23): two
//! players (the sim's own room client, over tokio-tungstenite) move and
//! one shoots the other; `GET /api/rooms/{name}/recording` answers the
//! recording, which replays to the live host's tick hashes and to the
//! verdicts the shooter received. An unknown room, a private session, a
//! relay not recording and a recording at its limit are answered with
//! their reasons (a rollback room's match: tests/match_recording.rs); the
//! `scenario` CLI replays a golden room recording and refuses corrupted
//! copies. `POST` on the same route saves the recording (on each store
//! backend: `…::sqlite`, and `…::postgres` with `--ignored`), which
//! `GET /api/room-recordings/{id}` serves after the room is gone; saves
//! share the scenarios' budget per address and storage cap, and each
//! kind's routes answer 404 for the other's ids.

mod common;

use common::backend::{Backend, TestDb};
use common::*;
use futures_util::{SinkExt, StreamExt};
use relay_server::store::{is_id, ItemKind, PgStore, ScenarioStore};
use relay_server::{AppState, Limits, Rate};
use sim::endpoints::room::recording::{RecordedEvent, RoomRecording, RoomRecordingFile};
use sim::endpoints::room::replay::replay;
use sim::endpoints::room::reports::shots::strafer;
use sim::endpoints::room::RoomEndpoint;
use sim::net::codec;
use sim::protocol::Setup;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::room::{PlayerId, RoomClientMsg, RoomServerMsg};
use sim::scenario::codec as scenario_codec;
use sim::{Bot, NetSettings, ScenarioRun, SimTime, Vec2};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A loopback address of its own per connection (a room holds two seats
/// of one address).
fn next_address() -> std::net::IpAddr {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::net::IpAddr::from([127, 3, (n / 250) as u8, (n % 250 + 1) as u8])
}

/// A page in a room: the sim's room client on its own socket.
struct Page {
    ws: Ws,
    end: RoomEndpoint,
}

impl Page {
    async fn open(relay: &Served, room: &str, seed: u64) -> Page {
        let url = relay.ws_url(&format!("room={room}"));
        let (ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
        Page {
            ws,
            end: RoomEndpoint::new(seed),
        }
    }

    async fn send_all(&mut self, frames: Vec<Vec<u8>>) {
        for f in frames {
            self.ws.send(Message::Binary(f.into())).await.unwrap();
        }
    }

    fn receive(&mut self, now: SimTime, msg: Option<Result<Message, impl std::fmt::Debug>>) {
        match msg {
            Some(Ok(Message::Binary(b))) => {
                self.end.receive_frame(now, &b).unwrap();
            }
            Some(Ok(_)) => {}
            other => panic!("the socket ended: {other:?}"),
        }
    }
}

/// Plays `ms` of room `room`: `shooter` stands and, from 1.5 s until
/// 1.5 s before the end, fires every 300 ms at `target` as drawn;
/// `target` strafes. Returns the shots fired.
async fn duel(shooter: &mut Page, target: &mut Page, ms: u64) -> usize {
    const FRAME: f64 = 1.0 / 60.0;
    let start = Instant::now();
    let now = || SimTime(start.elapsed().as_micros() as u64);
    let mut frames = tokio::time::interval(Duration::from_micros(16_667));
    let mut steer = strafer(false);
    let (mut fired, mut next_shot) = (0, 1_500_000);
    let end = ms * 1000;
    while now().0 < end {
        tokio::select! {
            _ = frames.tick() => {
                let t = now();
                let out = shooter.end.frame(t, FRAME, Vec2::ZERO, false);
                shooter.send_all(out).await;
                let (dir, dash) = steer.input(target.end.client().state().position, FRAME as f32);
                let out = target.end.frame(t, FRAME, dir, dash);
                target.send_all(out).await;
                let aim = target.end.me().and_then(|id| shooter.end.proxies().get(id)).map(|p| p.drawn_position());
                if let Some(aim) = aim.filter(|_| t.0 >= next_shot && t.0 + 1_500_000 < end) {
                    next_shot = t.0 + 300_000;
                    shooter.end.fire(t, aim).unwrap();
                    fired += 1;
                    let out = shooter.end.take_outgoing();
                    shooter.send_all(out).await;
                }
            }
            msg = shooter.ws.next() => shooter.receive(now(), msg),
            msg = target.ws.next() => target.receive(now(), msg),
        }
    }
    fired
}

/// `GET path` on `relay` with `extra` header lines.
async fn get(relay: &Served, path: &str, extra: &str) -> Answer {
    http(&relay.addr.to_string(), &format!("GET {path}"), extra, b"")
        .await
        .unwrap()
}

#[tokio::test]
async fn a_rooms_recording_replays_to_the_live_hashes_and_the_verdicts_the_shooter_saw() {
    let relay = start().await;
    let mut shooter = Page::open(&relay, "duel", 1).await;
    let mut target = Page::open(&relay, "duel", 2).await;
    // The target on a worse link (the room records its SetNetSettings).
    target
        .end
        .set_net_settings(NetSettings::symmetric(150, 10, 3));
    let play_ms = 5_000;
    let fired = duel(&mut shooter, &mut target, play_ms).await;
    assert!(fired >= 6, "{fired} shots fired");

    let asked = Instant::now();
    let got = get(&relay, "/api/rooms/duel/recording", "").await;
    let latency = asked.elapsed();
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(got.header("content-type"), Some("application/octet-stream"));
    assert_eq!(got.header("x-room-recording-truncated"), Some("false"));
    let recording = RoomRecording::from_bytes(&got.body).unwrap();
    assert!(!recording.truncated);
    let joins = recording
        .events
        .iter()
        .filter(|e| matches!(e, RecordedEvent::Join { .. }))
        .count();
    assert_eq!(joins, 2);
    // Every tick of the 5 s played (and the moment until the GET).
    let ticks = recording.tick_hashes.len();
    assert!((300..=400).contains(&ticks), "{ticks} ticks");

    let started = Instant::now();
    let out = replay(&recording).unwrap();
    let replay_took = started.elapsed();
    assert_eq!(out.first_divergence, None);
    assert_eq!(out.tick_hashes, recording.tick_hashes);
    // The live host's line (its own tick hashes and verdicts) is the
    // replay's.
    assert_eq!(got.header("x-room-recording-replay"), Some(&*out.line()));

    // Every shot fired was judged once, as the shooter was told.
    let me = shooter.end.me().unwrap();
    let them: PlayerId = target.end.me().unwrap();
    assert_eq!(out.shots.len(), fired, "{}", out.line());
    assert!(out.shots.iter().all(|s| s.shooter == me));
    let told: Vec<_> = shooter
        .end
        .events()
        .verdicts()
        .map(|(_, r)| (r.seq, r.verdict, r.target.map(|t| t.id)))
        .collect();
    let judged: Vec<_> = out
        .shots
        .iter()
        .map(|s| (s.seq, s.verdict, s.target))
        .collect();
    assert_eq!(told, judged);
    assert!(out.hits() > 0 && out.shots.iter().any(|s| s.target == Some(them)));

    // The JSON form: a golden-suite file naming the room, holding the
    // bytes, with the live line, which its replay gives.
    let got = get(
        &relay,
        "/api/rooms/duel/recording",
        "Accept: application/json\r\n",
    )
    .await;
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(got.header("content-type"), Some("application/json"));
    let file = RoomRecordingFile::from_json(&got.text()).unwrap();
    assert_eq!(file.name, "duel");
    assert!(
        file.description.contains("2 players joined"),
        "{}",
        file.description
    );
    let again = replay(&file.recording().unwrap()).unwrap();
    assert_eq!(again.first_divergence, None);
    assert_eq!(file.replay, again.line());
    assert_eq!(again.shots.len(), fired);

    // What the room holds: the events, each poll's messages, the hashes
    // (heap blocks' own overhead aside).
    let in_memory = recording.events.len() * std::mem::size_of::<RecordedEvent>()
        + recording
            .events
            .iter()
            .map(|e| match e {
                RecordedEvent::Poll { received, .. } => {
                    received.capacity() * std::mem::size_of::<(PlayerId, ClientMsg)>()
                }
                _ => 0,
            })
            .sum::<usize>()
        + recording.tick_hashes.capacity() * 8;
    let (secs, n) = (recording.seconds(), recording.events.len() as f64);
    let bytes = recording.to_bytes().unwrap().len() as f64;
    println!(
        "{n} inputs ({:.0} /s), {bytes} bytes over {secs:.1} s: {:.0} B/s, {:.0} B per \
         player-second, {:.1} B an input encoded, {:.0} B an input in memory; GET {:.2} ms; \
         replay {:.1} ms; {}",
        n / secs,
        bytes / secs,
        bytes / secs / 2.0,
        bytes / n,
        in_memory as f64 / n,
        latency.as_secs_f64() * 1e3,
        replay_took.as_secs_f64() * 1e3,
        out.line()
    );
}

/// Joins `room` with a bare socket and waits for the seat.
async fn join(relay: &Served, room: &str) -> Ws {
    let url = relay.ws_url(&format!("room={room}"));
    let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let msg = tokio::time::timeout_at(deadline, ws.next())
            .await
            .expect("a Joined within 5 s");
        if let Some(Ok(Message::Binary(b))) = msg {
            if let Ok(ServerMsg::Room(RoomServerMsg::Joined { .. })) = codec::decode(&b) {
                return ws;
            }
        }
    }
}

#[tokio::test]
async fn an_unknown_room_or_a_relay_not_recording_is_a_404_with_its_reason() {
    let relay = start().await;
    let got = get(&relay, "/api/rooms/nowhere/recording", "").await;
    assert_eq!(got.status, 404);
    let reason = got.json()["error"].as_str().unwrap().to_owned();
    assert!(
        reason.starts_with("room nowhere: no such room on this relay (relay)")
            && reason.contains("X-Relay-Room-Home"),
        "{reason}"
    );
    let got = get(&relay, "/api/rooms/p-12345678/recording", "").await;
    assert_eq!(got.status, 404);
    assert!(got.text().contains("a private session is not recorded"));
    let got = get(&relay, "/api/rooms/bad%20name/recording", "").await;
    assert_eq!(got.status, 400, "{}", got.text());
    // A rollback room records its match (tests/match_recording.rs), and
    // says which model's recording it answers.
    let url = relay.ws_url("room=match&model=rollback");
    let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    drain(&mut ws, 300).await;
    let got = get(&relay, "/api/rooms/match/recording", "").await;
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(got.header("x-room-recording-model"), Some("rollback"));

    let off = Limits {
        room_record_events: 0,
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, off)).await;
    let _player = join(&relay, "quiet").await;
    let got = get(&relay, "/api/rooms/quiet/recording", "").await;
    assert_eq!(got.status, 404);
    let reason = got.json()["error"].as_str().unwrap().to_owned();
    assert!(
        reason.starts_with("room quiet: rooms are not recorded on this relay")
            && reason.contains("--room-record-events 0"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_recording_at_its_limit_stops_says_so_and_replays_as_the_shorter_room() {
    let few = Limits {
        room_record_events: 40,
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, few)).await;
    let mut player = join(&relay, "short").await;
    // A second of the room: 60 ticks, each a recorded poll, past 40.
    drain(&mut player, 1_000).await;
    let got = get(&relay, "/api/rooms/short/recording", "").await;
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(got.header("x-room-recording-truncated"), Some("true"));
    let recording = RoomRecording::from_bytes(&got.body).unwrap();
    assert!(recording.truncated);
    assert_eq!(recording.events.len(), 40);
    let out = replay(&recording).unwrap();
    assert_eq!(out.first_divergence, None);
    assert_eq!(out.tick_hashes, recording.tick_hashes);
    assert!(recording.tick_hashes.len() < 60, "{}", recording.seconds());
    let got = get(
        &relay,
        "/api/rooms/short/recording",
        "Accept: application/json\r\n",
    )
    .await;
    let file = RoomRecordingFile::from_json(&got.text()).unwrap();
    assert!(
        file.description
            .contains("recording stopped at its limit of 40 inputs"),
        "{}",
        file.description
    );
}

/// `POST path` on `relay`, no body.
async fn post(relay: &Served, path: &str) -> Answer {
    http(&relay.addr.to_string(), &format!("POST {path}"), "", b"")
        .await
        .unwrap()
}

/// The value of the Prometheus sample `series` (name and labels) on
/// `relay`, 0 when absent.
async fn sample(relay: &Served, series: &str) -> u64 {
    let metrics = get(relay, "/metrics", "").await.text();
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0)
}

on_both_stores!(a_saved_room_recording_outlives_its_room_and_replays_to_what_the_save_said);

async fn a_saved_room_recording_outlives_its_room_and_replays_to_what_the_save_said(
    backend: &Backend,
) {
    let limits = Limits {
        empty_room_lifetime: Duration::from_millis(200),
        ..Limits::default()
    };
    let relay = Served::start(backend.state_with_limits("/nonexistent", limits).await).await;
    let mut shooter = Page::open(&relay, "keep", 1).await;
    let mut target = Page::open(&relay, "keep", 2).await;
    // Shots from 1.5 s to 2.5 s, every 300 ms.
    let fired = duel(&mut shooter, &mut target, 4_000).await;
    assert!(fired >= 3, "{fired} shots fired");

    let saved = post(&relay, "/api/rooms/keep/recording?room=keep").await;
    assert_eq!(saved.status, 201, "{}", saved.text());
    let answer = saved.json();
    let id = answer["id"].as_str().unwrap().to_owned();
    assert!(is_id(&id), "{id}");
    assert_eq!(answer["url"], format!("/?room-recording={id}"));
    assert_eq!(answer["api"], format!("/api/room-recordings/{id}"));
    assert_eq!(answer["room"], "keep");
    assert_eq!(answer["model"], "cmc");
    assert_eq!(answer["truncated"], false);
    assert_eq!(answer["shots"], fired);
    let ticks = answer["ticks"].as_u64().unwrap() as usize;
    assert!((240..=320).contains(&ticks), "{ticks} ticks");
    assert_eq!(
        sample(
            &relay,
            "relay_room_recording_saves_total{result=\"created\"}"
        )
        .await,
        1
    );

    // Both leave; the room goes once empty.
    shooter.ws.close(None).await.unwrap();
    target.ws.close(None).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let live = get(&relay, "/api/rooms/keep/recording", "").await;
        if live.status == 404 {
            assert!(live.text().contains("no such room"), "{}", live.text());
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the room is still there after 5 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let got = get(&relay, &format!("/api/room-recordings/{id}"), "").await;
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(got.header("content-type"), Some("application/octet-stream"));
    assert_eq!(
        got.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(answer["bytes"], got.body.len());
    let recording = RoomRecording::from_bytes(&got.body).unwrap();
    assert!(!recording.truncated);
    assert_eq!(recording.seconds(), answer["seconds"].as_f64().unwrap());
    let out = replay(&recording).unwrap();
    assert_eq!(out.first_divergence, None);
    assert_eq!(out.tick_hashes.len(), ticks);
    assert_eq!(out.shots.len(), fired);
    // The save's line is the live host's, and the replay gives it.
    assert_eq!(answer["replay"], out.line());
}

/// A 1 s scenario, as the page would save it.
fn scenario_bytes() -> Vec<u8> {
    let mut run = ScenarioRun::record("kinds", 9, Setup::default());
    let mut bot = Bot::new();
    for _ in 0..60 {
        let (dir, dash) = bot.input(run.endpoint().position(), 1.0 / 60.0);
        run.step_live(1.0 / 60.0, dir, dash, false);
    }
    run.stop_recording();
    scenario_codec::encode(run.scenario())
}

/// `POST /api/scenarios` with [`scenario_bytes`].
async fn post_scenario(relay: &Served) -> Answer {
    http(
        &relay.addr.to_string(),
        "POST /api/scenarios",
        "Content-Type: application/octet-stream\r\n",
        &scenario_bytes(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn room_recordings_and_scenarios_are_each_served_only_as_themselves() {
    let dist = std::env::temp_dir().join(format!("np-dist-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>np</title>").unwrap();
    let relay = Served::start(AppState::new(&dist, 1)).await;

    for unknown in ["AAAAAAAAAAAA", "nope", "AAAAAAAAAAA%2F"] {
        let got = get(&relay, &format!("/api/room-recordings/{unknown}"), "").await;
        assert_eq!(got.status, 404, "{unknown}: {}", got.text());
        assert!(
            got.json()["error"]
                .as_str()
                .unwrap()
                .starts_with("no room recording with "),
            "{}",
            got.text()
        );
    }

    let _player = join(&relay, "solo").await;
    let saved = post(&relay, "/api/rooms/solo/recording").await;
    assert_eq!(saved.status, 201, "{}", saved.text());
    let room = saved.json()["id"].as_str().unwrap().to_owned();
    let scenario = post_scenario(&relay).await;
    assert_eq!(scenario.status, 201, "{}", scenario.text());
    let scenario = scenario.json()["id"].as_str().unwrap().to_owned();

    let got = get(&relay, &format!("/api/room-recordings/{scenario}"), "").await;
    assert_eq!(got.status, 404);
    assert_eq!(
        got.json()["error"],
        format!("{scenario} is a scenario, not a room recording: open /s/{scenario}")
    );
    let room_reason = format!(
        "{room} is a room recording, not a scenario: open /?room-recording={room} (its bytes: \
         GET /api/room-recordings/{room})"
    );
    for accept in ["application/json", "application/octet-stream"] {
        let got = get(
            &relay,
            &format!("/api/scenarios/{room}"),
            &format!("Accept: {accept}\r\n"),
        )
        .await;
        assert_eq!(got.status, 404, "{accept}");
        assert_eq!(got.json()["error"], room_reason);
    }
    assert_eq!(get(&relay, &format!("/s/{room}"), "").await.status, 404);
    assert_eq!(get(&relay, &format!("/s/{scenario}"), "").await.status, 200);
    let got = get(&relay, &format!("/api/scenarios/{scenario}"), "").await;
    assert_eq!(got.status, 200);

    // A save is refused as the GET is, with the same reason.
    for (path, status) in [
        ("/api/rooms/nowhere/recording?room=nowhere", 404),
        ("/api/rooms/p-12345678/recording", 404),
        ("/api/rooms/bad%20name/recording", 400),
    ] {
        let saved = post(&relay, path).await;
        let live = get(&relay, path, "").await;
        assert_eq!((saved.status, live.status), (status, status), "{path}");
        assert_eq!(saved.json()["error"], live.json()["error"], "{path}");
    }
    assert_eq!(
        sample(
            &relay,
            "relay_room_recording_saves_total{result=\"rejected\"}"
        )
        .await,
        3
    );
    std::fs::remove_dir_all(dist).unwrap();
}

#[tokio::test]
async fn room_saves_share_the_scenarios_budget_per_address_and_the_storage_cap() {
    let two = Limits {
        saves: Rate {
            per_second: 1.0 / 600.0,
            burst: 2.0,
        },
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, two)).await;
    let mut player = join(&relay, "busy").await;
    // Each save a few ticks apart: a recording that has not changed since
    // the last save is that save's (200, uncharged).
    for _ in 0..2 {
        drain(&mut player, 50).await;
        let saved = post(&relay, "/api/rooms/busy/recording").await;
        assert_eq!(saved.status, 201, "{}", saved.text());
    }
    drain(&mut player, 50).await;
    let refused = post(&relay, "/api/rooms/busy/recording").await;
    assert_eq!(refused.status, 429, "{}", refused.text());
    let secs: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((590..=600).contains(&secs), "{secs}");
    assert_eq!(
        refused.json()["error"],
        format!(
            "too many saves from this address (2 at once, then one every 600 s): try again in \
             {secs} s"
        )
    );
    // The same budget as scenarios'.
    let scenario = post_scenario(&relay).await;
    assert_eq!(scenario.status, 429, "{}", scenario.text());
    // A room that is not here costs nothing and says so.
    assert_eq!(post(&relay, "/api/rooms/gone/recording").await.status, 404);
    for (series, n) in [
        ("relay_room_recording_saves_total{result=\"created\"}", 2),
        (
            "relay_room_recording_saves_total{result=\"rate_limited\"}",
            1,
        ),
        ("relay_room_recording_saves_total{result=\"rejected\"}", 1),
        ("relay_scenario_saves_total{result=\"rate_limited\"}", 1),
    ] {
        assert_eq!(sample(&relay, series).await, n, "{series}");
    }

    let tiny = Limits {
        max_store_bytes: 64,
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, tiny)).await;
    let mut player = join(&relay, "big").await;
    drain(&mut player, 300).await;
    let full = post(&relay, "/api/rooms/big/recording").await;
    assert_eq!(full.status, 507, "{}", full.text());
    let reason = full.json()["error"].as_str().unwrap().to_owned();
    assert!(
        reason.starts_with("the scenario store is full: its scenarios take 0 bytes")
            && reason.ends_with("would pass the cap of 64 bytes"),
        "{reason}"
    );
    assert_eq!(
        sample(
            &relay,
            "relay_room_recording_saves_total{result=\"store_full\"}"
        )
        .await,
        1
    );
}

/// A PostgreSQL database left by a relay from before kinds (migrations
/// 1–3, copied here as they were) upgrades in place: its rows are
/// scenarios (with their digests), and a room recording goes beside them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: scripts/test.sh starts one and runs these with --ignored"]
async fn a_postgres_store_from_before_kinds_upgrades_in_place() {
    let db = TestDb::create().await;
    let (client, conn) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    client
        .batch_execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL);
             CREATE TABLE scenarios (id TEXT PRIMARY KEY, name TEXT NOT NULL, bytes BYTEA NOT NULL,
                 frames BIGINT NOT NULL, created_at BIGINT NOT NULL);
             CREATE TABLE store_usage (id INTEGER PRIMARY KEY CHECK (id = 1), bytes BIGINT NOT NULL,
                 scenarios BIGINT NOT NULL);
             CREATE TABLE room_homes (room TEXT PRIMARY KEY, home TEXT NOT NULL,
                 instance TEXT NOT NULL, lease BIGINT NOT NULL,
                 lease_until TIMESTAMPTZ NOT NULL, checkpoint BYTEA);
             INSERT INTO scenarios VALUES ('AAAAAAAAAAAA', 'old', '\\x0102', 1, 0);
             INSERT INTO store_usage VALUES (1, 2, 1);
             INSERT INTO schema_migrations VALUES (1, 0), (2, 0), (3, 0);",
        )
        .await
        .unwrap();
    drop(client);
    let _ = task.await;

    let store = PgStore::connect(&db.url).await.unwrap();
    let old = store.get("AAAAAAAAAAAA").await.unwrap().unwrap();
    assert_eq!(
        (old.kind, old.name.as_str(), old.bytes.as_slice()),
        (ItemKind::Scenario, "old", &[1u8, 2][..])
    );
    // The usage row carried over: 2 bytes stored, a 5-byte cap.
    assert!(matches!(
        store.insert(ItemKind::Room, "lobby", &[7; 4], 60, 5).await,
        Err(relay_server::store::StoreError::Full {
            used: 2,
            adding: 4,
            cap: 5
        })
    ));
    let id = store
        .insert(ItemKind::Room, "lobby", &[7; 3], 60, 5)
        .await
        .unwrap()
        .id;
    let room = store.get(&id).await.unwrap().unwrap();
    assert_eq!(
        (
            room.kind,
            room.name.as_str(),
            room.bytes.as_slice(),
            room.frames
        ),
        (ItemKind::Room, "lobby", &[7u8; 3][..], 60)
    );
    assert_eq!(store.count().await.unwrap(), 2);
    // The old row got its digest as the store migrated: saving it again
    // finds it.
    assert_eq!(
        store
            .find(ItemKind::Scenario, "old", &[1, 2])
            .await
            .unwrap()
            .as_deref(),
        Some("AAAAAAAAAAAA")
    );
    let again = store
        .insert(ItemKind::Scenario, "old", &[1, 2], 1, 0)
        .await
        .unwrap();
    assert_eq!((again.id.as_str(), again.existing), ("AAAAAAAAAAAA", true));
    assert_eq!(store.count().await.unwrap(), 2);
    // Opened again: nothing applied twice.
    drop(store);
    let again = PgStore::connect(&db.url).await.unwrap();
    assert_eq!(again.count().await.unwrap(), 2);
    drop(again);
    db.drop_db().await;
}

on_both_stores!(thirteen_saves_of_one_recording_store_it_once_and_spend_one_save);

/// The operator's trial: the same recording saved 13 times stored 13
/// copies and spent 13 saves. A stopped recording (at its limit) does not
/// change, so each save after the first finds it: 200, the same id,
/// nothing stored, nothing spent.
async fn thirteen_saves_of_one_recording_store_it_once_and_spend_one_save(backend: &Backend) {
    let limits = Limits {
        room_record_events: 40,
        saves: Rate {
            per_second: 1.0 / 600.0,
            burst: 2.0,
        },
        ..Limits::default()
    };
    let state = backend.state_with_limits("/nonexistent", limits).await;
    let relay = Served::start(state.clone()).await;
    let mut player = join(&relay, "still").await;
    // Past the 40 inputs' limit: the recording no longer changes.
    drain(&mut player, 1_000).await;
    let first = post(&relay, "/api/rooms/still/recording").await;
    assert_eq!(first.status, 201, "{}", first.text());
    let first = first.json();
    for i in 1..13 {
        let again = post(&relay, "/api/rooms/still/recording").await;
        assert_eq!(again.status, 200, "save {}: {}", i + 1, again.text());
        assert_eq!(again.json(), first, "save {}: the same answer", i + 1);
    }
    assert_eq!(state.store().count().await.unwrap(), 1);
    assert_eq!(
        sample(
            &relay,
            "relay_room_recording_saves_total{result=\"created\"}"
        )
        .await,
        1
    );
    assert_eq!(
        sample(
            &relay,
            "relay_room_recording_saves_total{result=\"existing\"}"
        )
        .await,
        12
    );
    // One save of the two spent: a scenario still goes in, then the
    // budget is out.
    let scenario = post_scenario(&relay).await;
    assert_eq!(scenario.status, 201, "{}", scenario.text());
    let again = post_scenario(&relay).await;
    assert_eq!(again.status, 200, "the same scenario: {}", again.text());
    assert_eq!(again.json(), scenario.json());
    // Another room's recording is new: refused only by the spent budget.
    let _other = join(&relay, "other").await;
    assert_eq!(post(&relay, "/api/rooms/other/recording").await.status, 429);
    assert_eq!(state.store().count().await.unwrap(), 2);
}
