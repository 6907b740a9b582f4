//! Which web pages may open a WebSocket to the relay (issue #27), or post
//! to its API.
//!
//! A browser lets any page open a socket to any address, or post a form
//! or a `fetch` to it, and names the page's origin in the request's
//! `Origin` header, which the page cannot change: without a check, every
//! site its visitors open could spend their browsers' sockets on the
//! relay (and its rooms' seats), or their addresses' budget of saves
//! ([`crate::Limits::saves`]). The relay accepts a socket, and a `POST`
//! (any method but `GET`, `HEAD` and `OPTIONS`) to `/api/…`
//! ([`api_posts`]), when its `Origin` is
//!
//! - its own: the origin of `--public-url` when it has one; without one,
//!   the origin the request was sent to (its `Host`, which the browser
//!   sets from the address it connects to — `scripts/run.sh` on
//!   127.0.0.1:8080, nginx passing `$http_host`);
//! - or listed in `--allowed-origin` (`*` allows any);
//!
//! and refuses any other with 403 (the API's: `{"error"}` naming the
//! origin, counted as the save counters' `result="origin"`). A request
//! without `Origin` comes from
//! no browser page (a test, a load generator, another relay passing a
//! player on) and is let through: only browsers send the header, and
//! anything else could send any value. `Origin: null` (a sandboxed frame,
//! a `file:` page) is refused unless `*` is allowed. Origins compare as
//! browsers write them (RFC 6454): scheme and host in lower case, the
//! scheme's default port left out.

use crate::api::bad;
use crate::metrics::Save;
use crate::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The route of a scenario's save (its refusals are counted in
/// `relay_scenario_saves_total`).
pub(crate) const SCENARIOS_ROUTE: &str = "/api/scenarios";
/// The route of a room recording's save (`relay_room_recording_saves_total`).
pub(crate) const ROOM_RECORDING_ROUTE: &str = "/api/rooms/{name}/recording";

/// The origins allowed besides the relay's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedOrigins {
    /// `*`: any origin.
    any: bool,
    /// Normalized `scheme://host[:port]`.
    listed: Vec<String>,
}

/// An `--allowed-origin` entry that is not `scheme://host[:port]`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an origin: write http://host[:port] or https://host[:port] (no path), or *")]
pub struct BadOrigin(String);

impl AllowedOrigins {
    /// These origins and `more`'s (one list from each use of
    /// `--allowed-origin`).
    pub fn merge(mut self, more: AllowedOrigins) -> AllowedOrigins {
        self.any |= more.any;
        for origin in more.listed {
            if !self.listed.contains(&origin) {
                self.listed.push(origin);
            }
        }
        self
    }

    /// A comma-separated list of origins, `*` for any, empty for none.
    ///
    /// # Errors
    /// [`BadOrigin`] naming the first entry that is not an origin.
    pub fn parse(s: &str) -> Result<AllowedOrigins, BadOrigin> {
        let mut allowed = AllowedOrigins::default();
        for entry in s.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if entry == "*" {
                allowed.any = true;
            } else {
                let origin = normalize(entry).ok_or_else(|| BadOrigin(entry.to_owned()))?;
                allowed.listed.push(origin);
            }
        }
        Ok(allowed)
    }
}

/// `scheme://host[:port]` in lower case without the scheme's default
/// port, if `s` is an http(s) origin (a path is not allowed).
fn normalize(s: &str) -> Option<String> {
    let lower = s.trim().to_ascii_lowercase();
    let (scheme, authority) = lower.split_once("://")?;
    let default_port = match scheme {
        "http" => ":80",
        "https" => ":443",
        _ => return None,
    };
    let ok = !authority.is_empty()
        && !authority.contains(['/', '?', '#', '@'])
        && !authority.contains(char::is_whitespace);
    ok.then(|| {
        let host = authority.strip_suffix(default_port).unwrap_or(authority);
        format!("{scheme}://{host}")
    })
}

/// The origin of a public URL (`https://play.example.org/np` →
/// `https://play.example.org`).
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split('/').next()?;
    normalize(&format!("{scheme}://{authority}"))
}

/// A request's `Origin` that is neither the relay's own nor allowed: the
/// header's value as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Foreign(pub(crate) String);

