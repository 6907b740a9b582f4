//! The rollback model through the relay (issue #12): page-like clients —
//! a [`sim::ClientEndpoint`] driven at 60 Hz of wall time over a real
//! socket — converge to the server's state once their inputs stop; one
//! connection switches models live and keeps its link; a dropped rollback
//! session resumes its match with its token.

mod common;

use common::*;

use futures_util::{FutureExt, SinkExt, StreamExt};
use sim::net::codec;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::protocol::{Setting, Setup};
use sim::rollback::{BotPlayer, InputCmd, RollbackConfig, RollbackServerMsg, Tick};
use sim::{ClientEndpoint, Model, NetSettings, SimTime, Vec2};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

const FRAME: Duration = Duration::from_micros(16_667);

/// A page: an endpoint on its own wall clock over a socket, and what the
/// server said each tick's state hashes to — in its States (what the
/// client checks) and in its observer views (the server's true state).
struct Page {
    ws: Ws,
    endpoint: ClientEndpoint,
    epoch: Instant,
    last: Instant,
    states: BTreeMap<u32, u64>,
    truth: BTreeMap<u32, u64>,
    token: Option<sim::protocol::ResumeToken>,
}

impl Page {
    async fn open(url: &str, seed: u64, setup: &Setup) -> Page {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let now = Instant::now();
        Page {
            ws,
            endpoint: ClientEndpoint::with_setup(seed, setup),
            epoch: now,
            last: now,
            states: BTreeMap::new(),
            truth: BTreeMap::new(),
            token: None,
        }
    }

    fn now(&self) -> SimTime {
        SimTime(self.epoch.elapsed().as_micros() as u64)
    }

    /// Takes every frame that has arrived, as the page does at the start
    /// of its frame.
    fn receive(&mut self) {
        while let Some(Some(Ok(msg))) = self.ws.next().now_or_never() {
            let Message::Binary(b) = msg else { continue };
            match codec::decode::<ServerMsg>(&b).unwrap() {
                ServerMsg::Rollback(RollbackServerMsg::State(s)) => {
                    self.states
                        .insert(s.snapshot.tick.0, u64::from_le_bytes(s.hash));
                }
                ServerMsg::RollbackObserver(v) => {
                    self.truth
                        .insert(v.snapshot.tick.0, v.snapshot.state_hash());
                }
                ServerMsg::SessionToken { token, .. } => self.token = Some(token),
                _ => {}
            }
            let now = self.now();
            let _ = self.endpoint.receive_frame(now, &b);
        }
    }

    /// One page frame with this input, then a wait for the next one.
    async fn frame(&mut self, dir: Vec2, dash: bool, fire: bool) {
        self.receive();
        let dt = self.last.elapsed().as_secs_f64();
        self.last = Instant::now();
        let now = self.now();
        for f in self.endpoint.frame(now, dt, dir, dash, fire) {
            self.ws.send(Message::Binary(f.into())).await.unwrap();
        }
        tokio::time::sleep(FRAME).await;
    }

    /// Frames driven by the firing bot player for `secs`.
    async fn play(&mut self, bot: &mut BotPlayer, secs: f64) {
        for _ in 0..(secs * 60.0) as u32 {
            let (dir, buttons) = bot.input(self.endpoint.position(), 1.0 / 60.0);
            let pressed = |b: u16| buttons & b != 0;
            self.frame(dir, pressed(InputCmd::DASH), pressed(InputCmd::FIRE))
                .await;
        }
    }
}

fn rollback_setup() -> Setup {
    Setup {
        net: NetSettings::symmetric(60, 0, 0),
        model: Model::Rollback(RollbackConfig::default()),
        ..Setup::default()
    }
}

