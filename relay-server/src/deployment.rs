//! How this relay is deployed: its name among several, the public address
//! of its links, the proxies it trusts, the pages it serves sockets to,
//! where the other relays reach it and how it drains. Defaults suit one
//! relay on its own (`scripts/run.sh`); `scripts/cluster.sh` sets them for
//! three behind nginx.

use crate::origin::AllowedOrigins;
use crate::proxy::TrustedProxies;
use axum::http::{HeaderName, HeaderValue};
use std::net::SocketAddr;
use std::time::Duration;

/// Response header naming the relay that answered (every response).
pub const INSTANCE_HEADER: HeaderName = HeaderName::from_static("x-relay-instance");

/// Longest instance name, characters.
pub const INSTANCE_MAX: usize = 64;

/// See the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deployment {
    /// This relay's name in `X-Relay-Instance`, `/healthz` and
    /// `relay_info`: 1 to [`INSTANCE_MAX`] characters of `A–Z a–z 0–9 . - _`
    /// (see [`Deployment::instance_name`]).
    pub instance: String,
    /// Base URL of share links in the scenario API's answers
    /// (`<public_url>/s/<id>`), e.g. `https://play.example.org`; `None`:
    /// links relative to wherever the API was reached (`/s/<id>`).
    pub public_url: Option<String>,
    /// Peers whose `X-Forwarded-For` names the client ([`crate::proxy`]).
    pub trusted_proxies: TrustedProxies,
    /// How long after the shutdown signal the relay keeps answering —
    /// `/healthz` 503, new sessions refused with 503, its sessions going
    /// on — before it closes them: give a balancer's health check that
    /// long to notice.
    pub drain_delay: Duration,
    /// Origins of pages that may open sockets besides the relay's own
    /// ([`crate::origin`]).
    pub allowed_origins: AllowedOrigins,
    /// Where the other relays reach this one to pass a room's players on
    /// to it (`crate::homes`); `None`: nowhere, so with a shared
    /// (PostgreSQL) registry this relay refuses to start.
    pub internal_addr: Option<SocketAddr>,
    /// How long a claim on a shared room lasts unless renewed (every
    /// third of it): how long a room whose home stopped answering (but is
    /// still listening) waits before another relay takes it over.
    pub room_lease: Duration,
}

impl Default for Deployment {
    fn default() -> Self {
        Deployment {
            instance: "relay".into(),
            public_url: None,
            trusted_proxies: TrustedProxies::default(),
            drain_delay: Duration::ZERO,
            allowed_origins: AllowedOrigins::default(),
            internal_addr: None,
            room_lease: Duration::from_secs(10),
        }
    }
}

/// A bad `--instance` or `--public-url`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeploymentError {
    /// See [`Deployment::instance`].
    #[error(
        "an instance name is 1 to {INSTANCE_MAX} characters of A–Z, a–z, 0–9, '.', '-' and '_'"
    )]
    Instance,
    /// See [`Deployment::public_url`].
    #[error("a public URL is http:// or https:// followed by a host, without query or fragment")]
    PublicUrl,
}

impl Deployment {
    /// Checks an instance name.
    ///
    /// # Errors
    /// [`DeploymentError::Instance`].
    pub fn instance_name(s: &str) -> Result<String, DeploymentError> {
        let ok = (1..=INSTANCE_MAX).contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
        ok.then(|| s.to_owned()).ok_or(DeploymentError::Instance)
    }

    /// Checks a public URL and drops a trailing `/`.
    ///
    /// # Errors
    /// [`DeploymentError::PublicUrl`].
    pub fn public_url(s: &str) -> Result<String, DeploymentError> {
        let rest = s
            .strip_prefix("https://")
            .or_else(|| s.strip_prefix("http://"))
            .ok_or(DeploymentError::PublicUrl)?;
        let host_ok = !rest.is_empty() && !rest.starts_with('/');
        let plain = !s.contains(['?', '#']) && !s.contains(char::is_whitespace);
        if !(host_ok && plain) || HeaderValue::from_str(s).is_err() {
            return Err(DeploymentError::PublicUrl);
        }
        Ok(s.trim_end_matches('/').to_owned())
    }

    /// `path` (from `/`) under `--public-url`, or as it is without one.
    fn absolute(&self, path: &str) -> String {
        format!("{}{path}", self.public_url.as_deref().unwrap_or(""))
    }

    /// The share link of scenario `id`.
    pub(crate) fn share_link(&self, id: &str) -> String {
        self.absolute(&format!("/s/{id}"))
    }

    /// The API address of scenario `id`.
    pub(crate) fn api_link(&self, id: &str) -> String {
        self.absolute(&format!("/api/scenarios/{id}"))
    }

    /// The page's link to saved room recording `id`.
    pub(crate) fn room_recording_link(&self, id: &str) -> String {
        self.absolute(&format!("/?room-recording={id}"))
    }

    /// The API address of saved room recording `id`.
    pub(crate) fn room_recording_api_link(&self, id: &str) -> String {
        self.absolute(&format!("/api/room-recordings/{id}"))
    }

    /// The page's link to saved match recording `id` (a rollback room's).
    pub(crate) fn match_recording_link(&self, id: &str) -> String {
        self.absolute(&format!("/?match-recording={id}"))
    }

    /// The API address of saved match recording `id`.
    pub(crate) fn match_recording_api_link(&self, id: &str) -> String {
        self.absolute(&format!("/api/match-recordings/{id}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_names_and_public_urls_are_checked() {
        assert_eq!(
            Deployment::instance_name("relay-8081").unwrap(),
            "relay-8081"
        );
        assert!(Deployment::instance_name("").is_err());
        assert!(Deployment::instance_name("a b").is_err());
        assert!(Deployment::instance_name(&"a".repeat(65)).is_err());
        assert_eq!(
            Deployment::public_url("https://play.example.org/").unwrap(),
            "https://play.example.org"
        );
        assert_eq!(
            Deployment::public_url("http://127.0.0.1:8080/np").unwrap(),
            "http://127.0.0.1:8080/np"
        );
        for bad in [
            "play.example.org",
            "https://",
            "ftp://x",
            "https://x/?a=1",
            "https://x/#y",
            "https:///x",
        ] {
            assert!(Deployment::public_url(bad).is_err(), "{bad}");
        }
        let d = Deployment {
            public_url: Some("https://play.example.org".into()),
            ..Deployment::default()
        };
        assert_eq!(
            d.share_link("AAAAAAAAAAAA"),
            "https://play.example.org/s/AAAAAAAAAAAA"
        );
        assert_eq!(
            Deployment::default().share_link("AAAAAAAAAAAA"),
            "/s/AAAAAAAAAAAA"
        );
        assert_eq!(
            d.room_recording_link("AAAAAAAAAAAA"),
            "https://play.example.org/?room-recording=AAAAAAAAAAAA"
        );
        assert_eq!(
            d.room_recording_api_link("AAAAAAAAAAAA"),
            "https://play.example.org/api/room-recordings/AAAAAAAAAAAA"
        );
        assert_eq!(
            d.match_recording_link("AAAAAAAAAAAA"),
            "https://play.example.org/?match-recording=AAAAAAAAAAAA"
        );
        assert_eq!(
            d.match_recording_api_link("AAAAAAAAAAAA"),
            "https://play.example.org/api/match-recordings/AAAAAAAAAAAA"
        );
        assert_eq!(
            Deployment::default().match_recording_link("AAAAAAAAAAAA"),
            "/?match-recording=AAAAAAAAAAAA"
        );
    }
}
