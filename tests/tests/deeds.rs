//! Black-box tests of `/v1/deeds` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn searches_one_county_newest_first() {
    let server = Server::start();
    let (status, body) = server.get("/v1/deeds?county=travis-tx&query=o%27brien");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["county"], "travis-tx");
    assert_eq!(body["query"], "o'brien");
    assert_eq!(body["count"], 2);
    let deeds = body["deeds"].as_array().unwrap();
    assert_eq!(deeds[0]["recordedDate"], "2019-06-17");
    for field in
        ["instrumentNumber", "docType", "grantor", "grantee", "legalDescription", "county", "sourceUrl", "recordedDate"]
    {
        assert!(deeds[0][field].is_string(), "{field}");
    }
    let (_, limited) = server.get("/v1/deeds?county=travis-tx&query=tx&limit=5");
    assert_eq!(limited["count"], 5);
    let (status, none) = server.get("/v1/deeds?county=harris-tx&query=smith");
    assert_eq!(status, 200);
    assert_eq!(none["count"], 0);
}

#[test]
fn missing_parameters_are_named() {
    let server = Server::start();
    let (status, body) = server.get("/v1/deeds?query=smith");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the county query parameter is required");
    let (status, body) = server.get("/v1/deeds?county=travis-tx");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the query query parameter is required");
    let (status, body) = server.get("/v1/deeds?county=travis&query=smith");
    assert_envelope(status, &body, 400);
}
