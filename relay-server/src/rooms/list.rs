//! `GET /api/rooms`: this relay's shared rooms.

use super::Rooms;
use crate::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use std::sync::atomic::Ordering;
use std::sync::PoisonError;

/// A room as `GET /api/rooms` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RoomSummary {
    /// Its name.
    pub room: String,
    /// Remote players (a dropped socket's seat within its grace period
    /// included).
    pub players: usize,
    /// Server-driven bots.
    pub bots: usize,
    /// Spectators watching a rollback match (issue 22); 0 in a CMC room.
    pub spectators: usize,
    /// Most players, bots included.
    pub max_players: usize,
    /// The model it runs: `cmc` or `rollback` (issue 22).
    pub model: &'static str,
}

impl Rooms {
    /// Every room, by name.
    pub(crate) fn list(&self) -> Vec<RoomSummary> {
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let mut rooms: Vec<RoomSummary> = map
            .iter()
            .map(|(id, e)| RoomSummary {
                room: id.to_string(),
                players: e.info.players.load(Ordering::Relaxed),
                bots: e.info.bots.load(Ordering::Relaxed),
                spectators: e.info.spectators.load(Ordering::Relaxed),
                max_players: e.info.max_players,
                model: e.info.model.as_str(),
            })
            .collect();
        rooms.sort_by(|a, b| a.room.cmp(&b.room));
        rooms
    }
}

/// `GET /api/rooms`: this relay's shared rooms with their players, bots
/// and spectators, `{"instance": …, "rooms": [{"room", "players", "bots",
/// "spectators", "max_players", "model"}]}`, by name. Private sessions are
/// not listed.
pub(crate) async fn list(State(state): State<AppState>) -> impl IntoResponse {
    Json(serde_json::json!({
        "instance": state.inner.deployment.instance,
        "rooms": state.inner.rooms.list(),
    }))
}
