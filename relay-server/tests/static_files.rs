//! The page's files (issue #28 item 5): the precompressed variant the
//! request's `Accept-Encoding` takes, brotli before gzip, the plain file
//! otherwise; a year's immutable cache on Trunk's hashed names and
//! `no-cache` on the others.

mod common;

use common::Served;
use relay_server::AppState;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const WASM: &str = "/web-client-8c1f0e2d3b4a5968_bg.wasm";

/// One GET with `accept` as its `Accept-Encoding` (none if empty): the
/// lower-cased header block and the body bytes.
async fn get(addr: std::net::SocketAddr, path: &str, accept: &str) -> (String, Vec<u8>) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let accept = if accept.is_empty() {
        String::new()
    } else {
        format!("Accept-Encoding: {accept}\r\n")
    };
    let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\n{accept}Connection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let split = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&out[..split]).to_ascii_lowercase();
    (head, out[split + 4..].to_vec())
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(str::trim)
}

#[tokio::test]
async fn precompressed_variants_follow_accept_encoding_and_hashed_names_are_immutable() {
    let dist = std::env::temp_dir().join(format!("relay-static-{}", std::process::id()));
    std::fs::create_dir_all(&dist).unwrap();
    let file = |name: &str, body: &[u8]| std::fs::write(dist.join(name), body).unwrap();
    let name = &WASM[1..];
    file(name, b"PLAIN-WASM");
    file(&format!("{name}.br"), b"BROTLI-WASM");
    file(&format!("{name}.gz"), b"GZIP-WASM");
    file("index.html", b"<html>PAGE</html>");
    file("index.html.gz", b"GZIP-PAGE");
    file("gl.js", b"GL");
    let relay = Served::start(AppState::new(&dist, 1)).await;

    for (accept, body, encoding) in [
        ("br, gzip, deflate", &b"BROTLI-WASM"[..], Some("br")),
        ("gzip", b"GZIP-WASM", Some("gzip")),
        ("gzip;q=1.0, br;q=0.5", b"GZIP-WASM", Some("gzip")),
        ("", b"PLAIN-WASM", None),
        ("identity", b"PLAIN-WASM", None),
    ] {
        let (head, got) = get(relay.addr, WASM, accept).await;
        assert!(head.starts_with("http/1.1 200"), "{accept}: {head}");
        assert_eq!(got, body, "{accept}");
        assert_eq!(header(&head, "content-encoding"), encoding, "{accept}");
        assert_eq!(header(&head, "content-type"), Some("application/wasm"));
        assert_eq!(
            header(&head, "cache-control"),
            Some("public, max-age=31536000, immutable")
        );
        assert_eq!(header(&head, "vary"), Some("accept-encoding"));
    }

    // Unhashed names are revalidated; a file without a brotli variant
    // falls back to its gzip one, one without either to itself.
    let (head, got) = get(relay.addr, "/", "br, gzip").await;
    assert_eq!(
        (got.as_slice(), header(&head, "content-encoding")),
        (&b"GZIP-PAGE"[..], Some("gzip"))
    );
    assert_eq!(header(&head, "cache-control"), Some("no-cache"));
    let (head, got) = get(relay.addr, "/gl.js", "br, gzip").await;
    assert_eq!(
        (got.as_slice(), header(&head, "content-encoding")),
        (&b"GL"[..], None)
    );
    assert_eq!(header(&head, "cache-control"), Some("no-cache"));
    // A path the page routes itself gets index.html, never cached for a year.
    let (head, got) = get(relay.addr, "/room/abc", "").await;
    assert_eq!(got, b"<html>PAGE</html>");
    assert_eq!(header(&head, "cache-control"), Some("no-cache"));
    // A hashed name that is not there is not cached either.
    let (head, _) = get(relay.addr, "/web-client-0123456789abcdef.js", "").await;
    assert_eq!(header(&head, "cache-control"), Some("no-cache"), "{head}");
    let _ = std::fs::remove_dir_all(&dist);
}
