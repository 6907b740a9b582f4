//! A recorded rollback match played back for inspection
//! ([`MatchPlayback`], issue 23): the authority re-run from a
//! [`MatchRecording`] once ([`replay`]'s step), its hashes checked
//! against the recorded ones, with a checkpoint of the world every
//! [`CHECKPOINT_TICKS`] ticks so that any tick's world is a seek away
//! (at most `CHECKPOINT_TICKS - 1` ticks re-stepped, as the inspector's
//! seek of a run).
//!
//! What a recording holds is the server's side of the match: for every
//! tick, the input it used for each seat and where it came from
//! ([`InputFill`]: received, held — hold-last, at most the hold-last limit
//! in a row — or empty; `001_…` §5.1 `AuthoritativeServer::AdvanceOneTick`).
//! The fills are where the server had to guess a player's input: each is a
//! tick that player's own client predicted differently whenever the real
//! input, arriving late, was not the one held (their inputs are refused
//! once the tick ran, `001_…` §5.1).

use super::arena::Arena;
use super::recording::{
    as_recorded, replay, step, MatchRecording, RecordedJoin, RecordedLink, RecordingError, Replay,
    UsedInput,
};
use super::server::InputFill;
use super::snapshot::Snapshot;
use super::tick::Tick;

/// Ticks between two kept worlds: 60 (1 s at 60 Hz). A seek re-steps at
/// most 59 ticks from the checkpoint before it.
pub const CHECKPOINT_TICKS: usize = 60;

/// What one seat's recorded inputs were: counts of each fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FillCounts {
    /// Inputs the server had in time.
    pub received: u32,
    /// Ticks run with the seat's previous input held.
    pub held: u32,
    /// Ticks run with the empty input while the seat was occupied.
    pub empty: u32,
}

/// Ticks a [`FillStory`] follows the world past its run of fills: 30
/// (0.5 s at 60 Hz), long enough for a changed stick to show.
pub const STORY_TICKS: usize = 30;

/// One run of ticks the server ran without a seat's input, and what the
/// world would have been had that input arrived — estimated as the seat's
/// next input the server did receive (hold-last's own premise turned
/// around: a stick mostly stays where it is, `001_…` §5.1). When that
/// input equals the one the server used, the guess was right and nobody
/// rebased; when it differs, the seat's own page (and every page that
/// predicted the seat) rebased onto the server's guess.
#[derive(Debug, Clone, PartialEq)]
pub struct FillStory {
    /// The seat.
    pub seat: usize,
    /// The first and last filled tick (indices into the recording's
    /// ticks; a run of one fill kind, held or empty).
    pub first: usize,
    /// The last filled tick of the run (inclusive).
    pub last: usize,
    /// How the server filled them.
    pub fill: InputFill,
    /// The seat's next received input's tick index; `None` if it sent
    /// none after (then the estimate is the input used, and nothing
    /// changes).
    pub next_received: Option<usize>,
    /// Whether that input differs from the one the server used (stick or
    /// buttons): the guess was wrong.
    pub changed: bool,
    /// The worlds after each tick from `first` to `last +`
    /// [`STORY_TICKS`] (clamped to the recording) as the server ran them.
    pub recorded: Vec<Snapshot>,
    /// The same ticks with the run's inputs replaced by the estimate.
    pub delivered: Vec<Snapshot>,
}

impl FillStory {
    /// How far apart the seat ends up, cm, after the story's last tick.
    pub fn apart_cm(&self) -> f32 {
        let at = |w: &[Snapshot]| {
            w.last()
                .and_then(|s| s.players.get(self.seat))
                .map(|p| p.position.to_cm())
        };
        match (at(&self.recorded), at(&self.delivered)) {
            (Some(a), Some(b)) => (a - b).length(),
            _ => 0.0,
        }
    }
}

/// A recording played back: its worlds on demand, its hashes checked.
#[derive(Debug, Clone)]
pub struct MatchPlayback {
    /// The recording played.
    pub recording: MatchRecording,
    /// The hashes the playback computed, one per recorded tick.
    pub replay: Replay,
    /// The first tick whose hash differs from the recorded one; `None`
    /// when every one is equal.
    pub first_mismatch: Option<Tick>,
    arena: Arena,
    /// The world before recorded tick `k * CHECKPOINT_TICKS`, for every
    /// `k` (the first is the recording's start).
    checkpoints: Vec<Snapshot>,
    /// Per seat: its fills ([`MatchPlayback::fills`]) and their counts,
    /// found once.
    seats: Vec<(Vec<(usize, InputFill)>, FillCounts)>,
}

