//! `GET /api/rooms/{name}/recording`: a shared CMC room's recording so
//! far (issue 23), as the room's task hands it over.
//!
//! A CMC room made fresh here records itself from its creation
//! ([`RoomHost::record`], at most [`crate::Limits::room_record_events`]
//! inputs; then it stops and holds a whole shorter room). The answer is
//! the compact bytes ([`RoomRecording::to_bytes`], `application/
//! octet-stream`) or, with `Accept: application/json`, a
//! [`RoomRecordingFile`] like the golden suite's `scenarios/rooms/*.json`
//! whose `replay` line is the live host's: its tick hashes and the
//! verdicts it gave. `scenario room-replay FILE` replays either form and
//! checks the replay gives the same. Both carry `X-Room-Recording-Replay`
//! (that line) and `X-Room-Recording-Truncated` (`true` once the limit
//! stopped it).
//!
//! | answer | when |
//! |---|---|
//! | 200 | the room is here and records |
//! | 400 | not a room name |
//! | 404 `{"error"}` | no such room on this relay (each relay has its own rooms, as `/api/rooms`), a private session, recording off (`--room-record-events 0`), a rollback room, or a room carried on here from another relay's checkpoint (its start is not here) |
//! | 507 `{"error"}` | the recording is over [`MAX_RECORDING_BYTES`] encoded |

use super::Rooms;
use crate::api::{bad, ApiError};
use crate::room::RoomId;
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use sim::endpoints::room::recording::{
    RecordedEvent, RecordingError, RoomRecording, RoomRecordingFile, MAX_RECORDING_BYTES,
};
use sim::endpoints::room::replay::ReplayOutcome;
use sim::endpoints::room::RoomHost;
use std::sync::PoisonError;
use tokio::sync::oneshot;

/// Response header: the live host's replay line
/// ([`ReplayOutcome::line`]).
const REPLAY_HEADER: HeaderName = HeaderName::from_static("x-room-recording-replay");

/// Response header: `true` when the recording stopped at its limit.
const TRUNCATED_HEADER: HeaderName = HeaderName::from_static("x-room-recording-truncated");

/// A room's recording as its task hands it over.
#[derive(Debug)]
pub(super) struct Snapshot {
    /// [`RoomRecording::to_bytes`].
    bytes: Result<Vec<u8>, RecordingError>,
    /// The live host's replay line: its tick hashes and verdicts.
    line: String,
    /// The recording stopped at its limit.
    truncated: bool,
    /// Inputs recorded.
    events: usize,
    /// Players who joined.
    joins: usize,
    /// Seconds of ticks recorded.
    seconds: f64,
}

impl Snapshot {
    /// `host`'s recording so far, if it records.
    pub(super) fn of(host: &RoomHost) -> Option<Snapshot> {
        let recording: &RoomRecording = host.recording()?;
        let live = ReplayOutcome {
            tick_hashes: recording.tick_hashes.clone(),
            shots: host.recorded_shots().to_vec(),
            first_divergence: None,
        };
        Some(Snapshot {
            bytes: recording.to_bytes(),
            line: live.line(),
            truncated: recording.truncated,
            events: recording.events.len(),
            joins: recording
                .events
                .iter()
                .filter(|e| matches!(e, RecordedEvent::Join { .. }))
                .count(),
            seconds: recording.seconds(),
        })
    }
}

/// Why a room here has no recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unrecorded {
    /// It runs the rollback model.
    Rollback,
    /// It was made from another relay's checkpoint.
    Restored,
}

/// Where a room's task answers a request for its recording.
pub(super) type Reply = oneshot::Sender<Result<Snapshot, Unrecorded>>;

impl Rooms {
    /// Asks room `id`'s task for its recording; `None` if the room is not
    /// here.
    fn ask_recording(
        &self,
        id: &RoomId,
    ) -> Option<oneshot::Receiver<Result<Snapshot, Unrecorded>>> {
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let (reply, answer) = oneshot::channel();
        map.get(id)?
            .tx
            .send(super::seat::Command::Recording { reply })
            .ok()?;
        Some(answer)
    }
}

/// `GET /api/rooms/{name}/recording`.
pub(crate) async fn recording(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = RoomId::parse(&name).map_err(|e| bad(StatusCode::BAD_REQUEST, e.to_string()))?;
    let instance = &state.inner.deployment.instance;
    let not_found = |why: String| bad(StatusCode::NOT_FOUND, format!("room {id}: {why}"));
    if !id.is_shared() {
        return Err(not_found(
            "a private session is not recorded: only shared rooms are".into(),
        ));
    }
    let elsewhere = || {
        not_found(format!(
            "no such room on this relay ({instance}): each relay serves its own rooms' \
             recordings (GET /api/rooms lists them); ask the relay named in the room's \
             X-Relay-Room-Home, or through nginx add ?room={id}"
        ))
    };
    if !state.inner.rooms.contains(&id) {
        return Err(elsewhere());
    }
    let limit = state.inner.limits.room_record_events;
    if limit == 0 {
        return Err(not_found(format!(
            "rooms are not recorded on this relay ({instance}: --room-record-events 0)"
        )));
    }
    let answer = state.inner.rooms.ask_recording(&id).ok_or_else(elsewhere)?;
    let snapshot = match answer.await.map_err(|_| elsewhere())? {
        Ok(s) => s,
        Err(Unrecorded::Rollback) => {
            return Err(not_found(
                "it runs the rollback model: only CMC rooms are recorded".into(),
            ))
        }
        Err(Unrecorded::Restored) => {
            return Err(not_found(format!(
                "it was carried on here ({instance}) from another relay's checkpoint: its \
                 start, which a replay needs, was not recorded here"
            )))
        }
    };
    let bytes = snapshot.bytes.map_err(|e| match e {
        RecordingError::TooLarge { .. } => bad(
            StatusCode::INSUFFICIENT_STORAGE,
            format!("room {id}: {e} (MAX_RECORDING_BYTES {MAX_RECORDING_BYTES}): lower --room-record-events"),
        ),
        e => bad(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("room {id}: {e}"),
        ),
    })?;
    let line = snapshot.line;
    let meta = [
        (header::CACHE_CONTROL, "no-store".to_owned()),
        (REPLAY_HEADER, line.clone()),
        (TRUNCATED_HEADER, snapshot.truncated.to_string()),
    ];
    let wants_json = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/json"));
    if !wants_json {
        return Ok((
            meta,
            [(header::CONTENT_TYPE, "application/octet-stream")],
            bytes,
        )
            .into_response());
    }
    let stopped = if snapshot.truncated {
        format!(
            "; recording stopped at its limit of {limit} inputs (--room-record-events), the room \
             played on"
        )
    } else {
        String::new()
    };
    let file = RoomRecordingFile {
        name: id.to_string(),
        description: format!(
            "Room {id} on {instance}: {} players joined, {:.1} s, {} inputs recorded{stopped}.",
            snapshot.joins, snapshot.seconds, snapshot.events
        ),
        compact: STANDARD.encode(&bytes),
        replay: line,
    };
    Ok((
        meta,
        [(header::CONTENT_TYPE, "application/json")],
        file.to_json(),
    )
        .into_response())
}
