//! Room ids: `/ws?room=<id>` names the room a connection belongs to, and
//! the proxy in front (`deploy/nginx.conf`: `hash $arg_room consistent`)
//! sends every connection of one room to the same relay. The page gives
//! each private session a random room id of its own for the page's life,
//! so a reconnect after a dropped socket reaches the relay that kept the
//! session.
//!
//! The relay checks the *raw* query value, as the proxy hashes it: an id
//! is 1 to [`ROOM_ID_MAX`] characters of `A–Z a–z 0–9 - _`, so no percent
//! escape can make two spellings of one id hash apart; a second `room`
//! parameter (in any letter case, as nginx matches `$arg_room`) is refused,
//! since the proxy would hash the first and the relay might read another.
//! No `room` at all is a private session the proxy places round robin.
//! Any other id than a private one names a shared room ([`crate::rooms`]).
//! The id is echoed in the upgrade response's `X-Relay-Room` header.
//!
//! `&model=rollback` (or `cmc`) chooses the model of a shared room its
//! first player makes ([`RoomModel`], issue 22); joining an existing room
//! with another model named is refused with the reason, and without one
//! joins whatever the room runs.

use crate::metrics::Refusal;
use crate::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// Longest room id, characters.
pub const ROOM_ID_MAX: usize = 64;

/// How a page's private room id begins (`p-` and 24 hex digits, drawn once
/// per page): a session of its own, not a shared room.
pub const PRIVATE_PREFIX: &str = "p-";

/// Response header echoing the room of a `/ws` upgrade.
pub const ROOM_HEADER: HeaderName = HeaderName::from_static("x-relay-room");

/// A valid room id (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoomId(String);

/// Why a `room` parameter was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoomError {
    /// Empty or longer than [`ROOM_ID_MAX`].
    #[error("a room id is 1 to {ROOM_ID_MAX} characters, got {0}")]
    Length(usize),
    /// A character outside `A–Z a–z 0–9 - _` (percent escapes included).
    #[error("a room id is made of A–Z, a–z, 0–9, - and _ only")]
    Charset,
    /// More than one `room` parameter.
    #[error("the room is given more than once")]
    Repeated,
    /// A `model` other than `cmc` or `rollback`, or more than one.
    #[error("a room's model is cmc or rollback, given once")]
    Model,
}

/// The prediction model a shared room runs, chosen when it is made
/// (issue 22: "a room chooses its model when it is created").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RoomModel {
    /// UE's CharacterMovementComponent model: `sim::endpoints::room::RoomHost`.
    #[default]
    Cmc,
    /// One fixed-tick rollback match of 2–8 players:
    /// `sim::endpoints::rollback_room::RollbackRoomHost`.
    Rollback,
}

impl RoomModel {
    /// Its name in the query and in `/api/rooms`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RoomModel::Cmc => "cmc",
            RoomModel::Rollback => "rollback",
        }
    }

    /// The `model` named in a raw query string, if any.
    ///
    /// # Errors
    /// [`RoomError::Model`] for an unknown or repeated one.
    pub fn from_query(query: Option<&str>) -> Result<Option<RoomModel>, RoomError> {
        let mut found = None;
        for pair in query.unwrap_or("").split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if key.eq_ignore_ascii_case("model") {
                let model = match value {
                    "cmc" => RoomModel::Cmc,
                    "rollback" => RoomModel::Rollback,
                    _ => return Err(RoomError::Model),
                };
                if found.replace(model).is_some() {
                    return Err(RoomError::Model);
                }
            }
        }
        Ok(found)
    }
}

