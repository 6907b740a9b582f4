//! The guided tour's runs (issue 24): for each stop, the run that shows
//! one lesson of the five references, the moment in it that matters and
//! the number the stop claims — with the technique as the stop sets it
//! and as its one control turns it ([`Variant`]). The page shows the text
//! around these (`web-client`'s `tour`); this module decides what runs and
//! what was measured, so the number in the page is the number a native
//! test pins (`sim/tests/tour.rs`).
//!
//! Every run is recorded in the page from a script (a bot or a scripted
//! key), at 60 Hz frames, from a fixed seed: a stop opens the same for
//! everyone, with no relay and no stored file.
//!
//! | stop | run | moment | number |
//! |---|---|---|---|
//! | `predict` | RTT 200 ms, prediction off, a key after 1 s | first drawn movement | key to movement, ms |
//! | `saved-moves` | RTT 200 ms, the bot running | 3 s | SavedMoves waiting for an Ack |
//! | `adjustment` | RTT 200 ms, server-only push zones | first Adjustment | SavedMoves replayed |
//! | `smoothing` | the same, smoothing disabled | first Adjustment | the drawn step there, cm |
//! | `reconciliation` | RTT 200 ms, 10 % loss, replay off | 20 s | backward jumps |
//! | `impulse` | the dash applied outside the SavedMove | 12 s | dashes the server never ran |
//! | `speed-hack` | the client's clock 1.5×, time discrepancy resolution | 6 s | time discrepancies caught |
//! | `misprediction` | rollback, RTT 150 ms, 10 % loss, each input sent once | first visible rollback after 2 s | ticks it re-simulated |
//! | `redundancy` | rollback, 10 % loss, each input sent once | 15 s | inputs the server never got |
//! | `delay-based` | rollback off (the game waits), RTT 150 ms, a key after 2 s | first drawn movement | key to movement, ms |
//! | `lag-compensation` | RTT 200 ms, the bot as the other character; beside it a room | 8 s | hits of 20 shots at a strafing player, the server rewinding or not |
//! | `proxy` | RTT 200 ms, 10 % loss, the other character unsmoothed | 15 s | its largest drawn step in one frame, cm |
//! | `tcp` | RTT 100 ms, 2 % loss, reliable-ordered (TCP-like) | 15 s | packets held behind a resend |
//!
//! Layer 7, a tool beside the inspector: it may import every layer below
//! (it records and plays scenarios), not the inspector or the console.

use crate::cmc::smoothing::SmoothingMode;
use crate::endpoints::room::reports::shots::{shoot_strafer_rewinding, Aim};
use crate::foundation::bot::Bot;
use crate::foundation::math::Vec2;
use crate::net::settings::NetSettings;
use crate::net::transport::LinkTransport;
use crate::protocol::{Model, Setup};
use crate::rollback::{BotPlayer, InputCmd, RollbackConfig};
use crate::scenario::{Scenario, ScenarioRun};

/// A recorded frame, s: every tour run is recorded at 60 Hz.
pub const FRAME: f64 = 1.0 / 60.0;

/// A run's drawn position must move more than this to count as moved, cm
/// (below the wire's 0.01 cm quantization it is noise).
const MOVED_CM: f32 = 0.01;

/// A drawn run back against the way the character was going longer than
/// this is a backward jump, cm: the server's Adjustment threshold (16 cm,
/// `002_…`), so a correction the server would not send is not counted.
pub const BACKWARD_JUMP_CM: f32 = 16.0;

/// Who presses the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// The built-in bot's loop of the arena ([`Bot`]).
    Bot,
    /// The rollback model's bot player ([`BotPlayer`]: it fires and
    /// dashes), from waypoint 0.
    BotPlayer,
    /// Stands still for `still_frames` frames, then holds "right".
    StillThenRight {
        /// Frames before the key.
        still_frames: u32,
    },
}