impl MatchPlayback {
    /// Plays `recording` back: replays it and keeps its checkpoints.
    ///
    /// # Errors
    /// What [`MatchRecording::validate`] finds.
    pub fn play(recording: MatchRecording) -> Result<MatchPlayback, RecordingError> {
        let replay = replay(&recording)?;
        let first_mismatch = recording.first_mismatch(&replay);
        let arena = Arena::with_players(recording.config.tick_rate, recording.seats())
            .expect("replay validated the player count");
        let mut checkpoints = vec![recording.start.clone()];
        let mut state = recording.start.clone();
        let ticks = recording.ticks.len();
        for k in 1..=ticks.saturating_sub(1) / CHECKPOINT_TICKS {
            let (from, to) = ((k - 1) * CHECKPOINT_TICKS, k * CHECKPOINT_TICKS);
            step(
                &arena,
                &recording,
                &mut state,
                from..to,
                as_recorded,
                |_| {},
            );
            checkpoints.push(state.clone());
        }
        let mut seats = vec![(Vec::new(), FillCounts::default()); recording.seats()];
        for (i, t) in recording.ticks.iter().enumerate() {
            for (seat, used) in t.inputs.iter().enumerate() {
                if !occupied(&recording, seat, i) {
                    continue;
                }
                let (fills, c) = &mut seats[seat];
                match used.fill {
                    InputFill::Received => c.received += 1,
                    InputFill::Held => c.held += 1,
                    InputFill::Empty => c.empty += 1,
                }
                if used.fill != InputFill::Received {
                    fills.push((i, used.fill));
                }
            }
        }
        Ok(MatchPlayback {
            recording,
            replay,
            first_mismatch,
            arena,
            checkpoints,
            seats,
        })
    }

    /// Ticks recorded.
    pub fn ticks(&self) -> usize {
        self.recording.ticks.len()
    }

    /// The world after `n` recorded ticks (`0`: the start; clamped to
    /// [`MatchPlayback::ticks`]): at most [`CHECKPOINT_TICKS`]` - 1` ticks
    /// stepped from the checkpoint before it.
    pub fn world_after(&self, n: usize) -> Snapshot {
        let n = n.min(self.ticks());
        let k = (n / CHECKPOINT_TICKS).min(self.checkpoints.len() - 1);
        let mut state = self.checkpoints[k].clone();
        let from = k * CHECKPOINT_TICKS;
        step(
            &self.arena,
            &self.recording,
            &mut state,
            from..n,
            as_recorded,
            |_| {},
        );
        state
    }

    /// The worlds after each of the recorded ticks `from..to` (clamped),
    /// oldest first: `world_after(from + 1)` to `world_after(to)`.
    pub fn worlds_between(&self, from: usize, to: usize) -> Vec<Snapshot> {
        let to = to.min(self.ticks());
        let from = from.min(to);
        let mut state = self.world_after(from);
        let mut worlds = Vec::with_capacity(to - from);
        step(
            &self.arena,
            &self.recording,
            &mut state,
            from..to,
            as_recorded,
            |s| worlds.push(s.clone()),
        );
        worlds
    }

    /// Whether every replayed hash equals the recorded one.
    pub fn identical(&self) -> bool {
        self.first_mismatch.is_none()
    }

    /// The seconds the recording spans (its ticks at the match's rate).
    pub fn seconds(&self) -> f64 {
        self.recording.seconds()
    }

    /// The arena the match ran in.
    pub fn arena(&self) -> &Arena {
        &self.arena
    }

    /// Seat `seat`'s fill at each recorded tick where the server did not
    /// have its input and the seat was occupied: `(index of the tick in
    /// the recording, Held or Empty)`, in order (none for a seat out of
    /// range).
    pub fn fills(&self, seat: usize) -> &[(usize, InputFill)] {
        self.seats.get(seat).map_or(&[], |(f, _)| f)
    }

