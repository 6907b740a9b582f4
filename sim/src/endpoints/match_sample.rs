//! The rollback match issue 22's costs are measured on, natively
//! (`sim/benches/rollback.rs`, `match_report`) and in wasm (`web-client`'s
//! `bench_match`): one definition, so the two measure the same thing.
//!
//! [`MatchSample`] is a [`RollbackRoomHost`] (what the relay's room task
//! runs: the [`MatchServer`](crate::rollback::MatchServer), each player's
//! own [`HostLink`](crate::endpoints::link::HostLink) on the page's
//! default link, RTT 100 ms) with N pages, each the page's
//! [`RollbackPredictor`] driven by a [`BotPlayer`] (each from its own
//! waypoint, firing in bursts) at 60 frames/s, a Ping every 250 ms (as
//! `web-client/src/room/match_run.rs`). One *tick* is 1/60 s of room
//! time: the frames the pages sent in it are decoded and go in
//! (`receive_msg`), then `poll_until` runs every wake-up in it, ticking
//! the match at 60 Hz. Only that is timed (the relay's work for the
//! room); the pages' own work is not.

use crate::endpoints::rollback_room::RollbackRoomHost;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::net::codec;
use crate::protocol::{ClientMsg, ServerMsg};
use crate::rollback::arena::{MAX_PLAYERS, MIN_PLAYERS};
use crate::rollback::bot::BotPlayer;
use crate::rollback::config::RollbackConfig;
use crate::rollback::predictor::RollbackPredictor;
use crate::rollback::tick::TickRate;
use crate::room::replication::PlayerId;
use crate::room::wire::RoomClientMsg;

/// A page's frame, s (60 frames/s).
const FRAME_S: f64 = 1.0 / 60.0;
/// One tick of the sample, µs (1/60 s).
const TICK_US: u64 = 1_000_000 / 60;
/// A page sends a Ping every this many frames (250 ms, as the page).
const PING_EVERY_FRAMES: u64 = 15;
/// Ticks run before anything is measured: 2 s to join and fill the links.
const WARM_UP_TICKS: u64 = 120;

/// One page in the match.
#[derive(Debug, Clone)]
struct Page {
    id: PlayerId,
    predictor: RollbackPredictor,
    bot: BotPlayer,
    next_ping: u32,
}

/// A rollback room of N bot-driven pages on one clock (see the module
/// doc).
#[derive(Debug, Clone)]
pub struct MatchSample {
    host: RollbackRoomHost,
    pages: Vec<Page>,
    now: SimTime,
    frame: u64,
}

impl MatchSample {
    /// A 60 Hz match of `players` pages (`2..=8`), all seated and joined,
    /// after 2 s of warm-up; `None` outside that range.
    pub fn new(players: usize) -> Option<MatchSample> {
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
            return None;
        }
        let config = RollbackConfig::at_rate(TickRate::Hz60);
        let mut host = RollbackRoomHost::new(config, players, 22, SimTime::ZERO).ok()?;
        let mut pages = Vec::with_capacity(players);
        for k in 0..players {
            let id = host.add_player(SimTime::ZERO).ok()?;
            let join = ClientMsg::Room(RoomClientMsg::Join);
            let len = codec::encode(&join).len();
            host.receive_msg(SimTime::ZERO, id, len, join).ok()?;
            pages.push(Page {
                id,
                predictor: RollbackPredictor::new(config).ok()?,
                bot: BotPlayer::new(3 * k),
                next_ping: 1,
            });
        }
        let mut sample = MatchSample {
            host,
            pages,
            now: SimTime::ZERO,
            frame: 0,
        };
        for _ in 0..WARM_UP_TICKS {
            sample.tick(&mut || 0.0);
        }
        Some(sample)
    }

    /// Runs one tick (1/60 s) and returns the time the room's side of it
    /// took by `clock` (µs, from any origin; read twice).
    pub fn tick(&mut self, clock: &mut dyn FnMut() -> f64) -> f64 {
        self.frame += 1;
        self.now = SimTime(self.frame * TICK_US);
        let ping = self.frame % PING_EVERY_FRAMES == 0;
        let mut inbox: Vec<(PlayerId, Vec<Vec<u8>>)> = Vec::with_capacity(self.pages.len());
        for p in &mut self.pages {
            let at = p
                .predictor
                .local_player()
                .map_or(Vec2::ZERO, |s| s.position.to_cm());
            let (dir, buttons) = p.bot.input(at, FRAME_S as f32);
            let mut frames: Vec<Vec<u8>> = p
                .predictor
                .frame(FRAME_S, dir, buttons)
                .into_iter()
                .map(|packet| codec::encode(&ClientMsg::Inputs(packet)))
                .collect();
            if ping {
                frames.push(codec::encode(&ClientMsg::Ping { id: p.next_ping }));
                p.next_ping += 1;
            }
            inbox.push((p.id, frames));
        }
        let started = clock();
        for (id, frames) in &inbox {
            for f in frames {
                if let Ok(msg) = codec::decode::<ClientMsg>(f) {
                    let _ = self.host.receive_msg(self.now, *id, f.len(), msg);
                }
            }
        }
        let out = self.host.poll_until(self.now);
        let spent = clock() - started;
        for (_, id, frame) in out {
            let page = self.pages.iter_mut().find(|p| p.id == id);
            if let (Some(page), Ok(ServerMsg::Rollback(msg))) =
                (page, codec::decode::<ServerMsg>(&frame))
            {
                // A refused message is counted by the predictor.
                let _ = page.predictor.receive(msg);
            }
        }
        spent
    }

    /// Bytes received from and sent to all pages so far (up, down), as the
    /// room's links count them.
    pub fn bytes(&self) -> (u64, u64) {
        self.pages.iter().fold((0, 0), |(up, down), p| {
            let t = self.host.traffic(p.id).unwrap_or_default();
            (up + t.bytes_up, down + t.bytes_down)
        })
    }
}

