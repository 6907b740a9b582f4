//! The scenario API and share links.
//!
//! | route | does |
//! |---|---|
//! | `POST /api/scenarios` | stores a scenario: body `application/octet-stream` (the compact encoding, as the page sends) or `application/json` (a [`Scenario`] written by hand); 201 `{id, url, …}`, or 200 with a stored scenario's id when the same one (name and bytes) is stored already |
//! | `GET /api/scenarios/{id}` | the scenario as JSON, or its compact bytes with `Accept: application/octet-stream` |
//! | `GET /s/{id}` | the page, which loads and plays scenario `id` (404 status, same page, if unknown) |
//! | `GET /api/room-recordings/{id}` | a saved CMC room recording's bytes (saved by `POST /api/rooms/{name}/recording`, [`crate::rooms`]) |
//! | `GET /api/match-recordings/{id}` | a saved rollback match recording's bytes (saved by the same `POST` on a rollback room) |
//!
//! Scenarios, room recordings and match recordings share the store (its
//! ids and its cap, [`ItemKind`]); each route answers 404 for an id of
//! another kind, naming what it is and where it is opened.
//!
//! Every rejection is a 4xx (or 5xx) with a JSON body
//! `{"error": "<reason>"}`; nothing is stored then (a wrong method, 405,
//! and an over-long URI, 414, too: `crate::http_errors`; a `POST` from
//! another site's page, 403: [`crate::origin`]). A save found stored
//! already ([`crate::store::ScenarioStore::find`]) is answered 200 with
//! its id, stores nothing and is not charged. Each client address
//! has a budget of saves ([`crate::Limits::saves`]: 429 with
//! `Retry-After` beyond it, before the replay); the stored
//! scenarios together have a cap ([`crate::Limits::max_store_bytes`]: 507
//! beyond it); a store that does not answer within its deadline gives 503
//! with `Retry-After`. Bodies are read up to [`MAX_BODY_BYTES`] and no
//! further, within [`crate::Limits::header_timeout`] (408 after).
//! Scenarios of every version are read, upgraded to this build's
//! ([`sim::scenario::migrate`]); one of a newer version is a 422 naming
//! both versions. Before storing, the relay replays the scenario headless
//! ([`ScenarioRun::run_to_end`], ~1 µs per frame): a recorded outcome that
//! the replay does not reproduce is rejected with the replay's
//! [`Verdict`] (*recorded with an older model; this replay differs from
//! the original from 12 s*), and a scenario without one — or from before
//! checkpoints — gets the replay's, so every stored scenario carries the
//! outcome its viewers will see. Stored scenarios are served as they were
//! saved (bytes) or upgraded (JSON).

use crate::metrics::Save;
use crate::proxy::ClientAddr;
use crate::store::{is_id, ItemKind, StoreError};
use crate::AppState;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use serde_json::json;
use sim::scenario::{codec, Verdict};
use sim::{Scenario, ScenarioRun};

/// `Cache-Control` of a stored item: saved items never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Largest request body, bytes: a compact scenario is at most
/// [`codec::MAX_ENCODED_BYTES`] (512 KiB); a hand-written JSON one of a
/// few minutes fits in 2 MiB.
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Replays running at once while checking saves; more saves wait their
/// turn (a 144 000-frame scenario takes ~0.15 s of one core).
static VERIFY: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// Replays `scenario` and checks or fills in its outcome.
async fn verify(mut scenario: Scenario) -> Result<Scenario, ApiError> {
    let _permit = VERIFY
        .acquire()
        .await
        .map_err(|e| bad(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    let replay = scenario.clone();
    let got = tokio::task::spawn_blocking(move || ScenarioRun::run_to_end(replay))
        .await
        .map_err(|e| bad(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let verdict = Verdict::of(scenario.outcome.as_ref(), &got);
    match (&scenario.outcome, verdict.is_ok()) {
        (Some(claimed), false) => Err(bad(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "the recorded outcome does not match a replay of the scenario: {verdict} \
                 (recorded trajectory {:016x} / state {:016x} / {} adjustments, replayed \
                 {:016x} / {:016x} / {}); save it without its outcome to keep the run as it \
                 replays now",
                claimed.trajectory_hash,
                claimed.state_hash,
                claimed.adjustments,
                got.trajectory_hash,
                got.state_hash,
                got.adjustments
            ),
        )),
        _ => {
            scenario.outcome = Some(got);
            Ok(scenario)
        }
    }
}

/// An API error: status, reason and when to try again, answered as
/// `{"error": reason}` (with `Retry-After`, s, when there is one).
#[derive(Debug)]
pub struct ApiError(StatusCode, String, Option<u64>);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.0, Json(json!({ "error": self.1 }))).into_response();
        if let Some(secs) = self.2 {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, secs.into());
        }
        response
    }
}

