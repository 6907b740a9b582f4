//! One simulated page: a bot-driven `sim::Client` on its own WebSocket,
//! sending a ServerMove per 60 Hz frame and a Ping every 250 ms, and
//! timing each Ack and Pong.

use futures_util::{SinkExt, StreamExt};
use sim::net::codec;
use sim::net::protocol::{ClientMsg, MoveResponse, ServerMsg};
use sim::{Bot, Client, NetSettings, SmoothingMode, TimeStamp};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// One client frame.
pub const FRAME: Duration = Duration::from_micros(16_667);
/// Ping every this many frames (250 ms, as the page).
const PING_EVERY: u32 = 15;
/// WebSocket read buffer per session, bytes.
const READ_BUFFER: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// Where the run is; every session reads it.
pub enum Phase {
    Idle,
    Warmup,
    Measure,
    Stop,
}

/// What one session measured while the phase was `Measure`.
#[derive(Debug, Default)]
pub struct SessionStats {
    pub moves_sent: u64,
    pub acks: u64,
    pub adjustments: u64,
    pub frames_in: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub ack_us: Vec<u32>,
    pub pong_us: Vec<u32>,
    pub errors: u64,
}

/// One simulated page: connect, Hello, link at 0 ms / 0 % loss, wait for
/// Welcome; then, once the phase leaves Idle, a bot-driven client sends a
/// ServerMove each frame and a Ping every 250 ms, and applies the answers.
pub async fn session(
    id: usize,
    url: String,
    mut phase: watch::Receiver<Phase>,
    connected: Arc<AtomicUsize>,
    gate: Arc<tokio::sync::Semaphore>,
    offset: Duration,
) -> SessionStats {
    let mut stats = SessionStats::default();
    let permit = gate.acquire().await;
    let mut ws = None;
    for _ in 0..3 {
        // tungstenite zero-fills its whole read buffer (128 KiB by default)
        // before every read: keep it small, as the relay does.
        let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
        match tokio_tungstenite::connect_async_with_config(url.as_str(), Some(config), true).await {
            Ok((s, _)) => {
                ws = Some(s);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    let Some(mut ws) = ws else {
        stats.errors += 1;
        return stats;
    };
    let settings = NetSettings::symmetric(0, 0, 0);
    for msg in [ClientMsg::Hello, ClientMsg::SetNetSettings(settings)] {
        if ws
            .send(Message::Binary(codec::encode(&msg).into()))
            .await
            .is_err()
        {
            stats.errors += 1;
            return stats;
        }
    }
    // Welcome → the world and the movement constants.
    let (world, params) = loop {
        match tokio::time::timeout(Duration::from_secs(20), ws.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => {
                if let Ok(ServerMsg::Welcome { world, params, .. }) = codec::decode::<ServerMsg>(&b)
                {
                    break (world, params);
                }
            }
            Ok(Some(Ok(_))) => {}
            _ => {
                stats.errors += 1;
                return stats;
            }
        }
    };
    drop(permit);
    connected.fetch_add(1, Ordering::Relaxed);

    let mut client = Client::new(params, world.spawn);
    let mut bot = Bot::new().starting_at(id);
    let mut sent: VecDeque<(TimeStamp, Instant)> = VecDeque::new();
    let mut pings: VecDeque<(u32, Instant)> = VecDeque::new();
    let mut ping_id = 0u32;
    let mut frame_no = 0u32;
    // Idle: read what the relay streams until the load starts.
    while *phase.borrow() == Phase::Idle {
        tokio::select! {
            changed = phase.changed() => {
                if changed.is_err() {
                    return stats;
                }
            }
            msg = ws.next() => {
                if !matches!(msg, Some(Ok(_))) {
                    stats.errors += 1;
                    return stats;
                }
            }
        }
    }
    // Load: the phase is read at each frame, not waited on (one waiter per
    // session on the shared channel would cost this generator a lock per
    // message, on the cores the relay is measured on).
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + offset, FRAME);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut measuring = false;
    loop {
        tokio::select! {
            _ = ticker.tick() => {
                let now_phase = *phase.borrow();
                if now_phase == Phase::Stop {
                    break;
                }
                measuring = now_phase == Phase::Measure;
                frame_no = frame_no.wrapping_add(1);
                let (dir, dash) = bot.input(client.state().position, FRAME.as_secs_f32());
                let mut out = Vec::with_capacity(2);
                if let Some(m) = client.tick(FRAME.as_secs_f64(), dir, dash, SmoothingMode::Exponential, &world) {
                    let ts = m.new_move.time_stamp;
                    out.push((Some(ts), None, codec::encode(&ClientMsg::ServerMove(m))));
                }
                if frame_no % PING_EVERY == 0 {
                    ping_id = ping_id.wrapping_add(1);
                    out.push((None, Some(ping_id), codec::encode(&ClientMsg::Ping { id: ping_id })));
                }
                for (ts, ping, frame) in out {
                    let at = Instant::now();
                    if let Some(ts) = ts {
                        sent.push_back((ts, at));
                        if sent.len() > 256 {
                            sent.pop_front();
                        }
                        if measuring {
                            stats.moves_sent += 1;
                        }
                    }
                    if let Some(p) = ping {
                        pings.push_back((p, at));
                        if pings.len() > 64 {
                            pings.pop_front();
                        }
                    }
                    if measuring {
                        stats.bytes_out += frame.len() as u64;
                    }
                    if ws.send(Message::Binary(frame.into())).await.is_err() {
                        stats.errors += 1;
                        return stats;
                    }
                }
            }
            msg = ws.next() => {
                let Some(Ok(msg)) = msg else {
                    stats.errors += 1;
                    return stats;
                };
                let Message::Binary(b) = msg else { continue };
                let at = Instant::now();
                if measuring {
                    stats.frames_in += 1;
                    stats.bytes_in += b.len() as u64;
                }
                match codec::decode::<ServerMsg>(&b) {
                    Ok(ServerMsg::MoveResponse(resp)) => {
                        let ts = match resp {
                            MoveResponse::Ack { time_stamp } => {
                                if measuring { stats.acks += 1; }
                                time_stamp
                            }
                            MoveResponse::Adjustment { time_stamp, .. } => {
                                if measuring { stats.adjustments += 1; }
                                time_stamp
                            }
                        };
                        while let Some(&(t, sent_at)) = sent.front() {
                            if t.is_after(ts) {
                                break;
                            }
                            sent.pop_front();
                            if t == ts && measuring {
                                stats.ack_us.push(micros(at - sent_at));
                            }
                        }
                        client.handle_move_response(&resp, &world);
                    }
                    Ok(ServerMsg::Pong { id: pong, .. }) => {
                        while let Some(&(p, sent_at)) = pings.front() {
                            pings.pop_front();
                            if p == pong {
                                if measuring {
                                    stats.pong_us.push(micros(at - sent_at));
                                }
                                break;
                            }
                        }
                    }
                    Ok(ServerMsg::Error { .. }) | Err(_) => stats.errors += 1,
                    Ok(_) => {}
                }
            }
        }
    }
    let _ = ws.send(Message::Close(None)).await;
    stats
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}