/// What [`MatchReport::measure`] found for one match size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchReport {
    /// Pages in the match.
    pub players: usize,
    /// Ticks measured (60 per second).
    pub ticks: usize,
    /// Mean of the room's time per tick, µs: what a coarse clock (the
    /// browser's `performance.now()`, 100 µs without cross-origin
    /// isolation) still measures, its rounding averaging out over the
    /// ticks.
    pub tick_mean_us: f64,
    /// Median of the room's time per tick, µs.
    pub tick_p50_us: f64,
    /// 99th percentile of the room's time per tick, µs.
    pub tick_p99_us: f64,
    /// Bytes per second from each page to the room (mean over pages).
    pub up_bytes_per_s: f64,
    /// Bytes per second from the room to each page (mean over pages).
    pub down_bytes_per_s: f64,
}

impl MatchReport {
    /// `seconds` s of a [`MatchSample`] of `players` pages after its
    /// warm-up, each tick timed by `clock` (µs): its p50 / p99 and the
    /// bytes/s per page each way. `None` outside `2..=8` players.
    pub fn measure(
        players: usize,
        seconds: u32,
        clock: &mut dyn FnMut() -> f64,
    ) -> Option<MatchReport> {
        let mut sample = MatchSample::new(players)?;
        let (up0, down0) = sample.bytes();
        let mut ticks: Vec<f64> = (0..u64::from(seconds) * 60)
            .map(|_| sample.tick(clock))
            .collect();
        ticks.sort_by(f64::total_cmp);
        let (up1, down1) = sample.bytes();
        let per = |a: u64, b: u64| (b - a) as f64 / players as f64 / f64::from(seconds.max(1));
        Some(MatchReport {
            players,
            ticks: ticks.len(),
            tick_mean_us: ticks.iter().sum::<f64>() / ticks.len().max(1) as f64,
            tick_p50_us: quantile(&ticks, 0.5),
            tick_p99_us: quantile(&ticks, 0.99),
            up_bytes_per_s: per(up0, up1),
            down_bytes_per_s: per(down0, down1),
        })
    }

    /// As one JSON object (what `scripts/bench.sh` reads).
    pub fn json(&self) -> String {
        format!(
            "{{\"players\":{},\"ticks\":{},\"tick_mean_us\":{:.1},\"tick_p50_us\":{:.1},\
             \"tick_p99_us\":{:.1},\"up_bytes_per_s\":{:.0},\"down_bytes_per_s\":{:.0}}}",
            self.players,
            self.ticks,
            self.tick_mean_us,
            self.tick_p50_us,
            self.tick_p99_us,
            self.up_bytes_per_s,
            self.down_bytes_per_s
        )
    }
}

/// The value at quantile `q` (0–1) of `sorted`; 0 if empty.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_is_seated_follows_the_states_and_nothing_is_refused() {
        let mut sample = MatchSample::new(4).unwrap();
        let before = sample.bytes();
        for _ in 0..60 {
            sample.tick(&mut || 0.0);
        }
        let after = sample.bytes();
        assert!(
            after.0 > before.0 && after.1 > before.1,
            "{before:?} {after:?}"
        );
        assert_eq!(sample.host.game().players_seated(), 4);
        assert_eq!(sample.host.game().refused_total(), 0);
        for (k, page) in sample.pages.iter().enumerate() {
            let confirmed = page.predictor.confirmed().unwrap().tick;
            // 3 s in at RTT 100 ms: the confirmed world is recent.
            assert!(
                confirmed.0 > 150,
                "page {k} confirmed only tick {}",
                confirmed.0
            );
        }
        assert!(MatchSample::new(1).is_none() && MatchSample::new(9).is_none());
    }

    #[test]
    fn the_report_counts_each_page_s_bytes_per_second() {
        let r = MatchReport::measure(2, 1, &mut || 0.0).unwrap();
        assert_eq!(r.ticks, 60);
        assert_eq!(
            (r.tick_mean_us, r.tick_p50_us, r.tick_p99_us),
            (0.0, 0.0, 0.0)
        );
        // 60 input packets a second up, 60 Acks + 30 States down at least.
        assert!(r.up_bytes_per_s > 60.0 * 10.0, "{r:?}");
        assert!(r.down_bytes_per_s > r.up_bytes_per_s, "{r:?}");
        assert!(r.json().starts_with("{\"players\":2,\"ticks\":60,"));
    }
}
