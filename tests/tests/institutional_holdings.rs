//! Black-box tests of `/v1/institutional-holdings` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_cik_padding_and_truncation() {
    let server = Server::start();
    let (status, body) = server.get("/v1/institutional-holdings?cik=9990307");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["cik"], "0009990307");
    assert_eq!(body["form"], "13F-HR");
    assert_eq!(body["periodOfReport"], "2026-09-30", "the latest of three quarters");
    assert_eq!((body["count"].as_u64(), body["truncated"].as_bool()), (Some(100), Some(true)));
    assert_eq!(body["totalValueUsd"], 9048544133u64, "the total covers all 150 holdings");
    let h = &body["holdings"][0];
    assert!(h["nameOfIssuer"].is_string() && h["cusip"].is_string() && h["valueUsd"].is_number());
    assert!(h.get("putCall").is_some());

    let (_, padded) = server.get("/v1/institutional-holdings?cik=0009990307");
    assert_eq!(padded, body);
}

#[test]
fn name_lookup() {
    let server = Server::start();
    let (status, body) = server.get("/v1/institutional-holdings?q=MERIDIAN%20OAK%20CAPITAL%20%28DEMO%29&limit=2");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["cik"], "0009990303");
    assert_eq!((body["count"].as_u64(), body["truncated"].as_bool()), (Some(2), Some(true)));
    assert_eq!(body["totalValueUsd"], 189975745u64);
}

#[test]
fn missing_malformed_and_unknown() {
    let server = Server::start();
    let (status, body) = server.get("/v1/institutional-holdings");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the cik or q query parameter is required");
    let (status, body) = server.get("/v1/institutional-holdings?cik=12ab");
    assert_envelope(status, &body, 400);
    let (status, body) = server.get("/v1/institutional-holdings?cik=0009999999");
    assert_envelope(status, &body, 404);
    let (status, body) = server.get("/v1/institutional-holdings?q=no%20such%20fund");
    assert_envelope(status, &body, 404);
}

#[test]
fn every_spelling_of_a_cik_walks_the_same_pages() {
    let server = Server::start();
    let (status, first) = server.get("/v1/institutional-holdings?cik=9990307&limit=2");
    assert_eq!(status, 200, "{first}");
    let next = first["next"].as_str().expect("150 holdings take more than one page of 2").to_string();
    let (status, short) = server.get(&format!("/v1/institutional-holdings?cik=9990307&limit=2&cursor={next}"));
    assert_eq!(status, 200, "{short}");
    let (status, padded) = server.get(&format!("/v1/institutional-holdings?cik=0009990307&limit=2&cursor={next}"));
    assert_eq!(status, 200, "a cursor of cik=9990307 walks on with cik=0009990307: {padded}");
    assert_eq!(padded["holdings"], short["holdings"]);
    assert_ne!(padded["holdings"], first["holdings"], "the second page, not the first again");
    // Another filer is another walk.
    let (status, other) = server.get(&format!("/v1/institutional-holdings?cik=9990303&limit=2&cursor={next}"));
    assert_envelope(status, &other, 400);
    assert!(other["error"].as_str().unwrap().starts_with("cursor belongs to a different query"), "{other}");
}
