//! The scenario API through the router (no socket): saves, loads, share
//! links, and every rejection with its status and reason — on each store
//! backend (`<case>::sqlite`, and `<case>::postgres` with `--ignored`) —
//! and the budget of saves per address and the storage cap (issue #27).

mod common;

use common::backend::Backend;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, Request, StatusCode};
use relay_server::store::ItemKind;
use relay_server::{app, AppState, Limits};
use sim::protocol::{Setting, Setup};
use sim::scenario::{codec, SCENARIO_VERSION};
use sim::{Bot, Scenario, ScenarioRun, SmoothingMode};
use std::net::{IpAddr, SocketAddr};
use tower::ServiceExt;

fn recorded(secs: usize) -> Scenario {
    let mut run = ScenarioRun::record("api test", 9, Setup::default());
    let mut bot = Bot::new();
    for i in 0..secs * 60 {
        if i == 30 {
            run.change(Setting::Smoothing(SmoothingMode::Linear));
        }
        let (dir, dash) = bot.input(run.endpoint().position(), 1.0 / 60.0);
        run.step_live(1.0 / 60.0, dir, dash, false);
    }
    run.stop_recording();
    run.scenario().clone()
}

async fn send(state: &AppState, req: Request<Body>) -> (StatusCode, Vec<u8>) {
    let (status, _, body) = answer(state, req).await;
    (status, body)
}

/// Status, `Retry-After` (s) and body.
async fn answer(state: &AppState, req: Request<Body>) -> (StatusCode, Option<u64>, Vec<u8>) {
    let res = app(state.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    let retry_after = res
        .headers()
        .get(header::RETRY_AFTER)
        .map(|v| v.to_str().unwrap().parse().unwrap());
    let body = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, retry_after, body.to_vec())
}

/// A save from 127.0.0.1.
fn post(content_type: &str, body: impl Into<Body>) -> Request<Body> {
    post_from(IpAddr::from([127, 0, 0, 1]), content_type, body)
}

/// A save from `client` (as the server's connect info names it).
fn post_from(client: IpAddr, content_type: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post("/api/scenarios")
        .header(header::CONTENT_TYPE, content_type)
        .extension(ConnectInfo(SocketAddr::new(client, 40_000)))
        .body(body.into())
        .unwrap()
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap()
}

fn get(uri: &str, accept: &str) -> Request<Body> {
    Request::get(uri)
        .header(header::ACCEPT, accept)
        .body(Body::empty())
        .unwrap()
}

on_both_stores!(
    save_load_and_run_twice_give_the_same_hash,
    json_scenarios_are_accepted_and_stored_compactly,
    bad_saves_get_the_right_status_and_store_nothing,
    share_links_serve_the_page_and_404_unknown_ids,
    share_links_are_absolute_under_a_public_url,
);

