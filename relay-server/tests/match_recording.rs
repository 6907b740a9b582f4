//! A rollback room's match recording through the real relay (issue 23):
//! two players (tokio-tungstenite sockets, each driving the sim's
//! `RollbackPredictor` as the page does) play in
//! `/ws?room=NAME&model=rollback`; `GET /api/rooms/{name}/recording`
//! answers the match's `MatchRecording` (bytes, or JSON with `Accept:
//! application/json`, with `X-Room-Recording-Model: rollback` and the live
//! server's replay line), which replays to the recorded hashes. `POST` on
//! the same route saves it as a match recording (on each store backend:
//! `…::sqlite`, and `…::postgres` with `--ignored`): 201 with its links, a
//! second save of the stopped recording 200 with the same id, and
//! `GET /api/match-recordings/{id}` serves the same bytes; the room,
//! match and scenario routes answer 404 for each other's ids, naming the
//! right one. A relay with `--match-record-ticks 0` says so.

mod common;

use common::backend::Backend;
use common::*;
use futures_util::{SinkExt, StreamExt};
use relay_server::{AppState, Limits};
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::rollback::recording::{digest, replay, MatchRecording};
use sim::rollback::{InputFill, RollbackConfig, RollbackPredictor};
use sim::room::RoomClientMsg;
use sim::Vec2;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A loopback address of its own per connection (a room holds two seats
/// of one address).
fn next_address() -> std::net::IpAddr {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::net::IpAddr::from([127, 4, (n / 250) as u8, (n % 250 + 1) as u8])
}

/// A player of the match: its socket and the page's predictor.
struct Player {
    ws: Ws,
    predictor: RollbackPredictor,
    /// Rollback messages the predictor took.
    taken: usize,
}

impl Player {
    async fn join(relay: &Served, room: &str) -> Player {
        let url = relay.ws_url(&format!("room={room}&model=rollback"));
        let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
        send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
        Player {
            ws,
            predictor: RollbackPredictor::new(RollbackConfig::default()).unwrap(),
            taken: 0,
        }
    }

    fn receive(&mut self, msg: Option<Result<Message, impl std::fmt::Debug>>) {
        match msg {
            Some(Ok(Message::Binary(b))) => {
                if let Ok(ServerMsg::Rollback(m)) = codec::decode::<ServerMsg>(&b) {
                    if self.predictor.receive(m).is_ok() {
                        self.taken += 1;
                    }
                }
            }
            Some(Ok(Message::Close(f))) => panic!("closed: {f:?}"),
            Some(Ok(_)) => {}
            other => panic!("the socket ended: {other:?}"),
        }
    }

    /// One frame of `dt` s holding `direction`: its input packets out.
    async fn frame(&mut self, dt: f64, direction: Vec2) {
        for packet in self.predictor.frame(dt, direction, 0) {
            let frame = codec::encode(&ClientMsg::Inputs(packet));
            self.ws.send(Message::Binary(frame.into())).await.unwrap();
        }
    }
}

/// Plays `ms` of the match at 60 frames/s: `a` walks turning a quarter
/// every 400 ms, `b` the other way every 700 ms.
async fn play(a: &mut Player, b: &mut Player, ms: u64) {
    let end = tokio::time::Instant::now() + Duration::from_millis(ms);
    let mut frames = tokio::time::interval(Duration::from_micros(16_667));
    let start = Instant::now();
    let mut last = Instant::now();
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(end) => break,
            _ = frames.tick() => {
                let dt = last.elapsed().as_secs_f64();
                last = Instant::now();
                let t = start.elapsed().as_millis() as u64;
                let quarter = |period: u64, sign: f32| match (t / period) % 4 {
                    0 => Vec2::new(sign, 0.0),
                    1 => Vec2::new(0.0, 1.0),
                    2 => Vec2::new(-sign, 0.0),
                    _ => Vec2::new(0.0, -1.0),
                };
                a.frame(dt, quarter(400, 1.0)).await;
                b.frame(dt, quarter(700, -1.0)).await;
            }
            msg = a.ws.next() => a.receive(msg),
            msg = b.ws.next() => b.receive(msg),
        }
    }
}

