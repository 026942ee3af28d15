//! Black-box tests of `/v1/edgar-search` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};
use serde_json::Value;

fn hits(body: &Value) -> &Vec<Value> {
    body["hits"].as_array().expect("hits array")
}

#[test]
fn search_shape_relevance_and_counts() {
    let server = Server::start();
    let (status, body) = server.get("/v1/edgar-search?q=%22goodwill%20impairment%22&limit=5");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["query"], "\"goodwill impairment\"");
    let total = body["total"].as_u64().unwrap();
    assert!(total > 5, "the seed has many goodwill impairments: {body}");
    assert_eq!(body["count"], 5);
    let scores: Vec<f64> = hits(&body).iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    for h in hits(&body) {
        for field in ["form", "entity", "cik", "accession", "url", "filedDate"] {
            assert!(h[field].is_string(), "{field} in {h}");
        }
        assert!(h["snippet"].as_str().unwrap().to_lowercase().contains("goodwill impairment"), "{h}");
    }
}

#[test]
fn filters_and_limit_clamp() {
    let server = Server::start();
    let (_, all) = server.get("/v1/edgar-search?q=report&limit=1000");
    assert_eq!(all["count"], 100, "limit is clamped at 100");
    assert!(all["total"].as_u64().unwrap() > 100);
    let (_, filtered) =
        server.get("/v1/edgar-search?q=report&forms=10-k,DEF%2014A&from=2024-01-01&to=2024-12-31&limit=100");
    assert!(filtered["total"].as_u64().unwrap() < all["total"].as_u64().unwrap());
    for h in hits(&filtered) {
        assert!(h["form"] == "10-K" || h["form"] == "DEF 14A", "{h}");
        let d = h["filedDate"].as_str().unwrap();
        assert!(("2024-01-01"..="2024-12-31").contains(&d), "{h}");
    }
}

#[test]
fn bad_requests_are_400_envelopes() {
    let server = Server::start();
    let (status, body) = server.get("/v1/edgar-search");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the q query parameter is required");
    for bad in ["q=(supply", "q=x&limit=0", "q=x&from=2024-02-30", "q=x&from=2025-01-02&to=2025-01-01", "q=x&forms=,"] {
        let (status, body) = server.get(&format!("/v1/edgar-search?{bad}"));
        assert_envelope(status, &body, 400);
    }
}
