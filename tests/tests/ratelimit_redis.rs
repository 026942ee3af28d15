//! Shared rate limits in Redis through the real binary: two replicas on one Redis (127.0.0.1:6379, a random
//! key prefix per test), Redis at a dead port (fail open and fail closed), and recovery with a private
//! redis-server the test starts and kills.

use std::sync::Arc;

use datahost_tests::private::PrivateRedis;
use datahost_tests::{assert_envelope, free_port, until, wait_for_window_with, Server, ServerOptions};

const ROUTE: &str = "/v1/congress-trades?limit=1";

fn prefix() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("dhtest:{}:{}", std::process::id(), nanos)
}

fn redis_toml(url: &str, prefix: &str, extra: &str) -> String {
    format!("[ratelimit]\nredis_url = \"{url}\"\nredis_prefix = \"{prefix}\"\n{extra}\n")
}

/// For tests that assert every request's decision: a Redis answer later than the default 250 ms (a loaded
/// machine) would let the request through without a decision (fail open) and without rate-limit headers.
const PATIENT: &str = "redis_timeout_ms = 5000";

fn replica(toml: &str, keys_file: Option<std::path::PathBuf>) -> Server {
    Server::start_with(ServerOptions { extra_toml: toml.to_string(), keys_file, ..Default::default() })
}

#[test]
fn two_replicas_share_one_window() {
    let toml = redis_toml("redis://127.0.0.1:6379", &prefix(), PATIENT);
    let a = replica(&toml, None);
    let b = replica(&toml, Some(a.keys_file.clone()));
    let key = a.issue_key("free");
    wait_for_window_with(30);
    // Alternating replicas count down one shared window, with the same headers as a single process.
    for (i, expected) in (0..60).rev().enumerate() {
        let server = if i % 2 == 0 { &a } else { &b };
        let resp = server.request(ROUTE, &[("X-API-Key", &key)]);
        assert_eq!(resp.status().as_u16(), 200);
        assert_eq!(resp.headers()["x-ratelimit-limit"], "60");
        assert_eq!(resp.headers()["x-ratelimit-remaining"], expected.to_string().as_str());
    }
    let resp = b.request(ROUTE, &[("X-API-Key", &key)]);
    assert_eq!(resp.status().as_u16(), 429);
    let retry = resp.headers()["retry-after"].to_str().unwrap().to_string();
    let body: serde_json::Value = resp.json().unwrap();
    assert_envelope(429, &body, 429);
    assert_eq!(body["retryAfterSec"].to_string(), retry);
    let (_, health) = a.get_with("/health", &[]);
    assert_eq!(health["rateLimiter"], "redis");
}

#[test]
fn concurrent_load_on_two_replicas_gives_exactly_the_limit() {
    let toml = redis_toml("redis://127.0.0.1:6379", &prefix(), PATIENT);
    let a = Arc::new(replica(&toml, None));
    let b = Arc::new(replica(&toml, Some(a.keys_file.clone())));
    let key = a.issue_key("free");
    wait_for_window_with(30);
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let s = if i % 2 == 0 { a.clone() } else { b.clone() };
            let k = key.clone();
            std::thread::spawn(move || {
                (0..20).map(|_| s.request(ROUTE, &[("X-API-Key", &k)]).status().as_u16()).collect::<Vec<_>>()
            })
        })
        .collect();
    let statuses: Vec<u16> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    assert_eq!(statuses.len(), 160);
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 60);
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 100);
}

/// The counter a test's prefix holds for its one key and window.
fn redis_counter(prefix: &str) -> u64 {
    let mut conn = redis::Client::open("redis://127.0.0.1:6379").unwrap().get_connection().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{prefix}:*")).query(&mut conn).unwrap();
    assert_eq!(keys.len(), 1, "one key, one window: {keys:?}");
    redis::cmd("GET").arg(&keys[0]).query(&mut conn).unwrap()
}