/// `GET path` on `relay` with `extra` header lines.
async fn get(relay: &Served, path: &str, extra: &str) -> Answer {
    http(&relay.addr.to_string(), &format!("GET {path}"), extra, b"")
        .await
        .unwrap()
}

/// `POST path` on `relay`, no body.
async fn post(relay: &Served, path: &str) -> Answer {
    http(&relay.addr.to_string(), &format!("POST {path}"), "", b"")
        .await
        .unwrap()
}

/// The live line the relay sends for `rec`.
fn line_of(rec: &MatchRecording) -> String {
    let hashes = rec.hashes();
    format!(
        "ticks={} last={:016x} digest={:016x}",
        hashes.len(),
        hashes.last().copied().unwrap_or(0),
        digest(&hashes)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollback_rooms_match_recording_replays_to_the_hashes_its_server_computed() {
    let relay = start().await;
    let mut a = Player::join(&relay, "arena").await;
    let mut b = Player::join(&relay, "arena").await;
    play(&mut a, &mut b, 3_000).await;
    assert!(a.taken > 50 && b.taken > 50, "{} {}", a.taken, b.taken);

    let got = get(&relay, "/api/rooms/arena/recording", "").await;
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(got.header("content-type"), Some("application/octet-stream"));
    assert_eq!(got.header("x-room-recording-model"), Some("rollback"));
    assert_eq!(got.header("x-room-recording-truncated"), Some("false"));
    let rec = MatchRecording::from_bytes(&got.body).unwrap();
    assert!(!rec.truncated);
    assert_eq!(rec.seats(), sim::rollback::arena::MAX_PLAYERS);
    // The room recorded from its making: 3 s of play at 60 Hz, less the
    // time the second player took to come.
    assert!(rec.ticks.len() >= 150, "{} ticks", rec.ticks.len());
    let players: Vec<u8> = rec
        .joins
        .iter()
        .filter(|j| j.session.is_some())
        .map(|j| j.player)
        .collect();
    assert_eq!(players.len(), 2, "{:?}", rec.joins);
    // Both players' own inputs were used (and recorded as received).
    for p in players {
        let received = rec
            .ticks
            .iter()
            .filter(|t| t.inputs[usize::from(p)].fill == InputFill::Received)
            .count();
        assert!(
            received >= 100,
            "seat {p}: {received} ticks of its own input"
        );
    }
    // Replayed, every tick's hash is the one the server computed, and the
    // header's line is the live server's.
    let replayed = replay(&rec).unwrap();
    assert_eq!(rec.first_mismatch(&replayed), None);
    assert_eq!(replayed.hashes, rec.hashes());
    assert_eq!(got.header("x-room-recording-replay"), Some(&*line_of(&rec)));
    assert_eq!(replayed.line(), line_of(&rec));
    // A changed input would have shown: the replay checks something.
    let mut changed = rec.clone();
    let t = changed.ticks.len() / 2;
    changed.ticks[t].inputs[0].move_x = changed.ticks[t].inputs[0].move_x.wrapping_add(64);
    assert!(changed.first_mismatch(&replay(&changed).unwrap()).is_some());

    // The JSON form: the same match, from later in it.
    let json = get(
        &relay,
        "/api/rooms/arena/recording",
        "Accept: application/json\r\n",
    )
    .await;
    assert_eq!(json.status, 200, "{}", json.text());
    assert_eq!(json.header("content-type"), Some("application/json"));
    assert_eq!(json.header("x-room-recording-model"), Some("rollback"));
    let later = MatchRecording::from_json(&json.text()).unwrap();
    assert_eq!(
        json.header("x-room-recording-replay"),
        Some(&*line_of(&later))
    );
    assert!(later.ticks.len() >= rec.ticks.len());
    assert_eq!(later.ticks[..rec.ticks.len()], rec.ticks[..]);
    assert_eq!((later.match_id, &later.start), (rec.match_id, &rec.start));
    assert_eq!(
        later.first_mismatch(&replay(&later).unwrap()),
        None,
        "the JSON replays too"
    );

    // A CMC room's answer names its model.
    let url = relay.ws_url("room=lobby");
    let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    drain(&mut ws, 300).await;
    let cmc = get(&relay, "/api/rooms/lobby/recording", "").await;
    assert_eq!(cmc.status, 200, "{}", cmc.text());
    assert_eq!(cmc.header("x-room-recording-model"), Some("cmc"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_not_recording_matches_says_so_and_still_records_cmc_rooms() {
    let off = Limits {
        match_record_ticks: 0,
        ..Limits::default()
    };
    let relay = Served::start(AppState::with_limits("/nonexistent", 1, off)).await;
    let mut a = Player::join(&relay, "quiet").await;
    let mut b = Player::join(&relay, "quiet").await;
    play(&mut a, &mut b, 300).await;
    for got in [
        get(&relay, "/api/rooms/quiet/recording", "").await,
        post(&relay, "/api/rooms/quiet/recording").await,
    ] {
        assert_eq!(got.status, 404, "{}", got.text());
        assert_eq!(
            got.json()["error"],
            "room quiet: rollback matches are not recorded on this relay (relay: \
             --match-record-ticks 0)"
        );
    }
    let url = relay.ws_url("room=lobby");
    let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    drain(&mut ws, 300).await;
    let cmc = get(&relay, "/api/rooms/lobby/recording", "").await;
    assert_eq!(cmc.status, 200, "{}", cmc.text());
}

on_both_stores!(a_saved_match_recording_is_stored_once_and_served_by_its_own_route);

/// The match records 120 ticks (2 s) and stops: a save is 201 with its
/// links and numbers, the next finds it (200, the same answer, nothing
/// stored or charged), and `/api/match-recordings/{id}` serves the very
/// bytes the room's route gave. The routes of the other kinds answer 404
/// naming where it is opened, and it theirs.
async fn a_saved_match_recording_is_stored_once_and_served_by_its_own_route(backend: &Backend) {
    let limits = Limits {
        match_record_ticks: 120,
        ..Limits::default()
    };
    let dist = std::env::temp_dir().join(format!(
        "np-dist-match-{}-{}",
        backend.name(),
        std::process::id()
    ));
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>np</title>").unwrap();
    let state = backend.state_with_limits(&dist, limits).await;
    let relay = Served::start(state.clone()).await;
    let mut a = Player::join(&relay, "final").await;
    let mut b = Player::join(&relay, "final").await;
    play(&mut a, &mut b, 2_600).await;
    let live = get(&relay, "/api/rooms/final/recording", "").await;
    assert_eq!(live.status, 200, "{}", live.text());
    assert_eq!(live.header("x-room-recording-truncated"), Some("true"));
    let rec = MatchRecording::from_bytes(&live.body).unwrap();
    assert_eq!(rec.ticks.len(), 120);
    assert!(rec.truncated);
    assert_eq!(rec.first_mismatch(&replay(&rec).unwrap()), None);

    let saved = post(&relay, "/api/rooms/final/recording").await;
    assert_eq!(saved.status, 201, "{}", saved.text());
    let answer = saved.json();
    let id = answer["id"].as_str().unwrap().to_owned();
    assert!(relay_server::store::is_id(&id), "{id}");
    let seconds = answer["seconds"].as_f64().unwrap();
    assert!((seconds - 2.0).abs() < 1e-9, "{seconds}");
    assert_eq!(
        answer,
        serde_json::json!({
            "id": id,
            "url": format!("/?match-recording={id}"),
            "api": format!("/api/match-recordings/{id}"),
            "room": "final",
            "model": "rollback",
            "seconds": seconds,
            "ticks": 120,
            "bytes": live.body.len(),
            "truncated": true,
            "replay": line_of(&rec),
        })
    );
    // Stopped at its limit, the recording does not change: a second save
    // finds it.
    let again = post(&relay, "/api/rooms/final/recording").await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json(), answer);
    assert_eq!(state.store().count().await.unwrap(), 1);
    let row = state.store().get(&id).await.unwrap().unwrap();
    assert_eq!(
        (row.kind, row.name.as_str(), row.frames),
        (relay_server::store::ItemKind::Match, "final", 120)
    );

    // Served after the room is gone: the same bytes.
    drop((a, b));
    let got = get(&relay, &format!("/api/match-recordings/{id}"), "").await;
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(got.header("content-type"), Some("application/octet-stream"));
    assert_eq!(got.body, live.body);

    // Each kind's route names the others' ids.
    let got = get(&relay, &format!("/api/room-recordings/{id}"), "").await;
    assert_eq!(got.status, 404);
    assert_eq!(
        got.json()["error"],
        format!(
            "{id} is a match recording, not a room recording: open /?match-recording={id} \
             (its bytes: GET /api/match-recordings/{id})"
        )
    );
    let got = get(&relay, &format!("/api/scenarios/{id}"), "").await;
    assert_eq!(got.status, 404);
    assert_eq!(
        got.json()["error"],
        format!(
            "{id} is a match recording, not a scenario: open /?match-recording={id} \
             (its bytes: GET /api/match-recordings/{id})"
        )
    );
    assert_eq!(get(&relay, &format!("/s/{id}"), "").await.status, 404);
    let url = relay.ws_url("room=lobby");
    let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    drain(&mut ws, 300).await;
    let room = post(&relay, "/api/rooms/lobby/recording").await;
    assert_eq!(room.status, 201, "{}", room.text());
    assert_eq!(room.json()["model"], "cmc");
    let room = room.json()["id"].as_str().unwrap().to_owned();
    let got = get(&relay, &format!("/api/match-recordings/{room}"), "").await;
    assert_eq!(got.status, 404);
    assert_eq!(
        got.json()["error"],
        format!(
            "{room} is a room recording, not a match recording: open /?room-recording={room} \
             (its bytes: GET /api/room-recordings/{room})"
        )
    );
    let unknown = "AAAAAAAAAAAA";
    let got = get(&relay, &format!("/api/match-recordings/{unknown}"), "").await;
    assert_eq!(got.status, 404);
    assert_eq!(
        got.json()["error"],
        format!("no match recording with id {unknown}")
    );
    // A malformed id is not echoed (it may be up to 8 kB); bytes that are
    // not UTF-8, or no id at all, get the API's JSON answer too.
    let long = "x".repeat(5000);
    for (path, status, reason) in [
        (
            "/api/match-recordings/not-an-id".to_owned(),
            404,
            "no match recording with such an id: an id is 12 characters of A–Z, a–z, 0–9, - and _"
                .to_owned(),
        ),
        (
            format!("/api/match-recordings/{long}"),
            404,
            "no match recording with such an id: an id is 12 characters of A–Z, a–z, 0–9, - and _"
                .to_owned(),
        ),
        (
            "/api/match-recordings/%00%ff".to_owned(),
            400,
            "Invalid URL: Invalid UTF-8 in `id`".to_owned(),
        ),
        (
            "/api/match-recordings/".to_owned(),
            404,
            "no API route GET /api/match-recordings/".to_owned(),
        ),
    ] {
        let got = get(&relay, &path, "").await;
        assert_eq!(got.status, status, "{path}: {}", got.text());
        assert_eq!(got.json()["error"], reason, "{path}");
    }
    std::fs::remove_dir_all(dist).unwrap();
}

/// A PostgreSQL database left by a relay from before match recordings
/// (migrations 1–5, copied here as they were, with a scenario and a room
/// recording) upgrades in place: its rows are intact and found by their
/// digests, and a match recording goes beside them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: scripts/test.sh starts one and runs these with --ignored"]
async fn a_postgres_store_from_before_matches_upgrades_in_place() {
    use relay_server::store::{ItemKind, PgStore, ScenarioStore};
    let db = common::backend::TestDb::create().await;
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
             ALTER TABLE scenarios ADD COLUMN kind TEXT NOT NULL DEFAULT 'scenario'
                 CHECK (kind IN ('scenario', 'room'));
             ALTER TABLE scenarios ADD COLUMN digest BYTEA;
             CREATE INDEX scenarios_kind_digest ON scenarios (kind, digest);
             INSERT INTO scenarios (id, name, bytes, frames, created_at, kind, digest) VALUES
                 ('AAAAAAAAAAAA', 'old', '\\x0102', 1, 0, 'scenario', sha256('\\x0102')),
                 ('BBBBBBBBBBBB', 'lobby', '\\x030405', 60, 1, 'room', sha256('\\x030405'));
             INSERT INTO store_usage VALUES (1, 5, 2);
             INSERT INTO schema_migrations VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0);",
        )
        .await
        .unwrap();
    // The old schema refuses a match recording.
    let refused = client
        .execute(
            "INSERT INTO scenarios (id, name, bytes, frames, created_at, kind)
             VALUES ('MMMMMMMMMMMM', 'm', '\\x01', 1, 0, 'match')",
            &[],
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
    drop(client);
    let _ = task.await;

    let store = PgStore::connect(&db.url).await.unwrap();
    for (id, kind, name, bytes, frames) in [
        ("AAAAAAAAAAAA", ItemKind::Scenario, "old", &[1u8, 2][..], 1),
        ("BBBBBBBBBBBB", ItemKind::Room, "lobby", &[3, 4, 5], 60),
    ] {
        let row = store.get(id).await.unwrap().unwrap();
        assert_eq!(
            (
                row.kind,
                row.name.as_str(),
                row.bytes.as_slice(),
                row.frames
            ),
            (kind, name, bytes, frames),
            "{id}"
        );
        assert_eq!(
            store.find(kind, name, bytes).await.unwrap().as_deref(),
            Some(id)
        );
    }
    // The usage row carried over: 5 bytes stored, an 8-byte cap.
    assert!(matches!(
        store.insert(ItemKind::Match, "duel", &[9; 4], 60, 8).await,
        Err(relay_server::store::StoreError::Full {
            used: 5,
            adding: 4,
            cap: 8
        })
    ));
    let saved = store
        .insert(ItemKind::Match, "duel", &[9; 3], 60, 8)
        .await
        .unwrap();
    assert!(!saved.existing);
    let row = store.get(&saved.id).await.unwrap().unwrap();
    assert_eq!(
        (
            row.kind,
            row.name.as_str(),
            row.bytes.as_slice(),
            row.frames
        ),
        (ItemKind::Match, "duel", &[9u8; 3][..], 60)
    );
    let again = store
        .insert(ItemKind::Match, "duel", &[9; 3], 60, 8)
        .await
        .unwrap();
    assert_eq!(
        (again.id.as_str(), again.existing),
        (saved.id.as_str(), true)
    );
    assert_eq!(store.count().await.unwrap(), 3);
    // Opened again: nothing applied twice; another kind is still refused.
    drop(store);
    let again = PgStore::connect(&db.url).await.unwrap();
    assert_eq!(again.count().await.unwrap(), 3);
    drop(again);
    let (client, conn) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    let odd = client
        .execute(
            "INSERT INTO scenarios (id, name, bytes, frames, created_at, kind)
             VALUES ('DDDDDDDDDDDD', 'x', '\\x01', 1, 0, 'movie')",
            &[],
        )
        .await;
    assert!(odd.is_err(), "{odd:?}");
    let applied: i64 = client
        .query_one("SELECT COUNT(*) FROM schema_migrations", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(applied, 6);
    drop(client);
    let _ = task.await;
    db.drop_db().await;
}
