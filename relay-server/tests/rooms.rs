//! Shared rooms through the real relay (issue #13): tokio-tungstenite
//! clients in one room, each receiving the others at its own net update
//! rate over its own link; one leaving disappears from the others within
//! one net update; the 17th is refused; a malformed or abusive client is
//! closed alone; a dropped socket takes its seat back; `/api/rooms` and
//! `/metrics` count the rooms and an empty room is dropped.

mod common;

use common::*;
use futures_util::{SinkExt, StreamExt};
use sim::net::codec;
use sim::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::room::{PlayerId, PlayerSettings, RoomClientMsg, RoomServerMsg};
use sim::NetSettings;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A client in a room.
struct Player {
    ws: Ws,
    id: PlayerId,
    token: ResumeToken,
    next_ping: u32,
    /// Ping id → when it left.
    pings: BTreeMap<u32, Instant>,
}

/// What a client saw while playing: messages with their arrival times,
/// and its Pings' round trips.
#[derive(Default)]
struct Seen {
    msgs: Vec<(Instant, ServerMsg)>,
    rtts_ms: Vec<f64>,
    closed: Option<(u16, String)>,
}

impl Seen {
    /// The net updates, with their arrival times.
    fn batches(&self) -> Vec<(Instant, &sim::room::replication::ProxyBatch)> {
        self.msgs
            .iter()
            .filter_map(|(t, m)| match m {
                ServerMsg::Room(RoomServerMsg::Proxies(b)) => Some((*t, b)),
                _ => None,
            })
            .collect()
    }

    fn errors(&self) -> Vec<&str> {
        self.msgs
            .iter()
            .filter_map(|(_, m)| match m {
                ServerMsg::Error { reason } => Some(reason.as_str()),
                _ => None,
            })
            .collect()
    }

    fn median_rtt(&self) -> f64 {
        let mut r = self.rtts_ms.clone();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    }
}

async fn send_msg(ws: &mut Ws, msg: &ClientMsg) {
    ws.send(Message::Binary(codec::encode(msg).into()))
        .await
        .unwrap();
}

/// A loopback address of its own for each connection: a room holds only
/// two seats of one address.
fn next_address() -> std::net::IpAddr {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::net::IpAddr::from([127, 1, (n / 250) as u8, (n % 250 + 1) as u8])
}

/// Opens `/ws?room=<room>` from an address of its own and sends `first`.
async fn open(relay: &Served, room: &str, first: &ClientMsg) -> Ws {
    let url = relay.ws_url(&format!("room={room}"));
    let (mut ws, _) = ws_connect(&url, &[], Some(next_address())).await.unwrap();
    send_msg(&mut ws, first).await;
    ws
}

/// Reads until the seat is confirmed: the Joined and the session token.
async fn seated(mut ws: Ws) -> Player {
    let (mut id, mut token) = (None, None);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while id.is_none() || token.is_none() {
        let msg = tokio::time::timeout_at(deadline, ws.next())
            .await
            .expect("a Joined and a token within 5 s");
        if let Some(Ok(Message::Binary(b))) = msg {
            match codec::decode::<ServerMsg>(&b).unwrap() {
                ServerMsg::Room(RoomServerMsg::Joined { you, .. }) => id = Some(you),
                ServerMsg::SessionToken { token: t, .. } => token = Some(t),
                _ => {}
            }
        }
    }
    Player {
        ws,
        id: id.unwrap(),
        token: token.unwrap(),
        next_ping: 1,
        pings: BTreeMap::new(),
    }
}

/// Joins `room`.
async fn join(relay: &Served, room: &str) -> Player {
    seated(open(relay, room, &ClientMsg::Room(RoomClientMsg::Join)).await).await
}

impl Player {
    async fn send(&mut self, msg: &ClientMsg) {
        send_msg(&mut self.ws, msg).await;
    }

    /// Plays for `ms` as a page does (a Ping every 100 ms) and returns
    /// what arrived.
    async fn play(&mut self, ms: u64) -> Seen {
        let mut seen = Seen::default();
        let end = tokio::time::Instant::now() + Duration::from_millis(ms);
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(end) => break,
                _ = tick.tick() => {
                    let id = self.next_ping;
                    self.next_ping += 1;
                    self.pings.insert(id, Instant::now());
                    let frame = codec::encode(&ClientMsg::Ping { id });
                    if self.ws.send(Message::Binary(frame.into())).await.is_err() {
                        break;
                    }
                }
                msg = self.ws.next() => match msg {
                    Some(Ok(Message::Binary(b))) => {
                        let m = codec::decode::<ServerMsg>(&b).unwrap();
                        if let ServerMsg::Pong { id, .. } = m {
                            if let Some(at) = self.pings.remove(&id) {
                                seen.rtts_ms.push(at.elapsed().as_secs_f64() * 1000.0);
                            }
                        }
                        seen.msgs.push((Instant::now(), m));
                    }
                    Some(Ok(Message::Close(f))) => {
                        seen.closed = f.map(|f| (u16::from(f.code), f.reason.to_string()));
                        break;
                    }
                    Some(Ok(_)) => {}
                    _ => break,
                },
            }
        }
        seen
    }
}