#[test]
fn a_pro_key_is_counted_from_leases_and_gets_exactly_its_limit_on_two_replicas() {
    // The lease sizes below hold while the key stays busy on the replica, each request within 250 ms of the one
    // before (`lease::BUSY_WITHIN_MS`); a loaded machine that holds this test up longer between two requests makes
    // the replica ask Redis for one count instead (as it should). Such a run is begun again on new replicas, a
    // new prefix and a new key, at most three times; the counts are checked exactly in a run without a pause.
    for attempt in 1..=3 {
        let prefix = prefix();
        let toml = redis_toml("redis://127.0.0.1:6379", &prefix, PATIENT);
        let a = replica(&toml, None);
        let b = replica(&toml, Some(a.keys_file.clone()));
        let key = a.issue_key("pro");
        wait_for_window_with(40);
        let remaining = |server: &Server| {
            let resp = server.request(ROUTE, &[("X-API-Key", &key)]);
            let remaining = resp.headers()["x-ratelimit-remaining"].to_str().unwrap().parse::<u64>().unwrap();
            (resp.status().as_u16(), remaining)
        };
        // One replica counts its own requests down exactly: the first asks Redis for its own count, then (the key
        // busy) the replica asks for 18 at a time (what is left / 64).
        let mut longest = std::time::Duration::ZERO;
        let mut previous_start: Option<std::time::Instant> = None;
        for expected in (1_160..1_200).rev() {
            let start = std::time::Instant::now();
            assert_eq!(remaining(&a), (200, expected));
            // The replica saw the two requests at most this far apart.
            if let Some(previous) = previous_start {
                longest = longest.max(previous.elapsed());
            }
            previous_start = Some(start);
        }
        if longest >= std::time::Duration::from_millis(250) && attempt < 3 {
            eprintln!("attempt {attempt}: two requests up to {longest:?} apart; the key was not busy, begun again");
            continue;
        }
        let counted = redis_counter(&prefix);
        assert_eq!(counted, 1 + 3 * 18, "40 requests, one count and three leases ({longest:?} apart at most)");
        both_replicas_until_both_refuse(&a, &b, &remaining);
        return;
    }
}

/// Both replicas in turn until both refuse: every count is used once and the key gets exactly its 1,200 (the 40
/// counted on the first replica before included).
fn both_replicas_until_both_refuse(a: &Server, b: &Server, remaining: &dyn Fn(&Server) -> (u16, u64)) {
    let mut allowed: Vec<u64> = (1_160..1_200).collect();
    let mut refused = [false, false];
    let mut turn = 0;
    while refused != [true, true] {
        let (status, remaining) = remaining(if turn % 2 == 0 { a } else { b });
        match status {
            200 => allowed.push(remaining),
            429 => refused[turn % 2] = true,
            other => panic!("status {other}"),
        }
        turn += 1;
        assert!(turn < 1_400, "both replicas refuse once the 1,200 are used");
    }
    allowed.sort_unstable();
    assert_eq!(allowed, (0..1_200).collect::<Vec<_>>());
}

#[test]
fn dead_redis_fails_open_by_default_and_closed_when_configured() {
    let port = free_port();
    let open = replica(&redis_toml(&format!("redis://127.0.0.1:{port}"), &prefix(), ""), None);
    let key = open.issue_key("free");
    // Each request is answered (the client's hang guard would catch a stall) and counted as failing open.
    for _ in 0..5 {
        let resp = open.request(ROUTE, &[("X-API-Key", &key)]);
        assert_eq!(resp.status().as_u16(), 200, "fail open lets requests through");
    }
    assert!(open.metrics_text().contains("datahost_ratelimit_decisions_total{tier=\"free\",decision=\"fail_open\"} 5"));
    open.wait_for_output("rate limiter unavailable; failing open");
    assert_eq!(open.get_with("/health", &[]).1["rateLimiter"], "redis (unreachable)");

    let closed = replica(&redis_toml(&format!("redis://127.0.0.1:{port}"), &prefix(), "fail_mode = \"closed\""), None);
    let key = closed.issue_key("free");
    let (status, body) = closed.get_with(ROUTE, &[("X-API-Key", &key)]);
    assert_envelope(status, &body, 503);
    assert!(body["error"].as_str().unwrap().contains("rate limiter is unavailable"));
    // The owner tier is unlimited and never asks Redis.
    assert_eq!(closed.get(ROUTE).0, 200);
}

#[test]
fn limiting_recovers_by_itself_when_redis_returns() {
    let port = free_port();
    let redis = PrivateRedis::start(port);
    let server = replica(&redis_toml(&format!("redis://127.0.0.1:{}", redis.port), &prefix(), PATIENT), None);
    let key = server.issue_key("free");
    let remaining = |s: &Server| {
        s.request(ROUTE, &[("X-API-Key", &key)])
            .headers()
            .get("x-ratelimit-remaining")
            .map(|v| v.to_str().unwrap().to_string())
    };
    assert!(remaining(&server).is_some());
    assert_eq!(server.metric("datahost_ratelimit_store_up"), Some(1.0));
    drop(redis);
    // Down: fail open, no rate-limit headers, no stall.
    for _ in 0..3 {
        assert_eq!(remaining(&server), None);
    }
    assert_eq!(server.metric("datahost_ratelimit_store_up"), Some(0.0));
    let _back = PrivateRedis::start(port);
    // The limiter retries the store on requests (at most once a second); limiting resumes by itself.
    until("limiting resumes after Redis returned", || remaining(&server).is_some());
    server.wait_for_output("rate-limit store reachable again");
    assert_eq!(server.get_with("/health", &[]).1["rateLimiter"], "redis");
    assert_eq!(server.metric("datahost_ratelimit_store_up"), Some(1.0));
}
