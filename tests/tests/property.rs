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
    //! Engine mode: the parcels live in the plugin's PostgreSQL table, looked up by normalised street line.

    use datahost_tests::pg::TestDb;
    use datahost_tests::{Server, ServerOptions};
    use serde_json::Value;

    fn encode(text: &str) -> String {
        text.replace('%', "%25").replace(' ', "%20").replace('#', "%23").replace(',', "%2C").replace('&', "%26")
    }

    #[test]
    fn same_responses_as_embedded_from_the_plugin_table() {
        let db = TestDb::create("property");
        let engine = Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
        let embedded = Server::start();
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
        for q in &queries {
            assert_eq!(engine.get(q), embedded.get(q), "{q}");
        }
        let mut client = db.client();
        let rows: i64 =
            client.query_one("SELECT count(*) FROM plugin_property.parcels WHERE source = 'seed'", &[]).unwrap().get(0);
        assert_eq!(rows, 200, "every seed parcel is a row of the plugin table");

        let synthetic = "/v1/property?address=77%20synthetic%20lane%20%232%2C%20Seattle%20WA";
        assert_eq!(engine.get(synthetic).1["status"], "no-match");
        client
            .execute(
                "INSERT INTO plugin_property.parcels (county, assessor_id, street_key, street, city, state, zip,
                     year_built, bedrooms, bathrooms, square_footage, lot_size, legal_description, subdivision, zoning,
                     architecture_type, exterior_type, property_type, owner_name, source_id, source_url,
                     last_sale_date, hoa_fee, land_value, improvement_value, market_value, fetched_at, source)
                 VALUES ('king-wa', 'SYN-1', '77 SYNTHETIC LN UNIT 2', '77 Synthetic Ln Unit 2', 'Seattle', 'WA',
                     '98101', 2001, 2, 1.5, 900, 0, 'UNIT 2 SYNTHETIC CONDOMINIUM', 'Synthetic', 'NC-65', 'Modern',
                     'Glass', 'Condominium', 'Zephyrine Quillfeather', 'KCA:SYN-1', 'https://assessor.example/SYN-1',
                     '2024-02-03', 350.25, 100000, 250000.5, 350000.5, '2026-10-01T00:00:00Z', 'synthetic')",
                &[],
            )
            .unwrap();
        let (status, body) = engine.get(synthetic);
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["status"], "matched");
        assert_eq!(body["county"], "king-wa");
        assert_eq!(body["record"]["ownerName"], "Zephyrine Quillfeather");
        assert_eq!(body["record"]["landValue"], 100000.0);
        assert!(body["record"]["yearBuilt"].is_u64());
        assert_eq!(body["record"]["fetchedAt"], "2026-10-01T00:00:00Z");
        assert_eq!(body["matchedAddress"], "77 Synthetic Ln Unit 2, Seattle, WA 98101");
    }
}
