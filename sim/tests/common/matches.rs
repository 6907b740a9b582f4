//! A rollback match on a virtual clock (issue 22): one [`MatchServer`]
//! recording itself, N [`RollbackPredictor`]s, each player with its own
//! seeded link conditioner each way and scripted input. Used by
//! `rollback_match.rs` and, for the golden recordings, `golden_matches.rs`.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;
use sim::net::conditioner::LinkConditioner;
use sim::net::settings::LinkSettings;
use sim::rollback::recording::{RecordedLink, MAX_RECORDED_TICKS};
use sim::rollback::wire::{InputPacket, RollbackServerMsg};
use sim::rollback::{
    InputCmd, MatchRecording, MatchServer, RollbackConfig, RollbackPredictor, Snapshot, TickRate,
};
use sim::{SimTime, Vec2};
use std::collections::BTreeMap;

/// Bytes a typical input packet and server message take (for the
/// conditioner's bandwidth model, which is off here).
pub const PACKET_BYTES: usize = 30;

/// One player: its page's predictor, its two links, its scripted stick.
pub struct Player {
    pub predictor: RollbackPredictor,
    /// Both links' settings and seeds, for the recording.
    pub link: RecordedLink,
    pub up: LinkConditioner<InputPacket>,
    pub down: LinkConditioner<RollbackServerMsg>,
    /// Render frame, s (the page's `requestAnimationFrame`).
    pub frame_s: f64,
    /// The page's clock against real time: each frame's `frame_s` reads
    /// as `frame_s × clock` (1 = honest, 0.96 = 4 % slow).
    pub clock: f64,
    pub next_frame: SimTime,
    pub script: Pcg32,
    pub dir: Vec2,
    pub buttons: u16,
    /// Scripted input stops after this.
    pub input_until: SimTime,
}

/// A match and its players on one clock, stepped by 1 ms.
pub struct Match {
    pub server: MatchServer,
    pub players: Vec<Player>,
    pub now: SimTime,
    /// The server's world at every tick run (tick → state).
    pub history: BTreeMap<u32, Snapshot>,
    pub out: Vec<(usize, RollbackServerMsg)>,
    /// Confirmed worlds compared with the server's.
    pub compared: u64,
}

impl Match {
    /// `one_way[i]` ms each way for player `i`, with `jitter_ms` and
    /// `loss_percent` both ways; input scripted for `input_s` seconds.
    /// The server records the match from its start.
    pub fn new(
        seed: u64,
        one_way: &[u16],
        jitter_ms: u16,
        loss_percent: u8,
        input_s: f64,
    ) -> Match {
        let config = RollbackConfig::at_rate(TickRate::Hz60);
        let mut server = MatchServer::new(config, one_way.len(), 7).unwrap();
        server.record(MAX_RECORDED_TICKS);
        let mut history = BTreeMap::new();
        history.insert(server.state().tick.0, server.state().clone());
        let players = one_way
            .iter()
            .enumerate()
            .map(|(i, &ms)| {
                let s = seed.wrapping_mul(31).wrapping_add(i as u64);
                let mut predictor = RollbackPredictor::new(config).unwrap();
                let start = server.join(1000 + i as u32).unwrap();
                predictor.receive(RollbackServerMsg::Start(start)).unwrap();
                let settings = LinkSettings::simple(ms, jitter_ms, loss_percent);
                let link = RecordedLink {
                    up: settings,
                    up_seed: s * 2,
                    down: settings,
                    down_seed: s * 2 + 1,
                };
                Player {
                    predictor,
                    up: LinkConditioner::new(link.up.conditions(), link.up_seed),
                    down: LinkConditioner::new(link.down.conditions(), link.down_seed),
                    link,
                    frame_s: 1.0 / 60.0,
                    clock: 1.0,
                    // Pages do not draw in step.
                    next_frame: SimTime::from_millis(1 + 3 * i as u64),
                    script: Pcg32::seed_from_u64(s),
                    dir: Vec2::ZERO,
                    buttons: 0,
                    input_until: SimTime::from_secs_f64(input_s),
                }
            })
            .collect();
        Match {
            server,
            players,
            now: SimTime::ZERO,
            history,
            out: Vec::new(),
            compared: 0,
        }
    }

    pub fn tick_due(&self) -> SimTime {
        let rate = self.server.config().tick_rate;
        SimTime::ZERO.plus_micros(rate.micros_at(self.server.ticks_run() + 1))
    }

