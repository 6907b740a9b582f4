//! [`Origin`]: was a correction the network's doing or the client's own
//! frame rate (issue #28 item 2)?
//!
//! UE's server simulates at most `MaxMoveDeltaTime` = 0.125 s of one move
//! (`000_…` §9.3) and moves a client that has sent nothing for 0.25 s
//! itself (a forced position update, §9.5). A page frame longer than
//! 0.125 s is a move the server clamps; the silence of a frame longer
//! than 0.25 s is a forced update — both Adjustments at 0 % loss. A
//! correction is a *client hitch* when a frame of its episode (from the
//! episode's start to the frame it was applied in) took longer than
//! [`HITCH_US`]; a *client clock* one when the client's clock runs fast
//! (a speed hack) and the server cut its moves for it (§9.4); otherwise
//! the *network* caused it.

use super::scrub::FrameMark;
use crate::cmc::server::ServerConfig;
use crate::foundation::time::SimTime;

/// A frame longer than this is a hitch, µs: UE's `MaxMoveDeltaTime`
/// ([`ServerConfig::max_move_delta`], 0.125 s, `000_…` §9.3).
pub const HITCH_US: u64 = (ServerConfig::UE_MAX_MOVE_DELTA_S * 1e6) as u64;

/// Who caused a correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Every frame of the episode was at most [`HITCH_US`] long.
    Network,
    /// Frame `frame` (numbered from 0, as the stories number them) took
    /// `frame_ms`, over [`HITCH_US`]: the longest of the episode.
    ClientHitch {
        /// The long frame.
        frame: usize,
        /// Its length, ms.
        frame_ms: u32,
    },
    /// The client's clock ran fast (`clock_speed` above 1, a speed hack):
    /// its moves claimed more time than passed, and the server cut them
    /// for time discrepancy (`000_…` §9.4).
    ClientClock {
        /// The clock's speed, % of real time (150 for 1.5×).
        speed_percent: u32,
    },
}

impl Origin {
    /// The origin of a correction applied in frame `frame` whose episode
    /// began at `from`, from the run's frame marks (each frame's end; a
    /// frame lasts from the previous mark's end, the first from 0).
    pub fn of(marks: &[FrameMark], from: SimTime, frame: usize) -> Origin {
        let first = marks.partition_point(|m| m.end <= from);
        let last = frame.min(marks.len().saturating_sub(1));
        let longest = (first..=last)
            .filter(|&i| i < marks.len())
            .map(|i| {
                let start = i.checked_sub(1).map_or(SimTime::ZERO, |p| marks[p].end);
                (i, marks[i].end.micros_since(start))
            })
            .max_by_key(|&(i, us)| (us, std::cmp::Reverse(i)));
        match longest {
            Some((frame, us)) if us > HITCH_US => Origin::ClientHitch {
                frame,
                frame_ms: (us / 1000) as u32,
            },
            _ => Origin::Network,
        }
    }

    /// A short tag: `network` or `client hitch`.
    pub fn tag(&self) -> &'static str {
        match self {
            Origin::Network => "network",
            Origin::ClientHitch { .. } => "client hitch",
            Origin::ClientClock { .. } => "client clock",
        }
    }

    /// In words, for the story.
    pub fn describe(&self) -> String {
        match self {
            Origin::Network => "network: no frame of the episode was over 0.125 s".to_owned(),
            Origin::ClientHitch { frame, frame_ms } => format!(
                "client hitch: frame {frame} took {frame_ms} ms, over UE's 125 ms \
                 MaxMoveDeltaTime (the page's own frame rate, not the network)"
            ),
            Origin::ClientClock { speed_percent } => format!(
                "client clock: it runs at {:.2}× real time (a speed hack), so its moves \
                 claim more time than passed and the server cuts them",
                *speed_percent as f32 / 100.0
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(frames_ms: &[u64]) -> Vec<FrameMark> {
        let mut t = 0;
        frames_ms
            .iter()
            .map(|ms| {
                t += ms * 1000;
                FrameMark {
                    end: SimTime(t),
                    state_hash: 0,
                }
            })
            .collect()
    }

    #[test]
    fn a_frame_over_125_ms_in_the_episode_is_a_client_hitch() {
        // Frames of 16 ms, one of 300 ms (frame 5, ending at 380 ms).
        let m = marks(&[16, 16, 16, 16, 16, 300, 16, 16]);
        assert_eq!(
            Origin::of(&m, SimTime(0), 7),
            Origin::ClientHitch {
                frame: 5,
                frame_ms: 300
            }
        );
        // An episode that starts after it, or ends before it, is the network's.
        assert_eq!(Origin::of(&m, SimTime(380_000), 7), Origin::Network);
        assert_eq!(Origin::of(&m, SimTime(0), 4), Origin::Network);
        // 125 ms is not over the limit; 126 ms is.
        assert_eq!(
            Origin::of(&marks(&[125, 16]), SimTime(0), 1),
            Origin::Network
        );
        assert_eq!(
            Origin::of(&marks(&[16, 126]), SimTime(0), 1).tag(),
            "client hitch"
        );
        assert_eq!(HITCH_US, 125_000);
    }
}
