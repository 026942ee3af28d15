//! The response cache seen from outside: every dataset answer carries a strong `ETag` that stays the same while
//! the data does, `If-None-Match` gets a bodiless 304, repeated answers and 304s still count against the
//! caller's limit, different queries and tiers never share an answer, gzip and brotli bodies decode to exactly
//! the identity body, a data change ingested into the running server gives the new body under a new tag, and
//! errors carry no tag. Also with the plugin in its own process.

use std::io::Read as _;

use datahost_tests::{corpus, wait_for_window_with, Server, ServerOptions};
use reqwest::blocking::Response;
use serde_json::Value;

const SPY: &str = "/v1/prices?ticker=SPY";

fn header(resp: &Response, name: &str) -> String {
    resp.headers().get(name).map_or(String::new(), |v| v.to_str().unwrap().to_string())
}

fn vary(resp: &Response) -> String {
    resp.headers()
        .get_all("vary")
        .iter()
        .map(|v| v.to_str().unwrap().to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(", ")
}

/// GET with a key and extra headers: status, headers we look at, raw body bytes.
fn fetch(server: &Server, path: &str, key: &str, extra: &[(&str, &str)]) -> (u16, Response) {
    let mut headers = vec![("X-API-Key", key)];
    headers.extend_from_slice(extra);
    let resp = server.request(path, &headers);
    (resp.status().as_u16(), resp)
}

fn body(resp: Response) -> Vec<u8> {
    resp.bytes().unwrap().to_vec()
}

/// A counter's value in the Prometheus text (0 when absent).
fn counter(text: &str, series: &str) -> f64 {
    datahost_tests::sample(text, series).unwrap_or(0.0)
}

#[test]
fn etags_are_stable_and_if_none_match_answers_304() {
    let server = Server::start();
    let owner = server.owner_key.clone();
    let (status, first) = fetch(&server, SPY, &owner, &[]);
    assert_eq!(status, 200);
    let etag = header(&first, "etag");
    assert!(etag.starts_with('"') && etag.ends_with('"') && etag.len() > 2, "a strong tag: {etag}");
    assert_eq!(header(&first, "cache-control"), "private, no-cache");
    assert_eq!(header(&first, "x-data-status"), "demo");
    let first_body = body(first);

    let (_, second) = fetch(&server, SPY, &owner, &[]);
    assert_eq!(header(&second, "etag"), etag, "same data, same tag");
    assert_eq!(body(second), first_body, "and the same bytes");
    let (_, reordered) = fetch(&server, "/v1/prices?ticker=SPY&limit=5", &owner, &[]);
    let (_, reordered_again) = fetch(&server, "/v1/prices?limit=5&ticker=SPY", &owner, &[]);
    assert_eq!(header(&reordered, "etag"), header(&reordered_again, "etag"), "parameter order does not matter");

    for tags in [etag.clone(), format!("W/{etag}"), format!("\"other\", {etag}"), "*".to_string()] {
        let (status, resp) = fetch(&server, SPY, &owner, &[("If-None-Match", &tags)]);
        assert_eq!(status, 304, "If-None-Match: {tags}");
        assert_eq!(header(&resp, "etag"), etag);
        assert_eq!(header(&resp, "cache-control"), "private, no-cache");
        assert!(!header(&resp, "x-request-id").is_empty(), "a 304 has its request id");
        assert!(vary(&resp).contains("x-api-key"), "{}", vary(&resp));
        assert!(body(resp).is_empty(), "a 304 has no body");
    }
    let (status, resp) = fetch(&server, SPY, &owner, &[("If-None-Match", "\"not-this-one\"")]);
    assert_eq!(status, 200, "a tag that does not match gets the answer");
    assert_eq!(body(resp), first_body);

    let metrics = server.metrics_text();
    assert!(counter(&metrics, "datahost_response_cache_hits_total{plugin=\"prices\"}") >= 7.0, "{metrics}");
    assert!(counter(&metrics, "datahost_response_cache_misses_total{plugin=\"prices\"}") >= 2.0);
    assert!(metrics.contains("datahost_response_cache_bytes "), "the cache's size is exported");
    assert!(metrics.contains("datahost_response_cache_entries "));
    assert!(metrics.contains("datahost_response_cache_evictions_total "));
}

#[test]
fn cache_hits_and_304s_count_against_the_limit() {
    let server = Server::start();
    let free = server.issue_key("free");
    wait_for_window_with(20);
    let (status, first) = fetch(&server, "/v1/insiders", &free, &[]);
    assert_eq!(status, 200);
    assert_eq!(header(&first, "x-ratelimit-limit"), "60");
    assert_eq!(header(&first, "x-ratelimit-remaining"), "59");
    let etag = header(&first, "etag");
    let (_, hit) = fetch(&server, "/v1/insiders", &free, &[]);
    assert_eq!(header(&hit, "x-ratelimit-remaining"), "58", "a cached answer is counted");
    let (status, not_modified) = fetch(&server, "/v1/insiders", &free, &[("If-None-Match", &etag)]);
    assert_eq!(status, 304);
    assert_eq!(header(&not_modified, "x-ratelimit-limit"), "60");
    assert_eq!(header(&not_modified, "x-ratelimit-remaining"), "57", "a 304 is counted");
    assert!(!header(&not_modified, "x-ratelimit-reset").is_empty());
}

#[test]
fn different_queries_and_tiers_never_share_an_answer() {
    let server = Server::start();
    let owner = server.owner_key.clone();
    let free = server.issue_key("free");
    let (_, spy) = fetch(&server, SPY, &owner, &[]);
    let (_, qqq) = fetch(&server, "/v1/prices?ticker=QQQ", &owner, &[]);
    assert_ne!(header(&spy, "etag"), header(&qqq, "etag"));
    let (spy, qqq) = (body(spy), body(qqq));
    assert_ne!(spy, qqq);
    let parsed: Value = serde_json::from_slice(&qqq).unwrap();
    assert_eq!(parsed["ticker"], "QQQ", "{parsed}");

    // The tier is part of the key: each tier's first request reaches the plugin.
    let misses = |s: &Server| counter(&s.metrics_text(), "datahost_response_cache_misses_total{plugin=\"insiders\"}");
    let before = misses(&server);
    fetch(&server, "/v1/insiders", &owner, &[]);
    fetch(&server, "/v1/insiders", &free, &[]);
    fetch(&server, "/v1/insiders", &owner, &[]);
    fetch(&server, "/v1/insiders", &free, &[]);
    assert_eq!(misses(&server) - before, 2.0, "one miss per tier, then hits");

    // A cached owner answer never reaches a tier below the route's.
    let (status, graph) = fetch(&server, "/v1/entity-graph?ticker=LMCS", &owner, &[]);
    assert_eq!(status, 200);
    let tag = header(&graph, "etag");
    let (status, refused) = fetch(&server, "/v1/entity-graph?ticker=LMCS", &free, &[("If-None-Match", &tag)]);
    assert_eq!(status, 403, "the tier check comes first, also for a matching tag");
    assert!(header(&refused, "etag").is_empty(), "errors carry no tag");
}

#[test]
fn errors_never_carry_a_tag() {
    let server = Server::start();
    let owner = server.owner_key.clone();
    fetch(&server, SPY, &owner, &[]);
    let owned = [("X-API-Key", owner.as_str())];
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], u16);
    let cases: [Case; 5] = [
        ("/v1/prices?ticker=SPY&tickr=x", &owned, 400),
        ("/v1/prices?ticker=SPY&ticker=SPY", &owned, 400),
        (SPY, &[], 401),
        (SPY, &[("X-API-Key", "dh_nope")], 401),
        ("/v1/nowhere", &owned, 404),
    ];
    for (path, headers, expected) in cases {
        let mut headers = headers.to_vec();
        headers.push(("If-None-Match", "*"));
        let resp = server.request(path, &headers);
        assert_eq!(resp.status().as_u16(), expected, "{path}");
        assert!(header(&resp, "etag").is_empty(), "{path}: {expected} has no tag");
        assert!(header(&resp, "content-encoding").is_empty());
    }
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).unwrap();
    out
}

fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096).read_to_end(&mut out).unwrap();
    out
}

/// The identity body of `path`, then its gzip and brotli bodies, each checked to decode to exactly it.
fn assert_codings(server: &Server, path: &str, key: &str) {
    let (_, plain) = fetch(server, path, key, &[]);
    assert!(header(&plain, "content-encoding").is_empty(), "identity without Accept-Encoding");
    let identity_tag = header(&plain, "etag");
    let identity = body(plain);
    assert!(identity.len() > 1024, "{path} is large enough to be compressed");
    for (accept, coding, decode) in [
        ("gzip", "gzip", gunzip as fn(&[u8]) -> Vec<u8>),
        ("gzip;q=0.5, br", "br", unbrotli),
        ("br;q=0.1, gzip;q=0.9, identity;q=0.2", "gzip", gunzip),
    ] {
        let (status, resp) = fetch(server, path, key, &[("Accept-Encoding", accept)]);
        assert_eq!(status, 200);
        assert_eq!(header(&resp, "content-encoding"), coding, "{path} with Accept-Encoding: {accept}");
        let varies = vary(&resp);
        assert!(varies.contains("accept-encoding") && varies.contains("x-api-key"), "{varies}");
        let tag = header(&resp, "etag");
        assert!(!tag.is_empty() && tag != identity_tag, "each coding has its own strong tag");
        let compressed = body(resp);
        assert!(compressed.len() < identity.len());
        assert_eq!(decode(&compressed), identity, "{path} {coding} decodes to the identity body");
        let (status, _) = fetch(server, path, key, &[("Accept-Encoding", accept), ("If-None-Match", &tag)]);
        assert_eq!(status, 304);
    }
    let (_, refused) = fetch(server, path, key, &[("Accept-Encoding", "gzip;q=0, br;q=0")]);
    assert!(header(&refused, "content-encoding").is_empty(), "q=0 refuses a coding");
    assert_eq!(body(refused), identity);
}