    /// Seat `seat`'s inputs over the recording, counted by fill (ticks
    /// while the seat was occupied only).
    pub fn fill_counts(&self, seat: usize) -> FillCounts {
        self.seats
            .get(seat)
            .map_or_else(FillCounts::default, |s| s.1)
    }

    /// The run of fills of `seat` that tick index `i` is in or, if `i` is
    /// not filled, the newest run before it; `None` if there is none.
    pub fn fill_story(&self, seat: usize, i: usize) -> Option<FillStory> {
        let fills = self.fills(seat);
        let k = fills.partition_point(|&(t, _)| t <= i).checked_sub(1)?;
        let fill = fills[k].1;
        // The run around it: consecutive ticks filled the same way.
        let follows = |a: usize, b: usize| {
            fills[b].0 == fills[a].0 + 1 && fills[a].1 == fill && fills[b].1 == fill
        };
        let (mut lo, mut hi) = (k, k);
        while lo > 0 && follows(lo - 1, lo) {
            lo -= 1;
        }
        while hi + 1 < fills.len() && follows(hi, hi + 1) {
            hi += 1;
        }
        let (first, last) = (fills[lo].0, fills[hi].0);
        let used = |t: usize| self.recording.ticks[t].inputs[seat];
        let next_received = (last + 1..self.ticks()).find(|&t| used(t).fill == InputFill::Received);
        let estimate = next_received.map_or(used(last), used);
        let same = |u: UsedInput| (u.buttons, u.move_x, u.move_y);
        let changed = (first..=last).any(|t| same(used(t)) != same(estimate));
        let end = (last + 1 + STORY_TICKS).min(self.ticks());
        let recorded = self.worlds_between(first, end);
        let mut state = self.world_after(first);
        let mut delivered = Vec::with_capacity(end - first);
        let arrived = |t: usize, p: usize, u: &UsedInput| {
            if p == seat && t <= last {
                estimate
            } else {
                *u
            }
        };
        step(
            &self.arena,
            &self.recording,
            &mut state,
            first..end,
            arrived,
            |s| delivered.push(s.clone()),
        );
        Some(FillStory {
            seat,
            first,
            last,
            fill,
            next_received,
            changed,
            recorded,
            delivered,
        })
    }

    /// Whether someone sat in `seat` at recorded tick index `i`.
    pub fn occupied(&self, seat: usize, i: usize) -> bool {
        occupied(&self.recording, seat, i)
    }

    /// The seats occupied at recorded tick index `i`, one bit per seat
    /// (bit `p` for seat `p`), as a rollback room's `Seats` mask.
    pub fn seated_mask(&self, i: usize) -> u8 {
        (0..self.recording.seats())
            .filter(|&p| self.occupied(p, i))
            .fold(0u8, |m, p| m | 1 << p)
    }

    /// The link of whoever sat in `seat` at recorded tick index `i`, as
    /// the relay noted it (their settings when they last changed them);
    /// `None` for nobody, a bot, or a recording made without links.
    pub fn link_at(&self, seat: usize, i: usize) -> Option<RecordedLink> {
        occupant(&self.recording, seat, i)?.link
    }

    /// Whether seat `seat` was ever a server bot's.
    pub fn is_bot(&self, seat: usize) -> bool {
        self.recording
            .joins
            .iter()
            .any(|j| usize::from(j.player) == seat && j.session.is_none())
    }

    /// The replay's hashes as a line ([`Replay::line`]: what the relay's
    /// `X-Room-Recording-Replay` says of the live server's).
    pub fn line(&self) -> String {
        self.replay.line()
    }
}

/// Whether someone sat in `seat` at `rec`'s tick index `i`.
fn occupied(rec: &MatchRecording, seat: usize, i: usize) -> bool {
    occupant(rec, seat, i).is_some()
}

/// Who sat in `seat` at `rec`'s tick index `i`.
fn occupant(rec: &MatchRecording, seat: usize, i: usize) -> Option<&RecordedJoin> {
    let tick = rec.tick_at(i);
    rec.joins.iter().find(|j| {
        usize::from(j.player) == seat
            && !j.joined.is_after(tick)
            && j.left.is_none_or(|l| l.is_after(tick))
    })
}
