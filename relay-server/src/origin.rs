//! Which web pages may open a WebSocket to the relay (issue #27).
//!
//! A browser lets any page open a socket to any address and names the
//! page's origin in the upgrade's `Origin` header, which the page cannot
//! change: without a check, every site its visitors open could spend
//! their browsers' sockets on the relay (and its rooms' seats). The relay
//! accepts a socket when its `Origin` is
//!
//! - its own: the origin of `--public-url` when it has one; without one,
//!   the origin the request was sent to (its `Host`, which the browser
//!   sets from the address it connects to — `scripts/run.sh` on
//!   127.0.0.1:8080, nginx passing `$http_host`);
//! - or listed in `--allowed-origin` (`*` allows any);
//!
//! and refuses any other with 403. A request without `Origin` comes from
//! no browser page (a test, a load generator, another relay passing a
//! player on) and is let through: only browsers send the header, and
//! anything else could send any value. `Origin: null` (a sandboxed frame,
//! a `file:` page) is refused unless `*` is allowed. Origins compare as
//! browsers write them (RFC 6454): scheme and host in lower case, the
//! scheme's default port left out.

use axum::http::HeaderValue;

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

/// Checks a `/ws` upgrade's `Origin` against the relay's own origin
/// (`public_url`, else `host`) and `allowed`.
///
/// # Errors
/// The reason to answer with 403.
pub(crate) fn check(
    origin: Option<&HeaderValue>,
    host: Option<&HeaderValue>,
    public_url: Option<&str>,
    allowed: &AllowedOrigins,
) -> Result<(), String> {
    let Some(origin) = origin else {
        return Ok(());
    };
    if allowed.any {
        return Ok(());
    }
    let refused = || {
        Err(format!(
            "pages from {} may not open sockets to this relay (its own origin and --allowed-origin only)",
            String::from_utf8_lossy(origin.as_bytes())
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
        let reason = check(Some(&hv("https://evil.example")), None, None, &none).unwrap_err();
        assert!(
            reason.starts_with("pages from https://evil.example may not"),
            "{reason}"
        );
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
