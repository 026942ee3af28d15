//! In-process tests of the router (`fn app(state) -> Router`) with the real congress-trades plugin library:
//! the request path without a process boundary, and rate-limit window rollover driven by an injected clock.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use datahost::config::Config;
use datahost::engine::Engine;
use datahost::keys::{generate, FileKeyStore, KeyRing, KeySource};
use datahost::plugins::load_all;
use datahost::ratelimit::{Limiter, LocalLimiter, ManualClock, WINDOW_MS};
use datahost::{app, AppState};
use datahost_plugin_api::Tier;
use http_body_util::BodyExt;
use tower::ServiceExt;

fn plugin_dir() -> tempfile::TempDir {
    let target = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf();
    let lib: PathBuf = target.join("libdatahost_congress_trades.so");
    assert!(lib.exists(), "{} is missing: run `cargo build --workspace` first", lib.display());
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&lib, dir.path().join("libdatahost_congress_trades.so")).unwrap();
    dir
}

struct Harness {
    router: axum::Router,
    clock: Arc<ManualClock>,
    free_key: String,
    _dir: tempfile::TempDir,
    _keys: tempfile::TempDir,
}

async fn harness() -> Harness {
    let config = Arc::new(Config::load(None).expect("default config"));
    let engine = Arc::new(Engine::embedded());
    let dir = plugin_dir();
    let registry =
        Arc::new(load_all(dir.path(), &engine, &[], &Default::default(), &config.plugin_policies().unwrap()).unwrap());
    assert_eq!(registry.plugins.len(), 1, "{:?}", registry.failures);
    let keys_dir = tempfile::tempdir().unwrap();
    let store = FileKeyStore::new(keys_dir.path().join("keys.json"));
    let (free_key, record) = generate(Tier::Free, "router test");
    store.insert(record).unwrap();
    let keys = Arc::new(KeyRing::new(KeySource::File(store)));
    keys.refresh_if_due(std::time::Duration::ZERO).await.unwrap();
    let clock = Arc::new(ManualClock::default());
    clock.set(1_000 * WINDOW_MS + 30_000);
    let limiter = Arc::new(Limiter::Local(LocalLimiter::new(clock.clone())));
    let state = Arc::new(AppState::new(config, registry, engine, keys, limiter));
    Harness { router: app(state), clock, free_key, _dir: dir, _keys: keys_dir }
}

async fn get(
    router: &axum::Router,
    uri: &str,
    key: Option<&str>,
) -> (StatusCode, axum::http::HeaderMap, serde_json::Value) {
    // A real HTTP/1.1 client always sends Host (the host answers 400 without it).
    let mut req = Request::get(uri).header("host", "localhost");
    if let Some(k) = key {
        req = req.header("x-api-key", k);
    }
    let resp = router.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, headers, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null))
}

#[tokio::test]
async fn serves_plugin_routes_in_process() {
    let h = harness().await;
    let (status, headers, body) = get(&h.router, "/v1/congress-trades?ticker=msft&limit=2", Some(&h.free_key)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/json");
    assert!(body["count"].as_u64().unwrap() <= 2);
    assert!(headers.contains_key("x-request-id"));
    let (status, _, health) = get(&h.router, "/health", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["datasets"], serde_json::json!(["congress-trades"]));
}

#[tokio::test]
async fn window_rolls_over_at_the_utc_minute() {
    let h = harness().await;
    let uri = "/v1/congress-trades?limit=1";
    for expected in (0..60).rev() {
        let (status, headers, _) = get(&h.router, uri, Some(&h.free_key)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["x-ratelimit-remaining"], expected.to_string().as_str());
    }
    let (status, headers, body) = get(&h.router, uri, Some(&h.free_key)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers["retry-after"], "30");
    assert_eq!(body["retryAfterSec"], 30);
    // 29.5 s later the window still holds; Retry-After rounds up, never to 0.
    h.clock.set(h.clock.0.load(std::sync::atomic::Ordering::SeqCst) + 29_500);
    let (status, headers, _) = get(&h.router, uri, Some(&h.free_key)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers["retry-after"], "1");
    // The next UTC minute starts a fresh window.
    h.clock.set(h.clock.0.load(std::sync::atomic::Ordering::SeqCst) + 500);
    let (status, headers, _) = get(&h.router, uri, Some(&h.free_key)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["x-ratelimit-remaining"], "59");
    assert_eq!(headers["x-ratelimit-reset"], "60");
}

#[tokio::test]
async fn protocol_limits_answer_with_the_json_envelope() {
    let h = harness().await;
    let send = |req: axum::http::request::Builder| {
        let router = h.router.clone();
        async move {
            let resp = router.oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
            let status = resp.status();
            let bytes = resp.into_body().collect().await.unwrap().to_bytes();
            (status, serde_json::from_slice::<serde_json::Value>(&bytes).unwrap_or(serde_json::Value::Null))
        }
    };
    // HTTP/1.1 without Host: 400 (RFC 9112, section 3.2); HTTP/1.0 needs none.
    let (status, body) = send(Request::get("/health")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["error"].as_str().unwrap().contains("Host header"), "{body}");
    assert_eq!(body["code"], 400);
    let (status, _) = send(Request::get("/health").version(axum::http::Version::HTTP_10)).await;
    assert_eq!(status, StatusCode::OK);
    // A request target over server.max_request_target_bytes (8192): 414 naming the sizes.
    let long = format!("/health?pad={}", "a".repeat(9000));
    let (status, body) = send(Request::get(long.as_str()).header("host", "x")).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    assert!(body["error"].as_str().unwrap().contains("9012 bytes long; at most 8192"), "{body}");
    assert!(body["docs"].as_str().unwrap().ends_with("#uri-too-long"), "{body}");
    // Headers over server.max_header_bytes (16384): 431.
    let mut req = Request::get("/health").header("host", "x");
    for i in 0..20 {
        req = req.header(format!("x-pad-{i}"), "b".repeat(1000));
    }
    let (status, body) = send(req).await;
    assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert!(body["error"].as_str().unwrap().contains("at most 16384"), "{body}");
    assert!(body["docs"].as_str().unwrap().ends_with("#headers-too-large"), "{body}");
}
