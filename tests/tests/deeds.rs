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

mod engine {
    //! Engine mode (PostgreSQL): the demo seed is served from memory as on the embedded engine, so every answer
    //! is the same, the plugin makes no tables of its own, and its answers are reused by the response cache.
    //! Ingested clerk records on PostgreSQL: `ingest_public_datasets.rs`.

    use datahost_tests::pg::{assert_seed_served_as_embedded, TestDb};

    const QUERIES: &[&str] = &[
        "/v1/deeds?county=travis-tx&query=o%27brien",
        "/v1/deeds?county=Travis-TX&query=MAURA%20O%27BRIEN",
        "/v1/deeds?county=travis-tx&query=tx&limit=1000",
        "/v1/deeds?county=travis-tx&query=tx",
        "/v1/deeds?county=travis-tx&query=tx&limit=7",
        "/v1/deeds?county=travis-tx&query=1204%20Cedar%20Bend%20Lane",
        "/v1/deeds?county=travis-tx&query=100%20main%20street%20austin",
        "/v1/deeds?county=travis-tx&query=halvorsen",
        "/v1/deeds?county=travis-tx&query=harborline%20bank",
        "/v1/deeds?county=king-wa&query=wa&limit=1000",
        "/v1/deeds?county=cook-il&query=il&limit=1000",
        "/v1/deeds?county=maricopa-az&query=az&limit=1000",
        "/v1/deeds?county=maricopa-az&query=phoenix&limit=3",
        "/v1/deeds?county=cook-il&query=chicago%20%234b",
        "/v1/deeds?county=king-wa&query=nobody%20at%20all",
        "/v1/deeds?county=travis-tx&query=okon",
        "/v1/deeds?county=harris-tx&query=smith",
        "/v1/deeds?county=travis-tx&query=%26%26",
        "/v1/deeds?county=travis&query=smith",
        "/v1/deeds?query=smith",
        "/v1/deeds?county=travis-tx",
        "/v1/deeds?county=travis-tx&query=x&limit=0",
    ];

    #[test]
    fn same_responses_as_embedded_without_tables_of_its_own() {
        assert_seed_served_as_embedded(&TestDb::create("deeds"), "deeds", QUERIES);
    }
}
