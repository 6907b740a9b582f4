//! The `scenario` CLI on files, links and store ids: the same scenario
//! gives the same hash every time, and a tampered recording is reported
//! with exit 1.

mod common;

use common::backend::Backend;
use relay_server::store::ItemKind;

use sim::protocol::{Setting, Setup};
use sim::scenario::{codec, Change, SCENARIO_VERSION};
use sim::{Bot, ClientConfig, Scenario, ScenarioRun};
use std::process::Command;

fn recorded() -> Scenario {
    let setup = Setup {
        net: sim::NetSettings::symmetric(100, 0, 20),
        ..Setup::default()
    };
    let mut run = ScenarioRun::record("cli test", 5, setup);
    let mut bot = Bot::new();
    for _ in 0..600 {
        let (dir, dash) = bot.input(run.endpoint().position(), 1.0 / 60.0);
        run.step_live(1.0 / 60.0, dir, dash, false);
    }
    run.stop_recording();
    run.scenario().clone()
}

fn cli(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scenario"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap(), text)
}

fn line<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {key} in {text}"))
}

#[test]
fn files_and_links_give_the_recorded_hash() {
    let scenario = recorded();
    let o = scenario.outcome.clone().unwrap();
    let dir = std::env::temp_dir().join(format!("np-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("s.bin");
    let json = dir.join("s.json");
    let csv = dir.join("t.csv");
    std::fs::write(&bin, codec::encode(&scenario)).unwrap();
    std::fs::write(&json, serde_json::to_vec(&scenario).unwrap()).unwrap();
    let link = format!("http://localhost:8080/#s={}", codec::to_fragment(&scenario));
    for source in [bin.to_str().unwrap(), json.to_str().unwrap(), &link] {
        let (code, text) = cli(&["run", source, "--csv", csv.to_str().unwrap()]);
        assert_eq!(code, 0, "{text}");
        assert_eq!(line(&text, "state-hash:"), format!("{:016x}", o.state_hash));
        assert_eq!(
            line(&text, "trajectory-hash:"),
            format!("{:016x}", o.trajectory_hash)
        );
        assert_eq!(line(&text, "adjustments:"), o.adjustments.to_string());
        assert_eq!(line(&text, "verdict:"), "identical to the original");
    }
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 601);
    assert!(rows.starts_with("frame,time_s,x_cm,y_cm,"));

    // A tampered outcome: the run no longer matches, exit 1.
    let mut tampered = scenario.clone();
    tampered.outcome.as_mut().unwrap().adjustments += 1;
    std::fs::write(&bin, codec::encode(&tampered)).unwrap();
    let (code, text) = cli(&["run", bin.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("\"matches_recording\":false"), "{text}");

    // Bad input: exit 2 with a reason.
    let (code, text) = cli(&["run", "no-such-thing"]);
    assert_eq!(code, 2);
    assert!(
        text.contains("is neither a file, a scenario id, nor a scenario link"),
        "{text}"
    );
    // One id in 64 starts with '-': it is a source, not a flag.
    let db = dir.join("empty.sqlite3");
    let (code, text) = cli(&["run", "-mAbCdEfGhIjK", "--db", db.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("-mAbCdEfGhIjK"), "{text}");
    assert!(!text.contains("unexpected argument"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

on_both_stores!(ids_are_looked_up_in_the_relays_store);

/// `scenario run <id> --db <the relay's --db>`, SQLite file or PostgreSQL
/// URL.
async fn ids_are_looked_up_in_the_relays_store(backend: &Backend) {
    let scenario = recorded();
    let o = scenario.outcome.clone().unwrap();
    let dir = std::env::temp_dir().join(format!(
        "np-cli-db-{}-{}",
        std::process::id(),
        backend.name()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let store = backend.shared_store(&dir).await;
    let id = store
        .insert(
            ItemKind::Scenario,
            &scenario.name,
            &codec::encode(&scenario),
            600,
            0,
        )
        .await
        .unwrap()
        .id;
    let db = backend.db_arg(&dir);
    let link = format!("http://localhost:8080/s/{id}");
    for source in [id.as_str(), link.as_str()] {
        let (code, text) = cli(&["run", source, "--db", &db]);
        assert_eq!(code, 0, "{text}");
        assert_eq!(
            line(&text, "trajectory-hash:"),
            format!("{:016x}", o.trajectory_hash)
        );
    }
    let (code, text) = cli(&["run", "AAAAAAAAAAAA", "--db", &db]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("no scenario with id AAAAAAAAAAAA"), "{text}");
    // A saved room recording is not run as a scenario.
    let room = store
        .insert(ItemKind::Room, "lobby", &[1, 2, 3], 60, 0)
        .await
        .unwrap()
        .id;
    let (code, text) = cli(&["run", &room, "--db", &db]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(&format!(
            "{room} in {db} is a room recording, not a scenario: run `scenario room-replay {room}`"
        )),
        "{text}"
    );
    // A room recording saved with the page's Save link replays by its id
    // or its link; a scenario's id is not one.
    let golden = sim::endpoints::room::recording::RoomRecordingFile::from_json(
        &std::fs::read_to_string(scenario_file("rooms", "duel-150-200ms-3pct.json")).unwrap(),
    )
    .unwrap();
    let bytes = golden.recording().unwrap().to_bytes().unwrap();
    let saved = store
        .insert(ItemKind::Room, "duel", &bytes, 60, 0)
        .await
        .unwrap()
        .id;
    let link = format!("http://localhost:8080/?room-recording={saved}");
    for source in [saved.as_str(), link.as_str()] {
        let (code, text) = cli(&["room-replay", source, "--db", &db]);
        assert_eq!(code, 0, "{text}");
        assert_eq!(line(&text, "replay:"), golden.replay);
    }
    let (code, text) = cli(&["room-fork", &saved, "--db", &db, "--rewind-off"]);
    assert_eq!(code, 0, "{text}");
    // A rollback room's match recording saved the same way replays by
    // its id or its link, and is not run as a scenario nor forked.
    let golden = std::fs::read(scenario_file("matches", "2p-rtt100-200-5pct.bin")).unwrap();
    let recorded = sim::rollback::recording::MatchRecording::from_bytes(&golden).unwrap();
    let saved = store
        .insert(ItemKind::Match, "arena", &golden, 60, 0)
        .await
        .unwrap()
        .id;
    let link = format!("http://localhost:8080/?match-recording={saved}");
    let api = format!("http://localhost:8080/api/match-recordings/{saved}");
    for source in [saved.as_str(), link.as_str(), api.as_str()] {
        let (code, text) = cli(&["room-replay", source, "--db", &db]);
        assert_eq!(code, 0, "{text}");
        assert_eq!(
            line(&text, "replay:"),
            sim::rollback::recording::replay_line(&recorded.hashes())
        );
        assert!(text.contains("divergence: none"), "{text}");
    }
    let (code, text) = cli(&["run", &saved, "--db", &db]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(&format!(
            "{saved} in {db} is a match recording, not a scenario: run `scenario room-replay {saved}`"
        )),
        "{text}"
    );
    let (code, text) = cli(&["room-fork", &saved, "--db", &db, "--rewind-off"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("is a rollback match recording"), "{text}");
    // A room recording's link does not name a match.
    let wrong = format!("http://localhost:8080/?room-recording={saved}");
    let (code, text) = cli(&["room-replay", &wrong, "--db", &db]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("is a match recording, but the link names a room recording"),
        "{text}"
    );
    let (code, text) = cli(&["room-replay", &id, "--db", &db]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(&format!(
            "{id} in {db} is a scenario, not a room recording: run `scenario run {id}`"
        )),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_rollback_scenario_replays_to_its_hash_and_names_its_counters() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/rollback-bot-150ms-5pct.json");
    let scenario = codec::open_file(&std::fs::read(&file).unwrap())
        .unwrap()
        .scenario;
    let o = scenario.outcome.clone().unwrap();
    let (code, text) = cli(&["run", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(line(&text, "model:"), "rollback");
    assert_eq!(
        line(&text, "trajectory-hash:"),
        format!("{:016x}", o.trajectory_hash)
    );
    assert_eq!(line(&text, "rollbacks:"), o.adjustments.to_string());
    assert_eq!(
        line(&text, "resimulated-ticks:"),
        o.replayed_moves.to_string()
    );
    assert_eq!(line(&text, "input-packets:"), o.moves_sent.to_string());
    assert_eq!(line(&text, "verdict:"), "identical to the original");
}

/// A file of `scenarios/<folder>/`: the frozen corpus of old links, the
/// golden room recordings.
fn scenario_file(folder: &str, name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(folder)
        .join(name)
}

/// A file of the frozen corpus of old links.
fn frozen(name: &str) -> std::path::PathBuf {
    scenario_file("frozen", name)
}

#[test]
fn old_links_are_upgraded_and_the_verdict_says_whether_the_model_changed() {
    // Version 1 of the second layout, a CMC run the model has not changed
    // for since: the same run today.
    let file = frozen("v1b.json");
    let (code, text) = cli(&["run", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        line(&text, "version:"),
        format!("1, upgraded to {SCENARIO_VERSION}")
    );
    assert_eq!(line(&text, "trajectory-hash:"), "4e2fc6b2ace32e43");
    assert_eq!(line(&text, "verdict:"), "identical to the original");

    // Version 1 as first saved: recorded before the model's faults were
    // fixed, with no checkpoints to say from when it differs.
    let file = frozen("v1a.bin");
    let (code, text) = cli(&["run", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        line(&text, "version:"),
        format!("1, upgraded to {SCENARIO_VERSION}")
    );
    assert_eq!(
        line(&text, "verdict:"),
        "recorded with an older model; this replay differs from the original (a scenario saved \
         before version 3 keeps no checkpoints, so from when is not known)"
    );
    assert!(line(&text, "recorded:").contains("trajectory-hash 7d8eb32e1a6a0ac9"));

    // A recording whose run this build plays otherwise from 5 s on (its
    // client-only speed buff switched on there stands for a model change).
    let mut changed = recorded();
    changed.changes.push(Change {
        frame: 300,
        setting: Setting::Client(ClientConfig {
            speed_buff: true,
            ..ClientConfig::default()
        }),
    });
    let link = format!("http://localhost:8080/#s={}", codec::to_fragment(&changed));
    let (code, text) = cli(&["run", &link]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        line(&text, "verdict:"),
        "recorded with an older model; this replay differs from the original from 5 s"
    );
    let (code, text) = cli(&["run", &link, "--json"]);
    assert_eq!(code, 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["differs_from_s"], 5.0);
    assert_eq!(v["saved_version"], SCENARIO_VERSION);
    assert_eq!(v["matches_recording"], false);
}

#[test]
fn the_cli_replays_a_golden_room_recording_and_refuses_corrupted_copies() {
    let path = scenario_file("rooms", "duel-150-200ms-3pct.json");
    let file = sim::endpoints::room::recording::RoomRecordingFile::from_json(
        &std::fs::read_to_string(&path).unwrap(),
    )
    .unwrap();
    let (code, text) = cli(&["room-replay", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("replay:     {}\n", file.replay)),
        "{text}"
    );
    assert!(text.contains("divergence: none"), "{text}");

    let dir = std::env::temp_dir().join(format!("np-room-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The compact bytes alone replay the same.
    let recording = file.recording().unwrap();
    let bin = dir.join("duel.bin");
    std::fs::write(&bin, recording.to_bytes().unwrap()).unwrap();
    let (code, text) = cli(&["room-replay", bin.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(&file.replay), "{text}");

    // A recorded hash changed at tick 300 (5 s): exit 1 from that tick.
    let mut tampered = recording.clone();
    tampered.tick_hashes[300] ^= 1;
    let json = dir.join("tampered.json");
    let copy = sim::endpoints::room::recording::RoomRecordingFile::new(
        "t",
        "t",
        &tampered,
        file.replay.clone(),
    )
    .unwrap();
    std::fs::write(&json, copy.to_json()).unwrap();
    let (code, text) = cli(&["room-replay", json.to_str().unwrap()]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("divergence: from tick 300 (5.000 s)"),
        "{text}"
    );

    // Bytes cut short: not a recording, exit 2 with the reason.
    let bytes = recording.to_bytes().unwrap();
    std::fs::write(&bin, &bytes[..bytes.len() / 2]).unwrap();
    let (code, text) = cli(&["room-replay", bin.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("malformed room recording"), "{text}");

    // What-if: lag compensation off turns every one of the 26 head shots.
    let (code, text) = cli(&["room-fork", path.to_str().unwrap(), "--rewind-off"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("changed:    26 of 26 shots"), "{text}");
    assert!(text.contains("shot #1 (player 1, action "), "{text}");
    // What-if of the screens: drawn by interpolation, 25 of the 26 turn
    // (20 older than the 250 ms cap); flags are one at a time.
    let (code, text) = cli(&["room-fork", path.to_str().unwrap(), "--interpolation"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("redrawn:    26 shots drawn otherwise"),
        "{text}"
    );
    assert!(text.contains("changed:    25 of 26 shots"), "{text}");
    let (code, text) = cli(&["room-fork", path.to_str().unwrap(), "--net-update-hz", "4"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("4 is not in 5..=60"), "{text}");
    let (code, text) = cli(&[
        "room-fork",
        path.to_str().unwrap(),
        "--deliver-lost",
        "--extrapolation",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("cannot be used with"), "{text}");
    // A tick whose net update arrived is named, with the lost ones.
    let (code, text) = cli(&[
        "room-fork",
        path.to_str().unwrap(),
        "--deliver-lost-tick",
        "99999999",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("nothing to deliver: no net update of tick 99999999 was lost (lost at "),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cli_replays_a_golden_match_recording_in_either_form_and_finds_a_changed_hash() {
    use sim::rollback::recording::{replay_line, MatchRecording};
    let json = scenario_file("matches", "2p-rtt100-200-5pct.json");
    let bin = scenario_file("matches", "2p-rtt100-200-5pct.bin");
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let recording = MatchRecording::from_json(&golden["recording"].to_string()).unwrap();
    assert_eq!(
        MatchRecording::from_bytes(&std::fs::read(&bin).unwrap()).unwrap(),
        recording
    );
    let expected = replay_line(&recording.hashes());
    for file in [&json, &bin] {
        let (code, text) = cli(&["room-replay", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{text}");
        assert_eq!(line(&text, "recorded:"), expected, "{text}");
        assert_eq!(line(&text, "replay:"), expected, "{text}");
        assert!(text.contains("divergence: none"), "{text}");
    }
    // One recorded hash changed: exit 1, from that tick.
    let dir = std::env::temp_dir().join(format!("np-match-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut tampered = recording.clone();
    tampered.ticks[100].hash ^= 1;
    let path = dir.join("tampered.bin");
    std::fs::write(&path, tampered.to_bytes()).unwrap();
    let (code, text) = cli(&["room-replay", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{text}");
    let tick = recording.tick_at(100).0;
    assert!(
        text.contains(&format!("divergence: from tick {tick} (")),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
