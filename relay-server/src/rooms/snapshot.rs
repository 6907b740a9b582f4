//! What a room's task hands over of its recording ([`Snapshot`]), or why
//! it has none ([`Unrecorded`]): the answer that travels from the task
//! ([`super::task`]) back to the recording routes
//! ([`super::recording`](mod@super::recording)) on a [`Reply`] inside the
//! seat's [`super::seat::Command::Recording`].

use crate::room::RoomModel;
use crate::store::ItemKind;
use sim::endpoints::rollback_room::RollbackRoomHost;
use sim::endpoints::room::recording::{RecordedEvent, RecordingError, RoomRecording};
use sim::endpoints::room::replay::ReplayOutcome;
use sim::endpoints::room::RoomHost;
use sim::rollback::recording::replay_line;
use tokio::sync::oneshot;

/// A room's recording as its task hands it over.
#[derive(Debug)]
pub(super) struct Snapshot {
    /// The room's model: which recording `bytes` hold.
    pub(super) model: RoomModel,
    /// [`RoomRecording::to_bytes`] or
    /// [`MatchRecording::to_bytes`](sim::rollback::recording::MatchRecording::to_bytes).
    pub(super) bytes: Vec<u8>,
    /// The live host's replay line: its tick hashes (and a CMC room's
    /// verdicts).
    pub(super) line: String,
    /// The recording stopped at its limit.
    pub(super) truncated: bool,
    /// Seconds of ticks recorded.
    pub(super) seconds: f64,
    /// Ticks recorded (one hash each).
    pub(super) ticks: usize,
    /// What a CMC room's recording also tells: `None` for a match.
    pub(super) cmc: Option<CmcCounts>,
}

/// A CMC room's recording's counts beyond its ticks.
#[derive(Debug)]
pub(super) struct CmcCounts {
    /// Inputs recorded.
    pub(super) events: usize,
    /// Players who joined.
    pub(super) joins: usize,
    /// Shots the host judged.
    pub(super) shots: usize,
}

impl Snapshot {
    /// CMC room `host`'s recording so far.
    ///
    /// # Errors
    /// [`Unrecorded::Restored`] if it does not record (it was made from a
    /// checkpoint), [`Unrecorded::TooLarge`] or
    /// [`Unrecorded::Unencodable`] if its bytes cannot be made.
    pub(super) fn of(host: &RoomHost) -> Result<Snapshot, Unrecorded> {
        let recording: &RoomRecording = host.recording().ok_or(Unrecorded::Restored)?;
        let live = ReplayOutcome {
            tick_hashes: recording.tick_hashes.clone(),
            shots: host.recorded_shots().to_vec(),
            first_divergence: None,
        };
        let bytes = recording.to_bytes().map_err(|e| match e {
            RecordingError::TooLarge { len, max } => Unrecorded::TooLarge { len, max },
            e => Unrecorded::Unencodable(e.to_string()),
        })?;
        Ok(Snapshot {
            model: RoomModel::Cmc,
            bytes,
            line: live.line(),
            truncated: recording.truncated,
            seconds: recording.seconds(),
            ticks: recording.tick_hashes.len(),
            cmc: Some(CmcCounts {
                events: recording.events.len(),
                joins: recording
                    .events
                    .iter()
                    .filter(|e| matches!(e, RecordedEvent::Join { .. }))
                    .count(),
                shots: live.shots.len(),
            }),
        })
    }

    /// Rollback room `host`'s match recording so far.
    ///
    /// # Errors
    /// [`Unrecorded::Restored`] if it does not record,
    /// [`Unrecorded::TooLarge`] over
    /// [`sim::rollback::recording::MAX_RECORDING_BYTES`] (what
    /// [`MatchRecording::from_bytes`](sim::rollback::recording::MatchRecording::from_bytes) reads; the tick cap keeps it under).
    pub(super) fn of_match(host: &RollbackRoomHost) -> Result<Snapshot, Unrecorded> {
        let recording = host.game().recording().ok_or(Unrecorded::Restored)?;
        let bytes = recording.to_bytes();
        let max = sim::rollback::recording::MAX_RECORDING_BYTES;
        if bytes.len() > max {
            return Err(Unrecorded::TooLarge {
                len: bytes.len(),
                max,
            });
        }
        Ok(Snapshot {
            model: RoomModel::Rollback,
            bytes,
            line: replay_line(&recording.hashes()),
            truncated: recording.truncated,
            seconds: recording.seconds(),
            ticks: recording.ticks.len(),
            cmc: None,
        })
    }

    /// The store kind it is saved as.
    pub(super) fn kind(&self) -> ItemKind {
        match self.model {
            RoomModel::Cmc => ItemKind::Room,
            RoomModel::Rollback => ItemKind::Match,
        }
    }
}

/// Why a room here has no recording to hand over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unrecorded {
    /// It was made from another relay's checkpoint (or does not record).
    Restored,
    /// Its recording encodes to `len` bytes, over its model's `max`.
    TooLarge {
        /// Bytes encoded.
        len: usize,
        /// The model's `MAX_RECORDING_BYTES`.
        max: usize,
    },
    /// Its recording does not encode otherwise.
    Unencodable(String),
}

/// Where a room's task answers a request for its recording.
pub(super) type Reply = oneshot::Sender<Result<Snapshot, Unrecorded>>;