/// One page plays for 3 s, then its inputs stop: it goes on drawing
/// frames (a frame applies what arrived) but runs no more ticks, so every
/// State it gets is newer than its prediction and it adopts it. Returns
/// the ticks at which the page's confirmed state was checked against the
/// server's true state.
async fn play_then_stop(url: String, seed: u64) -> usize {
    let mut page = Page::open(&url, seed, &rollback_setup()).await;
    let mut bot = BotPlayer::new(seed as usize);
    page.play(&mut bot, 3.0).await;
    let stopped_at = page.endpoint.rollback().unwrap().tick().unwrap();
    let mut agreed = 0;
    for _ in 0..45 {
        page.receive();
        let now = page.now();
        // dt 0: no tick, but the waiting State is applied and Pings go on.
        for f in page.endpoint.frame(now, 0.0, Vec2::ZERO, false, false) {
            page.ws.send(Message::Binary(f.into())).await.unwrap();
        }
        let r = page.endpoint.rollback().unwrap();
        let mine = r.predicted().unwrap();
        if let Some(&sent) = page.states.get(&mine.tick.0) {
            assert_eq!(mine.state_hash(), sent, "the page adopted the State");
        }
        // A tick the page still predicts may differ from the server's (its
        // last inputs can reach the server late on a busy machine, and the
        // server then held the previous one); a confirmed one may not.
        let confirmed = r.confirmed().map(|c| c.tick) == Some(mine.tick);
        if let Some(&truth) = page.truth.get(&mine.tick.0).filter(|_| confirmed) {
            // The page's confirmed state is the server's, bit for bit.
            assert_eq!(mine.state_hash(), truth, "tick {:?}", mine.tick);
            agreed += 1;
        }
        tokio::time::sleep(FRAME).await;
    }
    let r = page.endpoint.rollback().unwrap();
    let m = r.metrics();
    assert!(r.tick().unwrap().is_after(stopped_at), "it adopted States");
    // And it keeps up: its state is no older than the server's newest
    // view by more than the downlink's 30 ms and a frame or two.
    let newest = *page.truth.keys().next_back().unwrap();
    let behind = Tick(newest).diff(r.tick().unwrap());
    assert!(behind <= 6, "{behind} ticks behind the server");
    assert_eq!(m.hash_mismatches, 0, "{m:?}");
    assert!(m.hash_checks > 100, "{m:?}");
    assert_eq!(m.states_rejected, 0, "{m:?}");
    // Every State the page was sent hashed to what the server's own view
    // of that tick did.
    let common: Vec<_> = page
        .states
        .iter()
        .filter(|(t, _)| page.truth.contains_key(t))
        .collect();
    assert!(common.len() > 30, "{} ticks in both streams", common.len());
    assert!(common.iter().all(|(t, h)| page.truth[t] == **h));
    agreed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pages_in_rollback_mode_converge_to_the_servers_hash_after_inputs_stop() {
    let relay = start().await;
    let url = relay.ws_url("");
    let (a, b) = tokio::join!(
        tokio::spawn(play_then_stop(url.clone(), 1)),
        tokio::spawn(play_then_stop(url, 2))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    // Over 0.75 s after the stop, views land on the page's tick now and
    // then (every 3rd tick has a view, every 2nd a State).
    assert!(a >= 1 && b >= 1, "checked {a} and {b} ticks");
}

#[tokio::test]
async fn one_connection_switches_models_live_and_keeps_its_link() {
    let relay = start().await;
    let url = relay.ws_url("");
    let setup = Setup {
        net: NetSettings::symmetric(40, 0, 0),
        ..Setup::default()
    };
    let mut page = Page::open(&url, 3, &setup).await;
    let mut bot = BotPlayer::new(0);
    page.play(&mut bot, 1.0).await;
    let cmc = page.endpoint.metrics(page.now());
    assert!(page.endpoint.cmc().is_some());
    assert!(cmc.acks >= 5, "{cmc:?}");

    page.endpoint
        .apply(Setting::Model(Model::Rollback(RollbackConfig::default())));
    page.play(&mut bot, 1.5).await;
    let m = page.endpoint.metrics(page.now());
    let r = m.rollback.expect("the rollback model after the switch");
    assert!(r.acks > 50 && r.rebases > 25, "{r:?}");
    assert_eq!(r.hash_mismatches, 0);
    // The link stayed: its settings (RTT 40 ms) and its measurements (the
    // page reads once a frame, so a Pong waits up to a frame and more).
    let rtt = m.rtt_ms.unwrap();
    assert!((40.0..80.0).contains(&rtt), "rtt {rtt}");

    page.endpoint.apply(Setting::Model(Model::Cmc));
    page.play(&mut bot, 1.0).await;
    let back = page.endpoint.metrics(page.now());
    assert!(back.rollback.is_none() && back.acks >= 5, "{back:?}");
}

#[tokio::test]
async fn a_dropped_rollback_session_resumes_its_match_with_its_token() {
    let relay = start().await;
    let url = relay.ws_url("");
    let mut page = Page::open(&url, 4, &rollback_setup()).await;
    let mut bot = BotPlayer::new(0);
    page.play(&mut bot, 1.0).await;
    let token = page.token.expect("a SessionToken");
    let before = page.endpoint.rollback().unwrap().tick().unwrap();
    drop(page.ws);
    tokio::time::sleep(Duration::from_millis(200)).await;

    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    send(&mut ws, &ClientMsg::Resume { token }).await;
    let back = drain(&mut ws, 300).await;
    let model = back.iter().find_map(|m| match m {
        ServerMsg::Welcome { model, .. } => Some(*model),
        _ => None,
    });
    assert_eq!(model, Some(Model::Rollback(RollbackConfig::default())));
    let start = back
        .iter()
        .find_map(|m| match m {
            ServerMsg::Rollback(RollbackServerMsg::Start(s)) => Some(s.clone()),
            _ => None,
        })
        .expect("the match's Start");
    // The same match, where the server had it: not a fresh one at tick 0.
    assert_eq!(start.ids.match_id, 1);
    assert!(
        start.snapshot.tick.diff(Tick(0)) > 30,
        "{:?}",
        start.snapshot.tick
    );
    assert!(
        start.snapshot.tick.diff(before) > -30,
        "{:?} vs {before:?}",
        start.snapshot.tick
    );
}