/// When the stop pauses: the frame the inspector's playhead is put on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Moment {
    /// After this many seconds of the run.
    At(f64),
    /// The first frame the drawn character moved after the key
    /// ([`Script::StillThenRight`]).
    FirstMovement,
    /// The first frame after this many seconds in which an Adjustment was
    /// applied (rollback: a visible rollback).
    FirstCorrectionAfter(f64),
}

/// What the stop measures at its moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// From the first frame the key was held to the first frame the
    /// character was drawn moved, ms (frame time, both frames counted:
    /// one frame, 16.7 ms, is "at once").
    KeyDelayMs,
    /// SavedMoves sent and not yet acknowledged (`queue-len`).
    SavedMovesWaiting,
    /// SavedMoves replayed so far (`replayed-moves`).
    ReplayedMoves,
    /// How far the drawn character moved in the moment's frame, cm
    /// (running at 600 cm/s: 10 cm; more is a snap drawn as it came).
    DrawnStepCm,
    /// Times the drawn character ran back more than
    /// [`BACKWARD_JUMP_CM`] against the way it was going.
    BackwardJumps,
    /// Dashes the client felt that the server never applied (`004_…`).
    DashesLost,
    /// Time discrepancies the server caught (`time-discrepancy`).
    TimeDiscrepancies,
    /// Ticks the newest rebase re-simulated.
    ResimulatedTicks,
    /// Ticks whose input never reached the server in time
    /// (`missed-inputs`).
    MissedInputs,
    /// The other character's largest drawn step in one frame, cm (running
    /// at 600 cm/s it steps 10 cm a frame; more is a snap).
    ProxyStepCm,
    /// Of [`ROOM_SHOTS`] shots at the centre of a strafing player as drawn
    /// in a room at RTT 200 ms, the hits the server confirmed — rewinding
    /// to what the shooter saw ([`Variant::Shown`]) or testing against
    /// the present ([`Variant::Tried`], `003_…` 回溯算法). A room of its own,
    /// not the stop's run.
    RoomHits,
    /// Packets held behind a resent one, both directions (head-of-line
    /// blocking: the Link card's held counts).
    HeldPackets,
}

/// Shots fired in [`Reading::RoomHits`]'s room, one per 100 ms.
pub const ROOM_SHOTS: u32 = 20;

/// The run a stop shows: as the stop sets it, or with its one control
/// turned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The technique as the stop sets it.
    Shown,
    /// The stop's control turned ([`Stop::tried`]).
    Tried,
}

/// One stop of the tour.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// Its name in `?tour=` links and in the page's texts.
    pub key: &'static str,
    /// The settings the stop shows.
    pub setup: Setup,
    /// The same with the stop's control turned.
    pub tried: Setup,
    /// The link's and the client's seed.
    pub seed: u64,
    /// Who presses the keys.
    pub script: Script,
    /// How long the run is recorded, s.
    pub seconds: f64,
    /// Where the playhead stops.
    pub moment: Moment,
    /// The number the stop claims.
    pub reading: Reading,
}

/// The number a stop claims, where it was read and in which run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Found {
    /// The frame the playhead is put on (frames played, from 1).
    pub frame: usize,
    /// The run time there, µs.
    pub t_us: u64,
    /// The reading ([`Reading`] gives its unit); `None` if the moment
    /// never came in the run (the playhead is then at its end).
    pub value: Option<f64>,
}

fn cmc(rtt_ms: u16, loss: u8) -> Setup {
    Setup {
        net: NetSettings::symmetric(rtt_ms, 0, loss),
        ..Setup::default()
    }
}

fn rollback(rtt_ms: u16, loss: u8, config: RollbackConfig) -> Setup {
    Setup {
        net: NetSettings::symmetric(rtt_ms, 0, loss),
        model: Model::Rollback(config),
        ..Setup::default()
    }
}

