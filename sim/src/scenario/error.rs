//! Why a scenario was rejected ([`ScenarioError`]: a value out of range)
//! and why bytes, JSON or a link gave none ([`DecodeError`]).

use thiserror::Error;

/// Why a scenario was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScenarioError {
    /// A scenario value in memory that is not of this build's layout
    /// (saved scenarios of older versions are upgraded while they are
    /// read: [`super::migrate`]).
    #[error("scenario version {found} is not this build's layout (version {expected})")]
    Version {
        /// Version in the scenario.
        found: u16,
        /// [`super::SCENARIO_VERSION`].
        expected: u16,
    },
    /// A text field is empty, too long or holds control characters.
    #[error("{field}: {problem}")]
    Text {
        /// `name` or `description`.
        field: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
    /// More frames or changes than allowed.
    #[error("{what}: {count} is more than the limit of {max}")]
    TooMany {
        /// `frames` or `changes`.
        what: &'static str,
        /// How many the scenario holds.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A frame's time or input is out of range.
    #[error("frame {index}: {problem}")]
    Frame {
        /// Index of the frame.
        index: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// A change is out of order, past the end, or holds a bad setting.
    #[error("change {index}: {problem}")]
    Change {
        /// Index of the change.
        index: usize,
        /// What is wrong.
        problem: String,
    },
    /// A setting at frame 0 is out of its control's range.
    #[error("setup: {0}")]
    Setup(String),
    /// The outcome disagrees with the frames it claims to summarize.
    #[error("outcome covers {claimed} frames but the scenario has {actual}")]
    Outcome {
        /// `outcome.frames`.
        claimed: u32,
        /// `frames.len()`.
        actual: usize,
    },
    /// The outcome's checkpoints do not fit the run's duration.
    #[error(
        "outcome has {claimed} checkpoints but a run of {duration_ms} ms has {expected} (or none)"
    )]
    Checkpoints {
        /// `outcome.checkpoints.len()`.
        claimed: usize,
        /// [`super::checkpoint_count`] of the duration.
        expected: usize,
        /// The run's duration, ms (rounded down).
        duration_ms: u64,
    },
}

/// Why bytes, JSON or a link did not give a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// No bytes at all.
    #[error("empty scenario")]
    Empty,
    /// Longer than [`super::codec::MAX_ENCODED_BYTES`].
    #[error("scenario is {0} bytes, over the limit of 524288")]
    TooLarge(usize),
    /// The format byte is not [`super::codec::FORMAT`].
    #[error("unknown scenario format {0} (this build reads format 1)")]
    Format(u8),
    /// The DEFLATE stream is broken or inflates past
    /// [`super::codec::MAX_INFLATED_BYTES`].
    #[error("the scenario does not decompress: truncated or corrupt (or over 4 MiB inflated)")]
    Inflate,
    /// The body is not a scenario of the version it names.
    #[error("the scenario does not decode as version {version}: corrupt? ({reason})")]
    Body {
        /// The version the body names.
        version: u16,
        /// What the decoder of that version found.
        reason: String,
    },
    /// Bytes after the scenario.
    #[error("{0} unexpected bytes after the scenario")]
    Trailing(usize),
    /// The JSON is not a scenario (of the version it names).
    #[error("scenario JSON: {0}")]
    Json(String),
    /// The body does not even start with a version: corrupt.
    #[error("the scenario does not start with a version: corrupt")]
    NoVersion,
    /// A version this build has no decoder for, not newer than its own
    /// (0 was never written).
    #[error("scenario version {0} is not one this build reads")]
    Unknown(u16),
    /// Made by a newer playground (a link from a newer relay or page).
    #[error(
        "this scenario is version {found}, made by a newer version of the playground; this \
         build reads versions 1 to {newest}: open it with the relay or page that made it"
    )]
    Newer {
        /// The scenario's version.
        found: u16,
        /// [`super::SCENARIO_VERSION`].
        newest: u16,
    },
    /// Decoded, but a value is out of range.
    #[error("invalid scenario: {0}")]
    Invalid(#[from] ScenarioError),
    /// The link fragment is not base64url.
    #[error("the link's scenario is not valid base64url")]
    Base64,
}