#[test]
fn gzip_and_brotli_bodies_decode_to_the_identity_body() {
    let server = Server::start();
    let owner = server.owner_key.clone();
    assert_codings(&server, SPY, &owner);
    // A small answer is sent as it is and does not vary by coding.
    let (_, small) = fetch(&server, "/v1/prices?ticker=SPY&limit=1", &owner, &[("Accept-Encoding", "gzip, br")]);
    assert!(header(&small, "content-encoding").is_empty());
    assert!(!vary(&small).contains("accept-encoding"), "{}", vary(&small));
    // The OpenAPI document: compressed once, tagged, no key needed.
    let doc = server.request("/openapi.json", &[]);
    let tag = header(&doc, "etag");
    let identity = body(doc);
    let br = server.request("/openapi.json", &[("Accept-Encoding", "br")]);
    assert_eq!(header(&br, "content-encoding"), "br");
    assert_eq!(unbrotli(&body(br)), identity);
    let not_modified = server.request("/openapi.json", &[("If-None-Match", &tag)]);
    assert_eq!(not_modified.status().as_u16(), 304);
}

#[test]
fn a_plugin_in_its_own_process_is_cached_the_same_way() {
    let server = Server::start_with(ServerOptions {
        extra_toml: "[plugins]\n[plugins.prices]\nisolation = \"process\"\n".into(),
        ..Default::default()
    });
    let owner = server.owner_key.clone();
    assert_codings(&server, SPY, &owner);
    let metrics = server.metrics_text();
    assert!(counter(&metrics, "datahost_response_cache_hits_total{plugin=\"prices\"}") >= 3.0, "{metrics}");
}

#[test]
fn a_data_change_gives_the_new_body_under_a_new_tag() {
    let Some(spy_file) = corpus("prices/SPY.csv") else { return };
    let server = Server::start();
    let owner = server.owner_key.clone();
    let path = SPY;
    let (_, before) = fetch(&server, path, &owner, &[("Accept-Encoding", "gzip")]);
    let gzip_tag = header(&before, "etag");
    let (_, before) = fetch(&server, path, &owner, &[]);
    let old_tag = header(&before, "etag");
    assert_eq!(header(&before, "x-data-status"), "demo");
    let old_body = body(before);

    let (code, out, err) = server.ingest("prices", &[&spy_file], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    server.wait_for_data("prices", |_| true);

    let (status, after) = fetch(&server, path, &owner, &[("If-None-Match", &old_tag)]);
    assert_eq!(status, 200, "the old tag no longer matches");
    assert_eq!(header(&after, "x-data-status"), "ingested");
    let new_tag = header(&after, "etag");
    assert_ne!(new_tag, old_tag);
    let new_body = body(after);
    assert_ne!(new_body, old_body);
    let parsed: Value = serde_json::from_slice(&new_body).unwrap();
    assert_eq!(parsed["dataStatus"], "ingested", "{parsed}");
    let (status, gz) = fetch(&server, path, &owner, &[("Accept-Encoding", "gzip"), ("If-None-Match", &gzip_tag)]);
    assert_eq!(status, 200, "nor does the old gzip tag");
    assert_eq!(gunzip(&body(gz)), new_body, "the compressed variant is of the new body");
    let (status, _) = fetch(&server, path, &owner, &[("If-None-Match", &new_tag)]);
    assert_eq!(status, 304);
}
