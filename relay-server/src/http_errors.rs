//! The answers no route gives — a method a route does not take (405) and
//! a URI over [`MAX_URI_BYTES`] (414) — in the API's shape,
//! `{"error": "<reason>"}` ([`crate::api::ApiError`]), once for every
//! path ([`json_errors`], a layer over the whole router).
//!
//! | answer | when | reason |
//! |---|---|---|
//! | 405 + `Allow` | a route asked with a method it does not take (`PUT /api/scenarios`) | `"method PUT is not allowed on /api/scenarios (allowed: POST)"` |
//! | 414 | the request target (path and query) is over [`MAX_URI_BYTES`] | `"the request URI is 9000 bytes, over the limit of 8192 bytes"` |
//! | 404 | a path under `/api/` no route takes (`/api/match-recordings/`, no id), which the page's files would answer with HTML | `"no API route GET /api/match-recordings/"` |
//! | 400 | an extractor's plain-text refusal under `/api/` (a path segment that is not UTF-8) | its text: ``"Invalid URL: Invalid UTF-8 in `id`"`` |
//!
//! hyper refuses a URI over 65 534 bytes itself, before any route, with
//! an empty 414 (and a request head over its ~400 KiB buffer with an
//! empty 431), and closes the connection: [`ParseErrors`], around each
//! connection's socket (`crate::listen`), writes those two answers in the
//! same shape instead.

use crate::api::bad;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Longest request target (path and query), bytes: nginx's default
/// request-line buffer (`large_client_header_buffers 4 8k`), so a relay
/// reached directly and one behind nginx refuse the same URIs. The
/// longest the relay's own routes need is a room name (64 characters)
/// and its `?room=` repeated.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// Longest plain-text refusal carried over as a JSON reason, bytes (an
/// extractor's one line).
const MAX_REASON_BYTES: usize = 1024;

/// The reason of a 414 for a target of `len` bytes.
pub(crate) fn uri_too_long(len: usize) -> String {
    format!("the request URI is {len} bytes, over the limit of {MAX_URI_BYTES} bytes")
}

/// Refuses a target over [`MAX_URI_BYTES`] with 414, gives a 405 from
/// the router (empty, with `Allow`) its JSON reason, keeping `Allow`, and
/// any other refusal under `/api/` that is not JSON the API's shape.
pub(crate) async fn json_errors(req: Request, next: Next) -> Response {
    let len = req
        .uri()
        .path_and_query()
        .map_or(req.uri().path().len(), |pq| pq.as_str().len());
    if len > MAX_URI_BYTES {
        return bad(StatusCode::URI_TOO_LONG, uri_too_long(len)).into_response();
    }
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let response = next.run(req).await;
    if is_json(&response) {
        return response;
    }
    let status = response.status();
    if path.starts_with("/api/")
        && status.is_client_error()
        && status != StatusCode::METHOD_NOT_ALLOWED
    {
        let reason = if status == StatusCode::NOT_FOUND {
            format!("no API route {method} {path}")
        } else {
            let text = axum::body::to_bytes(response.into_body(), MAX_REASON_BYTES).await;
            text.map_or_else(
                |_| status.to_string(),
                |b| String::from_utf8_lossy(&b).trim().to_owned(),
            )
        };
        return bad(status, reason).into_response();
    }
    if status != StatusCode::METHOD_NOT_ALLOWED {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let allowed = parts
        .headers
        .get(header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .map(|a| a.split(',').map(str::trim).collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let reason = format!("method {method} is not allowed on {path} (allowed: {allowed})");
    let json = bad(StatusCode::METHOD_NOT_ALLOWED, reason).into_response();
    let (json_parts, body) = json.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        json_parts
            .headers
            .get(header::CONTENT_TYPE)
            .cloned()
            .unwrap_or(HeaderValue::from_static("application/json")),
    );
    Response::from_parts(parts, Body::new(body))
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
}

/// The status line of `head` and the reason to give, if `head` starts
/// like one of the heads hyper writes on its own when a request head does
/// not parse (`on_error` in hyper's `proto/h1/role.rs`: no body, the
/// connection closed after).
fn parse_error(head: &[u8]) -> Option<(&'static [u8], String)> {
    const URI: &[u8] = b"HTTP/1.1 414 URI Too Long\r\n";
    const HEAD: &[u8] = b"HTTP/1.1 431 Request Header Fields Too Large\r\n";
    if head.starts_with(URI) {
        Some((
            URI,
            format!("the request URI is over the limit of {MAX_URI_BYTES} bytes"),
        ))
    } else if head.starts_with(HEAD) {
        Some((
            HEAD,
            "the request head is too large (the relay reads at most ~400 KiB of it)".to_owned(),
        ))
    } else {
        None
    }
}

/// A connection's socket, writing hyper's own empty 414 and 431 (see
/// the module docs) as `{"error"}` answers, with `X-Relay-Instance`;
/// everything else passes as it is.
#[derive(Debug)]
pub(crate) struct ParseErrors<T> {
    io: T,
    /// `X-Relay-Instance`.
    instance: String,
    /// The answer being written in place of hyper's head, and how much of
    /// it is written.
    writing: Option<(Vec<u8>, usize)>,
}

impl<T> ParseErrors<T> {
    pub(crate) fn new(io: T, instance: String) -> ParseErrors<T> {
        ParseErrors {
            io,
            instance,
            writing: None,
        }
    }

    /// The answer to write instead of `head`, if it is one of hyper's
    /// empty parse-error answers.
    fn replacement(&self, head: &[u8]) -> Option<Vec<u8>> {
        let (status_line, reason) = parse_error(head)?;
        let empty = head.ends_with(b"\r\n\r\n")
            && head
                .windows(b"\r\ncontent-length: 0\r\n".len())
                .any(|w| w.eq_ignore_ascii_case(b"\r\ncontent-length: 0\r\n"));
        if !empty {
            return None;
        }
        let body = serde_json::json!({ "error": reason }).to_string();
        let mut out = status_line.to_vec();
        out.extend_from_slice(
            format!(
                "content-type: application/json\r\nx-content-type-options: nosniff\r\n\
                 {}: {}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
                crate::INSTANCE_HEADER,
                self.instance,
                body.len()
            )
            .as_bytes(),
        );
        Some(out)
    }
}

impl<T: AsyncWrite + Unpin> ParseErrors<T> {
    /// Writes `buf`, or its replacement: `buf` counts as written once
    /// all of the replacement is.
    fn write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.writing.is_none() {
            match self.replacement(buf) {
                Some(answer) => self.writing = Some((answer, 0)),
                None => return Pin::new(&mut self.io).poll_write(cx, buf),
            }
        }
        while let Some((answer, done)) = self.writing.as_mut() {
            if *done == answer.len() {
                self.writing = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &answer[*done..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *done += n;
        }
        Poll::Ready(Ok(buf.len()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ParseErrors<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ParseErrors<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        // hyper writes a parse error's head alone: one slice.
        match bufs.iter().find(|b| !b.is_empty()) {
            Some(first) if self.writing.is_some() || self.replacement(first).is_some() => {
                self.write(cx, first)
            }
            _ => Pin::new(&mut self.io).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