/// A net update's characters by id.
fn ids(b: &sim::room::replication::ProxyBatch) -> Vec<PlayerId> {
    b.characters.iter().map(|c| c.id).collect()
}

#[tokio::test]
async fn each_player_receives_the_others_at_their_own_rate_over_their_own_link() {
    let relay = start().await;
    let mut a = join(&relay, "lobby").await;
    let mut b = join(&relay, "lobby").await;
    let mut c = join(&relay, "lobby").await;
    assert_eq!((a.id.0, b.id.0, c.id.0), (1, 2, 3));
    // B halves its own net update rate; C slows its own link and adds a bot.
    b.send(&ClientMsg::Room(RoomClientMsg::SetPlayerSettings(
        PlayerSettings {
            net_update_hz: 10,
            ..PlayerSettings::default()
        },
    )))
    .await;
    c.send(&ClientMsg::SetNetSettings(NetSettings::symmetric(
        400, 0, 0,
    )))
    .await;
    c.send(&ClientMsg::Room(RoomClientMsg::AddBot)).await;
    let (_, _, _) = tokio::join!(a.play(600), b.play(600), c.play(600));
    let (sa, sb, sc) = tokio::join!(a.play(2000), b.play(2000), c.play(2000));
    // Two seconds: 40 updates at 20 Hz, 20 at 10 Hz (± one at each end).
    let n = |s: &Seen| s.batches().len();
    assert!((39..=41).contains(&n(&sa)), "A got {}", n(&sa));
    assert!((19..=21).contains(&n(&sb)), "B got {}", n(&sb));
    assert!((39..=41).contains(&n(&sc)), "C got {}", n(&sc));
    // Each sees the other two and the bot (id 4), never itself.
    assert_eq!(ids(sa.batches().last().unwrap().1), [2, 3, 4].map(PlayerId));
    assert_eq!(ids(sb.batches().last().unwrap().1), [1, 3, 4].map(PlayerId));
    assert_eq!(ids(sc.batches().last().unwrap().1), [1, 2, 4].map(PlayerId));
    // C's slider moved C's link only: the others still measure 100 ms.
    for (who, s, want) in [("A", &sa, 100.0), ("B", &sb, 100.0), ("C", &sc, 400.0)] {
        let rtt = s.median_rtt();
        assert!(
            (want - 5.0..=want + 25.0).contains(&rtt),
            "{who}: RTT {rtt} ms"
        );
    }
}

#[tokio::test]
async fn a_player_leaving_disappears_from_the_others_within_one_net_update() {
    let relay = start().await;
    let mut a = join(&relay, "lobby").await;
    let mut b = join(&relay, "lobby").await;
    let _ = tokio::join!(a.play(500), b.play(500));
    let left = Instant::now();
    b.ws.close(None).await.unwrap();
    let seen = a.play(600).await;
    let roster_at = seen
        .msgs
        .iter()
        .find_map(|(t, m)| match m {
            ServerMsg::Room(RoomServerMsg::Roster { players, .. })
                if players.iter().all(|p| p.id != b.id) =>
            {
                Some(*t)
            }
            _ => None,
        })
        .expect("a roster without B");
    let batches = seen.batches();
    let last_with_b = batches
        .iter()
        .rposition(|(_, batch)| ids(batch).contains(&b.id))
        .map_or(0, |i| i + 1);
    // Only what was already on the way (sent < 50 ms before the leave,
    // the 20 Hz interval, arriving 50 ms later) still shows B; the first
    // update sent after it does not.
    assert!(
        last_with_b <= 1,
        "{last_with_b} updates with B after it left"
    );
    let gone = batches[last_with_b].0;
    assert!(gone >= roster_at);
    let after = gone.duration_since(left);
    assert!(after <= Duration::from_millis(150), "gone after {after:?}");
}

