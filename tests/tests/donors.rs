//! Black-box tests of `/v1/donors` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_filter_and_bad_ticker() {
    let server = Server::start();
    let (status, all) = server.get("/v1/donors");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["count"], 18);
    assert_eq!(all["meta"]["generatedAt"].as_str().unwrap().len(), 10, "generatedAt is a date");
    assert!(all["meta"]["caveat"].as_str().unwrap().contains("not predictive of stock performance"));
    let c = &all["companies"][0];
    for f in ["name", "ticker", "pacName", "committeeId", "cycle", "note"] {
        assert!(c[f].is_string(), "{f}: {c}");
    }
    for f in ["totalContributionsUsd", "demPct", "repPct"] {
        assert!(c[f].is_number(), "{f}: {c}");
    }

    let (status, rvmr) = server.get("/v1/donors?ticker=rvmr");
    assert_eq!(status, 200, "{rvmr}");
    assert_eq!(rvmr["count"], 1);
    assert_eq!(rvmr["companies"][0]["totalContributionsUsd"], 73500.0);
    assert_eq!(rvmr["companies"][0]["demPct"], 22.4);
    assert_eq!(rvmr["companies"][0]["repPct"], 63.3);

    let (status, body) = server.get("/v1/donors?ticker=a%20b");
    assert_envelope(status, &body, 400);
}
