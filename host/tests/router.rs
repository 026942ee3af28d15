//! In-process tests of the router (`fn app(state) -> Router`) with the real congress-trades plugin library:
//! the request path without a process boundary, rate-limit window rollover driven by an injected clock, and the
//! listener's direct way to the dataset routes (`Api`) answering as the router does.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use datahost::config::Config;
use datahost::engine::Engine;
use datahost::keys::{generate, FileKeyStore, KeyRing, KeySource};
use datahost::plugins::load_all;
use datahost::ratelimit::{Limiter, LocalLimiter, ManualClock, WINDOW_MS};
use datahost::{app, Api, AppState};
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
    /// What the listener serves: the same router with the direct way to the dataset routes.
    api: Api,
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
    Harness { router: app(state.clone()), api: Api::new(state), clock, free_key, _dir: dir, _keys: keys_dir }
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

/// A plugin library goes on serving after the thread that opened it ends, on threads started later, one of which
/// the system gives the ended thread's stack and thread-local block (so its thread id). A plugin that carries state
/// per thread of its own can break here: plugins built with their own copy of mimalloc 3, which takes the first
/// thread that allocates in it for its main thread and frees that thread's data when it ends, crashed the process
/// in the next thread that looked like it (BENCHMARKS.md, "Plugins on mimalloc: tried, not landed").
#[test]
fn a_plugin_library_serves_threads_started_after_the_one_that_opened_it_ended() {
    for round in 0..4 {
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async {
                let h = harness().await;
                let (status, _, body) = get(&h.router, "/v1/congress-trades?limit=1", Some(&h.free_key)).await;
                assert_eq!(status, StatusCode::OK, "round {round}: {body}");
            });
        })
        .join()
        .unwrap();
    }
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

/// Every request a client may send to a dataset route gets the same answer from the listener's direct way
/// (`Api::serve`) as from the router: status, headers and body, apart from the date, a server-made request id and
/// the rate limit's remaining count (each request counts once). `Content-Length` is checked against the body
/// rather than compared: the router writes it into every response, and without it hyper writes the same from the
/// body (and none on a 304).
#[tokio::test]
async fn the_direct_way_answers_as_the_router() {
    let h = harness().await;
    let peer: std::net::SocketAddr = "192.0.2.7:50000".parse().unwrap();
    let key = h.free_key.as_str();
    let keyed = |uri: &str| Request::get(uri).header("host", "localhost").header("x-api-key", key);
    let etag = {
        let (_, headers, _) = get(&h.router, "/v1/congress-trades?ticker=nvda", Some(key)).await;
        headers["etag"].to_str().unwrap().to_string()
    };
    let long = format!("/v1/congress-trades?ticker={}", "a".repeat(9000));
    let cases: Vec<(&str, axum::http::request::Builder)> = vec![
        ("fresh answer, first asked by the direct way", keyed("/v1/congress-trades?ticker=msft&limit=2")),
        ("cached answer", keyed("/v1/congress-trades?ticker=nvda")),
        ("a next page's Link", keyed("/v1/congress-trades?limit=1")),
        ("gzip negotiated", keyed("/v1/congress-trades?limit=200").header("accept-encoding", "gzip")),
        ("304 on If-None-Match", keyed("/v1/congress-trades?ticker=nvda").header("if-none-match", etag.as_str())),
        ("the caller's request id", keyed("/v1/congress-trades?ticker=nvda").header("x-request-id", "abc-123")),
        (
            "key in the query",
            Request::get(format!("/v1/congress-trades?ticker=nvda&api_key={key}")).header("host", "x"),
        ),
        ("no key", Request::get("/v1/congress-trades?ticker=nvda").header("host", "localhost")),
        ("unknown key", Request::get("/v1/congress-trades").header("host", "x").header("x-api-key", "dh_nope")),
        ("two keys that differ", keyed("/v1/congress-trades").header("authorization", "Bearer dh_other")),
        ("repeated parameter", keyed("/v1/congress-trades?ticker=a&ticker=b")),
        ("unknown parameter", keyed("/v1/congress-trades?tickr=nvda")),
        ("no Host header", Request::get("/v1/congress-trades").header("x-api-key", key)),
        ("request target too long", keyed(&long)),
        ("HEAD (the router on both ways)", keyed("/v1/congress-trades?ticker=nvda").method("HEAD")),
    ];
    let ignored = ["date", "x-ratelimit-remaining"];
    for (case, builder) in cases {
        let direct_request = clone_request(&builder);
        let mut router_request = builder.body(Body::empty()).unwrap();
        router_request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
        // The direct way first: a fresh answer is made by it and then served from the cache to the router.
        let direct = h.api.clone().serve(direct_request, peer).await;
        let routed = h.router.clone().oneshot(router_request).await.unwrap();
        assert_eq!(direct.status(), routed.status(), "{case}");
        let (direct_head, direct_body) = split(direct).await;
        let (routed_head, routed_body) = split(routed).await;
        let caller_id = case == "the caller's request id";
        // A HEAD answer's Content-Length is the GET body's: compared as any header.
        let head_request = case.starts_with("HEAD");
        let names: std::collections::BTreeSet<&str> =
            direct_head.keys().chain(routed_head.keys()).map(|n| n.as_str()).collect();
        for name in names {
            let framing = name == "content-length" && !head_request;
            if ignored.contains(&name) || framing || (name == "x-request-id" && !caller_id) {
                continue;
            }
            let a: Vec<_> = direct_head.get_all(name).iter().collect();
            let b: Vec<_> = routed_head.get_all(name).iter().collect();
            assert_eq!(a, b, "{case}: {name}");
        }
        for (way, head, body) in [("direct", &direct_head, &direct_body), ("router", &routed_head, &routed_body)] {
            if let Some(length) = head.get("content-length").filter(|_| !head_request) {
                assert_eq!(length.to_str().unwrap(), body.len().to_string(), "{case}: {way}");
            }
        }
        assert!(direct_head.contains_key("x-request-id"), "{case}");
        if caller_id {
            assert_eq!(direct_head["x-request-id"], "abc-123");
        }
        // A server-made request id is quoted in error bodies too.
        let comparable = |head: &axum::http::HeaderMap, body: &[u8]| {
            let text = String::from_utf8_lossy(body).into_owned();
            match head.get("x-request-id").and_then(|id| id.to_str().ok()) {
                Some(id) if !caller_id => text.replace(id, "<request id>"),
                _ => text,
            }
        };
        assert_eq!(comparable(&direct_head, &direct_body), comparable(&routed_head, &routed_body), "{case}");
        if let (Some(a), Some(b)) = (direct_head.get("x-ratelimit-remaining"), routed_head.get("x-ratelimit-remaining"))
        {
            let (a, b): (u64, u64) = (a.to_str().unwrap().parse().unwrap(), b.to_str().unwrap().parse().unwrap());
            assert_eq!(a, b + 1, "{case}: each way counted once");
        }
    }
}

fn clone_request(builder: &axum::http::request::Builder) -> Request<Body> {
    let mut out = Request::builder()
        .method(builder.method_ref().unwrap().clone())
        .uri(builder.uri_ref().unwrap().clone())
        .version(*builder.version_ref().unwrap());
    for (name, value) in builder.headers_ref().unwrap() {
        out = out.header(name, value);
    }
    out.body(Body::empty()).unwrap()
}

async fn split(resp: axum::response::Response) -> (axum::http::HeaderMap, axum::body::Bytes) {
    let (parts, body) = resp.into_parts();
    (parts.headers, body.collect().await.unwrap().to_bytes())
}