    /// Runs 1 ms; `each_tick` sees the server after every tick it runs.
    pub fn step(&mut self, each_tick: &mut impl FnMut(&MatchServer, &[Player])) {
        self.now = self.now.plus_millis(1);
        let now = self.now;
        for p in &mut self.players {
            while let Some(packet) = p.up.poll(now) {
                let _ = self.server.deliver(&packet);
            }
        }
        while self.tick_due() <= now {
            self.out.clear();
            self.server.run_tick(&mut self.out);
            let s = self.server.state();
            self.history.insert(s.tick.0, s.clone());
            for (i, msg) in self.out.drain(..) {
                self.players[i].down.send(now, PACKET_BYTES, msg);
            }
            each_tick(&self.server, &self.players);
        }
        for p in &mut self.players {
            while let Some(msg) = p.down.poll(now) {
                let _ = p.predictor.receive(msg);
            }
            if now < p.next_frame {
                continue;
            }
            p.next_frame = p.next_frame.plus_micros((p.frame_s * 1e6) as u64);
            if now < p.input_until {
                // A new stick direction about every half second, fire about
                // a third of the time: remote players are mispredicted.
                if p.script.next_u32() % 30 == 0 {
                    p.dir = compass(p.script.next_u32());
                    p.buttons = if p.script.next_u32() % 3 == 0 {
                        InputCmd::FIRE
                    } else {
                        0
                    };
                }
            } else {
                p.dir = Vec2::ZERO;
                p.buttons = 0;
            }
            for packet in p.predictor.frame(p.frame_s * p.clock, p.dir, p.buttons) {
                p.up.send(now, PACKET_BYTES, packet);
            }
            let confirmed = p.predictor.confirmed().expect("started");
            let server = &self.history[&confirmed.tick.0];
            assert_eq!(
                confirmed, server,
                "a confirmed world differs from the server's"
            );
            self.compared += 1;
        }
    }

    pub fn run_for(&mut self, seconds: f64, mut each_tick: impl FnMut(&MatchServer, &[Player])) {
        let end = self.now.plus_micros((seconds * 1e6) as u64);
        while self.now < end {
            self.step(&mut each_tick);
        }
    }

    /// The server's recording with each player's link filled in.
    pub fn recording(&self) -> MatchRecording {
        let mut rec = self.server.recording().expect("recorded").clone();
        for j in &mut rec.joins {
            j.link = Some(self.players[usize::from(j.player)].link);
        }
        rec
    }

    /// [`Match::history`]'s state hashes after each tick run, oldest
    /// first: what the server computed, for comparing with a replay.
    pub fn server_hashes(&self) -> Vec<u64> {
        self.history
            .values()
            .skip(1)
            .map(Snapshot::state_hash)
            .collect()
    }
}

/// The eight compass directions, unit length (a stick quantizes them).
pub fn compass(k: u32) -> Vec2 {
    let h = core::f32::consts::FRAC_1_SQRT_2;
    let (x, y) = [
        (1.0, 0.0),
        (h, h),
        (0.0, 1.0),
        (-h, h),
        (-1.0, 0.0),
        (-h, -h),
        (0.0, -1.0),
        (h, -h),
    ][(k % 8) as usize];
    Vec2::new(x, y)
}

/// A golden match file, `scenarios/matches/<stem>.json`: a recording and
/// what its replay must give. The hashes are 16 hex digits so that the
/// browser test reads them without 64-bit JSON numbers. Beside it,
/// `<stem>.bin` holds the same recording's compact bytes, what the wasm
/// replays.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct GoldenMatch {
    /// What was recorded, and by which test.
    pub description: String,
    /// Ticks recorded.
    pub ticks: usize,
    /// `sim::rollback::recording::digest` of the per-tick hashes.
    pub digest: String,
    /// The hash after the last tick.
    pub final_hash: String,
    /// Size of `<stem>.bin`, bytes.
    pub bytes: usize,
    /// The recording.
    pub recording: MatchRecording,
}

/// The folder of the golden matches.
pub fn golden_matches_dir() -> std::path::PathBuf {
    super::scenarios_dir().join("matches")
}

impl GoldenMatch {
    /// The file for `rec`, described by `description`.
    pub fn of(description: &str, rec: &MatchRecording) -> GoldenMatch {
        let hashes = rec.hashes();
        GoldenMatch {
            description: description.to_owned(),
            ticks: hashes.len(),
            digest: format!("{:016x}", sim::rollback::recording::digest(&hashes)),
            final_hash: format!("{:016x}", hashes.last().expect("a tick")),
            bytes: rec.to_bytes().len(),
            recording: rec.clone(),
        }
    }

    /// Reads `scenarios/matches/<stem>.json` and checks its recording.
    pub fn read(stem: &str) -> GoldenMatch {
        let path = golden_matches_dir().join(format!("{stem}.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let g: GoldenMatch =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        g.recording
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        g
    }

    /// `scenarios/matches/<stem>.bin`, decoded.
    pub fn read_bin(stem: &str) -> MatchRecording {
        let path = golden_matches_dir().join(format!("{stem}.bin"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        MatchRecording::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// With `BLESS_MATCHES=1`, writes `<stem>.json` and `<stem>.bin`
    /// for `rec`; otherwise asserts that they hold exactly `rec`.
    pub fn bless_or_check(stem: &str, description: &str, rec: &MatchRecording) {
        let dir = golden_matches_dir();
        if std::env::var_os("BLESS_MATCHES").is_some() {
            let g = GoldenMatch::of(description, rec);
            std::fs::create_dir_all(&dir).unwrap();
            let json = serde_json::to_string(&g).unwrap() + "\n";
            std::fs::write(dir.join(format!("{stem}.json")), json).unwrap();
            std::fs::write(dir.join(format!("{stem}.bin")), rec.to_bytes()).unwrap();
            println!(
                "blessed scenarios/matches/{stem}.json: {} ticks, digest {}",
                g.ticks, g.digest
            );
            return;
        }
        let g = GoldenMatch::read(stem);
        assert!(
            g.recording == *rec && g.description == description,
            "scenarios/matches/{stem}.json is not the match this build records; if the change \
             of behaviour is meant: BLESS_MATCHES=1 cargo test -p sim --test rollback_match"
        );
    }
}
