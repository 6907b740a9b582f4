//! Graceful shutdown (issue #7 "Faults"): on SIGTERM or Ctrl-C the relay
//! stops accepting, every session sends its client a close frame (1001
//! going away) and ends, and [`crate::serve`] returns once they have — or
//! after [`DRAIN_TIMEOUT`], whichever is first. Whatever else must be
//! flushed on exit (the scenario store) either runs after `serve` returns
//! or watches [`crate::AppState::shutdown_token`].

use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Longest [`crate::serve`] waits for sessions to say goodbye after the
/// shutdown signal. A client that stops reading holds its session at most
/// this long (each send is also bounded by `Limits::send_timeout`).
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(3);

/// The shutdown signal and the open sessions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shutdown {
    /// Cancelled once the relay is going down.
    pub(crate) token: CancellationToken,
    /// Every WebSocket session task holds a token of this tracker.
    pub(crate) sessions: TaskTracker,
}

impl Shutdown {
    /// Cancels the token, then waits for the sessions (at most
    /// [`DRAIN_TIMEOUT`]). Returns how many were still open when it gave up.
    pub(crate) async fn drain(&self) -> usize {
        self.token.cancel();
        self.sessions.close();
        let open = self.sessions.len();
        if tokio::time::timeout(DRAIN_TIMEOUT, self.sessions.wait())
            .await
            .is_err()
        {
            let left = self.sessions.len();
            tracing::warn!(left, "sessions still open after the drain timeout");
            return left;
        }
        tracing::info!(closed = open, "all sessions closed");
        0
    }
}

/// Completes on SIGTERM or Ctrl-C (SIGINT), logging which.
pub async fn signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("Ctrl-C: shutting down"),
        () = term => tracing::info!("SIGTERM: shutting down"),
    }
}
