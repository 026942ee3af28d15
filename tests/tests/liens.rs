//! Black-box tests of `/v1/liens` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn searches_one_county_with_filters() {
    let server = Server::start();
    let (status, body) = server.get("/v1/liens?county=travis-tx&query=Maura%20O%27Brien");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["count"], 3);
    let liens = body["liens"].as_array().unwrap();
    for l in liens {
        for field in ["instrumentNumber", "lienType", "claimant", "releaseInstrument", "county", "filedDate"] {
            assert!(l[field].is_string(), "{field}");
        }
        assert!(l["amount"].is_number());
        assert!(l["released"].is_boolean());
    }
    let (_, open) = server.get("/v1/liens?county=travis-tx&query=obrien&released=false");
    assert_eq!(open["count"], 2);
    let (_, mechanics) = server.get("/v1/liens?county=travis-tx&query=obrien&lienType=mechanic%27s");
    assert_eq!(mechanics["count"], 1);
    let (status, none) = server.get("/v1/liens?county=harris-tx&query=smith");
    assert_eq!(status, 200);
    assert_eq!(none["liens"], serde_json::json!([]));
}

#[test]
fn missing_and_bad_parameters_are_400() {
    let server = Server::start();
    let (status, body) = server.get("/v1/liens?query=smith");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the county query parameter is required");
    let (status, body) = server.get("/v1/liens?county=cook-il");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the query query parameter is required");
    let (status, body) = server.get("/v1/liens?county=cook-il&query=x&limit=0");
    assert_envelope(status, &body, 400);
}