/// The tour's stops, in order.
pub fn stops() -> Vec<Stop> {
    let with_client = |mut s: Setup, f: fn(&mut crate::cmc::client_config::ClientConfig)| {
        f(&mut s.client);
        s
    };
    let smoothing = |mut s: Setup, m: SmoothingMode| {
        s.smoothing = m;
        s
    };
    let pushes = {
        let mut s = cmc(200, 0);
        s.rules.server_effects = true;
        s
    };
    let speed_hack = {
        let mut s = cmc(100, 0);
        s.rules.time_discrepancy_resolution = true;
        s.client.clock_speed = 1.5;
        s
    };
    let rb = RollbackConfig::default();
    vec![
        Stop {
            key: "predict",
            setup: smoothing(
                with_client(cmc(200, 0), |c| c.prediction = false),
                SmoothingMode::Disabled,
            ),
            tried: smoothing(cmc(200, 0), SmoothingMode::Disabled),
            seed: 7,
            script: Script::StillThenRight { still_frames: 60 },
            seconds: 2.5,
            moment: Moment::FirstMovement,
            reading: Reading::KeyDelayMs,
        },
        Stop {
            key: "saved-moves",
            setup: cmc(200, 0),
            tried: cmc(40, 0),
            seed: 7,
            script: Script::Bot,
            seconds: 5.0,
            moment: Moment::At(3.0),
            reading: Reading::SavedMovesWaiting,
        },
        Stop {
            key: "adjustment",
            setup: pushes,
            tried: {
                let mut s = pushes;
                s.net = NetSettings::symmetric(40, 0, 0);
                s
            },
            seed: 7,
            script: Script::Bot,
            seconds: 20.0,
            moment: Moment::FirstCorrectionAfter(0.0),
            reading: Reading::ReplayedMoves,
        },
        Stop {
            key: "smoothing",
            setup: smoothing(pushes, SmoothingMode::Disabled),
            tried: smoothing(pushes, SmoothingMode::Exponential),
            seed: 7,
            script: Script::Bot,
            seconds: 20.0,
            moment: Moment::FirstCorrectionAfter(0.0),
            reading: Reading::DrawnStepCm,
        },
        Stop {
            key: "reconciliation",
            setup: smoothing(
                with_client(cmc(200, 10), |c| c.reconciliation = false),
                SmoothingMode::Disabled,
            ),
            tried: smoothing(cmc(200, 10), SmoothingMode::Disabled),
            seed: 11,
            script: Script::Bot,
            seconds: 25.0,
            moment: Moment::At(20.0),
            reading: Reading::BackwardJumps,
        },
        Stop {
            key: "impulse",
            setup: with_client(cmc(100, 0), |c| c.dash_outside_saved_move = true),
            tried: cmc(100, 0),
            seed: 7,
            script: Script::Bot,
            seconds: 15.0,
            moment: Moment::At(12.0),
            reading: Reading::DashesLost,
        },
        Stop {
            key: "speed-hack",
            setup: speed_hack,
            tried: {
                let mut s = speed_hack;
                s.client.clock_speed = 1.0;
                s
            },
            seed: 7,
            script: Script::Bot,
            seconds: 8.0,
            moment: Moment::At(6.0),
            reading: Reading::TimeDiscrepancies,
        },
        Stop {
            key: "misprediction",
            setup: rollback(
                150,
                10,
                RollbackConfig {
                    redundancy: 1,
                    ..rb
                },
            ),
            tried: rollback(
                150,
                10,
                RollbackConfig {
                    redundancy: 1,
                    input_delay: 8,
                    ..rb
                },
            ),
            seed: 5,
            script: Script::BotPlayer,
            seconds: 15.0,
            moment: Moment::FirstCorrectionAfter(2.0),
            reading: Reading::ResimulatedTicks,
        },
        Stop {
            key: "redundancy",
            setup: rollback(
                150,
                10,
                RollbackConfig {
                    redundancy: 1,
                    ..rb
                },
            ),
            tried: rollback(150, 10, rb),
            seed: 5,
            script: Script::BotPlayer,
            seconds: 18.0,
            moment: Moment::At(15.0),
            reading: Reading::MissedInputs,
        },
        Stop {
            key: "delay-based",
            setup: rollback(
                150,
                0,
                RollbackConfig {
                    rollback: false,
                    ..rb
                },
            ),
            tried: rollback(150, 0, rb),
            seed: 5,
            script: Script::StillThenRight { still_frames: 120 },
            seconds: 3.5,
            moment: Moment::FirstMovement,
            reading: Reading::KeyDelayMs,
        },
        Stop {
            key: "lag-compensation",
            setup: cmc(200, 0),
            tried: cmc(200, 0),
            seed: 7,
            script: Script::Bot,
            seconds: 10.0,
            moment: Moment::At(8.0),
            reading: Reading::RoomHits,
        },
        Stop {
            key: "proxy",
            setup: smoothing(cmc(200, 10), SmoothingMode::Disabled),
            tried: smoothing(cmc(200, 10), SmoothingMode::Exponential),
            seed: 7,
            script: Script::Bot,
            seconds: 18.0,
            moment: Moment::At(15.0),
            reading: Reading::ProxyStepCm,
        },
        Stop {
            key: "tcp",
            setup: Setup {
                transport: LinkTransport::ReliableOrdered,
                ..cmc(100, 2)
            },
            tried: cmc(100, 2),
            seed: 7,
            script: Script::Bot,
            seconds: 18.0,
            moment: Moment::At(15.0),
            reading: Reading::HeldPackets,
        },
    ]
}

