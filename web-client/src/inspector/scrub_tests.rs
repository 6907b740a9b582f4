use super::super::fixtures::golden;
use super::*;
use sim::net::trace::Direction;
use sim::protocol::Setting;

fn hash_after(s: &Scrub, frames: usize) -> u64 {
    s.original().marks()[frames - 1].state_hash
}

#[test]
fn scrubbing_back_2_s_and_stepping_10_frames_lands_on_the_recorded_states() {
    let scenario = golden("golden-bot-150ms-10pct");
    let end = scenario.frames.len();
    let mut s = Scrub::new(scenario, usize::MAX);
    assert_eq!(s.frames(), end);
    assert_eq!(s.run().endpoint().state_hash(), hash_after(&s, end));
    s.seek_time(s.end_us() - 2_000_000);
    let back = s.frames();
    assert_eq!(end - back, 120, "2 s of 60 Hz frames");
    assert_eq!(s.run().endpoint().state_hash(), hash_after(&s, back));
    for i in 1..=10 {
        s.step(1);
        assert_eq!(s.frames(), back + i);
        assert_eq!(s.run().endpoint().state_hash(), hash_after(&s, back + i));
    }
    s.step(-3);
    assert_eq!(s.run().endpoint().state_hash(), hash_after(&s, back + 7));
    assert_eq!(s.run().frame_index(), back + 7);
}

#[test]
fn the_playhead_stays_inside_the_run() {
    let scenario = golden("golden-bot-150ms-10pct");
    let end = scenario.frames.len();
    let mut s = Scrub::new(scenario, 10);
    s.step(-50);
    assert_eq!((s.frames(), s.time_us()), (0, 0));
    s.step(i64::MAX);
    assert_eq!(s.frames(), end);
    assert_eq!(s.time_us(), s.end_us());
    s.seek_time(u64::MAX);
    assert_eq!(s.frames(), end);
}

#[test]
fn delivering_the_lost_move_removes_its_correction_and_its_echo() {
    let scenario = golden("golden-bot-150ms-10pct");
    let mut s = Scrub::new(scenario, 540);
    let story = s.original().explain(1).expect("three corrections");
    let deliver = story.forks[0].clone();
    assert_eq!(
        deliver.setting,
        Setting::Deliver {
            direction: Direction::Up,
            index: 585
        }
    );
    s.fork(deliver);
    assert_eq!(s.shown(), 1);
    let c = s.compare().expect("a fork");
    assert_eq!(c.counts, (3, 1));
    assert_eq!(c.gone, vec![1, 2], "@8783 and its echo @8916");
    assert!(c.added.is_empty());
    // The marks hash the client's state: it first differs in the frame
    // where the run applied the correction the fork never gets.
    assert_eq!(c.first_difference, Some(537));
    // The panels show the fork at the shared playhead.
    let fork_hash = s.branch(1).expect("fork").ins.marks()[539].state_hash;
    assert_eq!(s.run().endpoint().state_hash(), fork_hash);
    assert_ne!(fork_hash, hash_after(&s, 540));
    s.show(0);
    assert_eq!(s.run().endpoint().state_hash(), hash_after(&s, 540));
    s.unfork();
    assert!(s.compare().is_none());
}

#[test]
fn a_fork_that_changes_nothing_never_differs() {
    let scenario = golden("golden-bot-150ms-10pct");
    let mut s = Scrub::new(scenario, 100);
    let delivered = s
        .original()
        .run()
        .host()
        .packets()
        .expect("inspected")
        .records()
        .iter()
        .find(|p| p.direction == Direction::Up && p.fate.delivered())
        .expect("a delivered packet")
        .index;
    s.fork(ForkOption {
        label: "deliver a delivered packet".into(),
        frame: 0,
        setting: Setting::Deliver {
            direction: Direction::Up,
            index: delivered as u32,
        },
    });
    let c = s.compare().expect("a fork");
    assert_eq!(c.first_difference, None);
    assert_eq!((c.counts, c.gone.len(), c.added.len()), ((3, 3), 0, 0));
}