impl std::fmt::Display for RoomModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RoomId {
    /// Checks `raw`, the parameter's value as it appears in the URL.
    ///
    /// # Errors
    /// [`RoomError::Length`] or [`RoomError::Charset`].
    pub fn parse(raw: &str) -> Result<RoomId, RoomError> {
        if raw.is_empty() || raw.len() > ROOM_ID_MAX {
            return Err(RoomError::Length(raw.len()));
        }
        if !raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(RoomError::Charset);
        }
        Ok(RoomId(raw.to_owned()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this names a shared room ([`crate::rooms`]): any id but a
    /// page's private one, `p-` and its random digits.
    pub fn is_shared(&self) -> bool {
        !self.0.starts_with(PRIVATE_PREFIX)
    }

    /// The room named in a raw query string, if any.
    ///
    /// # Errors
    /// A [`RoomError`] for a malformed or repeated `room`.
    pub fn from_query(query: Option<&str>) -> Result<Option<RoomId>, RoomError> {
        let mut found = None;
        for pair in query.unwrap_or("").split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if key.eq_ignore_ascii_case("room") {
                if found.is_some() {
                    return Err(RoomError::Repeated);
                }
                found = Some(RoomId::parse(value)?);
            }
        }
        Ok(found)
    }

    /// Adds the echo header to an upgrade response.
    pub(crate) fn echo(room: Option<&RoomId>, mut response: Response) -> Response {
        if let Some(room) = room {
            // The charset is a subset of what a header value may hold.
            if let Ok(v) = HeaderValue::from_str(room.as_str()) {
                response.headers_mut().insert(ROOM_HEADER, v);
            }
        }
        response
    }
}

impl std::fmt::Display for RoomId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The `room` of a `/ws` request (`None` for a private session without
/// one) and the `model` asked for. A malformed one is answered 400 with
/// `{"error": reason}`.
#[derive(Debug, Clone)]
pub(crate) struct RoomQuery(pub(crate) Option<RoomId>, pub(crate) Option<RoomModel>);

impl FromRequestParts<AppState> for RoomQuery {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<RoomQuery, Response> {
        let query = parts.uri.query();
        RoomId::from_query(query)
            .and_then(|room| Ok(RoomQuery(room, RoomModel::from_query(query)?)))
            .map_err(|e| {
                state.inner.metrics.refused(Refusal::BadRoom);
                (
                    StatusCode::BAD_REQUEST,
                    Json(serde_json::json!({ "error": e.to_string() })),
                )
                    .into_response()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_ids_are_short_and_plain() {
        assert_eq!(RoomId::parse("p-3f9a_Z").unwrap().as_str(), "p-3f9a_Z");
        assert_eq!(RoomId::parse(&"a".repeat(64)).unwrap().as_str().len(), 64);
        assert_eq!(RoomId::parse(""), Err(RoomError::Length(0)));
        assert_eq!(RoomId::parse(&"a".repeat(65)), Err(RoomError::Length(65)));
        for bad in ["a b", "a%41", "a/b", "é", "a.b", "a+b"] {
            assert_eq!(RoomId::parse(bad), Err(RoomError::Charset), "{bad}");
        }
    }

    #[test]
    fn a_private_id_is_a_session_of_its_own_and_any_other_a_shared_room() {
        assert!(!RoomId::parse("p-0123456789abcdef01234567")
            .unwrap()
            .is_shared());
        assert!(RoomId::parse("lobby").unwrap().is_shared());
        assert!(RoomId::parse("P-caps").unwrap().is_shared());
        assert!(RoomId::parse("p").unwrap().is_shared());
    }

    #[test]
    fn the_query_names_at_most_one_model() {
        assert_eq!(RoomModel::from_query(Some("room=a")), Ok(None));
        assert_eq!(
            RoomModel::from_query(Some("room=a&model=rollback")),
            Ok(Some(RoomModel::Rollback))
        );
        assert_eq!(
            RoomModel::from_query(Some("model=cmc")),
            Ok(Some(RoomModel::Cmc))
        );
        assert_eq!(
            RoomModel::from_query(Some("model=ggpo")),
            Err(RoomError::Model)
        );
        assert_eq!(
            RoomModel::from_query(Some("model=cmc&MODEL=rollback")),
            Err(RoomError::Model)
        );
    }

    #[test]
    fn the_query_names_at_most_one_room() {
        assert_eq!(RoomId::from_query(None), Ok(None));
        assert_eq!(RoomId::from_query(Some("x=1")), Ok(None));
        assert_eq!(
            RoomId::from_query(Some("x=1&room=abc")),
            Ok(Some(RoomId("abc".into())))
        );
        assert_eq!(
            RoomId::from_query(Some("room=a&ROOM=b")),
            Err(RoomError::Repeated)
        );
        assert_eq!(RoomId::from_query(Some("room=")), Err(RoomError::Length(0)));
        assert_eq!(RoomId::from_query(Some("room")), Err(RoomError::Length(0)));
        assert_eq!(
            RoomId::from_query(Some("room=%41")),
            Err(RoomError::Charset)
        );
        assert_eq!(RoomId::from_query(Some("roomy=a")), Ok(None));
    }
}