impl ApiError {
    /// A store failure: 507 over the storage cap, 503 otherwise (with
    /// `Retry-After: 1` after a timeout); timeouts counted.
    pub(crate) fn store(state: &AppState, e: StoreError) -> ApiError {
        match e {
            StoreError::Full { .. } => {
                tracing::warn!(error = %e, "save refused: store full");
                ApiError(StatusCode::INSUFFICIENT_STORAGE, e.to_string(), None)
            }
            StoreError::Timeout(_) => {
                state.inner.metrics.store_timeout();
                tracing::error!(error = %e, "scenario store timed out");
                ApiError(StatusCode::SERVICE_UNAVAILABLE, e.to_string(), Some(1))
            }
            e => {
                tracing::error!(error = %e, "scenario store failed");
                ApiError(StatusCode::SERVICE_UNAVAILABLE, e.to_string(), None)
            }
        }
    }
}

pub(crate) fn bad(status: StatusCode, reason: impl Into<String>) -> ApiError {
    ApiError(status, reason.into(), None)
}

/// A scenario that did not decode, as an answer: 413 over the size
/// limit, 422 for values out of range or a newer version, else 400.
fn undecodable(e: codec::DecodeError) -> ApiError {
    use codec::DecodeError as E;
    let status = match e {
        E::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        E::Invalid(_) | E::Newer { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::BAD_REQUEST,
    };
    bad(status, e.to_string())
}

/// Parses a posted body by its content type into a validated scenario of
/// this build's version.
fn parse(headers: &HeaderMap, body: &[u8]) -> Result<Scenario, ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let decoded = match content_type.as_str() {
        "application/octet-stream" => codec::open(body),
        "application/json" => codec::open_json(body),
        other => {
            return Err(bad(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "content type {other:?} is not accepted: send application/octet-stream \
                     (compact scenario) or application/json"
                ),
            ))
        }
    };
    decoded.map(|d| d.scenario).map_err(undecodable)
}

/// `POST /api/scenarios`: 201 `{id, url, api, bytes, frames, duration_s}`,
/// where `url` is the share link (absolute under the relay's public URL
/// when it has one, else `/s/{id}`); counted in
/// `relay_scenario_saves_total` by its answer.
pub(crate) async fn create(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let answer = save(&state, client, &headers, body).await;
    state.inner.metrics.save(Save::of(&answer));
    answer
}

impl Save {
    /// How `answer`, a save's, counts: 201, 200 (stored already), 429,
    /// 507, another 4xx or another 5xx.
    pub(crate) fn of<T>(answer: &Result<(StatusCode, T), ApiError>) -> Save {
        match answer {
            Ok((StatusCode::CREATED, _)) => Save::Created,
            Ok(_) => Save::Existing,
            Err(ApiError(StatusCode::TOO_MANY_REQUESTS, ..)) => Save::RateLimited,
            Err(ApiError(StatusCode::INSUFFICIENT_STORAGE, ..)) => Save::StoreFull,
            Err(ApiError(status, ..)) if status.is_client_error() => Save::Rejected,
            Err(_) => Save::Failed,
        }
    }
}