/// The stop a `?tour=` value names, as its place from 0: a number from 1,
/// or a stop's key; `None` if it names no stop.
pub fn parse(value: &str) -> Option<usize> {
    let all = stops();
    match value.parse::<usize>() {
        Ok(n) => (1..=all.len()).contains(&n).then(|| n - 1),
        Err(_) => all.iter().position(|s| s.key == value),
    }
}

impl Stop {
    /// The settings of `variant`.
    pub fn setup_of(&self, variant: Variant) -> Setup {
        match variant {
            Variant::Shown => self.setup,
            Variant::Tried => self.tried,
        }
    }

    /// Records the run of `variant`: [`Stop::seconds`] of 60 Hz frames from
    /// [`Stop::seed`], the keys pressed by [`Stop::script`].
    pub fn record(&self, variant: Variant) -> Scenario {
        let mut run = ScenarioRun::record(self.key, self.seed, self.setup_of(variant));
        let (mut bot, mut player) = (Bot::new(), BotPlayer::new(0));
        let frames = (self.seconds / FRAME).round() as u32;
        for frame in 0..frames {
            let at = run.endpoint().position();
            let (dir, dash, fire) = match self.script {
                Script::Bot => {
                    let (dir, dash) = bot.input(at, FRAME as f32);
                    (dir, dash, false)
                }
                Script::BotPlayer => {
                    let (dir, buttons) = player.input(at, FRAME as f32);
                    (
                        dir,
                        buttons & InputCmd::DASH != 0,
                        buttons & InputCmd::FIRE != 0,
                    )
                }
                Script::StillThenRight { still_frames } => {
                    let right = frame >= still_frames;
                    (Vec2::new(if right { 1.0 } else { 0.0 }, 0.0), false, false)
                }
            };
            run.step_live(FRAME, dir, dash, fire);
        }
        run.stop_recording();
        run.scenario().clone()
    }

    /// Plays `scenario` (the [`Stop::record`] of this stop's `variant`) to
    /// the stop's moment and reads the stop's number there.
    pub fn find(&self, scenario: &Scenario, variant: Variant) -> Found {
        let mut run = ScenarioRun::play(scenario.clone());
        let mut watch = Watch::default();
        let key_frame = match self.script {
            Script::StillThenRight { still_frames } => Some(still_frames as usize),
            _ => None,
        };
        while run.step_recorded() {
            let frame = run.frame_index();
            watch.observe(&run);
            let here = match self.moment {
                Moment::At(secs) => run.elapsed_secs() + 1e-9 >= secs,
                Moment::FirstMovement => key_frame.is_some_and(|k| frame > k) && watch.moved,
                Moment::FirstCorrectionAfter(secs) => {
                    let n = corrections(&mut run);
                    let new = n > watch.corrections;
                    watch.corrections = n;
                    new && run.elapsed_secs() + 1e-9 >= secs
                }
            };
            if here {
                let value = self.read(&mut run, &watch, key_frame, variant);
                return Found {
                    frame,
                    t_us: run.now().0,
                    value: Some(value),
                };
            }
        }
        Found {
            frame: run.frame_index(),
            t_us: run.now().0,
            value: None,
        }
    }

