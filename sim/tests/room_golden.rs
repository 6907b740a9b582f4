//! The golden room recordings (`scenarios/rooms/*.json`, issue #23): each
//! file's recording replays natively to the tick hashes its host recorded,
//! bit for bit, and to the line the file pins (ticks, last hash, shots,
//! hits, digest over every hash and verdict). `e2e/golden.test.mjs`
//! replays the same files in wasm. A change of the room's behaviour that
//! is meant: `cargo run -p sim --example room_recordings -- bless
//! scenarios/rooms/*.json`.

mod common;

use common::scenarios_dir;
use sim::endpoints::room::recording::{RecordedEvent, RoomRecordingFile};
use sim::endpoints::room::replay::replay;

fn files() -> Vec<(String, RoomRecordingFile)> {
    let dir = scenarios_dir().join("rooms");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let file =
                RoomRecordingFile::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, file)
        })
        .collect()
}

#[test]
fn every_golden_room_recording_replays_to_its_recorded_hashes_and_pinned_line() {
    let files = files();
    assert_eq!(files.len(), 2, "the suite has {} room files", files.len());
    for (name, file) in files {
        let recording = file.recording().unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = replay(&recording).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name:<32} {}", out.line());
        assert_eq!(out.first_divergence, None, "{name}");
        assert_eq!(out.line(), file.replay, "{name}");
        assert!(out.hits() > 0, "{name}: shots were fired and hit");
    }
}

#[test]
fn the_golden_rooms_hold_joins_leaves_bots_a_respawn_and_controls() {
    let (_, file) = files()
        .into_iter()
        .find(|(n, _)| n == "bot-respawn-leave.json")
        .expect("the file");
    let events = file.recording().unwrap().events;
    let count = |f: fn(&RecordedEvent) -> bool| events.iter().filter(|e| f(e)).count();
    assert_eq!(
        (
            count(|e| matches!(e, RecordedEvent::Join { .. })),
            count(|e| matches!(e, RecordedEvent::Leave { .. })),
            count(|e| matches!(e, RecordedEvent::AddBot { .. })),
            count(|e| matches!(e, RecordedEvent::RespawnBot { .. })),
            // Two players' link settings and the shooter's room switches.
            count(|e| matches!(e, RecordedEvent::Control { .. })),
        ),
        (2, 1, 1, 1, 3)
    );
}
