//! What a recorded run ended with ([`Outcome`]), and what a replay of it
//! says about the original ([`Verdict`]): identical, or — when the model
//! changed since it was saved — different, and from when.
//!
//! *From when* comes from the outcome's **checkpoints**: a short hash of
//! the trajectory so far every [`CHECKPOINT_US`] of run time. A replay
//! that matches the original's checkpoints up to 12 s and not at 12.5 s
//! first differed in between. Scenarios saved before version 3 keep no
//! checkpoints: a difference is then reported without its time.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Run time between two checkpoints, µs (0.5 s): the time a difference
/// starts is known to half a second, and checkpoints add 4 B/s to a link
/// (+240 B to the ~840 B of a 60 s keyboard recording).
pub const CHECKPOINT_US: u64 = 500_000;

/// Bits of a checkpoint: 14, so that each takes exactly 2 bytes as a
/// postcard varint. A replay whose trajectory differs matches a
/// checkpoint by chance once in 16 384; then the time it names is one
/// checkpoint late (the trajectory hash still tells *that* it differs).
pub const CHECKPOINT_BITS: u32 = 14;

/// What a run ended with; stored with a recording so that a replay (or
/// the CLI in a regression test) can check it got the same.
///
/// The fields are named after the CMC model; a rollback run fills them
/// with the analogous numbers (as [`crate::Metrics`] does). The counters
/// are the model's in force at the end: a model switch starts them again,
/// while the trajectory hash covers every frame of the run.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// Frames run.
    pub frames: u32,
    /// Hash of the final predicted state: the character's
    /// ([`crate::CharacterState::state_hash`]), or in the rollback model
    /// the whole snapshot's ([`crate::rollback::Snapshot::state_hash`]).
    pub state_hash: u64,
    /// Hash of the whole trajectory: every frame's predicted state hash
    /// folded in order.
    pub trajectory_hash: u64,
    /// Adjustments the client received; rollback: visible rollbacks.
    pub adjustments: u64,
    /// Moves re-simulated by replays; rollback: ticks re-simulated by
    /// rebases.
    pub replayed_moves: u64,
    /// Acks the client received; rollback: Acks received (one per server
    /// tick).
    pub acks: u64,
    /// ServerMoves the client sent; rollback: input packets sent.
    pub moves_sent: u64,
    /// The trajectory hash folded to 14 bits ([`checkpoint`]) after the
    /// first frame that ends at or past each multiple of
    /// [`CHECKPOINT_US`]: [`checkpoint_count`] of them. Empty when not
    /// kept (scenarios saved before version 3; JSON may leave it out).
    #[serde(default)]
    pub checkpoints: Vec<u16>,
}

/// The checkpoint of a trajectory hash: its four 16-bit lanes XORed (so
/// every bit of the hash counts), cut to [`CHECKPOINT_BITS`].
pub fn checkpoint(trajectory_hash: u64) -> u16 {
    let h = trajectory_hash;
    (h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48)) as u16 & ((1 << CHECKPOINT_BITS) - 1)
}

/// How many checkpoints a run of `duration_us` µs has: one per whole
/// [`CHECKPOINT_US`].
pub fn checkpoint_count(duration_us: u64) -> usize {
    (duration_us / CHECKPOINT_US) as usize
}

/// Run time at which checkpoint `index` (from 0) is taken, s: its
/// multiple of [`CHECKPOINT_US`] (the frame that crosses it ends at most
/// one frame, ≤ 0.25 s, later).
fn checkpoint_secs(index: usize) -> f64 {
    (index as u64 + 1) as f64 * CHECKPOINT_US as f64 / 1e6
}

/// Where a replay parts from the original.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Divergence {
    /// Identical up to this run time, s (a multiple of 0.5 s: the last
    /// checkpoint both agree on, or 0), different by the next checkpoint
    /// or the end.
    From(f64),
    /// The original kept no checkpoints (saved before version 3), so only
    /// *that* it differs is known.
    Unlocated,
    /// Same trajectory hash, other counters (adjustments, replayed moves,
    /// acks or moves sent): the exchange differed, the character did not.
    CountsOnly,
}

/// What a replay says about the run it replays: the page shows it at the
/// end of a playback, the `scenario` CLI prints it (exit 1 unless
/// identical), the relay answers a save with a mismatched outcome with
/// it. Its text ([`fmt::Display`]) is the same everywhere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// The scenario carries no recorded outcome to compare with.
    Unrecorded,
    /// Same trajectory, final state and counters (and checkpoints, when
    /// the original kept them).
    Identical,
    /// The current simulation gives another run than the one recorded.
    Differs(Divergence),
}

impl Verdict {
    /// Compares a replay's outcome with the recorded one (`None`: nothing
    /// recorded). Both must cover the same frames (as
    /// [`crate::Scenario::validate`] ensures for a scenario's own outcome).
    pub fn of(recorded: Option<&Outcome>, replayed: &Outcome) -> Verdict {
        let Some(r) = recorded else {
            return Verdict::Unrecorded;
        };
        let first_different = r
            .checkpoints
            .iter()
            .zip(&replayed.checkpoints)
            .position(|(a, b)| a != b);
        let summary = |o: &Outcome| {
            (
                o.frames,
                o.state_hash,
                o.trajectory_hash,
                o.adjustments,
                o.replayed_moves,
                o.acks,
                o.moves_sent,
            )
        };
        match first_different {
            Some(i) => Verdict::Differs(Divergence::From(if i == 0 {
                0.0
            } else {
                checkpoint_secs(i - 1)
            })),
            None if summary(r) == summary(replayed) => Verdict::Identical,
            None if r.trajectory_hash == replayed.trajectory_hash => {
                Verdict::Differs(Divergence::CountsOnly)
            }
            None if r.checkpoints.is_empty() && !replayed.checkpoints.is_empty() => {
                Verdict::Differs(Divergence::Unlocated)
            }
            None => Verdict::Differs(Divergence::From(match r.checkpoints.len() {
                0 => 0.0,
                n => checkpoint_secs(n - 1),
            })),
        }
    }

