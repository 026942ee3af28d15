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

mod engine {
    //! PostgreSQL mode: the same tantivy engine over the same filings (the demo seed here; ingested filings are
    //! indexed per replica from the shared records, see `ingest_public.rs`), so every answer is the embedded
    //! one: hits, their order, scores and snippets, totals and 400s, and the whole query syntax.

    use datahost_tests::pg::TestDb;
    use datahost_tests::{Server, ServerOptions};

    const QUERIES: &[&str] = &[
        "q=report",
        "q=Report&forms=10-K,DEF%2014A&from=2024-01-01&to=2024-12-31",
        "q=%22goodwill%20impairment%22",
        "q=goodwill%20impairment",
        "q=impairments&forms=8-K",
        "q=%22supply%20chain%22%20tariffs",
        "q=supply-chain&forms=10-K,10-Q",
        "q=%22supply%20chain%22%20-tariffs&forms=10-Q",
        "q=cybersecurity%20OR%20ransomware&from=2025-01-01",
        "q=%22goodwill%20impairment%22%20OR%20%22material%20weakness%22",
        "q=(supply%20OR%20demand)%20AND%20chain&forms=8-K",
        "q=%2Brevenue%20-decline&forms=10-Q",
        "q=-revenue",
        "q=revenue%20-revenue",
        "q=entity:orchard",
        "q=entity:%22granite%20ledger%22",
        "q=text:orchard&forms=4",
        "q=form:8-K&from=2024-06-01&to=2024-09-30",
        "q=cik:0009990001",
        "q=*&forms=DEF%2014A",
        "q=*&forms=sc%2013g,13f-hr",
        "q=the&forms=S-1",
        "q=orchard%5E2%20revenue",
        "q=share%20repurchase%20program&to=2023-12-31",
        "q=going%20concern",
        "q=nothingmatchesthisword",
        "q=%22chain%20supply%22",
        "q=%22supply%20chain%22~2",
        "q=%22supply%20ch%22*",
        "q=--",
        "q=(supply",
        "q=x&limit=0",
        "q=x&from=2024-02-30",
        "q=x&from=2025-01-02&to=2025-01-01",
        "q=x&forms=,",
        "q=x&forms=10-K;DROP",
        "forms=10-K",
        "q=entity:",
        "q=nosuchfield:apple",
    ];

    #[test]
    fn the_same_answers_as_embedded() {
        let db = TestDb::create("edgar_search");
        let engine = Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
        let embedded = Server::start();
        for q in QUERIES {
            let path = format!("/v1/edgar-search?{q}&limit=100").replace("limit=0&limit=100", "limit=0");
            let (es, eb) = engine.get(&path);
            let (ms, mb) = embedded.get(&path);
            assert_eq!((es, &eb), (ms, &mb), "{q}");
            if es == 200 {
                let scores: Vec<f64> =
                    eb["hits"].as_array().unwrap().iter().map(|h| h["score"].as_f64().unwrap()).collect();
                assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{q}: ranked by score: {scores:?}");
            }
        }
        // Phrase slop and phrase prefixes included: the whole syntax works in either engine.
        for q in ["q=%22supply%20chain%22~2", "q=%22supply%20ch%22*", "q=entity:orchard"] {
            let (status, body) = engine.get(&format!("/v1/edgar-search?{q}"));
            assert_eq!(status, 200, "{q}: {body}");
            assert!(body["total"].as_u64().unwrap() > 0, "{q}: {body}");
        }
    }
}

#[test]
fn punctuation_a_search_box_user_types_searches_instead_of_failing() {
    let server = Server::start();
    // `what's new?`: the apostrophe and the question mark are not query syntax; the words are searched.
    let (status, body) = server.get("/v1/edgar-search?q=what%27s%20new%3F");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["query"], "what's new?");
    let (_, plain) = server.get("/v1/edgar-search?q=what%20s%20new");
    assert_eq!(body["total"], plain["total"], "the same words are searched");
    // A query malformed in the syntax itself is still a 400 naming the problem.
    let (status, body) = server.get("/v1/edgar-search?q=%22supply%20chain");
    assert_envelope(status, &body, 400);
}
