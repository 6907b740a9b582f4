//! `GET /api/rooms/{name}/recording`: a shared room's recording so far
//! (issue 23), as the room's task hands it over; `POST` the same route to
//! keep it in the store under an id of its own, served long after the
//! room. Both models record: a CMC room its [`RoomRecording`](sim::endpoints::room::recording::RoomRecording), a rollback
//! room its match's [`MatchRecording`] (every tick's used inputs and
//! state hash); `X-Room-Recording-Model` (`cmc` or `rollback`) says which
//! decoder reads the answer.
//!
//! A room made fresh here records itself from its creation: a CMC room
//! ([`RoomHost::record`](sim::endpoints::room::RoomHost::record)) at most [`crate::Limits::room_record_events`]
//! inputs, a rollback room ([`RollbackRoomHost::record`](sim::endpoints::rollback_room::RollbackRoomHost::record)) at most
//! [`crate::Limits::match_record_ticks`] ticks; then the recording stops
//! and holds a whole shorter room (the room plays on). The answer is the
//! compact bytes (`application/octet-stream`: [`RoomRecording::to_bytes`](sim::endpoints::room::recording::RoomRecording::to_bytes)
//! or [`MatchRecording::to_bytes`]) or, with `Accept: application/json`,
//! a CMC room's [`RoomRecordingFile`] like the golden suite's
//! `scenarios/rooms/*.json` (its `replay` line the live host's: tick
//! hashes and the verdicts it gave), a rollback room's
//! [`MatchRecording::to_json`] like `scenarios/matches/*.json`. `scenario
//! room-replay` replays any of these and checks the replay gives the
//! live line. Every answer carries `X-Room-Recording-Model`,
//! `X-Room-Recording-Replay` (the live line: a CMC room's
//! [`ReplayOutcome::line`](sim::endpoints::room::replay::ReplayOutcome::line), a match's `ticks=<n> last=<16 hex>
//! digest=<16 hex>`, [`replay_line`](sim::rollback::recording::replay_line) of its server's hashes) and
//! `X-Room-Recording-Truncated` (`true` once the limit stopped it).
//!
//! | answer | when |
//! |---|---|
//! | 200 | the room is here and records |
//! | 400 | not a room name |
//! | 404 `{"error"}` | no such room on this relay (each relay has its own rooms, as `/api/rooms`), a private session, recording off for its model (`--room-record-events 0`, `--match-record-ticks 0`), or a room carried on here from another relay's checkpoint (its start is not here) |
//! | 507 `{"error"}` | the recording is over its model's `MAX_RECORDING_BYTES` encoded |
//!
//! **Saving** (`POST`, no body; through nginx add `?room=NAME` as for the
//! `GET`), one path for both models: the room's task hands over its
//! recording, with the `GET`'s refusals and reasons (nothing charged
//! then); the save is charged to the client address's budget of saves,
//! shared with scenarios ([`crate::Limits::saves`]: 429 with
//! `Retry-After`), and the bytes are stored as an [`ItemKind::Room`] (a
//! CMC room's) or an [`ItemKind::Match`] (a rollback room's) under the
//! store's cap (507) and deadline (503, with `Retry-After` after a
//! timeout). A recording stored already — same kind, same room, same
//! bytes: nothing happened since the last save — is answered 200 with its
//! id, uncharged, and nothing is stored
//! ([`crate::store::ScenarioStore::find`]). 201 answers `{id, url, api,
//! room, model, seconds, ticks, bytes, truncated, replay}` (a CMC room's
//! also `shots`): `model` is `cmc` or `rollback`; `url` is the page's link
//! (`/?room-recording={id}` or `/?match-recording={id}`, absolute under
//! `--public-url`), `api` the bytes' address (`/api/room-recordings/{id}`
//! or `/api/match-recordings/{id}`, [`crate::api`]), `replay` the live
//! line (as `X-Room-Recording-Replay`). Counted, both models, in
//! `relay_room_recording_saves_total` by its answer.

use super::snapshot::{CmcCounts, Snapshot, Unrecorded};
use super::Rooms;
use crate::api::{bad, charge_save, ApiError};
use crate::metrics::Save;
use crate::proxy::ClientAddr;
use crate::room::{RoomId, RoomModel};
use crate::store::{ItemKind, Stored};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::json;
use sim::endpoints::room::recording::RoomRecordingFile;
use sim::rollback::recording::MatchRecording;
use std::sync::PoisonError;
use tokio::sync::oneshot;

/// Response header: the live host's replay line
/// ([`ReplayOutcome::line`](sim::endpoints::room::replay::ReplayOutcome::line), or a match's [`replay_line`](sim::rollback::recording::replay_line)).
const REPLAY_HEADER: HeaderName = HeaderName::from_static("x-room-recording-replay");

/// Response header: `true` when the recording stopped at its limit.
const TRUNCATED_HEADER: HeaderName = HeaderName::from_static("x-room-recording-truncated");

