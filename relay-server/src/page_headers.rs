//! Security headers on every response (issue #7 "the page sets a
//! Content-Security-Policy"): `Content-Security-Policy` and
//! `X-Content-Type-Options: nosniff`.
//!
//! The policy allows exactly what the built page needs:
//! - `script-src 'self'` for `gl.js` and the wasm-bindgen glue, plus one
//!   `'sha256-…'` per inline `<script>` of `dist/index.html` (the page's
//!   own two and the module script Trunk writes, whose text names the
//!   hashed file names and so changes with every build — hence hashes
//!   computed from the file, not pinned here);
//! - `'wasm-unsafe-eval'` to instantiate WebAssembly (CSP Level 3), and
//!   nothing that allows `eval` of JavaScript;
//! - `connect-src 'self'`: the same-origin WebSocket and `fetch`;
//! - `img-src 'self' data:` for the inline SVG favicon;
//! - `base-uri 'self'`: the page's `<base href="/">` (share links `/s/{id}`
//!   resolve the page's URLs from the root) and nothing foreign;
//! - no plugins, no framing.
//!
//! The hashes are recomputed when `index.html`'s modification time changes,
//! so a rebuilt page works without restarting the relay.

use axum::http::HeaderValue;
use base64::Engine;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// The policy for the page in one dist folder.
#[derive(Debug)]
pub(crate) struct Csp {
    index: PathBuf,
    cached: Mutex<Option<(SystemTime, HeaderValue)>>,
}

impl Csp {
    /// The policy for `dist/index.html`.
    pub(crate) fn new(dist: &std::path::Path) -> Csp {
        Csp {
            index: dist.join("index.html"),
            cached: Mutex::new(None),
        }
    }

    /// The header value for the page as it is on disk now (no inline
    /// script allowed if there is no page).
    pub(crate) fn header(&self) -> HeaderValue {
        let modified = std::fs::metadata(&self.index)
            .and_then(|m| m.modified())
            .ok();
        let mut cached = self.cached.lock().unwrap_or_else(PoisonError::into_inner);
        if let (Some(m), Some((at, value))) = (modified, cached.as_ref()) {
            if *at == m {
                return value.clone();
            }
        }
        let html = std::fs::read_to_string(&self.index).unwrap_or_default();
        let value = HeaderValue::from_str(&policy(&html))
            .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'"));
        if let Some(m) = modified {
            *cached = Some((m, value.clone()));
        }
        value
    }
}

/// The policy text for a page whose HTML is `html`.
fn policy(html: &str) -> String {
    let hashes: String = inline_scripts(html)
        .map(|body| {
            let digest = Sha256::digest(body.as_bytes());
            format!(
                " 'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        })
        .collect();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{hashes}; \
         style-src 'self'; img-src 'self' data:; connect-src 'self'; \
         object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// The text of every `<script>` without a `src` attribute, exactly as the
/// browser hashes it (between the tags).
fn inline_scripts(html: &str) -> impl Iterator<Item = &str> {
    let mut rest = html;
    std::iter::from_fn(move || loop {
        let open = rest.find("<script")?;
        let after = &rest[open..];
        let tag_end = after.find('>')?;
        let tag = &after[..tag_end];
        let body_and_more = &after[tag_end + 1..];
        let close = body_and_more.find("</script>")?;
        let body = &body_and_more[..close];
        rest = &body_and_more[close..];
        if !tag.contains(" src=") {
            return Some(body);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_scripts_are_hashed_and_external_ones_are_not() {
        let html = "<script>a()</script>\n<script src=\"gl.js\"></script><script type=\"module\">\nb()\n</script>";
        let bodies: Vec<&str> = inline_scripts(html).collect();
        assert_eq!(bodies, vec!["a()", "\nb()\n"]);
        let p = policy(html);
        // sha256("a()"), base64: checked with `printf 'a()' | openssl dgst -sha256 -binary | base64`.
        assert!(
            p.contains("'sha256-qVpDBgj7bpq5hMAcGp3AOc79J3Y1Z4HvySTwKrWDoy4='"),
            "{p}"
        );
        assert_eq!(p.matches("'sha256-").count(), 2);
        assert!(p.contains("'wasm-unsafe-eval'") && !p.contains("'unsafe-eval'"));
        assert!(!p.contains("'unsafe-inline'"));
    }
}
