//! `GET /api/rooms/{name}/recording`: a shared CMC room's recording so
//! far (issue 23), as the room's task hands it over; `POST` the same
//! route to keep it in the store under an id of its own, served by
//! `GET /api/room-recordings/{id}` ([`crate::api`]) long after the room.
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
//!
//! **Saving** (`POST`, no body; through nginx add `?room=NAME` as for the
//! `GET`): the room's task hands over its recording, with the `GET`'s
//! refusals and reasons (nothing charged then); the save is charged to
//! the client address's budget of saves, shared with scenarios
//! ([`crate::Limits::saves`]: 429 with `Retry-After`), and the bytes are
//! stored as an [`ItemKind::Room`] under the store's cap (507) and
//! deadline (503, with `Retry-After` after a timeout). A recording stored
//! already — same room, same bytes: nothing happened since the last save
//! — is answered 200 with its id, uncharged, and nothing is stored
//! ([`crate::store::ScenarioStore::find`]). 201 answers `{id,
//! url, api, room, seconds, ticks, shots, bytes, truncated, replay}`:
//! `url` is the page's link (`/?room-recording={id}`, absolute under
//! `--public-url`), `api` the bytes' address, `replay` the live host's
//! line (as `X-Room-Recording-Replay`). Counted in
//! `relay_room_recording_saves_total` by its answer.

use super::Rooms;
use crate::api::{bad, charge_save, ApiError};
use crate::metrics::Save;
use crate::proxy::ClientAddr;
use crate::room::RoomId;
use crate::store::{ItemKind, Stored};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::json;
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
    bytes: Vec<u8>,
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
    /// Ticks recorded (one hash each).
    ticks: usize,
    /// Shots the host judged.
    shots: usize,
}

impl Snapshot {
    /// `host`'s recording so far.
    ///
    /// # Errors
    /// [`Unrecorded::Restored`] if it does not record (it was made from a
    /// checkpoint), [`Unrecorded::Unencodable`] if its bytes cannot be
    /// made.
    pub(super) fn of(host: &RoomHost) -> Result<Snapshot, Unrecorded> {
        let recording: &RoomRecording = host.recording().ok_or(Unrecorded::Restored)?;
        let live = ReplayOutcome {
            tick_hashes: recording.tick_hashes.clone(),
            shots: host.recorded_shots().to_vec(),
            first_divergence: None,
        };
        Ok(Snapshot {
            bytes: recording.to_bytes().map_err(Unrecorded::Unencodable)?,
            line: live.line(),
            truncated: recording.truncated,
            events: recording.events.len(),
            joins: recording
                .events
                .iter()
                .filter(|e| matches!(e, RecordedEvent::Join { .. }))
                .count(),
            seconds: recording.seconds(),
            ticks: recording.tick_hashes.len(),
            shots: live.shots.len(),
        })
    }
}

/// Why a room here has no recording to hand over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unrecorded {
    /// It runs the rollback model.
    Rollback,
    /// It was made from another relay's checkpoint.
    Restored,
    /// Its recording does not encode (over [`MAX_RECORDING_BYTES`]).
    Unencodable(RecordingError),
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

/// The answer for room `id` when this relay does not have it.
fn elsewhere(state: &AppState, id: &RoomId) -> ApiError {
    bad(
        StatusCode::NOT_FOUND,
        format!(
            "room {id}: no such room on this relay ({}): each relay serves its own rooms' \
             recordings (GET /api/rooms lists them); ask the relay named in the room's \
             X-Relay-Room-Home, or through nginx add ?room={id}",
            state.inner.deployment.instance
        ),
    )
}

/// Room `name`, if it is a shared room on this relay and this relay
/// records its rooms.
///
/// # Errors
/// 400 for a malformed name, 404 with the reason otherwise.
fn recorded_room(state: &AppState, name: &str) -> Result<RoomId, ApiError> {
    let id = RoomId::parse(name).map_err(|e| bad(StatusCode::BAD_REQUEST, e.to_string()))?;
    if !id.is_shared() {
        return Err(bad(
            StatusCode::NOT_FOUND,
            format!("room {id}: a private session is not recorded: only shared rooms are"),
        ));
    }
    if !state.inner.rooms.contains(&id) {
        return Err(elsewhere(state, &id));
    }
    if state.inner.limits.room_record_events == 0 {
        return Err(bad(
            StatusCode::NOT_FOUND,
            format!(
                "room {id}: rooms are not recorded on this relay ({}: --room-record-events 0)",
                state.inner.deployment.instance
            ),
        ));
    }
    Ok(id)
}

