//! Black-box tests of `/v1/lobbying` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_years_filter_and_bad_ticker() {
    let server = Server::start();
    let (status, all) = server.get("/v1/lobbying");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["count"], 16);
    assert!(all["meta"]["caveat"].as_str().unwrap().contains("2025 and 2026"));
    for c in all["companies"].as_array().unwrap() {
        assert!(c["year"].is_i64() && c["filingCount"].is_u64() && c["totalSpendUsd"].is_number(), "{c}");
        for q in c["quarters"].as_array().unwrap() {
            let period = q["period"].as_str().unwrap();
            assert!(period.starts_with("2025-Q") || period.starts_with("2026-Q"), "{period}");
        }
    }

    let (status, unh) = server.get("/v1/lobbying?ticker=hrtm");
    assert_eq!(status, 200, "{unh}");
    assert_eq!(unh["count"], 1);
    assert_eq!(unh["companies"][0]["totalSpendUsd"], 10780000.0);
    assert_eq!(unh["companies"][0]["quarters"][0]["period"], "2025-Q1");

    let (status, body) = server.get("/v1/lobbying?ticker=UNH%20X");
    assert_envelope(status, &body, 400);
}