async fn save_load_and_run_twice_give_the_same_hash(backend: &Backend) {
    let state = backend.state("/nonexistent").await;
    let scenario = recorded(5);
    let (status, body) = send(
        &state,
        post("application/octet-stream", codec::encode(&scenario)),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let created = json(&body);
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 12);
    assert_eq!(created["url"], format!("/s/{id}"));
    assert_eq!(created["frames"], 300);

    // Compact bytes back, byte for byte.
    let (status, bytes) = send(
        &state,
        get(&format!("/api/scenarios/{id}"), "application/octet-stream"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bytes, codec::encode(&scenario));
    // JSON back, equal to what was saved.
    let (status, body) = send(
        &state,
        get(&format!("/api/scenarios/{id}"), "application/json"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let loaded: Scenario = serde_json::from_slice(&body).unwrap();
    assert_eq!(loaded, scenario);

    // Two headless runs of the loaded scenario: identical to each other
    // and to the recording.
    let a = ScenarioRun::run_to_end(loaded.clone());
    let b = ScenarioRun::run_to_end(loaded);
    assert_eq!(a, b);
    assert_eq!(Some(a), scenario.outcome);
}

/// A file of the frozen corpus of old links (`scenarios/frozen/`).
fn frozen(name: &str) -> Vec<u8> {
    golden(&format!("frozen/{name}"))
}

on_both_stores!(scenarios_of_every_version_are_read_and_upgraded);

async fn scenarios_of_every_version_are_read_and_upgraded(backend: &Backend) {
    let state = backend.state("/nonexistent").await;
    // Rows an older relay stored stay as they were saved: the bytes come
    // back as stored, the JSON upgraded to this build's version.
    let files = ["v1a.bin", "v1b.bin", "v2.bin", "v3.bin", "v4.bin"];
    for name in files {
        let bytes = frozen(name);
        let id = state
            .store()
            .insert(ItemKind::Scenario, name, &bytes, 1200, 0)
            .await
            .unwrap()
            .id;
        let (status, got) = send(
            &state,
            get(&format!("/api/scenarios/{id}"), "application/octet-stream"),
        )
        .await;
        assert_eq!((status, got), (StatusCode::OK, bytes.clone()), "{name}");
        let (status, body) = send(
            &state,
            get(&format!("/api/scenarios/{id}"), "application/json"),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{name}");
        let served: Scenario = serde_json::from_slice(&body).unwrap();
        assert_eq!(served.version, SCENARIO_VERSION, "{name}");
        assert_eq!(served, codec::decode(&bytes).unwrap(), "{name}");
    }
    // A link the model has not changed for (version 1's second layout, a
    // CMC run) replays identically: saved again, it is stored in this
    // build's version with the replay's checkpoints.
    let (status, body) = send(&state, post("application/json", frozen("v1b.json"))).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let id = json(&body)["id"].as_str().unwrap().to_owned();
    let (_, body) = send(
        &state,
        get(&format!("/api/scenarios/{id}"), "application/json"),
    )
    .await;
    let resaved: Scenario = serde_json::from_slice(&body).unwrap();
    let o = resaved.outcome.unwrap();
    assert_eq!(o.trajectory_hash, 0x4e2f_c6b2_ace3_2e43);
    assert_eq!(o.checkpoints.len(), 40, "20 s: one every 0.5 s");
    // A version-1 link of the first layout was recorded with the model
    // before its faults were fixed, a version-2 one before the rollback
    // time sync learned the clock's rate: the replay's verdict says so.
    for name in ["v1a.bin", "v2.bin"] {
        let (status, body) = send(&state, post("application/octet-stream", frozen(name))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}");
        let error = json(&body)["error"].as_str().unwrap().to_owned();
        assert!(
            error.starts_with(
                "the recorded outcome does not match a replay of the scenario: recorded with an \
                 older model; this replay differs from the original (a scenario saved before \
                 version 3 keeps no checkpoints, so from when is not known)"
            ),
            "{name}: {error}"
        );
    }
    // Every frozen file as stored, and the version-2 link saved again.
    assert_eq!(state.store().count().await.unwrap(), files.len() as u64 + 1);
}

async fn json_scenarios_are_accepted_and_stored_compactly(backend: &Backend) {
    let state = backend.state("/nonexistent").await;
    let mut scenario = recorded(2);
    let recorded_outcome = scenario.outcome.take();
    let text = serde_json::to_vec(&scenario).unwrap();
    let (status, body) = send(
        &state,
        post("application/json; charset=utf-8", text.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let created = json(&body);
    let stored = created["bytes"].as_u64().unwrap() as usize;
    assert!(
        stored * 5 < text.len(),
        "{stored} B stored for {} B of JSON",
        text.len()
    );
    // Written without an outcome: the relay's replay filled it in.
    let id = created["id"].as_str().unwrap();
    let (_, body) = send(
        &state,
        get(&format!("/api/scenarios/{id}"), "application/json"),
    )
    .await;
    let loaded: Scenario = serde_json::from_slice(&body).unwrap();
    assert_eq!(loaded.outcome, recorded_outcome);
}

async fn bad_saves_get_the_right_status_and_store_nothing(backend: &Backend) {
    let state = backend.state("/nonexistent").await;
    let good = recorded(1);
    let mut wrong_version = good.clone();
    wrong_version.version = 7;
    let mut out_of_range = good.clone();
    out_of_range.setup.net.downlink.latency_ms = 60_000;
    let mut long_name = good.clone();
    long_name.name = "n".repeat(500);
    let mut tampered = good.clone();
    tampered.outcome.as_mut().unwrap().trajectory_hash ^= 1;
    let mut bad_format = codec::encode(&good);
    bad_format[0] = 2;
    let o = good.outcome.clone().unwrap();
    // Every checkpoint agrees (one a second): the difference is after the
    // last one.
    let mismatch = format!(
        "the recorded outcome does not match a replay of the scenario: recorded with an older model; this replay differs from the original from 1 s (recorded trajectory {:016x} / state {:016x} / {} adjustments, replayed {:016x} / {:016x} / {}); save it without its outcome to keep the run as it replays now",
        o.trajectory_hash ^ 1, o.state_hash, o.adjustments, o.trajectory_hash, o.state_hash, o.adjustments
    );
    let newer = format!(
        "this scenario is version 7, made by a newer version of the playground; this build reads versions 1 to {SCENARIO_VERSION}: open it with the relay or page that made it"
    );
    let cases: Vec<(Request<Body>, StatusCode, &str)> = vec![
        (post("application/octet-stream", vec![0u8; 3 << 20]), StatusCode::PAYLOAD_TOO_LARGE, "body is over the limit of 2097152 bytes"),
        (post("application/octet-stream", codec::encode(&wrong_version)), StatusCode::UNPROCESSABLE_ENTITY, &newer),
        (post("application/json", serde_json::to_vec(&wrong_version).unwrap()), StatusCode::UNPROCESSABLE_ENTITY, &newer),
        (post("application/octet-stream", codec::encode(&out_of_range)), StatusCode::UNPROCESSABLE_ENTITY, "invalid scenario: setup: net: downlink.latency_ms = 60000 is outside 0–1000"),
        (post("application/json", serde_json::to_vec(&long_name).unwrap()), StatusCode::UNPROCESSABLE_ENTITY, "invalid scenario: name: too long"),
        (post("application/octet-stream", bad_format), StatusCode::BAD_REQUEST, "unknown scenario format 2 (this build reads format 1)"),
        (
            post("application/octet-stream", codec::encode(&tampered)),
            StatusCode::UNPROCESSABLE_ENTITY,
            &mismatch,
        ),
        (post("application/octet-stream", Vec::new()), StatusCode::BAD_REQUEST, "empty scenario"),
        (post("application/json", "{\"version\":1}"), StatusCode::BAD_REQUEST, "scenario JSON: missing field `name` at line 1 column 13"),
        (post("text/plain", "hello"), StatusCode::UNSUPPORTED_MEDIA_TYPE, "content type \"text/plain\" is not accepted: send application/octet-stream (compact scenario) or application/json"),
    ];
    for (req, status, reason) in cases {
        let (got, body) = send(&state, req).await;
        assert_eq!(
            (got, json(&body)["error"].as_str().unwrap()),
            (status, reason)
        );
    }
    let (status, body) = send(&state, get("/api/scenarios/AAAAAAAAAAAA", "*/*")).await;
    assert_eq!(
        (status, json(&body)["error"].as_str().unwrap()),
        (StatusCode::NOT_FOUND, "no scenario with id AAAAAAAAAAAA")
    );
    let (status, _) = send(&state, get("/api/scenarios/..%2F..%2Fetc", "*/*")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Nothing was stored by any of the rejected saves.
    assert_eq!(state.store().count().await.unwrap(), 0);
    let (status, _) = send(
        &state,
        post("application/octet-stream", codec::encode(&good)),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
}

async fn share_links_serve_the_page_and_404_unknown_ids(backend: &Backend) {
    let dist =
        std::env::temp_dir().join(format!("np-dist-{}-{}", std::process::id(), backend.name()));
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<head><title>page</title>").unwrap();
    let state = backend.state(&dist).await;
    let (_, body) = send(
        &state,
        post("application/octet-stream", codec::encode(&recorded(1))),
    )
    .await;
    let id = json(&body)["id"].as_str().unwrap().to_owned();
    let (status, page) = send(&state, get(&format!("/s/{id}"), "text/html")).await;
    assert_eq!(
        (status, page.as_slice()),
        (StatusCode::OK, &b"<head><title>page</title>"[..])
    );
    let (status, page) = send(&state, get("/s/ZZZZZZZZZZZZ", "text/html")).await;
    assert_eq!(
        (status, page.as_slice()),
        (StatusCode::NOT_FOUND, &b"<head><title>page</title>"[..])
    );
    std::fs::remove_dir_all(dist).unwrap();
}

async fn share_links_are_absolute_under_a_public_url(backend: &Backend) {
    let state = backend
        .state("/nonexistent")
        .await
        .with_deployment(relay_server::Deployment {
            public_url: Some("https://play.example.org".into()),
            ..relay_server::Deployment::default()
        });
    let (status, body) = send(
        &state,
        post("application/octet-stream", codec::encode(&recorded(1))),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let created = json(&body);
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["url"], format!("https://play.example.org/s/{id}"));
    assert_eq!(
        created["api"],
        format!("https://play.example.org/api/scenarios/{id}")
    );
}

/// A golden scenario file as `GET /api/scenarios/{id}` would serve it.
fn golden(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(name);
    std::fs::read(path).unwrap()
}

on_both_stores!(rollback_scenarios_are_replayed_on_save_like_cmc_ones);

async fn rollback_scenarios_are_replayed_on_save_like_cmc_ones(backend: &Backend) {
    let state = backend.state("/nonexistent").await;
    for name in [
        "rollback-tick-wrap.json",
        "rollback-bot-150ms-5pct.json",
        "switch-cmc-rollback-cmc.json",
    ] {
        let (status, body) = send(&state, post("application/json", golden(name))).await;
        assert_eq!(
            status,
            StatusCode::CREATED,
            "{name}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    // A rollback recording whose outcome was edited does not replay to it.
    let mut s = codec::open_json(&golden("rollback-tick-wrap.json"))
        .unwrap()
        .scenario;
    s.outcome.as_mut().unwrap().replayed_moves += 1;
    let (status, body) = send(
        &state,
        post("application/json", serde_json::to_vec(&s).unwrap()),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        json(&body)["error"]
            .as_str()
            .unwrap()
            .starts_with("the recorded outcome does not match a replay"),
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert_eq!(state.store().count().await.unwrap(), 3);
}

on_both_stores!(a_save_past_the_storage_cap_is_refused_with_507_and_stores_nothing);

/// `scenario` named `name`: another item to the store (the same bytes
/// are stored once).
fn named(scenario: &Scenario, name: &str) -> Vec<u8> {
    let mut renamed = scenario.clone();
    renamed.name = name.to_owned();
    codec::encode(&renamed)
}

async fn a_save_past_the_storage_cap_is_refused_with_507_and_stores_nothing(backend: &Backend) {
    let one = recorded(1);
    let scenario = named(&one, "cap 0");
    let size = scenario.len() as u64;
    let cap = 2 * size + size / 2;
    let limits = Limits {
        max_store_bytes: cap,
        ..Limits::default()
    };
    let state = backend.state_with_limits("/nonexistent", limits).await;
    for name in ["cap 0", "cap 1"] {
        let (status, body) =
            send(&state, post("application/octet-stream", named(&one, name))).await;
        assert_eq!(
            status,
            StatusCode::CREATED,
            "{}",
            String::from_utf8_lossy(&body)
        );
    }
    let (status, body) = send(
        &state,
        post("application/octet-stream", named(&one, "cap 2")),
    )
    .await;
    assert_eq!(status, StatusCode::INSUFFICIENT_STORAGE);
    assert_eq!(
        json(&body)["error"],
        format!(
            "the scenario store is full: its scenarios take {} bytes, and this one ({size} bytes) \
             would pass the cap of {cap} bytes",
            2 * size
        )
    );
    assert_eq!(state.store().count().await.unwrap(), 2);
    // A stored one is still found, full or not.
    let (status, body) = send(&state, post("application/octet-stream", scenario)).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
}

/// Issue #27: "200 saves in 2 s from one address: 429s after the bucket
/// empties; other addresses unaffected".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_saves_in_2_s_from_one_address_get_429_once_its_budget_is_spent() {
    let state = AppState::new("/nonexistent", 1);
    // 200 different scenarios (the same one would be found stored).
    let scenario = recorded(1);
    let scenarios: Vec<Vec<u8>> = (0..203)
        .map(|i| named(&scenario, &format!("save {i:03}")))
        .collect();
    let one = IpAddr::from([198, 51, 100, 7]);
    let budget = Limits::default().saves;
    let start = tokio::time::Instant::now();
    let mut created = 0;
    let mut retry_afters = Vec::new();
    for i in 0..200u32 {
        tokio::time::sleep_until(start + std::time::Duration::from_millis(u64::from(i) * 10)).await;
        let req = post_from(
            one,
            "application/octet-stream",
            scenarios[i as usize].clone(),
        );
        let (status, retry_after, body) = answer(&state, req).await;
        match status {
            StatusCode::CREATED => created += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                let reason = json(&body)["error"].as_str().unwrap().to_owned();
                let secs = retry_after.expect("a Retry-After");
                assert_eq!(
                    reason,
                    format!(
                        "too many saves from this address (10 at once, then one every 6 s): \
                         try again in {secs} s"
                    )
                );
                retry_afters.push(secs);
            }
            other => panic!("save {i}: {other} {}", String::from_utf8_lossy(&body)),
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "200 saves in {elapsed:.2} s from one address: {created} created, {} refused",
        retry_afters.len()
    );
    // The burst, and what refilled meanwhile (nothing within 6 s).
    let refilled = (elapsed * budget.per_second) as usize;
    assert_eq!(created, budget.burst as usize + refilled);
    assert_eq!(retry_afters.len(), 200 - created);
    assert!(
        retry_afters.iter().all(|s| (1..=6).contains(s)),
        "{retry_afters:?}"
    );
    // Others are unaffected.
    for last in 1..=3u8 {
        let other = IpAddr::from([203, 0, 113, last]);
        let (status, _) = send(
            &state,
            post_from(
                other,
                "application/octet-stream",
                scenarios[199 + usize::from(last)].clone(),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (_, metrics) = send(&state, get("/metrics", "*/*")).await;
    let metrics = String::from_utf8(metrics).unwrap();
    assert!(
        metrics.contains(&format!(
            "relay_scenario_saves_total{{result=\"rate_limited\"}} {}",
            200 - created
        )),
        "{metrics}"
    );
}

/// A request `method path` from 127.0.0.1, no body.
fn request(method: &str, path: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .extension(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 40_000))))
        .body(Body::empty())
        .unwrap()
}

/// The operator's trial: a wrong method and an over-long URI answered
/// with an empty body, unlike every other refusal of the API.
#[tokio::test]
async fn a_wrong_method_and_an_over_long_uri_get_the_apis_json_error() {
    let state = AppState::new("/nonexistent", 1);
    for (method, path, allowed) in [
        ("PUT", "/api/scenarios", "POST"),
        ("GET", "/api/scenarios", "POST"),
        ("DELETE", "/api/room-recordings/AAAAAAAAAAAA", "GET, HEAD"),
        ("POST", "/api/scenarios/AAAAAAAAAAAA", "GET, HEAD"),
        ("PATCH", "/api/rooms/lobby/recording", "GET, HEAD, POST"),
        ("POST", "/healthz", "GET, HEAD"),
    ] {
        let res = app(state.clone())
            .oneshot(request(method, path))
            .await
            .unwrap();
        assert_eq!(
            res.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        let allow = res.headers()[header::ALLOW].to_str().unwrap().to_owned();
        assert_eq!(allow.replace(',', ", "), allowed, "{method} {path}");
        assert_eq!(
            res.headers()[header::CONTENT_TYPE],
            "application/json",
            "{method} {path}"
        );
        let body = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(
            json(&body),
            serde_json::json!({
                "error": format!("method {method} is not allowed on {path} (allowed: {allowed})")
            })
        );
    }

    // 8 KiB of target is the limit, on every path.
    let long = |len: usize, prefix: &str| format!("{prefix}{}", "a".repeat(len - prefix.len()));
    for path in [
        long(8193, "/api/scenarios/"),
        long(8193, "/api/rooms?x="),
        long(20_000, "/"),
    ] {
        let (status, body) = send(&state, request("GET", &path)).await;
        assert_eq!(status, StatusCode::URI_TOO_LONG);
        assert_eq!(
            json(&body)["error"],
            format!(
                "the request URI is {} bytes, over the limit of 8192 bytes",
                path.len()
            )
        );
    }
    let (status, body) = send(&state, request("GET", &long(8192, "/api/scenarios/"))).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "at the limit: the route answers"
    );
    assert_eq!(
        json(&body)["error"],
        "a scenario id is 12 characters of A–Z, a–z, 0–9, - and _"
    );
}
