//! A shared CMC room's recording through the real relay (issue 23): two
//! players (the sim's own room client, over tokio-tungstenite) move and
//! one shoots the other; `GET /api/rooms/{name}/recording` answers the
//! recording, which replays to the live host's tick hashes and to the
//! verdicts the shooter received. An unknown room, a private session, a
//! rollback room, a relay not recording and a recording at its limit are
//! answered with their reasons; the
//! `scenario` CLI replays a golden room recording and refuses corrupted
//! copies.

mod common;

use common::*;
use futures_util::{SinkExt, StreamExt};
use relay_server::{AppState, Limits};
use sim::endpoints::room::recording::{RecordedEvent, RoomRecording, RoomRecordingFile};
use sim::endpoints::room::replay::replay;
use sim::endpoints::room::reports::shots::strafer;
use sim::endpoints::room::RoomEndpoint;
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::room::{PlayerId, RoomClientMsg, RoomServerMsg};
use sim::{NetSettings, SimTime, Vec2};
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
    // A rollback room keeps no CMC recording.
    let url = relay.ws_url("room=match&model=rollback");
    let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
    send(&mut ws, &ClientMsg::Room(RoomClientMsg::Join)).await;
    drain(&mut ws, 300).await;
    let got = get(&relay, "/api/rooms/match/recording", "").await;
    assert_eq!(got.status, 404);
    assert_eq!(
        got.json()["error"],
        "room match: it runs the rollback model: only CMC rooms are recorded"
    );

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
