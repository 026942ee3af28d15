//! Rate limiting through the real binary: the exact remaining sequence, the 429 body and headers, and exact
//! counts under concurrency. Window rollover is tested in-process with an injected clock (host unit tests).

use datahost_tests::{assert_envelope, wait_for_window_with, Server};

const ROUTE: &str = "/v1/congress-trades?limit=1";

#[test]
fn free_tier_counts_down_then_429() {
    let server = Server::start();
    let key = server.issue_key("free");
    wait_for_window_with(30);
    for expected_remaining in (0..60).rev() {
        let resp = server.request(ROUTE, &[("X-API-Key", &key)]);
        assert_eq!(resp.status().as_u16(), 200);
        assert_eq!(resp.headers()["x-ratelimit-limit"], "60");
        assert_eq!(resp.headers()["x-ratelimit-remaining"], expected_remaining.to_string().as_str());
    }
    let resp = server.request(ROUTE, &[("X-API-Key", &key)]);
    assert_eq!(resp.status().as_u16(), 429);
    let h = resp.headers().clone();
    assert_eq!(h["x-ratelimit-limit"], "60");
    assert_eq!(h["x-ratelimit-remaining"], "0");
    let retry: u64 = h["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    let body: serde_json::Value = resp.json().unwrap();
    assert_envelope(429, &body, 429);
    assert_eq!(body["retryAfterSec"], retry);
    let msg = body["error"].as_str().unwrap();
    assert!(msg.contains("60") && msg.contains("free"), "429 names the limit and tier: {msg}");
    // Other keys are unaffected; the owner tier is unlimited and carries no rate-limit headers.
    let other = server.issue_key("free");
    assert_eq!(server.get_with(ROUTE, &[("X-API-Key", &other)]).0, 200);
    // The new key was found by reloading the key view; the spent key's window did not start again with it.
    let spent = server.request(ROUTE, &[("X-API-Key", &key)]);
    assert_eq!(spent.status().as_u16(), 429);
    assert_eq!(spent.headers()["x-ratelimit-remaining"], "0");
    let owner = server.request(ROUTE, &[("X-API-Key", &server.owner_key)]);
    assert_eq!(owner.status().as_u16(), 200);
    assert!(owner.headers().get("x-ratelimit-limit").is_none());
}

#[test]
fn concurrent_requests_get_exactly_the_limit() {
    let server = std::sync::Arc::new(Server::start());
    let key = server.issue_key("free");
    wait_for_window_with(30);
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let s = server.clone();
            let k = key.clone();
            std::thread::spawn(move || {
                (0..15).map(|_| s.request(ROUTE, &[("X-API-Key", &k)]).status().as_u16()).collect::<Vec<_>>()
            })
        })
        .collect();
    let statuses: Vec<u16> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    assert_eq!(statuses.len(), 120);
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 60);
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 60);
}