#[tokio::test]
async fn the_17th_player_is_refused_with_a_reason_and_close_code_1013() {
    let relay = start().await;
    let mut first = join(&relay, "packed").await;
    for _ in 0..15 {
        first.send(&ClientMsg::Room(RoomClientMsg::AddBot)).await;
    }
    let seen = first.play(300).await;
    assert!(seen.errors().is_empty(), "{:?}", seen.errors());
    let listed = rooms_listed(&relay).await;
    assert_eq!(
        listed,
        serde_json::json!([{"room": "packed", "players": 1, "bots": 15, "spectators": 0, "max_players": 16, "model": "cmc"}])
    );
    let mut late = open(&relay, "packed", &ClientMsg::Room(RoomClientMsg::Join)).await;
    let mut refused = None;
    let mut close = None;
    while let Ok(Some(Ok(msg))) = tokio::time::timeout(Duration::from_secs(3), late.next()).await {
        match msg {
            Message::Binary(b) => {
                if let Ok(ServerMsg::Room(RoomServerMsg::Refused { reason })) = codec::decode(&b) {
                    refused = Some(reason);
                }
            }
            Message::Close(f) => {
                close = f.map(|f| (u16::from(f.code), f.reason.to_string()));
                break;
            }
            _ => {}
        }
    }
    assert_eq!(refused.as_deref(), Some("the room is full (16 players)"));
    assert_eq!(
        close,
        Some((1013, "room packed: the room is full (16 players)".into()))
    );
    // The room is as it was.
    let still = first.play(200).await;
    assert!(still.batches().last().unwrap().1.characters.len() == 15);
}

#[tokio::test]
async fn a_malformed_or_abusive_client_is_answered_and_closed_alone() {
    let relay = start().await;
    let mut a = join(&relay, "lobby").await;
    let mut b = join(&relay, "lobby").await;
    let _ = tokio::join!(a.play(300), b.play(300));
    // Garbage, text and out-of-range settings: one Error each, for A only.
    a.ws.send(Message::Binary(
        vec![sim::protocol::PROTOCOL_VERSION, 0xff, 0xff].into(),
    ))
    .await
    .unwrap();
    a.ws.send(Message::Text("hello".into())).await.unwrap();
    a.send(&ClientMsg::Room(RoomClientMsg::SetPlayerSettings(
        PlayerSettings {
            net_update_hz: 61,
            ..PlayerSettings::default()
        },
    )))
    .await;
    a.send(&ClientMsg::Room(RoomClientMsg::SetMaxRecordTime {
        ms: 9999,
    }))
    .await;
    let (sa, sb) = tokio::join!(a.play(1000), b.play(1000));
    let errors = sa.errors();
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors[0].contains("malformed"), "{}", errors[0]);
    assert!(errors[1].contains("text frames"), "{}", errors[1]);
    assert!(errors.contains(&"bad settings: net_update_hz = 61 is outside 5–60"));
    assert!(errors.contains(&"bad settings: max_record_time_ms = 9999 is outside 100–4000"));
    assert!(sb.errors().is_empty(), "{:?}", sb.errors());
    assert!(sb.batches().len() >= 19, "{}", sb.batches().len());
    // Single-player messages the room refuses are strikes too: 21 within
    // 10 s close A with 1008; B plays on undisturbed.
    let abuse = async {
        for _ in 0..25 {
            send_msg(&mut a.ws, &ClientMsg::Hello).await;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        a.play(1500).await
    };
    let (sa, sb) = tokio::join!(abuse, b.play(1800));
    assert_eq!(
        sa.closed,
        Some((1008, "policy violation: see the last Error message".into()))
    );
    assert!(sa
        .errors()
        .last()
        .unwrap()
        .starts_with("too many bad frames"));
    assert!(sb.errors().is_empty(), "{:?}", sb.errors());
    let n = sb.batches().len();
    assert!((34..=37).contains(&n), "B got {n} updates in 1.8 s");
    // A is gone from B's view (closed for abuse: not kept for a resume).
    assert_eq!(ids(sb.batches().last().unwrap().1), Vec::<PlayerId>::new());
}

#[tokio::test]
async fn a_dropped_socket_takes_its_seat_back_and_the_others_never_lose_it() {
    let relay = start().await;
    let mut a = join(&relay, "lobby").await;
    let mut b = join(&relay, "lobby").await;
    let _ = tokio::join!(a.play(300), b.play(300));
    let (id, token) = (a.id, a.token);
    // The socket drops without a close handshake.
    drop(a);
    let meanwhile = b.play(700).await;
    for (_, batch) in meanwhile.batches() {
        assert_eq!(ids(batch), vec![id], "A kept its seat");
    }
    // A Resume in another room is refused; in this one, the seat is back.
    let mut elsewhere = open(&relay, "other", &ClientMsg::Resume { token }).await;
    assert!(drain(&mut elsewhere, 200)
        .await
        .iter()
        .any(|m| matches!(m, ServerMsg::Error { reason } if reason.contains("resume failed"))));
    let mut back = seated(open(&relay, "lobby", &ClientMsg::Resume { token }).await).await;
    assert_eq!(back.id, id);
    assert_ne!(back.token, token, "a new token for the new connection");
    let (sa, sb) = tokio::join!(back.play(500), b.play(500));
    assert_eq!(ids(sa.batches().last().unwrap().1), vec![b.id]);
    assert!(sb.batches().iter().all(|(_, batch)| ids(batch) == vec![id]));
    // The old token was good once.
    let mut again = open(&relay, "lobby", &ClientMsg::Resume { token }).await;
    assert!(drain(&mut again, 200)
        .await
        .iter()
        .any(|m| matches!(m, ServerMsg::Error { reason } if reason.contains("resume failed"))));
}

