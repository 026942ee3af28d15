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
    //! Engine mode: the deeds live in the plugin's PostgreSQL table and each request is one indexed query.

    use datahost_tests::pg::TestDb;
    use datahost_tests::{Server, ServerOptions};

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

    fn engine_server(db: &TestDb) -> Server {
        Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() })
    }

    #[test]
    fn same_responses_as_embedded_from_the_plugin_table() {
        let db = TestDb::create("deeds");
        let engine = engine_server(&db);
        let embedded = Server::start();
        for q in QUERIES {
            assert_eq!(engine.get(q), embedded.get(q), "{q}");
        }
        let mut client = db.client();
        let seed_rows: i64 =
            client.query_one("SELECT count(*) FROM plugin_deeds.deeds WHERE source = 'seed'", &[]).unwrap().get(0);
        assert_eq!(seed_rows, 409, "every seed deed is a row of the plugin table");
        let counties: i64 = client.query_one("SELECT count(*) FROM plugin_deeds.counties", &[]).unwrap().get(0);
        assert_eq!(counties, 4);
        // Few rows make a sequential scan cheapest; forbid it to see that the GIN index answers the lookup.
        client.batch_execute("SET enable_seqscan = off").unwrap();
        let plan: Vec<String> = client
            .query("EXPLAIN SELECT 1 FROM plugin_deeds.deeds WHERE search_tokens @> '{travis-tx:OBRIEN}'::text[]", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(plan.join("\n").contains("deeds_search_tokens"), "the token lookup uses the GIN index: {plan:?}");
    }

    #[test]
    fn rows_inserted_directly_are_served_and_survive_a_restart() {
        let db = TestDb::create("deeds_rows");
        let engine = engine_server(&db);
        let (_, before) = engine.get("/v1/deeds?county=travis-tx&query=o%27brien");
        assert_eq!(before["total"], 2);
        let mut client = db.client();
        client
            .execute(
                "INSERT INTO plugin_deeds.deeds (county, instrument_number, doc_type, grantor, grantee,
                     legal_description, source_url, recorded_date, property_address, search_tokens, source)
                 VALUES ('travis-tx', 'SYN-1', 'WARRANTY DEED', 'Zephyrine Quillfeather', 'Maura O''Brien',
                     'LOT 1 BLK A', 'https://clerk.example/SYN-1', '2030-01-02', '77 Synthetic Ln, Austin, TX 78704',
                     '{travis-tx:ZEPHYRINE,travis-tx:QUILLFEATHER,travis-tx:MAURA,travis-tx:OBRIEN,travis-tx:77,
                       travis-tx:SYNTHETIC,travis-tx:LN,travis-tx:AUSTIN,travis-tx:TX,travis-tx:78704}', 'synthetic')",
                &[],
            )
            .unwrap();
        let (status, body) = engine.get("/v1/deeds?county=travis-tx&query=quillfeather");
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["total"], 1);
        assert_eq!(body["deeds"][0]["instrumentNumber"], "SYN-1");
        assert_eq!(body["deeds"][0]["recordedDate"], "2030-01-02");
        let (_, obrien) = engine.get("/v1/deeds?county=travis-tx&query=o%27brien");
        assert_eq!(obrien["total"], 3, "the new row joins the seed's two (no answer is reused from before it)");
        assert_eq!(obrien["deeds"][0]["instrumentNumber"], "SYN-1", "newest first");
        drop(engine);

        // A second start finds the seed already synced and leaves every row alone.
        let synced_at: String = client
            .query_one("SELECT synced_at::text FROM plugin_deeds.seed_state WHERE dataset = 'deeds'", &[])
            .unwrap()
            .get(0);
        let again = engine_server(&db);
        let (_, body) = again.get("/v1/deeds?county=travis-tx&query=quillfeather");
        assert_eq!(body["total"], 1);
        let (rows, synced_again): (i64, String) = {
            let r = client
                .query_one(
                    "SELECT (SELECT count(*) FROM plugin_deeds.deeds),
                            (SELECT synced_at::text FROM plugin_deeds.seed_state WHERE dataset = 'deeds')",
                    &[],
                )
                .unwrap();
            (r.get(0), r.get(1))
        };
        assert_eq!((rows, synced_again), (410, synced_at));
    }

    /// `bench/generate.sql` writes search tokens in SQL: the rows it makes must be found by the plugin's
    /// own (Rust) normalisation of a query.
    #[test]
    fn generated_rows_are_found_by_their_names_and_addresses() {
        let db = TestDb::create("deeds_gen");
        let engine = engine_server(&db);
        let mut client = db.client();
        let script = include_str!("../../plugins/deeds/bench/generate.sql");
        let definitions = &script[..script.find("-- run:").expect("the run marker")];
        client.batch_execute(definitions).unwrap();
        let inserted: i64 = client.query_one("SELECT plugin_deeds.generate_synthetic_deeds(600)", &[]).unwrap().get(0);
        assert_eq!(inserted, 600);
        let again: i64 = client.query_one("SELECT plugin_deeds.generate_synthetic_deeds(600)", &[]).unwrap().get(0);
        assert_eq!(again, 0, "idempotent");
        let sample = client
            .query(
                "SELECT county, instrument_number, grantor, grantee, property_address FROM plugin_deeds.deeds
                 WHERE source = 'synthetic' ORDER BY instrument_number LIMIT 40",
                &[],
            )
            .unwrap();
        assert_eq!(sample.len(), 40);
        for row in sample {
            let (county, number, grantor, grantee, address): (String, String, String, String, String) =
                (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
            let street = address.split(',').next().unwrap();
            // Lower case, a long-form street suffix where there is one: the query side is canonicalised.
            let query = format!("{} {} {}", grantor.to_lowercase(), grantee, street.replace(" Ave", " Avenue"));
            let encoded: String = query.replace(' ', "%20");
            let (status, body) = engine.get(&format!("/v1/deeds?county={county}&query={encoded}&limit=1000"));
            assert_eq!(status, 200, "{body}");
            let numbers: Vec<&str> =
                body["deeds"].as_array().unwrap().iter().map(|d| d["instrumentNumber"].as_str().unwrap()).collect();
            assert!(numbers.contains(&number.as_str()), "{query} in {county}: {numbers:?}");
        }
    }
}
