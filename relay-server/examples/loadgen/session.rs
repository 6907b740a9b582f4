//! One simulated page: a bot-driven `sim::ClientEndpoint` — the page's own
//! client end, so the traffic is the page's (a ServerMove per 60 Hz frame,
//! a Ping every `PING_INTERVAL_MS`, Hello and settings) — on its own
//! WebSocket, in the page's frame order (take what arrived, then tick and
//! send), timing each Ack and Pong; with `trace`, asking for the packet
//! trace as the page does (issue 23) and counting its bytes.

use futures_util::{SinkExt, StreamExt};
use sim::cmc::wire::MoveResponse;
use sim::net::codec;
use sim::net::settings::NetSettings;
use sim::net::trace_wire::TraceRequest;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::{Bot, ClientEndpoint, SimTime, TimeStamp};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// One client frame.
pub const FRAME: Duration = Duration::from_micros(16_667);
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
    /// Bytes of packet trace received.
    pub trace_bytes: u64,
}

/// One simulated page: connect, Hello and link at 0 ms / 0 % loss (and
/// with `trace` the trace request), wait for Welcome; then, once the
/// phase leaves Idle, the bot drives the page's client end and every
/// answer goes back into it.
pub async fn session(
    id: usize,
    url: String,
    mut phase: watch::Receiver<Phase>,
    connected: Arc<AtomicUsize>,
    gate: Arc<tokio::sync::Semaphore>,
    offset: Duration,
    trace: bool,
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
    let start = Instant::now();
    let now = || SimTime::from_secs_f64(start.elapsed().as_secs_f64());
    let mut endpoint = ClientEndpoint::new();
    endpoint.set_net_settings(NetSettings::symmetric(0, 0, 0));
    if trace {
        endpoint.request_trace(TraceRequest::default());
    }
    // Hello and the settings, as the page's first frame sends them.
    for frame in endpoint.frame(now(), 0.0, sim::Vec2::ZERO, false, false) {
        if ws.send(Message::Binary(frame.into())).await.is_err() {
            stats.errors += 1;
            return stats;
        }
    }
    loop {
        match tokio::time::timeout(Duration::from_secs(20), ws.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => {
                if endpoint.receive_frame(now(), &b) == Ok(sim::ClientEvent::Welcomed) {
                    break;
                }
            }
            Ok(Some(Ok(_))) => {}
            _ => {
                stats.errors += 1;
                return stats;
            }
        }
    }
    drop(permit);
    connected.fetch_add(1, Ordering::Relaxed);

    let mut bot = Bot::new().starting_at(id);
    let mut sent: VecDeque<(TimeStamp, Instant)> = VecDeque::new();
    let mut pings: VecDeque<(u32, Instant)> = VecDeque::new();
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
                let position = endpoint.position();
                let (dir, dash) = bot.input(position, FRAME.as_secs_f32());
                for frame in endpoint.frame(now(), FRAME.as_secs_f64(), dir, dash, false) {
                    let at = Instant::now();
                    match codec::decode::<ClientMsg>(&frame) {
                        Ok(ClientMsg::ServerMove(m)) => {
                            sent.push_back((m.new_move.time_stamp, at));
                            if sent.len() > 256 {
                                sent.pop_front();
                            }
                            if measuring {
                                stats.moves_sent += 1;
                            }
                        }
                        Ok(ClientMsg::Ping { id }) => {
                            pings.push_back((id, at));
                            if pings.len() > 64 {
                                pings.pop_front();
                            }
                        }
                        _ => {}
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
                    Ok(ServerMsg::Trace(_)) => {
                        if measuring {
                            stats.trace_bytes += b.len() as u64;
                        }
                    }
                    Ok(ServerMsg::Error { .. }) | Err(_) => stats.errors += 1,
                    Ok(_) => {}
                }
                // The page's client end takes every frame (corrections,
                // proxies, the observer view) as the page does.
                let _ = endpoint.receive_frame(now(), &b);
            }
        }
    }
    let _ = ws.send(Message::Close(None)).await;
    stats
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}
