//! Black-box tests of `/v1/senate-trades` (beta) through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_filters_limit_and_bad_input() {
    let server = Server::start();
    let (status, all) = server.get("/v1/senate-trades");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["count"], 100, "default limit 100 of 104 filings");
    for field in ["source", "sourceUrl", "method", "caveat", "generatedAt"] {
        assert!(all["meta"][field].is_string(), "meta.{field}: {all}");
    }
    let first = &all["filings"][0];
    assert_eq!(first["chamber"], "senate");
    assert!(first["year"].is_u64() && first["docId"].is_string() && first["filedDate"].is_string(), "{first}");
    let trade = &first["trades"][0];
    assert!(trade["amountRange"].is_string() && trade["date"].is_string(), "{trade}");
    assert!(trade.get("bundled").is_none(), "senate trades carry no bundled field: {trade}");

    let (status, bwrd) = server.get("/v1/senate-trades?ticker=bwrd");
    assert_eq!(status, 200, "{bwrd}");
    assert_eq!(bwrd["count"], 4);
    let trades: Vec<&serde_json::Value> =
        bwrd["filings"].as_array().unwrap().iter().flat_map(|f| f["trades"].as_array().unwrap()).collect();
    assert!(trades.iter().all(|t| t["ticker"] == "BWRD"), "{bwrd}");

    let (_, member) = server.get("/v1/senate-trades?member=RAVENSCROFT&limit=2");
    assert_eq!(member["count"], 2);
    assert!(member["filings"].as_array().unwrap().iter().all(|f| f["member"] == "Josephine Ravenscroft"));

    let (_, clamped) = server.get("/v1/senate-trades?limit=100000");
    assert_eq!(clamped["count"], 104);

    let (status, body) = server.get("/v1/senate-trades?limit=0");
    assert_envelope(status, &body, 400);
    assert!(body["error"].as_str().unwrap().starts_with("limit must be a positive integer"), "{body}");
}

#[test]
fn documented_as_beta() {
    let server = Server::start();
    let (status, doc) = server.get("/openapi.json");
    assert_eq!(status, 200);
    let op = &doc["paths"]["/v1/senate-trades"]["get"];
    assert_eq!(op["x-maturity"], "beta", "{op}");
    assert!(doc["components"]["schemas"]["SenateTradesResponse"].is_object());
}