    fn read(
        &self,
        run: &mut ScenarioRun,
        watch: &Watch,
        key_frame: Option<usize>,
        variant: Variant,
    ) -> f64 {
        let m = run.metrics();
        let client = run.endpoint().cmc();
        let server = run.host().cmc().map(|s| s.counters());
        let rollback = m.rollback.unwrap_or_default();
        match self.reading {
            Reading::KeyDelayMs => {
                let held = run.frame_index() - key_frame.unwrap_or(0);
                held as f64 * FRAME * 1000.0
            }
            Reading::SavedMovesWaiting => m.queue_len as f64,
            Reading::ReplayedMoves => m.replayed_moves as f64,
            Reading::DrawnStepCm => f64::from(watch.step_cm),
            Reading::BackwardJumps => watch.backward as f64,
            Reading::DashesLost => {
                let felt = client.map_or(0, |c| c.counters().dash_events);
                felt.saturating_sub(server.map_or(0, |s| s.dashes)) as f64
            }
            Reading::TimeDiscrepancies => server.map_or(0, |s| s.time_discrepancy_events) as f64,
            Reading::ResimulatedTicks => f64::from(rollback.last_resimulated),
            Reading::MissedInputs => f64::from(rollback.missed_inputs),
            Reading::ProxyStepCm => f64::from(watch.proxy_step_cm),
            Reading::HeldPackets => f64::from(m.link.up.held + m.link.down.held),
            Reading::RoomHits => {
                let (tally, _) = shoot_strafer_rewinding(
                    self.seed,
                    NetSettings::symmetric(200, 0, 0),
                    SmoothingMode::Exponential,
                    Aim::Centre,
                    ROOM_SHOTS,
                    variant == Variant::Shown,
                );
                tally.confirmed as f64
            }
        }
    }
}

/// Corrections so far: Adjustments (CMC) or visible rollbacks.
fn corrections(run: &mut ScenarioRun) -> u64 {
    run.metrics().adjustments
}

/// What a stop follows frame by frame on the way to its moment.
#[derive(Debug, Default)]
struct Watch {
    /// The drawn position and velocity after the previous frame.
    last: Option<(Vec2, Vec2)>,
    /// The drawn character's step in the newest frame, cm.
    step_cm: f32,
    /// It moved in the newest frame.
    moved: bool,
    /// Corrections seen so far.
    corrections: u64,
    /// Run back against the way it was going since it last went forward, cm.
    run_back: f32,
    backward: u64,
    /// The other character's drawn position after the previous frame.
    proxy: Option<Vec2>,
    proxy_step_cm: f32,
}

impl Watch {
    fn observe(&mut self, run: &ScenarioRun) {
        let e = run.endpoint();
        let drawn = e.cmc().map_or(e.position(), |c| c.drawn_position());
        let velocity = e.velocity();
        if let Some((before, v0)) = self.last {
            let step = drawn - before;
            self.step_cm = step.length();
            self.moved = self.step_cm > MOVED_CM;
            let along = step.dot(v0.safe_normal());
            if along < 0.0 {
                self.run_back -= along;
            } else {
                if self.run_back > BACKWARD_JUMP_CM {
                    self.backward += 1;
                }
                self.run_back = 0.0;
            }
        }
        self.last = Some((drawn, velocity));
        let proxy = e
            .proxy()
            .filter(|p| p.is_visible())
            .map(|p| p.drawn_position());
        if let (Some(now), Some(before)) = (proxy, self.proxy) {
            self.proxy_step_cm = self.proxy_step_cm.max((now - before).length());
        }
        self.proxy = proxy;
    }
}
