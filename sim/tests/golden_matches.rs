//! The golden rollback matches (issue 22): every recorded match in
//! `scenarios/matches/` — each player's inputs as the server used them,
//! tick by tick, with the links' settings and seeds — replays to the
//! per-tick hashes the server computed, to the file's digest and final
//! hash, and its compact `.bin` twin holds the same recording (that is what
//! `e2e/golden.test.mjs` replays in wasm). The files are written by
//! `BLESS_MATCHES=1 cargo test -p sim --test rollback_match`.

mod common;

use common::matches::{golden_matches_dir, GoldenMatch};
use sim::rollback::recording::replay;

/// The stems of the golden matches, sorted.
fn stems() -> Vec<String> {
    let dir = golden_matches_dir();
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    stems.sort();
    stems
}

#[test]
fn every_golden_match_replays_to_its_recorded_hashes() {
    let stems = stems();
    assert_eq!(stems, ["2p-rtt100-200-5pct", "4p-rtt100-200-5pct"]);
    for stem in stems {
        let g = GoldenMatch::read(&stem);
        let rec = &g.recording;
        assert_eq!(GoldenMatch::read_bin(&stem), *rec, "{stem}.bin");
        assert_eq!(rec.to_bytes().len(), g.bytes, "{stem}");
        let started = std::time::Instant::now();
        let r = replay(rec).unwrap();
        let took = started.elapsed();
        println!(
            "{stem}: {} players, {} ticks, {} B, replayed in {took:?}, digest {:016x}",
            rec.seats(),
            r.hashes.len(),
            g.bytes,
            r.digest()
        );
        assert_eq!(rec.first_mismatch(&r), None, "{stem}");
        assert_eq!(r.hashes.len(), g.ticks, "{stem}");
        assert_eq!(format!("{:016x}", r.digest()), g.digest, "{stem}");
        assert_eq!(
            format!("{:016x}", r.final_hash().unwrap()),
            g.final_hash,
            "{stem}"
        );
        // 63 s at 60 Hz, every seat's link on the record.
        assert_eq!(g.ticks, 3780);
        assert!(rec.joins.iter().all(|j| j.link.is_some()), "{stem}");
    }
}

#[test]
fn one_altered_input_of_a_golden_match_diverges_at_its_tick() {
    let g = GoldenMatch::read("2p-rtt100-200-5pct");
    let mut rec = g.recording;
    // Player 1's stick at the 1234th tick (20.6 s in) turned around.
    let i = 1234;
    let used = &mut rec.ticks[i].inputs[1];
    assert_ne!((used.move_x, used.move_y), (0, 0), "it moves there");
    (used.move_x, used.move_y) = (-used.move_x, -used.move_y);
    let r = replay(&rec).unwrap();
    assert_eq!(rec.first_mismatch(&r), Some(rec.tick_at(i)));
    assert_eq!(rec.tick_at(i).0, 1234);
    assert_eq!(r.hashes[..i], rec.hashes()[..i]);
    // The world went another way from there (a step's worth of movement
    // that walls, stops and respawns may later erase).
    let differ = (i..rec.ticks.len())
        .filter(|&k| r.hashes[k] != rec.ticks[k].hash)
        .count();
    println!("{differ} ticks differ");
    assert!(differ > 60, "{differ} ticks differ");
}

#[test]
fn a_golden_match_played_back_gives_every_ticks_world_and_each_seats_fills() {
    use sim::rollback::playback::{FillCounts, MatchPlayback, CHECKPOINT_TICKS};
    use sim::rollback::{Arena, Game};
    let g = GoldenMatch::read("4p-rtt100-200-5pct");
    let p = MatchPlayback::play(g.recording.clone()).unwrap();
    assert!(p.identical());
    assert_eq!(p.ticks(), 3780);
    assert_eq!(p.seconds(), 63.0);
    assert_eq!(p.world_after(0), g.recording.start);
    // Either side of a checkpoint, on one and at the end: the world after
    // n ticks hashes to what the server recorded after its n-th.
    for n in [1, 59, 60, 61, 119, 120, 1234, 3779, 3780] {
        assert_eq!(
            Arena::state_hash(&p.world_after(n)),
            g.recording.ticks[n - 1].hash,
            "after {n} ticks"
        );
    }
    assert_eq!(p.world_after(9999), p.world_after(3780), "clamped");
    let trail = p.worlds_between(100, 160);
    assert_eq!(trail.len(), 60);
    assert_eq!(trail[0], p.world_after(101));
    assert_eq!(trail[59], p.world_after(160));
    assert_eq!(CHECKPOINT_TICKS, 60);
    assert_eq!(
        p.line(),
        format!("ticks=3780 last={} digest={}", g.final_hash, g.digest)
    );
    // All four seats sat throughout; the fills are the server's guesses.
    assert_eq!(p.seated_mask(0), 0b1111);
    let counts: Vec<FillCounts> = (0..4).map(|s| p.fill_counts(s)).collect();
    let fill = |received, held, empty| FillCounts {
        received,
        held,
        empty,
    };
    assert_eq!(
        counts,
        [
            fill(3769, 8, 3),
            fill(3764, 9, 7),
            fill(3760, 10, 10),
            fill(3758, 8, 14)
        ]
    );
    for (s, c) in counts.iter().enumerate() {
        assert_eq!(c.received + c.held + c.empty, 3780, "seat {s}");
        assert_eq!(p.fills(s).len() as u32, c.held + c.empty, "seat {s}");
        assert!(!p.is_bot(s));
    }
}

