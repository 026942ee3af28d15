//! Black-box tests of `/v1/property` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn matches_normalised_addresses() {
    let server = Server::start();
    let (status, body) =
        server.get("/v1/property?address=1204%20cedar%20bend%20lane%2C%20Austin%2C%20TX&county=travis-tx");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["county"], "travis-tx");
    let record = &body["record"];
    assert_eq!(record["ownerName"], "Maura O'Brien");
    for field in ["yearBuilt", "bedrooms", "squareFootage"] {
        assert!(record[field].is_u64(), "{field}");
    }
    for field in ["bathrooms", "lotSize", "landValue", "improvementValue", "marketValue"] {
        assert!(record[field].is_number(), "{field}");
    }
    assert!(record["hoaFee"].is_null());
    let (_, unit) = server.get("/v1/property?address=1550%20N.%20Clark%20Street%20%234B");
    assert_eq!(unit["county"], "cook-il");
    assert_eq!(unit["record"]["propertyType"], "Condominium");
}

#[test]
fn county_not_onboarded_and_no_match_are_null_records() {
    let server = Server::start();
    let (status, body) = server.get("/v1/property?address=1204%20Cedar%20Bend%20Ln&county=harris-tx");
    assert_eq!(status, 200, "{body}");
    assert!(body["record"].is_null());
    assert_eq!(body["status"], "county-not-onboarded");
    let (status, body) = server.get("/v1/property?address=1%20Nowhere%20Rd&county=king-wa");
    assert_eq!(status, 200, "{body}");
    assert!(body["record"].is_null());
    assert_eq!(body["status"], "no-match");
}

#[test]
fn bad_parameters_are_400() {
    let server = Server::start();
    let (status, body) = server.get("/v1/property");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the address query parameter is required");
    let (status, body) = server.get("/v1/property?address=1%20Main%20St&county=Travis%20County");
    assert_envelope(status, &body, 400);
}

mod engine {
    //! Engine mode (PostgreSQL): the demo seed is served from memory as on the embedded engine. Ingested
    //! assessor records on PostgreSQL: `ingest_public_datasets.rs`.

    use datahost_tests::pg::{assert_seed_served_as_embedded, TestDb};
    use serde_json::Value;

    fn encode(text: &str) -> String {
        text.replace('%', "%25").replace(' ', "%20").replace('#', "%23").replace(',', "%2C").replace('&', "%26")
    }

    #[test]
    fn same_responses_as_embedded_without_tables_of_its_own() {
        let mut queries: Vec<String> = [
            "/v1/property?address=1204%20cedar%20bend%20lane%2C%20Austin%2C%20TX&county=travis-tx",
            "/v1/property?address=1204%20Cedar%20Bend%20Ln",
            "/v1/property?address=1204%20Cedar%20Bend%20Ln%2C%20Dallas%2C%20TX",
            "/v1/property?address=1550%20N.%20Clark%20Street%20%234B",
            "/v1/property?address=1550%20N%20Clark%20St&county=cook-il",
            "/v1/property?address=100%20Main%20St",
            "/v1/property?address=100%20Main%20Street&county=travis-tx",
            "/v1/property?address=100%20Main%20St%2C%20Mesa%2C%20AZ",
            "/v1/property?address=1204%20Cedar%20Bend%20Ln&county=king-wa",
            "/v1/property?address=1204%20Cedar%20Bend%20Ln&county=harris-tx",
            "/v1/property?address=1%20Nowhere%20Rd",
            "/v1/property?address=%23%2C.",
            "/v1/property",
            "/v1/property?address=1%20Main%20St&county=Travis%20County",
        ]
        .iter()
        .map(|q| q.to_string())
        .collect();
        let seed: Value = serde_json::from_str(include_str!("../../plugins/property/seed/property.json")).unwrap();
        for p in seed["parcels"].as_array().unwrap() {
            let s = |f: &str| p[f].as_str().unwrap().to_string();
            let full = format!("{}, {}, {} {}", s("street"), s("city"), s("state"), s("zip"));
            queries.push(format!("/v1/property?address={}&county={}", encode(&full), s("county")));
            queries.push(format!("/v1/property?address={}", encode(&s("street").to_lowercase())));
        }
        assert_seed_served_as_embedded(&TestDb::create("property"), "property", &queries);
    }
}
