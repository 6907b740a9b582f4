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
use super::recording::{replay, step, MatchRecording, RecordingError, Replay};
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
            step(&arena, &recording, &mut state, from..to, |_| {});
            checkpoints.push(state.clone());
        }
        Ok(MatchPlayback {
            recording,
            replay,
            first_mismatch,
            arena,
            checkpoints,
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
        step(&self.arena, &self.recording, &mut state, from..n, |_| {});
        state
    }

    /// The worlds after each of the recorded ticks `from..to` (clamped),
    /// oldest first: `world_after(from + 1)` to `world_after(to)`.
    pub fn worlds_between(&self, from: usize, to: usize) -> Vec<Snapshot> {
        let to = to.min(self.ticks());
        let from = from.min(to);
        let mut state = self.world_after(from);
        let mut worlds = Vec::with_capacity(to - from);
        step(&self.arena, &self.recording, &mut state, from..to, |s| {
            worlds.push(s.clone())
        });
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
    /// the recording, Held or Empty)`, in order.
    pub fn fills(&self, seat: usize) -> Vec<(usize, InputFill)> {
        self.recording
            .ticks
            .iter()
            .enumerate()
            .filter(|(i, _)| self.occupied(seat, *i))
            .filter_map(|(i, t)| {
                let fill = t.inputs.get(seat)?.fill;
                (fill != InputFill::Received).then_some((i, fill))
            })
            .collect()
    }

    /// Seat `seat`'s inputs over the recording, counted by fill (ticks
    /// while the seat was occupied only).
    pub fn fill_counts(&self, seat: usize) -> FillCounts {
        let mut c = FillCounts::default();
        for (i, t) in self.recording.ticks.iter().enumerate() {
            if !self.occupied(seat, i) {
                continue;
            }
            match t.inputs.get(seat).map(|u| u.fill) {
                Some(InputFill::Received) => c.received += 1,
                Some(InputFill::Held) => c.held += 1,
                Some(InputFill::Empty) => c.empty += 1,
                None => {}
            }
        }
        c
    }

    /// Whether someone sat in `seat` at recorded tick index `i`.
    pub fn occupied(&self, seat: usize, i: usize) -> bool {
        let tick = self.recording.tick_at(i);
        self.recording.joins.iter().any(|j| {
            usize::from(j.player) == seat
                && !j.joined.is_after(tick)
                && j.left.is_none_or(|l| l.is_after(tick))
        })
    }

    /// The seats occupied at recorded tick index `i`, one bit per seat
    /// (bit `p` for seat `p`), as a rollback room's `Seats` mask.
    pub fn seated_mask(&self, i: usize) -> u8 {
        (0..self.recording.seats())
            .filter(|&p| self.occupied(p, i))
            .fold(0u8, |m, p| m | 1 << p)
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