/// Response header: the room's model, `cmc` or `rollback` — which decoder
/// reads the body ([`RoomRecording`](sim::endpoints::room::recording::RoomRecording) or [`MatchRecording`]).
const MODEL_HEADER: HeaderName = HeaderName::from_static("x-room-recording-model");

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
/// records rooms of its model.
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
    let model = state
        .inner
        .rooms
        .model(&id)
        .ok_or_else(|| elsewhere(state, &id))?;
    let limits = &state.inner.limits;
    let off = match model {
        RoomModel::Cmc => {
            (limits.room_record_events == 0).then_some(("rooms are", "--room-record-events"))
        }
        RoomModel::Rollback => (limits.match_record_ticks == 0)
            .then_some(("rollback matches are", "--match-record-ticks")),
    };
    if let Some((what, flag)) = off {
        return Err(bad(
            StatusCode::NOT_FOUND,
            format!(
                "room {id}: {what} not recorded on this relay ({}: {flag} 0)",
                state.inner.deployment.instance
            ),
        ));
    }
    Ok(id)
}

/// Room `id`'s recording so far, from its task.
///
/// # Errors
/// 404 with the reason (the room went, one carried on from a
/// checkpoint), 507 over its model's `MAX_RECORDING_BYTES`, 500 if it does
/// not encode otherwise.
async fn snapshot(state: &AppState, id: &RoomId) -> Result<Snapshot, ApiError> {
    let instance = &state.inner.deployment.instance;
    let answer = state
        .inner
        .rooms
        .ask_recording(id)
        .ok_or_else(|| elsewhere(state, id))?;
    match answer.await.map_err(|_| elsewhere(state, id))? {
        Ok(s) => Ok(s),
        Err(Unrecorded::Restored) => Err(bad(
            StatusCode::NOT_FOUND,
            format!(
                "room {id}: it was carried on here ({instance}) from another relay's \
                 checkpoint: its start, which a replay needs, was not recorded here"
            ),
        )),
        Err(Unrecorded::TooLarge { len, max }) => Err(bad(
            StatusCode::INSUFFICIENT_STORAGE,
            format!(
                "room {id}: the recording is {len} bytes, over the limit of {max} bytes \
                 (MAX_RECORDING_BYTES): lower --room-record-events or --match-record-ticks"
            ),
        )),
        Err(Unrecorded::Unencodable(e)) => Err(bad(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("room {id}: {e}"),
        )),
    }
}
/// `GET /api/rooms/{name}/recording` (see the module docs).
pub(crate) async fn recording(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = recorded_room(&state, &name)?;
    let snapshot = snapshot(&state, &id).await?;
    let meta = [
        (header::CACHE_CONTROL, "no-store".to_owned()),
        (MODEL_HEADER, snapshot.model.as_str().to_owned()),
        (REPLAY_HEADER, snapshot.line.clone()),
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
            snapshot.bytes,
        )
            .into_response());
    }
    let json = match &snapshot.cmc {
        Some(counts) => cmc_file(&state, &id, &snapshot, counts).to_json(),
        None => MatchRecording::from_bytes(&snapshot.bytes)
            .map_err(|e| bad(StatusCode::INTERNAL_SERVER_ERROR, format!("room {id}: {e}")))?
            .to_json(),
    };
    Ok((meta, [(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// A CMC room's recording as the golden suite's JSON file, described.
fn cmc_file(
    state: &AppState,
    id: &RoomId,
    snapshot: &Snapshot,
    counts: &CmcCounts,
) -> RoomRecordingFile {
    let limit = state.inner.limits.room_record_events;
    let instance = &state.inner.deployment.instance;
    let stopped = if snapshot.truncated {
        format!(
            "; recording stopped at its limit of {limit} inputs (--room-record-events), the room \
             played on"
        )
    } else {
        String::new()
    };
    RoomRecordingFile {
        name: id.to_string(),
        description: format!(
            "Room {id} on {instance}: {} players joined, {:.1} s, {} inputs recorded{stopped}.",
            counts.joins, snapshot.seconds, counts.events
        ),
        compact: STANDARD.encode(&snapshot.bytes),
        replay: snapshot.line.clone(),
    }
}

/// `POST /api/rooms/{name}/recording`: keeps the room's recording so far
/// in the store, either model (see the module docs); counted in
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
    let kind = snapshot.kind();
    // Stored already (nothing happened in the room since): its id, 200,
    // uncharged.
    let found = state
        .store()
        .find(kind, id.as_str(), &snapshot.bytes)
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
                    kind,
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
        model = %snapshot.model,
        ticks = snapshot.ticks,
        bytes = snapshot.bytes.len(),
        truncated = snapshot.truncated,
        existing = status == StatusCode::OK,
        "room recording saved"
    );
    let deployment = &state.inner.deployment;
    let (url, api) = match kind {
        ItemKind::Match => (
            deployment.match_recording_link(&stored),
            deployment.match_recording_api_link(&stored),
        ),
        _ => (
            deployment.room_recording_link(&stored),
            deployment.room_recording_api_link(&stored),
        ),
    };
    let mut answer = json!({
        "id": stored,
        "url": url,
        "api": api,
        "room": id.as_str(),
        "model": snapshot.model.as_str(),
        "seconds": snapshot.seconds,
        "ticks": snapshot.ticks,
        "bytes": snapshot.bytes.len(),
        "truncated": snapshot.truncated,
        "replay": snapshot.line,
    });
    if let Some(counts) = &snapshot.cmc {
        answer["shots"] = counts.shots.into();
    }
    Ok((status, Json(answer)))
}