/// Room `id`'s recording so far, from its task.
///
/// # Errors
/// 404 with the reason (the room went, a rollback room, one carried on
/// from a checkpoint), 507 over [`MAX_RECORDING_BYTES`], 500 if it does
/// not encode otherwise.
async fn snapshot(state: &AppState, id: &RoomId) -> Result<Snapshot, ApiError> {
    let instance = &state.inner.deployment.instance;
    let not_found = |why: String| bad(StatusCode::NOT_FOUND, format!("room {id}: {why}"));
    let answer = state
        .inner
        .rooms
        .ask_recording(id)
        .ok_or_else(|| elsewhere(state, id))?;
    match answer.await.map_err(|_| elsewhere(state, id))? {
        Ok(s) => Ok(s),
        Err(Unrecorded::Rollback) => Err(not_found(
            "it runs the rollback model: only CMC rooms are recorded".into(),
        )),
        Err(Unrecorded::Restored) => Err(not_found(format!(
            "it was carried on here ({instance}) from another relay's checkpoint: its \
             start, which a replay needs, was not recorded here"
        ))),
        Err(Unrecorded::Unencodable(e @ RecordingError::TooLarge { .. })) => Err(bad(
            StatusCode::INSUFFICIENT_STORAGE,
            format!("room {id}: {e} (MAX_RECORDING_BYTES {MAX_RECORDING_BYTES}): lower --room-record-events"),
        )),
        Err(Unrecorded::Unencodable(e)) => Err(bad(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("room {id}: {e}"),
        )),
    }
}

/// `GET /api/rooms/{name}/recording`.
pub(crate) async fn recording(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = recorded_room(&state, &name)?;
    let snapshot = snapshot(&state, &id).await?;
    let limit = state.inner.limits.room_record_events;
    let instance = &state.inner.deployment.instance;
    let bytes = snapshot.bytes;
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

/// `POST /api/rooms/{name}/recording`: keeps the room's recording so far
/// in the store (see the module docs); counted in
/// `relay_room_recording_saves_total` by its answer.
pub(crate) async fn save(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    Path(name): Path<String>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let answer = store(&state, client, &name).await;
    state.inner.metrics.room_save(Save::of(&answer));
    answer
}

async fn store(
    state: &AppState,
    client: std::net::IpAddr,
    name: &str,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let id = recorded_room(state, name)?;
    // The recording first: a save the GET would refuse costs nothing (and
    // charging first would spare no work: the GET asks the task freely).
    let snapshot = snapshot(state, &id).await?;
    // Stored already (nothing happened in the room since): its id, 200,
    // uncharged.
    let found = state
        .store()
        .find(ItemKind::Room, id.as_str(), &snapshot.bytes)
        .await
        .map_err(|e| ApiError::store(state, e))?;
    let stored = match found {
        Some(id) => Stored { id, existing: true },
        None => {
            charge_save(state, client)?;
            let ticks = u32::try_from(snapshot.ticks).unwrap_or(u32::MAX);
            state
                .store()
                .insert(
                    ItemKind::Room,
                    id.as_str(),
                    &snapshot.bytes,
                    ticks,
                    state.inner.limits.max_store_bytes,
                )
                .await
                .map_err(|e| ApiError::store(state, e))?
        }
    };
    let (status, stored) = if stored.existing {
        (StatusCode::OK, stored.id)
    } else {
        (StatusCode::CREATED, stored.id)
    };
    tracing::info!(
        id = %stored,
        room = %id,
        ticks = snapshot.ticks,
        shots = snapshot.shots,
        bytes = snapshot.bytes.len(),
        truncated = snapshot.truncated,
        existing = status == StatusCode::OK,
        "room recording saved"
    );
    let deployment = &state.inner.deployment;
    Ok((
        status,
        Json(json!({
            "id": stored,
            "url": deployment.room_recording_link(&stored),
            "api": deployment.room_recording_api_link(&stored),
            "room": id.as_str(),
            "seconds": snapshot.seconds,
            "ticks": snapshot.ticks,
            "shots": snapshot.shots,
            "bytes": snapshot.bytes.len(),
            "truncated": snapshot.truncated,
            "replay": snapshot.line,
        })),
    ))
}
