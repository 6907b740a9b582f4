//! The built page from the dist folder (issue #28 item 5: "serve it and the
//! other static files precompressed … with long cache headers on hashed
//! names").
//!
//! - **Precompressed**: `scripts/build-web.sh` writes `NAME.br` (brotli -Z)
//!   and `NAME.gz` (gzip -9) beside each `.wasm`, `.js`, `.html` and
//!   `.css`; a request whose `Accept-Encoding` takes `br` (or `gzip`) gets
//!   that file with `Content-Encoding` set, others the plain file
//!   (tower-http's `ServeDir`, brotli preferred). A dist without them, as
//!   `trunk build` alone leaves it, is served plain. Every answer carries
//!   `Vary: Accept-Encoding`.
//! - **Cache**: a name Trunk hashed ([`is_hashed`]: the wasm, its glue) is
//!   `public, max-age=31536000, immutable` (a year: a new build has a new
//!   name); every other file (`index.html`, `gl.js`, share pages'
//!   fall-back) is `no-cache`: kept, but revalidated with its
//!   `Last-Modified` on each load, so a rebuilt page is seen at once. A
//!   hashed name that is missing (answered with `index.html`) is not kept.
//! - Unknown paths get `index.html` (the page routes itself); `ServeDir`
//!   refuses paths that leave the folder.

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use std::path::Path;
use tower_http::services::{ServeDir, ServeFile};

/// `Cache-Control` of a hashed file: one year, never revalidated.
const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// `Cache-Control` of every other file: revalidate on each use.
const REVALIDATE: HeaderValue = HeaderValue::from_static("no-cache");

/// The service for every path the router does not route: the files of
/// `dist`, precompressed variants chosen by `Accept-Encoding`, cache
/// headers by name.
pub(crate) fn service(dist: &Path) -> Router {
    let index = ServeFile::new(dist.join("index.html"))
        .precompressed_br()
        .precompressed_gzip();
    let files = ServeDir::new(dist)
        .precompressed_br()
        .precompressed_gzip()
        .not_found_service(index);
    Router::new()
        .fallback_service(files)
        .layer(middleware::from_fn(cache_headers))
}

async fn cache_headers(req: Request, next: Next) -> Response {
    let hashed = is_hashed(req.uri().path());
    let mut res = next.run(req).await;
    // A hashed name that is not there gets the index fall-back: never
    // kept for a year under that name.
    let found = res.status().is_success()
        && !res
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/html"));
    let headers = res.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        if hashed && found {
            IMMUTABLE
        } else {
            REVALIDATE
        },
    );
    headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
    res
}

/// `true` if the last segment of `path` is a name Trunk gave a hash:
/// `STEM-HEX.EXT` or `STEM-HEX_bg.EXT`, HEX being 8 to 16 lowercase hex
/// digits (Trunk's 64-bit hash in `{:x}`, so leading zeros dropped), e.g.
/// `web-client-8c1f0e2d3b4a5968_bg.wasm`.
pub(crate) fn is_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, _ext)) = name.split_once('.') else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    let Some((_, hex)) = stem.rsplit_once('-') else {
        return false;
    };
    (8..=16).contains(&hex.len())
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::is_hashed;

    #[test]
    fn trunk_names_are_hashed_and_the_others_are_not() {
        assert!(is_hashed("/web-client-8c1f0e2d3b4a5968_bg.wasm"));
        assert!(is_hashed("/web-client-8c1f0e2d3b4a5968.js"));
        assert!(is_hashed("/style-1f0e2d3b4a59.css"));
        for plain in [
            "/",
            "/index.html",
            "/gl.js",
            "/s/abc",
            "/web-client.js",
            "/web-client-8C1F0E2D3B4A5968.js",
            "/web-client-8c1f0e2.js",
            "/web-client-8c1f0e2d3b4a59681.js",
            "/net-code-playground.js",
        ] {
            assert!(!is_hashed(plain), "{plain}");
        }
    }
}