/// Charges one save to `client`'s budget ([`crate::Limits::saves`],
/// shared by scenarios and room recordings).
///
/// # Errors
/// 429 with `Retry-After` (s, at least 1) once the budget is spent.
pub(crate) fn charge_save(state: &AppState, client: std::net::IpAddr) -> Result<(), ApiError> {
    let Err(wait) = state.inner.saves.take(client, state.now()) else {
        return Ok(());
    };
    let limits = &state.inner.limits;
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    Err(ApiError(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many saves from this address ({} at once, then one every {:.0} s): \
             try again in {secs} s",
            limits.saves.burst,
            1.0 / limits.saves.per_second
        ),
        Some(secs),
    ))
}

async fn save(
    state: &AppState,
    client: std::net::IpAddr,
    headers: &HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let limits = &state.inner.limits;
    let read = axum::body::to_bytes(body, MAX_BODY_BYTES);
    let body: Bytes = tokio::time::timeout(limits.header_timeout, read)
        .await
        .map_err(|_| {
            bad(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the body did not arrive within {} s",
                    limits.header_timeout.as_secs()
                ),
            )
        })?
        .map_err(|_| {
            bad(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("body is over the limit of {MAX_BODY_BYTES} bytes"),
            )
        })?;
    let parsed = parse(headers, &body);
    // A scenario stored already (with this very outcome: it was replayed
    // then) is answered with its id, 200, uncharged and not replayed. One
    // without an outcome cannot be told from a stored one before the
    // replay fills it in: it is charged and replayed, and found by the
    // store's insert.
    if let Ok(scenario) = &parsed {
        let bytes = codec::encode(scenario);
        let found = state
            .store()
            .find(ItemKind::Scenario, &scenario.name, &bytes)
            .await
            .map_err(|e| ApiError::store(state, e))?;
        if let Some(id) = found {
            return Ok(saved(state, scenario, id, bytes.len(), true));
        }
    }
    // Charged once the body is in (a client answered before its upload
    // ends may see its connection reset instead of the 429), before the
    // replay and the store; a body that does not parse is charged too.
    charge_save(state, client)?;
    let scenario = verify(parsed?).await?;
    let bytes = codec::encode(&scenario);
    let stored = state
        .store()
        .insert(
            ItemKind::Scenario,
            &scenario.name,
            &bytes,
            scenario.frames.len() as u32,
            limits.max_store_bytes,
        )
        .await
        .map_err(|e| ApiError::store(state, e))?;
    Ok(saved(
        state,
        &scenario,
        stored.id,
        bytes.len(),
        stored.existing,
    ))
}

/// The answer to a save of `scenario` (`size` bytes encoded) stored as
/// `id`: 201, or 200 when it was stored already (`existing`).
fn saved(
    state: &AppState,
    scenario: &Scenario,
    id: String,
    size: usize,
    existing: bool,
) -> (StatusCode, Json<serde_json::Value>) {
    let frames = scenario.frames.len() as u32;
    let status = if existing {
        tracing::info!(%id, name = %scenario.name, "scenario saved already");
        StatusCode::OK
    } else {
        tracing::info!(%id, name = %scenario.name, frames, bytes = size, "scenario saved");
        StatusCode::CREATED
    };
    (
        status,
        Json(json!({
            "id": id,
            "url": state.inner.deployment.share_link(&id),
            "api": state.inner.deployment.api_link(&id),
            "bytes": size,
            "frames": frames,
            "duration_s": scenario.duration_secs(),
        })),
    )
}

/// The answer to a route serving `asked` items (`"a scenario"`, …) for
/// `id`, a stored item of another kind, `found`: 404 naming what it is
/// and where it is opened.
fn other_kind(state: &AppState, id: &str, found: ItemKind, asked: &str) -> ApiError {
    let open = match found {
        ItemKind::Scenario => format!("open {}", state.inner.deployment.share_link(id)),
        ItemKind::Room => {
            format!("open /?room-recording={id} (its bytes: GET /api/room-recordings/{id})")
        }
        ItemKind::Match => {
            format!("open /?match-recording={id} (its bytes: GET /api/match-recordings/{id})")
        }
    };
    let what = match found {
        ItemKind::Scenario => "a scenario",
        ItemKind::Room => "a room recording",
        ItemKind::Match => "a match recording",
    };
    bad(
        StatusCode::NOT_FOUND,
        format!("{id} is {what}, not {asked}: {open}"),
    )
}