/// A metric's value in `/metrics` text, if present.
fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn rooms_are_listed_counted_and_dropped_when_empty() {
    let limits = relay_server::Limits {
        empty_room_lifetime: Duration::from_millis(400),
        ..relay_server::Limits::default()
    };
    let relay = Served::start(relay_server::AppState::with_limits(
        "/nonexistent",
        1,
        limits,
    ))
    .await;
    let addr = relay.addr.to_string();
    let get = |path: &'static str| {
        let addr = addr.clone();
        async move { http(&addr, &format!("GET {path}"), "", b"").await.unwrap() }
    };
    let mut a = join(&relay, "alpha").await;
    let mut b = join(&relay, "beta").await;
    let mut c = join(&relay, "beta").await;
    b.send(&ClientMsg::Room(RoomClientMsg::AddBot)).await;
    let _ = tokio::join!(a.play(300), b.play(300), c.play(300));
    let listed = get("/api/rooms").await.json();
    assert_eq!(
        listed["rooms"],
        serde_json::json!([
            {"room": "alpha", "players": 1, "bots": 0, "spectators": 0, "max_players": 16, "model": "cmc"},
            {"room": "beta", "players": 2, "bots": 1, "spectators": 0, "max_players": 16, "model": "cmc"},
        ])
    );
    let text = get("/metrics").await.text();
    assert_eq!(metric(&text, "relay_rooms"), Some(2.0), "{text}");
    assert_eq!(metric(&text, "relay_sessions"), Some(3.0));
    // Two rooms ticking at 60 Hz, each flushing its tick times once a
    // second: at least one room's first second is in (a poll that wakes
    // late runs the ticks due in one go and is timed once).
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let _ = tokio::join!(a.play(100), b.play(100), c.play(100));
    let text = get("/metrics").await.text();
    let ticks = metric(&text, "relay_room_tick_seconds_count").unwrap();
    assert!(ticks >= 50.0, "{ticks} room ticks");
    assert!(
        // Net updates at 20 Hz to three players, flushed once a second.
        metric(&text, "relay_frames_out_total{kind=\"room\"}").unwrap() >= 40.0,
        "{text}"
    );
    // Everyone leaves: the rooms live on for their lifetime, then go.
    for p in [&mut a, &mut b, &mut c] {
        p.ws.close(None).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(
        get("/api/rooms").await.json()["rooms"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        get("/api/rooms").await.json()["rooms"],
        serde_json::json!([])
    );
    let text = get("/metrics").await.text();
    assert_eq!(metric(&text, "relay_rooms"), Some(0.0), "{text}");
    // A private session is a room of its own, and not listed.
    let (mut private, _) =
        tokio_tungstenite::connect_async(relay.ws_url("room=p-0123456789abcdef01234567"))
            .await
            .unwrap();
    send(&mut private, &ClientMsg::Hello).await;
    assert!(drain(&mut private, 200)
        .await
        .iter()
        .any(|m| matches!(m, ServerMsg::Welcome { .. })));
    assert_eq!(
        metric(&get("/metrics").await.text(), "relay_rooms"),
        Some(1.0)
    );
    assert_eq!(
        get("/api/rooms").await.json()["rooms"],
        serde_json::json!([])
    );
}

#[tokio::test]
async fn a_seat_not_taken_back_within_the_grace_period_leaves_the_room() {
    let relay = start().await;
    let a = join(&relay, "lobby").await;
    let mut b = join(&relay, "lobby").await;
    let id = a.id;
    drop(a);
    let dropped = Instant::now();
    // B plays on (a page pings every 100 ms) and sees A until the resume
    // grace period (10 s) is over, then A's leaving.
    let mut gone = None;
    while gone.is_none() && dropped.elapsed() < Duration::from_secs(12) {
        let seen = b.play(500).await;
        gone = seen.msgs.iter().find_map(|(t, m)| match m {
            ServerMsg::Room(RoomServerMsg::Roster { players, .. })
                if players.iter().all(|p| p.id != id) =>
            {
                Some(t.duration_since(dropped))
            }
            _ => None,
        });
    }
    let gone = gone.expect("A left within 12 s");
    assert!(
        gone >= relay_server::resume::GRACE
            && gone < relay_server::resume::GRACE + Duration::from_millis(500),
        "A left {gone:?} after its socket dropped"
    );
}
