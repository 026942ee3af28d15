//! Black-box tests of `/v1/insiders` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_ticker_filter_and_bad_ticker() {
    let server = Server::start();
    let (status, all) = server.get("/v1/insiders");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["count"], 20);
    let caveat = all["meta"]["caveat"].as_str().unwrap();
    assert!(caveat.contains("code S") && caveat.contains("10b5-1"), "{caveat}");
    assert!(all["meta"]["generatedAt"].is_string() && all["meta"]["sourceUrl"].is_string());
    for c in all["companies"].as_array().unwrap() {
        assert!(c["ticker"].is_string() && c["company"].is_string() && c["ceo"].is_string(), "{c}");
        for f in c["filings"].as_array().unwrap() {
            let (shares, price) = (f["shares"].as_f64().unwrap(), f["price"].as_f64().unwrap());
            assert_eq!(f["value"].as_f64().unwrap(), (shares * price * 100.0).round() / 100.0, "{f}");
            assert!(f["accessionNumber"].is_string() && f["sourceUrl"].is_string() && f["date"].is_string());
        }
    }

    let (status, orch) = server.get("/v1/insiders?ticker=orch");
    assert_eq!(status, 200, "{orch}");
    assert_eq!(orch["count"], 1);
    assert_eq!(orch["companies"][0]["ticker"], "ORCH");
    assert_eq!(orch["companies"][0]["filings"].as_array().unwrap().len(), 12);
    assert_eq!(orch["companies"][0]["filings"][0]["accessionNumber"], "DEMO-F4-000016");

    let (_, none) = server.get("/v1/insiders?ticker=ZZZZ");
    assert_eq!(none["count"], 0);

    let (status, body) = server.get("/v1/insiders?ticker=A%20B");
    assert_envelope(status, &body, 400);
}
