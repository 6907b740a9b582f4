//! `GET /healthz`: is this relay taking new players?
//!
//! | state | status | when |
//! |---|---|---|
//! | `starting` | 503 | the state exists but [`crate::serve`] has not started (the store is opened before) |
//! | `ready` | 200 | serving: the store is open and the listener bound |
//! | `draining` | 503 | the shutdown signal came: for [`crate::Deployment::drain_delay`] the relay still answers, refuses new sessions (503) and lets its own go on, then closes them (1001) and exits |
//!
//! The body is JSON: `{"status", "instance", "store", "sessions"}`. A
//! proxy with active health checks (HAProxy `option httpchk`, Kubernetes
//! readiness) stops sending players on the 503; nginx (open source) has
//! only passive checks and instead retries a refused upgrade on another
//! relay (`proxy_next_upstream … http_503` in `deploy/nginx.conf`).

use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::atomic::{AtomicU8, Ordering};

/// Where the relay is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Readiness {
    /// Not serving yet.
    Starting = 0,
    /// Serving.
    Ready = 1,
    /// Shutting down: no new sessions.
    Draining = 2,
}

impl Readiness {
    fn name(self) -> &'static str {
        match self {
            Readiness::Starting => "starting",
            Readiness::Ready => "ready",
            Readiness::Draining => "draining",
        }
    }
}

/// The readiness every request reads.
#[derive(Debug, Default)]
pub(crate) struct Health(AtomicU8);

impl Health {
    pub(crate) fn get(&self) -> Readiness {
        match self.0.load(Ordering::Acquire) {
            0 => Readiness::Starting,
            1 => Readiness::Ready,
            _ => Readiness::Draining,
        }
    }

    /// `Starting → Ready`; a draining relay stays draining.
    pub(crate) fn ready(&self) {
        let _ = self.0.compare_exchange(
            Readiness::Starting as u8,
            Readiness::Ready as u8,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    pub(crate) fn drain(&self) {
        self.0.store(Readiness::Draining as u8, Ordering::Release);
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.get() == Readiness::Draining
    }
}

/// `GET /healthz`.
pub(crate) async fn handler(State(state): State<AppState>) -> Response {
    let readiness = state.readiness();
    let status = if readiness == Readiness::Ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        Json(serde_json::json!({
            "status": readiness.name(),
            "instance": state.inner.deployment.instance,
            "store": state.inner.store.backend(),
            "sessions": state.inner.metrics.sessions(),
        })),
    )
        .into_response()
}
