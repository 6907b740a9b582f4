//! A room's player as the page plays it, through nginx: joins, sets its
//! own net update rate (the room's first player also adds a bot and sets
//! the room's `MaxRecordTime`), moves at 10 Hz, and when its socket closes
//! comes back through nginx with its resume token — reporting what it
//! sees, each resume, and every seat it loses.

use super::*;
use futures_util::{SinkExt, StreamExt};
use sim::net::codec;
use sim::protocol::{ClientMsg, ResumeToken, ServerMsg};
use sim::room::{PlayerId, PlayerSettings, RoomClientMsg, RoomServerMsg};
use sim::Vec2;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// Each player's own net update rate (Hz), which its seat keeps.
pub const NET_UPDATE_HZ: u8 = 5;
/// The room's frame history, set by its first player, which the room keeps.
pub const RECORD_MS: u16 = 700;
/// What one player knows, shared with the test.
#[derive(Debug, Default)]
pub struct PlayerState {
    /// Its id in the room.
    pub id: Option<PlayerId>,
    /// The home its last upgrade named.
    pub home: String,
    /// Other players seen in net updates, with when.
    pub seen: BTreeMap<PlayerId, Instant>,
    /// Times it came back with its token.
    pub resumes: u32,
    /// Why it lost its seat, each time it did.
    pub lost: Vec<String>,
}

/// A player's state, shared with the test.
pub type Shared = Arc<Mutex<PlayerState>>;

/// Connects to `room` through nginx from `ip`, retrying as the page does
/// (at once, then 250 ms doubling to 2 s) for up to 9 s: the socket and the
/// home the upgrade names.
pub async fn connect(nginx: &str, room: &str, ip: IpAddr) -> Result<(Ws, String), String> {
    let url = format!("ws://{nginx}/ws?room={room}");
    let start = Instant::now();
    let mut delay = Duration::from_millis(250);
    loop {
        match ws_connect(&url, &[], Some(ip)).await {
            Ok((ws, res)) => return Ok((ws, header(&res, "x-relay-room-home").to_owned())),
            Err(status) if start.elapsed() > Duration::from_secs(9) => {
                return Err(format!("{room}: upgrade refused with {status} for 9 s"))
            }
            Err(_) => {
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(2));
            }
        }
    }
}

/// A seat as the room confirmed it.
pub struct Seat {
    /// Its player.
    pub id: PlayerId,
    /// The session's resume token.
    pub token: ResumeToken,
    /// Players in the last roster seen (the room's, with this one).
    pub roster: usize,
    /// The player's settings and the room's `MaxRecordTime`, as the
    /// Joined says.
    pub settings: PlayerSettings,
    /// The room's `MaxRecordTime`, ms.
    pub record_ms: u16,
}

/// Sends `msg` and reads until the room seats the player (`Err` with the
/// reason if the room refused the resume).
pub async fn seated(ws: &mut Ws, msg: &ClientMsg) -> Result<Seat, String> {
    send(ws, msg).await;
    let (mut id, mut token, mut roster) = (None, None, 0);
    let (mut settings, mut record_ms) = (PlayerSettings::default(), 0);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while id.is_none() || token.is_none() {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => match codec::decode::<ServerMsg>(&b) {
                Ok(ServerMsg::Room(RoomServerMsg::Joined {
                    you,
                    settings: s,
                    max_record_time_ms,
                    ..
                })) => {
                    id = Some(you);
                    (settings, record_ms) = (s, max_record_time_ms);
                }
                Ok(ServerMsg::Room(RoomServerMsg::Roster { players, .. })) => {
                    roster = players.len()
                }
                Ok(ServerMsg::SessionToken { token: t, .. }) => token = Some(t),
                Ok(ServerMsg::Error { reason }) => return Err(reason),
                _ => {}
            },
            Ok(Some(Ok(Message::Close(f)))) => return Err(format!("closed: {f:?}")),
            Ok(Some(Ok(_))) => {}
            other => return Err(format!("no seat: {other:?}")),
        }
    }
    Ok(Seat {
        id: id.unwrap(),
        token: token.unwrap(),
        roster,
        settings,
        record_ms,
    })
}

/// Plays `room` from `ip` as a page does: joins (the room's `first`
/// player adds a bot and sets the room's `MaxRecordTime`), sets its own
/// net update rate, moves at 10 Hz, and when the socket closes reconnects
/// through nginx and resumes its seat.
pub fn play(
    nginx: String,
    room: String,
    ip: IpAddr,
    first: bool,
    state: Shared,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let (mut ws, home) = connect(&nginx, &room, ip).await.expect("first connection");
        let join = ClientMsg::Room(RoomClientMsg::Join);
        let Seat { id, mut token, .. } = seated(&mut ws, &join).await.expect("a seat");
        let mine = PlayerSettings {
            net_update_hz: NET_UPDATE_HZ,
            ..PlayerSettings::default()
        };
        send(
            &mut ws,
            &ClientMsg::Room(RoomClientMsg::SetPlayerSettings(mine)),
        )
        .await;
        if first {
            send(&mut ws, &ClientMsg::Room(RoomClientMsg::AddBot)).await;
            let ms = RECORD_MS;
            send(
                &mut ws,
                &ClientMsg::Room(RoomClientMsg::SetMaxRecordTime { ms }),
            )
            .await;
        }
        {
            let mut s = state.lock().unwrap();
            s.id = Some(id);
            s.home = home;
        }
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        let mut ts: u32 = 0;
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    ts += 100;
                    let angle = ts as f32 / 1000.0;
                    let frame = server_move(ts, Vec2::new(angle.cos(), angle.sin()), Vec2::ZERO);
                    if ws.send(Message::Binary(frame.into())).await.is_ok() {
                        continue;
                    }
                }
                msg = ws.next() => match msg {
                    Some(Ok(Message::Binary(b))) => {
                        match codec::decode::<ServerMsg>(&b) {
                            Ok(ServerMsg::Room(RoomServerMsg::Proxies(batch))) => {
                                let now = Instant::now();
                                let mut s = state.lock().unwrap();
                                for c in &batch.characters {
                                    s.seen.insert(c.id, now);
                                }
                            }
                            Ok(ServerMsg::SessionToken { token: t, .. }) => token = t,
                            _ => {}
                        }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {}
                    Some(Ok(_)) => continue,
                },
            }
            // The socket is gone: back in through nginx, with the token.
            let (mut again, home) = match connect(&nginx, &room, ip).await {
                Ok(c) => c,
                Err(e) => {
                    state.lock().unwrap().lost.push(e);
                    return;
                }
            };
            match seated(&mut again, &ClientMsg::Resume { token }).await {
                Ok(back) if back.id == id => {
                    token = back.token;
                    if back.settings != mine || back.record_ms != RECORD_MS {
                        let got = (back.settings.net_update_hz, back.record_ms);
                        state
                            .lock()
                            .unwrap()
                            .lost
                            .push(format!("came back with {got:?}"));
                        return;
                    }
                    let mut s = state.lock().unwrap();
                    s.home = home;
                    s.resumes += 1;
                    s.seen.clear();
                }
                Ok(other) => {
                    state
                        .lock()
                        .unwrap()
                        .lost
                        .push(format!("came back as {:?}, was {id:?}", other.id));
                    return;
                }
                Err(e) => {
                    state.lock().unwrap().lost.push(e);
                    return;
                }
            }
            ws = again;
        }
    })
}