    /// `true` unless the replay differs.
    pub fn is_ok(&self) -> bool {
        !matches!(self, Verdict::Differs(_))
    }

    /// The verdict in a few words, for a read-out beside the run (the
    /// full sentence is [`fmt::Display`]'s): `identical to the original`,
    /// `differs from 12 s`, `differs (from when unknown)`, `differs in
    /// counts only`, `nothing recorded`.
    pub fn label(&self) -> String {
        match self {
            Verdict::Unrecorded => "nothing recorded".to_owned(),
            Verdict::Identical => "identical to the original".to_owned(),
            Verdict::Differs(Divergence::From(s)) => format!("differs from {}", secs(*s)),
            Verdict::Differs(Divergence::Unlocated) => "differs (from when unknown)".to_owned(),
            Verdict::Differs(Divergence::CountsOnly) => "differs in counts only".to_owned(),
        }
    }

    /// Where the replay first differs, s, when known.
    pub fn differs_from_secs(&self) -> Option<f64> {
        match self {
            Verdict::Differs(Divergence::From(s)) => Some(*s),
            _ => None,
        }
    }
}

/// Seconds as short as exact: `12 s`, `12.5 s`.
fn secs(s: f64) -> String {
    let text = format!("{s:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} s")
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const OLDER: &str = "recorded with an older model; this replay";
        match self {
            Verdict::Unrecorded => f.write_str("no recorded outcome to compare"),
            Verdict::Identical => f.write_str("identical to the original"),
            Verdict::Differs(Divergence::From(s)) => {
                write!(f, "{OLDER} differs from the original from {}", secs(*s))
            }
            Verdict::Differs(Divergence::Unlocated) => write!(
                f,
                "{OLDER} differs from the original (a scenario saved before version 3 keeps no \
                 checkpoints, so from when is not known)"
            ),
            Verdict::Differs(Divergence::CountsOnly) => write!(
                f,
                "{OLDER} moves the character exactly as the original but counts other \
                 adjustments, acks or moves sent"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(trajectory_hash: u64, checkpoints: &[u16]) -> Outcome {
        Outcome {
            frames: 60,
            trajectory_hash,
            checkpoints: checkpoints.to_vec(),
            ..Outcome::default()
        }
    }

    #[test]
    fn the_verdict_names_the_last_checkpoint_both_agree_on() {
        let original = outcome(7, &[1, 2, 3, 4]);
        let same = Verdict::of(Some(&original), &original);
        assert_eq!(same.to_string(), "identical to the original");
        let later = Verdict::of(Some(&original), &outcome(8, &[1, 2, 9, 9]));
        assert_eq!(later, Verdict::Differs(Divergence::From(1.0)));
        assert_eq!(
            later.to_string(),
            "recorded with an older model; this replay differs from the original from 1 s"
        );
        let first = Verdict::of(Some(&original), &outcome(8, &[5, 2, 3, 4]));
        assert_eq!(first.differs_from_secs(), Some(0.0));
        // Every checkpoint agrees: the difference is after the last one.
        let tail = Verdict::of(Some(&original), &outcome(8, &[1, 2, 3, 4]));
        assert_eq!(tail.differs_from_secs(), Some(2.0));
        assert_eq!(later.label(), "differs from 1 s");
        assert_eq!(secs(12.5), "12.5 s");
        assert_eq!(secs(12.0), "12 s");
    }

    #[test]
    fn an_original_without_checkpoints_is_compared_by_its_hashes() {
        let old = outcome(7, &[]);
        assert_eq!(
            Verdict::of(Some(&old), &outcome(7, &[1, 2])),
            Verdict::Identical
        );
        let differs = Verdict::of(Some(&old), &outcome(8, &[1, 2]));
        assert_eq!(differs, Verdict::Differs(Divergence::Unlocated));
        assert_eq!(differs.label(), "differs (from when unknown)");
        assert!(!differs.is_ok());
        assert_eq!(differs.differs_from_secs(), None);
        let counts = Outcome {
            acks: 3,
            ..outcome(7, &[1, 2])
        };
        assert_eq!(
            Verdict::of(Some(&old), &counts),
            Verdict::Differs(Divergence::CountsOnly)
        );
        assert_eq!(Verdict::of(None, &old), Verdict::Unrecorded);
        assert!(Verdict::Unrecorded.is_ok());
    }

    #[test]
    fn a_checkpoint_folds_every_bit() {
        assert_eq!(checkpoint(0x0001_0000_0000_0000), 1);
        assert_eq!(checkpoint(0x0000_0000_0001_0000), 1);
        assert_eq!(checkpoint(0xffff_ffff_ffff_ffff), 0);
        assert_eq!(checkpoint(0x0000_0000_0000_ffff), 0x3fff);
        assert_eq!(
            postcard::to_allocvec(&vec![0x3fff_u16; 3]).unwrap().len(),
            1 + 3 * 2,
            "two bytes each"
        );
        assert_eq!(checkpoint_count(499_999), 0);
        assert_eq!(checkpoint_count(20_000_000), 40);
    }
}
