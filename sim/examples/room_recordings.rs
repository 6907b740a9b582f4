//! The golden room recordings (`scenarios/rooms/`): scripted CMC rooms
//! recorded by their host, each written as a
//! [`RoomRecordingFile`] with the line its replay gives. `sim/tests/room_golden.rs`
//! replays them natively, `e2e/golden.test.mjs` in wasm.
//!
//! `cargo run --release -p sim --example room_recordings -- record scenarios/rooms`
//! records the scripted rooms again (their inputs change only if the
//! clients or links behave otherwise);
//! `cargo run --release -p sim --example room_recordings -- bless scenarios/rooms/*.json`
//! keeps each file's inputs and writes the tick hashes and line this build's
//! replay gives (a recording saved from a room can only be blessed so).
//! Run either only when a change of the room's behaviour is meant.

use sim::endpoints::room::recording::{RoomRecording, RoomRecordingFile};
use sim::endpoints::room::replay::replay;
use sim::endpoints::room::reports::shots::strafer;
use sim::endpoints::room::{RoomEndpoint, RoomSession};
use sim::room::weapon::WeaponConfig;
use sim::room::{PlayerId, PlayerSettings, RoomConfig};
use sim::{NetSettings, Vec2};
use std::path::Path;

const FRAME: f64 = 1.0 / 60.0;

fn config() -> RoomConfig {
    RoomConfig {
        weapon: WeaponConfig {
            magazine: 200,
            ..WeaponConfig::default()
        },
        ..RoomConfig::default()
    }
}

/// Fires player `shooter`'s weapon at `target` as drawn, if drawn.
fn fire_at(s: &mut RoomSession, shooter: PlayerId, target: PlayerId) {
    let aim = s
        .endpoint(shooter)
        .and_then(|e| e.proxies().get(target).map(|p| p.drawn_position()));
    if let Some(aim) = aim {
        // A refusal (clock not synced yet) is part of the run.
        let _ = s.act(shooter, |e, now| e.fire(now, aim));
    }
}

/// Two players for 12 s: one at the spawn (RTT 150 ms, ±10 ms, 3 % loss)
/// shoots every 300 ms from 4 s at one strafing (RTT 200 ms, ±10 ms, 3 %).
fn duel() -> RoomRecording {
    let mut s = RoomSession::new(config(), 23).expect("the default room");
    s.host.record(1_000_000).expect("a new room");
    let shooter = s.join(NetSettings::symmetric(150, 10, 3)).expect("room");
    let target = s.join(NetSettings::symmetric(200, 10, 3)).expect("room");
    let mut steer = strafer(false);
    let mut input = |id: PlayerId, e: &RoomEndpoint| match id == target {
        true => steer.input(e.client().state().position, FRAME as f32),
        false => (Vec2::ZERO, false),
    };
    for frame in 0..12 * 60 {
        if frame >= 240 && frame % 18 == 0 {
            fire_at(&mut s, shooter, target);
        }
        s.step(FRAME, &mut input);
    }
    s.host.recording().expect("recording").clone()
}

/// 10 s: a player (RTT 100 ms, 5 % loss, 10 Hz net updates,
/// a 150 ms rewind cap) shoots at a strafing bot every 200 ms; the bot
/// respawns at 5 s; a second player joins at 2 s and leaves at 7 s.
fn bot_respawn_leave() -> RoomRecording {
    let mut s = RoomSession::new(config(), 31).expect("the default room");
    s.host.record(1_000_000).expect("a new room");
    let shooter = s.join(NetSettings::symmetric(100, 0, 5)).expect("room");
    let bot = s
        .add_bot(strafer(false), Vec2::new(1000.0, 750.0))
        .expect("room");
    s.act(shooter, |e, _| {
        e.set_player_settings(PlayerSettings {
            net_update_hz: 10,
            rewind: true,
            rewind_cap_ms: 150,
        })
    });
    let mut guest = None;
    for frame in 0..10 * 60 {
        match frame {
            120 => guest = s.join(NetSettings::symmetric(60, 5, 1)).ok(),
            300 => {
                let now = s.now();
                s.host
                    .respawn_bot(now, bot, strafer(false), Vec2::new(1000.0, 400.0));
            }
            420 => {
                if let Some(g) = guest.take() {
                    s.leave(g);
                }
            }
            _ => {}
        }
        if frame >= 180 && frame % 12 == 0 {
            fire_at(&mut s, shooter, bot);
        }
        s.step(FRAME, |id, _| match Some(id) == guest {
            true => (Vec2::new(0.0, 1.0), false),
            false => (Vec2::ZERO, false),
        });
    }
    s.host.recording().expect("recording").clone()
}

/// The file for `recording`, with the line its replay gives.
fn file(name: &str, description: &str, recording: &RoomRecording) -> RoomRecordingFile {
    let out = replay(recording).expect("a recording replays");
    assert_eq!(out.first_divergence, None, "{name} replays as recorded");
    RoomRecordingFile::new(name, description, recording, out.line()).expect("within the limit")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.split_first() {
        Some((cmd, rest)) if cmd == "record" && rest.len() == 1 => {
            let dir = Path::new(&rest[0]);
            std::fs::create_dir_all(dir).expect("the folder");
            let rooms = [
                (
                    "duel-150-200ms-3pct",
                    "Two players, 12 s: one at the spawn (RTT 150 ms, ±10 ms, 3 % loss) shoots every 300 ms from 4 s at one strafing (RTT 200 ms, ±10 ms, 3 %). Every shot a head shot.",
                    duel(),
                ),
                (
                    "bot-respawn-leave",
                    "10 s: a player (RTT 100 ms, 5 % loss, 10 Hz updates, 150 ms rewind cap) shoots every 200 ms at a strafing bot that respawns at 5 s; a second player joins at 2 s and leaves at 7 s.",
                    bot_respawn_leave(),
                ),
            ];
            for (name, description, recording) in rooms {
                let f = file(name, description, &recording);
                let path = dir.join(format!("{name}.json"));
                std::fs::write(&path, f.to_json()).expect("written");
                println!("{}: {}", path.display(), f.replay);
            }
        }
        Some((cmd, files)) if cmd == "bless" && !files.is_empty() => {
            for path in files {
                let text = std::fs::read_to_string(path).expect("readable");
                let old = RoomRecordingFile::from_json(&text).expect("a room recording file");
                let mut recording = old.recording().expect("a recording");
                // This build's hashes for the same inputs.
                recording.tick_hashes = replay(&recording).expect("replays").tick_hashes;
                let f = file(&old.name, &old.description, &recording);
                std::fs::write(path, f.to_json()).expect("written");
                println!("{path}: {}", f.replay);
            }
        }
        _ => eprintln!("usage: room_recordings record DIR | room_recordings bless FILE.json…"),
    }
}