/// Checks a request's `Origin` against the relay's own origin
/// (`public_url`, else `host`) and `allowed`.
///
/// # Errors
/// [`Foreign`]: answer 403.
pub(crate) fn check(
    origin: Option<&HeaderValue>,
    host: Option<&HeaderValue>,
    public_url: Option<&str>,
    allowed: &AllowedOrigins,
) -> Result<(), Foreign> {
    let Some(origin) = origin else {
        return Ok(());
    };
    if allowed.any {
        return Ok(());
    }
    let refused = || {
        Err(Foreign(
            String::from_utf8_lossy(origin.as_bytes()).into_owned(),
        ))
    };
    let Some(given) = origin.to_str().ok().and_then(normalize) else {
        return refused();
    };
    let own = match public_url {
        Some(url) => origin_of(url),
        None => {
            let scheme = given.split("://").next().unwrap_or("http");
            host.and_then(|h| h.to_str().ok())
                .and_then(|h| normalize(&format!("{scheme}://{h}")))
        }
    };
    if own.as_deref() == Some(given.as_str()) || allowed.listed.contains(&given) {
        Ok(())
    } else {
        refused()
    }
}

/// A layer on the API's routes: a request that may change something
/// (not `GET`, `HEAD` or `OPTIONS`) from a page of another site
/// ([`check`]) is answered 403 `{"error"}` naming its origin before its
/// route runs (so before its body is read and its save charged), and
/// counted as a save refused for its `origin`.
pub(crate) async fn api_posts(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let method = req.method();
    if method.is_safe() || !req.uri().path().starts_with("/api/") {
        return next.run(req).await;
    }
    let deployment = &state.inner.deployment;
    let Err(Foreign(origin)) = check(
        req.headers().get(header::ORIGIN),
        req.headers().get(header::HOST),
        deployment.public_url.as_deref(),
        &deployment.allowed_origins,
    ) else {
        return next.run(req).await;
    };
    let metrics = &state.inner.metrics;
    match req
        .extensions()
        .get::<MatchedPath>()
        .map(MatchedPath::as_str)
    {
        Some(SCENARIOS_ROUTE) => metrics.save(Save::Origin),
        Some(ROOM_RECORDING_ROUTE) => metrics.room_save(Save::Origin),
        _ => {}
    }
    tracing::info!(%origin, path = req.uri().path(), "API request from another site refused");
    bad(
        StatusCode::FORBIDDEN,
        format!(
            "pages from {origin} may not {method} to this relay's API (its own origin and \
             --allowed-origin only)"
        ),
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hv(s: &str) -> HeaderValue {
        HeaderValue::from_str(s).unwrap()
    }

    fn ok(origin: &str, host: &str, public: Option<&str>, allowed: &str) -> bool {
        let allowed = AllowedOrigins::parse(allowed).unwrap();
        check(Some(&hv(origin)), Some(&hv(host)), public, &allowed).is_ok()
    }

    #[test]
    fn the_page_from_the_relay_itself_is_let_in_and_any_other_site_is_not() {
        assert!(ok("http://127.0.0.1:8080", "127.0.0.1:8080", None, ""));
        assert!(ok(
            "HTTP://Play.Example.org:80",
            "play.example.org",
            None,
            ""
        ));
        assert!(ok(
            "https://play.example.org",
            "play.example.org:443",
            None,
            ""
        ));
        assert!(!ok("https://evil.example", "127.0.0.1:8080", None, ""));
        assert!(!ok("http://127.0.0.1:8081", "127.0.0.1:8080", None, ""));
        assert!(!ok("null", "127.0.0.1:8080", None, ""));
        // With a public URL, it alone is the relay's own origin.
        let public = Some("https://play.example.org/np");
        assert!(ok("https://play.example.org", "10.0.0.5:8081", public, ""));
        assert!(!ok("http://10.0.0.5:8081", "10.0.0.5:8081", public, ""));
    }

    #[test]
    fn allow_listed_origins_and_the_wildcard_are_let_in() {
        let list = "https://teach.example.edu, http://localhost:3000";
        assert!(ok("https://teach.example.edu", "x", None, list));
        assert!(ok("http://LOCALHOST:3000", "x", None, list));
        assert!(!ok("http://localhost:3001", "x", None, list));
        assert!(ok("https://evil.example", "x", None, "*"));
        assert!(ok("null", "x", None, "*"));
        let none = AllowedOrigins::default();
        assert!(
            check(None, None, None, &none).is_ok(),
            "no Origin: no browser page"
        );
        let foreign = check(Some(&hv("https://evil.example")), None, None, &none).unwrap_err();
        assert_eq!(foreign, Foreign("https://evil.example".into()));
    }

    #[test]
    fn entries_that_are_not_origins_are_refused() {
        for bad in [
            "evil.example",
            "ftp://x",
            "https://x/path",
            "https://",
            "https://u@x",
        ] {
            assert_eq!(
                AllowedOrigins::parse(bad),
                Err(BadOrigin(bad.to_owned())),
                "{bad}"
            );
        }
        assert_eq!(AllowedOrigins::parse(""), Ok(AllowedOrigins::default()));
    }
}