/// widelands#6094 ("Restarting replays may cause desync": a replay
/// watched a second time parted from the first because state of the
/// first run leaked into it) and LockstepFramework#88 (a saved replay's
/// commands ran two frames early after it was read back): a playback
/// seeked back and forth, or opened twice from its bytes, gives the same
/// world at every tick, equal to the server's hash there.
#[test]
fn a_played_back_match_gives_the_same_world_whatever_was_seeked_before() {
    use sim::rollback::playback::MatchPlayback;
    use sim::rollback::{Arena, Game, MatchRecording};
    let g = GoldenMatch::read("2p-rtt100-200-5pct");
    let bytes = g.recording.to_bytes();
    let first = MatchPlayback::play(MatchRecording::from_bytes(&bytes).unwrap()).unwrap();
    let at_1234 = first.world_after(1234);
    for n in [3780, 17, 3000, 1, 1233, 1235] {
        let _ = first.world_after(n);
    }
    assert_eq!(first.world_after(1234), at_1234, "after seeking elsewhere");
    let second = MatchPlayback::play(MatchRecording::from_bytes(&bytes).unwrap()).unwrap();
    assert_eq!(second.world_after(1234), at_1234, "opened again");
    assert_eq!(second.replay, first.replay);
    // Read back, not skewed: the world after 1234 ticks is the server's
    // after its 1234th, not its 1233rd or 1235th.
    assert_eq!(Arena::state_hash(&at_1234), g.recording.ticks[1233].hash);
    assert_ne!(Arena::state_hash(&at_1234), g.recording.ticks[1232].hash);
    assert_ne!(Arena::state_hash(&at_1234), g.recording.ticks[1234].hash);
}

/// A run of fills told as a story: the ticks it spans, whether the
/// server's guess was wrong (the seat's next received input differs), and
/// the world had that input arrived — equal to the recorded one before
/// the run, apart after it when the guess was wrong.
#[test]
fn a_fill_run_is_told_with_the_world_had_the_input_arrived() {
    use sim::rollback::playback::{MatchPlayback, STORY_TICKS};
    let g = GoldenMatch::read("4p-rtt100-200-5pct");
    let p = MatchPlayback::play(g.recording).unwrap();
    let mut told = 0;
    let mut wrong = Vec::new();
    for seat in 0..4 {
        let fills = p.fills(seat);
        for &(i, fill) in fills {
            let story = p.fill_story(seat, i).unwrap();
            assert!(story.first <= i && i <= story.last, "seat {seat} tick {i}");
            assert_eq!(story.fill, fill);
            // Every tick of the run is a fill of that kind.
            for t in story.first..=story.last {
                assert!(fills.contains(&(t, fill)), "seat {seat} tick {t}");
            }
            let span = (story.last + 1 + STORY_TICKS).min(p.ticks()) - story.first;
            assert_eq!((story.recorded.len(), story.delivered.len()), (span, span));
            assert_eq!(story.recorded[0], p.world_after(story.first + 1));
            if !story.changed {
                assert_eq!(
                    story.delivered, story.recorded,
                    "a right guess changes nothing"
                );
            }
            if i == story.first {
                told += 1;
                if story.changed {
                    wrong.push((seat, story.first, story.apart_cm()));
                }
            }
        }
        // Before its first fill there is no story.
        if let Some(&(first, _)) = fills.first() {
            if first > 0 {
                assert_eq!(p.fill_story(seat, first - 1), None);
            }
        }
    }
    // 69 fills in 23 runs; the server guessed wrong twice, and had those
    // inputs arrived the seat would have stood 18 and 20 cm elsewhere
    // half a second later.
    assert_eq!(told, 23);
    let wrong: Vec<(usize, usize, i32)> = wrong
        .into_iter()
        .map(|(s, t, cm)| (s, t, cm.round() as i32))
        .collect();
    assert_eq!(wrong, [(1, 2546, 18), (3, 3480, 20)]);
}