/// `GET /api/scenarios/{id}`: 400 for a malformed id, 404 for an unknown
/// one or a room or match recording's (naming where it is opened).
pub async fn fetch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if !is_id(&id) {
        return Err(bad(
            StatusCode::BAD_REQUEST,
            "a scenario id is 12 characters of A–Z, a–z, 0–9, - and _",
        ));
    }
    let row = state
        .store()
        .get(&id)
        .await
        .map_err(|e| ApiError::store(&state, e))?
        .ok_or_else(|| bad(StatusCode::NOT_FOUND, format!("no scenario with id {id}")))?;
    if row.kind != ItemKind::Scenario {
        return Err(other_kind(&state, &id, row.kind, "a scenario"));
    }
    let wants_bytes = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/octet-stream"));
    let cache = (header::CACHE_CONTROL, IMMUTABLE);
    if wants_bytes {
        return Ok((
            [(header::CONTENT_TYPE, "application/octet-stream"), cache],
            row.bytes,
        )
            .into_response());
    }
    let scenario = codec::decode(&row.bytes).map_err(|e| {
        bad(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("stored scenario {id}: {e}"),
        )
    })?;
    Ok(([cache], Json(scenario)).into_response())
}

/// `GET /s/{id}`: the page (its `<base href="/">` resolves its relative
/// URLs from the root); it reads the id from its path and fetches the
/// scenario. Unknown ids, and a room or match recording's, get the same page with
/// status 404, and the page says so (what `GET /api/scenarios/{id}`
/// answers it).
pub async fn share_page(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let known = is_id(&id)
        && matches!(
            state.store().get(&id).await,
            Ok(Some(row)) if row.kind == ItemKind::Scenario
        );
    match tokio::fs::read_to_string(state.dist().join("index.html")).await {
        Ok(page) => {
            let status = if known {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            };
            (status, Html(page)).into_response()
        }
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the page is not built: run scripts/build-web.sh",
        )
            .into_response(),
    }
}

/// `GET /api/room-recordings/{id}`: the bytes a CMC room recording was
/// saved with ([`sim::endpoints::room::recording::RoomRecording::to_bytes`]),
/// `application/octet-stream`, cached for good.
///
/// # Errors
/// 404 `{"error"}` for a malformed or unknown id, or another kind's
/// (naming what it is and where it is opened); 503 when the store fails or
/// does not answer in time.
pub async fn fetch_room_recording(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    fetch_recording(&state, &id, ItemKind::Room).await
}

/// `GET /api/match-recordings/{id}`: the bytes a rollback match recording
/// was saved with ([`sim::rollback::recording::MatchRecording::to_bytes`],
/// read by `MatchRecording::from_bytes`), `application/octet-stream`,
/// cached for good.
///
/// # Errors
/// As [`fetch_room_recording`]: 404 `{"error"}` for a malformed or
/// unknown id, or another kind's; 503 when the store fails or is late.
pub async fn fetch_match_recording(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    fetch_recording(&state, &id, ItemKind::Match).await
}

/// The bytes of saved recording `id` of `kind` (a room's or a match's):
/// one path for both recording routes.
async fn fetch_recording(state: &AppState, id: &str, kind: ItemKind) -> Result<Response, ApiError> {
    let asked = match kind {
        ItemKind::Match => "a match recording",
        _ => "a room recording",
    };
    let unknown = || {
        bad(
            StatusCode::NOT_FOUND,
            format!("no {} with id {id}", &asked[2..]),
        )
    };
    if !is_id(id) {
        // Not echoed: it may be anything up to the URI limit.
        return Err(bad(
            StatusCode::NOT_FOUND,
            format!(
                "no {} with such an id: an id is 12 characters of A–Z, a–z, 0–9, - and _",
                &asked[2..]
            ),
        ));
    }
    let row = state
        .store()
        .get(id)
        .await
        .map_err(|e| ApiError::store(state, e))?
        .ok_or_else(unknown)?;
    if row.kind != kind {
        return Err(other_kind(state, id, row.kind, asked));
    }
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream"),
            (header::CACHE_CONTROL, IMMUTABLE),
        ],
        row.bytes,
    )
        .into_response())
}
