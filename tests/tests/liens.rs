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

mod engine {
    //! Engine mode (PostgreSQL): the demo seed is served from memory as on the embedded engine. Liens among
    //! ingested clerk records on PostgreSQL: `ingest_public_datasets.rs`.

    use datahost_tests::pg::{assert_seed_served_as_embedded, TestDb};

    const QUERIES: &[&str] = &[
        "/v1/liens?county=travis-tx&query=Maura%20O%27Brien",
        "/v1/liens?county=travis-tx&query=obrien&released=false",
        "/v1/liens?county=travis-tx&query=obrien&released=true",
        "/v1/liens?county=travis-tx&query=tx&limit=1000",
        "/v1/liens?county=travis-tx&query=tx&lienType=tax",
        "/v1/liens?county=travis-tx&query=tx&lienType=mechanics&released=false",
        "/v1/liens?county=king-wa&query=wa&limit=1000",
        "/v1/liens?county=king-wa&query=wa&lienType=judgment&limit=2",
        "/v1/liens?county=king-wa&query=desert%20sun%20solar",
        "/v1/liens?county=cook-il&query=il&limit=1000",
        "/v1/liens?county=maricopa-az&query=az&limit=1000",
        "/v1/liens?county=maricopa-az&query=internal%20revenue%20service&limit=5",
        "/v1/liens?county=maricopa-az&query=8988%20North%20Hayden%20Road",
        "/v1/liens?county=harris-tx&query=smith",
        "/v1/liens?county=travis-tx&query=nobody%20here",
        "/v1/liens?county=travis-tx&query=x&lienType=federal",
        "/v1/liens?county=travis-tx&query=x&released=yes",
        "/v1/liens?county=travis-tx",
        "/v1/liens?query=x",
    ];

    #[test]
    fn same_responses_as_embedded_without_tables_of_its_own() {
        assert_seed_served_as_embedded(&TestDb::create("liens"), "liens", QUERIES);
    }
}
