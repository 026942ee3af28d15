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
    //! Engine mode: the liens live in the plugin's PostgreSQL table and each request is one indexed query.

    use datahost_tests::pg::TestDb;
    use datahost_tests::{Server, ServerOptions};

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
    fn same_responses_as_embedded_from_the_plugin_table() {
        let db = TestDb::create("liens");
        let engine = Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
        let embedded = Server::start();
        for q in QUERIES {
            assert_eq!(engine.get(q), embedded.get(q), "{q}");
        }
        let (_, before) = engine.get("/v1/liens?county=travis-tx&query=maura%20obrien");
        assert_eq!(before["total"], 3);
        let mut client = db.client();
        let seed_rows: i64 =
            client.query_one("SELECT count(*) FROM plugin_liens.liens WHERE source = 'seed'", &[]).unwrap().get(0);
        assert_eq!(seed_rows, 152, "every seed lien is a row of the plugin table");

        client
            .execute(
                "INSERT INTO plugin_liens.liens (county, instrument_number, lien_type, claimant, release_instrument,
                     filed_date, amount, released, debtor, release_date, property_address, source_url, search_tokens,
                     source)
                 VALUES ('travis-tx', 'SYN-9', 'judgment', 'Quillfeather Collections LLC', 'SYN-10', '2031-03-04',
                     77.25, true, 'Maura O''Brien', '2031-05-06', '1204 Cedar Bend Ln, Austin, TX 78704',
                     'https://clerk.example/SYN-9',
                     '{travis-tx:QUILLFEATHER,travis-tx:COLLECTIONS,travis-tx:LLC,travis-tx:MAURA,travis-tx:OBRIEN}',
                     'synthetic')",
                &[],
            )
            .unwrap();
        let (status, body) = engine.get("/v1/liens?county=travis-tx&query=obrien&lienType=judgment");
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["total"], 1);
        let lien = &body["liens"][0];
        assert_eq!(lien["instrumentNumber"], "SYN-9");
        assert_eq!((lien["amount"].as_f64(), lien["released"].as_bool()), (Some(77.25), Some(true)));
        assert_eq!(lien["releaseDate"], "2031-05-06");
        let (_, all) = engine.get("/v1/liens?county=travis-tx&query=maura%20obrien");
        assert_eq!(all["total"], 4, "the new row joins the seed's three");
    }
}
