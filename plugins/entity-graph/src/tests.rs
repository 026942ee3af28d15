//! Handler tests: a small hand-made body of every source route (expected nodes and edges worked out by hand),
//! and degraded hosts lacking or garbling sources. The real plugins' answers are exercised black-box in
//! `tests/tests/entity_graph.rs`. Every response is also checked against the OpenAPI fragment's schemas by a
//! small validator below.

use datahost_plugin_api::testing::{get, manifest_problems, TestHost};
use datahost_plugin_api::Plugin;
use serde_json::{json, Value};

use crate::{EntityGraph, ROUTE};

fn meta() -> Value {
    json!({"generatedAt": "2026-10-01T00:00:00Z", "source": "test fixture", "sourceUrl": "https://example.gov/src",
           "caveat": "fixture"})
}

/// The route each dataset is read from.
fn route_of(dataset: &str) -> &'static str {
    crate::graph::SOURCES.iter().find(|(d, _, _)| *d == dataset).map(|(_, r, _)| *r).expect("a source")
}

/// What each source route answers, in the shape the owning plugin serves (hand-made, small).
fn fixture(dataset: &str) -> Value {
    let mut body = match dataset {
        "insiders" => json!({"companies": [
            {"ticker": "ACME", "company": "Acme Widgets, Inc.", "cik": "0000000001", "ceo": "Ada Stone", "filings": [
              {"owner": "Ada Stone", "title": "Chief Executive Officer, Director", "code": "S",
               "accessionNumber": "0000000001-26-000002", "sourceUrl": "https://example.gov/a2",
               "date": "2026-09-10", "filedDate": "2026-09-12", "shares": 100, "price": 10.0},
              {"owner": "Ada Stone", "title": "Chief Executive Officer", "code": "M",
               "accessionNumber": "0000000001-26-000001", "sourceUrl": "https://example.gov/a1",
               "date": "2026-08-01", "filedDate": "2026-08-03"},
              {"owner": "Ben Ore", "title": "Director", "code": "P", "accessionNumber": "0000000001-26-000003",
               "sourceUrl": "not a url", "date": "2026-07-01", "filedDate": "2026-07-02", "someNewField": {"x": 1}},
              {"owner": " ", "title": "", "code": "S", "accessionNumber": "9", "date": "2026-07-01"},
              "not a record"]},
            {"ticker": "", "company": "No Ticker Co", "filings": [{"owner": "Orphan Person", "code": "S"}]}]}),
        "lobbying" => json!({"companies": [
            {"name": "Acme Widgets Inc.", "ticker": "ACME", "clientName": "Acme Widgets Holdings LLC", "year": 2026,
             "totalSpendUsd": 30000, "filingCount": 1, "quarters": [{"period": "2026-Q1", "amount": 30000}]},
            {"name": "Acme Widgets Inc.", "ticker": "ACME", "clientName": "Acme Widgets Holdings LLC", "year": 2025,
             "totalSpendUsd": 30000.5, "filingCount": 2,
             "quarters": [{"period": "2025-Q1", "amount": 10000}, {"period": "2025-Q2", "amount": 20000.5}]}]}),
        "contracts" => json!({"companies": [
            {"name": "Acme Widgets, Inc.", "ticker": "ACME", "totalObligatedUsd": 1000250.456, "awardCount": 2,
             "topAwards": [
               {"awardId": "W1", "awardType": "C", "amount": 1000000.456, "agency": "Department of Defense",
                "description": "WIDGETS", "date": "2024-05-01"},
               {"awardId": "W3", "awardType": "A", "amount": 250, "agency": "General Services Administration",
                "description": "BPA CALL", "date": "2025-01-15"}]},
            {"name": "Bolt Motors Corporation", "ticker": "BOLT", "totalObligatedUsd": 7000, "awardCount": 1,
             "topAwards": [{"awardId": "B1", "awardType": "D", "amount": 7000, "agency": "Department of Defense",
                            "description": "BOLTS", "date": "2025-02-02"}]}]}),
        "donors" => json!({"companies": [
            {"name": "Acme Widgets, Inc.", "ticker": "ACME", "pacName": "Acme Widgets PAC", "committeeId": "C00000001",
             "cycle": "2026", "note": "n", "totalContributionsUsd": 5000, "demPct": 20.0, "repPct": 60.0,
             "contributionCount": 3, "provenance": {"sourceUrl": "https://example.gov/committee/C00000001"}}]}),
        "patents" => json!({"companies": [
            {"name": "Acme Widgets, Inc.", "ticker": "ACME", "assigneeMatched": "Acme Widgets, Inc.", "note": "n",
             "grantedLast12mo": 2, "grantedPrior12mo": 1, "ingested": {"recentGrants": [
               {"patentNumber": "102", "grantDate": "2025-12-01", "sourceUrl": "https://example.gov/patent/102"},
               {"patentNumber": "100", "grantDate": "2026-10-01", "sourceUrl": "https://example.gov/patent/100"}]}},
            {"name": "Idle Labs Inc.", "ticker": "IDLE", "assigneeMatched": "Idle Labs Inc.", "note": "n",
             "grantedLast12mo": 0, "grantedPrior12mo": 0}]}),
        "congress-trades" => json!({"filings": [
            {"member": "Cora Vance", "docId": "20020001", "year": 2026, "filedDate": "2026-09-20",
             "sourceUrl": "https://example.gov/ptr/20020001.pdf", "trades": [
               {"ticker": "acme", "asset": "Acme Widgets, Inc. - Common Stock", "type": "purchase",
                "amountRange": "$1,001 - $15,000", "date": "2026-09-01", "bundled": false},
               {"ticker": "BOLT", "asset": "Bolt Motors Corp - Common Stock", "type": "sale",
                "amountRange": "Over $50,000,000", "date": "2026-09-02", "bundled": true}]}]}),
        "senate-trades" => json!({"filings": [
            {"member": "Dale Price", "chamber": "senate", "docId": "0a1b2c3d-0000-4000-8000-000000000001",
             "year": 2026, "filedDate": "2026-08-15", "trades": [
               {"ticker": "ACME", "asset": "Acme Widgets Inc", "type": "sale (partial)",
                "amountRange": "$15,001 - $50,000", "date": "2026-08-01"}]}]}),
        "institutional-holdings" => json!({"filings": [
            {"cik": "0000000777", "filer": "Quarry Lake Capital LP", "accession": "0000000777-26-000002",
             "form": "13F-HR", "periodOfReport": "2026-09-30", "filedDate": "2026-10-20",
             "sourceUrl": "https://example.gov/13f/0000000777-26-000002", "holdings": [
               {"nameOfIssuer": "ACME WIDGETS INC", "titleOfClass": "COM", "cusip": "000111101",
                "valueUsd": 500000, "shares": 1000, "putCall": null},
               {"nameOfIssuer": "ACME WDGTS INC CL B", "titleOfClass": "CL B", "cusip": "000111200",
                "valueUsd": 20000, "shares": 100, "putCall": "Put"},
               {"nameOfIssuer": "BLT MTR CP", "titleOfClass": "COM", "cusip": "000222100",
                "valueUsd": 300, "shares": 3, "putCall": null,
                "issuer": {"cik": "0000000002", "ticker": "BOLT", "name": "Bolt Motors Corporation"}},
               {"nameOfIssuer": "UNKNOWN HLDGS INC", "titleOfClass": "COM", "cusip": "999999109",
                "valueUsd": 1, "shares": 1, "putCall": null}]},
            {"cik": "777", "filer": "Quarry Lake Capital LP", "accession": "0000000777-26-000001",
             "form": "13F-HR", "periodOfReport": "2026-06-30", "filedDate": "2026-07-20", "holdings": [
               {"nameOfIssuer": "ACME WIDGETS INC", "titleOfClass": "COM", "cusip": "000111101",
                "valueUsd": 1, "shares": 1, "putCall": null}]}]}),
        other => panic!("no fixture for {other}"),
    };
    body["dataStatus"] = json!("ingested");
    body["meta"] = meta();
    body
}

fn host_with(datasets: &[&str]) -> TestHost {
    let host = TestHost::new();
    for d in datasets {
        host.set_route(route_of(d), fixture(d));
    }
    host
}

fn fixture_plugin() -> EntityGraph {
    host_with(&crate::READS).init::<EntityGraph>().expect("init")
}

/// `(relation, source, target)` of every edge, in response order.
fn triples(body: &Value) -> Vec<(String, String, String)> {
    body["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            (s("relation"), s("source"), s("target"))
        })
        .collect()
}

fn ids(body: &Value) -> Vec<&str> {
    body["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect()
}

fn edge<'a>(body: &'a Value, relation: &str, source: &str) -> Vec<&'a Value> {
    body["edges"].as_array().unwrap().iter().filter(|e| e["relation"] == relation && e["source"] == source).collect()
}

fn ok(plugin: &EntityGraph, query: &[(&str, &str)]) -> Value {
    let (status, body) = get(plugin, ROUTE, query);
    assert_eq!(status, 200, "{query:?}: {body}");
    check_schema(&body);
    body
}

fn t(r: &str, s: &str, d: &str) -> (String, String, String) {
    (r.into(), s.into(), d.into())
}

#[test]
fn manifest_is_valid_and_pro() {
    assert_eq!(manifest_problems::<EntityGraph>(), Vec::<String>::new());
    let m = EntityGraph::manifest();
    assert_eq!(m.maturity, datahost_plugin_api::Maturity::Pro);
    assert_eq!(m.routes[0].min_tier, datahost_plugin_api::Tier::Pro);
    let mut reads = m.reads.clone();
    reads.sort();
    assert_eq!(
        reads,
        [
            "congress-trades",
            "contracts",
            "donors",
            "insiders",
            "institutional-holdings",
            "lobbying",
            "patents",
            "senate-trades"
        ]
    );
    assert!(EntityGraph::seeds().is_empty(), "the graph ships no data of its own");
    assert!(m.openapi.pointer("/paths/~1v1~1entity-graph/get/responses/404").is_some());
}

#[test]
fn hand_checked_graph_for_one_ticker() {
    let p = fixture_plugin();
    let body = ok(&p, &[("ticker", "acme")]);
    assert_eq!(
        body["entity"],
        json!({"id": "company:ACME", "type": "company", "label": "Acme Widgets, Inc.", "matchedBy": "ticker"})
    );
    // Newest provenance date first; same date: relation, source, target, then dataset order.
    assert_eq!(
        triples(&body),
        vec![
            t("holds", "filer:0000000777", "company:ACME"), // 2026-10-20, matched by name
            t("holds", "filer:0000000777", "company:ACME"), // 2026-10-20, matched by CUSIP issuer code
            t("granted-patent", "agency:uspto", "company:ACME"), // 2026-10-01 (newest grant listed)
            t("traded", "member:cora-vance", "company:ACME"), // 2026-09-20
            t("insider-of", "person:ada-stone", "company:ACME"), // 2026-09-12
            t("traded", "member:dale-price", "company:ACME"), // 2026-08-15
            t("insider-of", "person:ben-ore", "company:ACME"), // 2026-07-02
            t("awarded-contract", "agency:general-services-administration", "company:ACME"), // 2025-01-15
            t("awarded-contract", "agency:department-of-defense", "company:ACME"), // 2024-05-01
            // Undated last (the lobbying and donors bodies give totals, not filing dates): by relation.
            t("lobbied", "company:ACME", "agency:federal-government"), // year 2026
            t("lobbied", "company:ACME", "agency:federal-government"), // year 2025
            t("donated", "committee:C00000001", "company:ACME"),
        ]
    );
    assert_eq!(
        ids(&body),
        [
            "company:ACME",
            "person:ada-stone",
            "person:ben-ore",
            "member:cora-vance",
            "member:dale-price",
            "agency:department-of-defense",
            "agency:federal-government",
            "agency:general-services-administration",
            "agency:uspto",
            "filer:0000000777",
            "committee:C00000001",
        ]
    );
    assert_eq!(body["count"], json!({"nodes": 11, "edges": 12}));
    let acme = &body["nodes"][0];
    assert_eq!(acme["distance"], 0);
    assert_eq!(
        (acme["ticker"].as_str(), acme["cik"].as_str(), acme["ceo"].as_str()),
        (Some("ACME"), Some("0000000001"), Some("Ada Stone"))
    );
    assert_eq!(acme["datasets"].as_array().unwrap().len(), 8, "{acme}");
    assert!(body["nodes"].as_array().unwrap()[1..].iter().all(|n| n["distance"] == 1));
    let meta = &body["meta"];
    assert_eq!(meta["datasetsUnavailable"], json!([]));
    assert_eq!(meta["datasets"].as_array().unwrap().len(), 8);
    assert_eq!(meta["datasetsLinked"].as_array().unwrap().len(), 8);
    assert_eq!(
        (meta["truncated"].as_bool(), meta["edgesTotal"].as_u64(), meta["depth"].as_u64()),
        (Some(false), Some(12), Some(1))
    );
    assert_eq!(meta["limit"], 200);
    assert_eq!(meta["generatedAt"], "2026-10-01T00:00:00Z");
    assert!(!meta["caveat"].as_str().unwrap().contains("DEMO"), "the fixture is not labelled demo");
}

#[test]
fn hand_checked_edge_fields_and_provenance() {
    let p = fixture_plugin();
    let body = ok(&p, &[("ticker", "ACME")]);

    let holds = edge(&body, "holds", "filer:0000000777");
    assert_eq!(holds[0]["valueUsd"], 500000);
    assert_eq!((holds[0]["matchedBy"].as_str(), holds[0]["putCall"].is_null()), (Some("name"), true));
    assert_eq!((holds[1]["matchedBy"].as_str(), holds[1]["putCall"].as_str()), (Some("cusip"), Some("Put")));
    assert_eq!(holds[1]["valueUsd"], 20000);
    assert_eq!(
        holds[0]["provenance"],
        json!({"sourceUrl": "https://example.gov/13f/0000000777-26-000002",
               "accession": "0000000777-26-000002", "date": "2026-10-20"}),
        "the latest filing only, with the address its body gives"
    );

    let patent = &edge(&body, "granted-patent", "agency:uspto")[0];
    // The counts as /v1/patents serves them; the newest listed grant (100, 2026-10-01) is the provenance.
    assert_eq!((patent["grantedLast12mo"].as_u64(), patent["grantedPrior12mo"].as_u64()), (Some(2), Some(1)));
    assert_eq!(
        patent["provenance"],
        json!({"sourceUrl": "https://example.gov/patent/100", "docId": "100", "date": "2026-10-01"})
    );
    assert!(ok(&p, &[("ticker", "IDLE")])["edges"].as_array().unwrap().is_empty(), "no grant counted, no edge");

    let house = &edge(&body, "traded", "member:cora-vance")[0];
    assert_eq!(
        (house["type"].as_str(), house["amountMin"].as_u64(), house["amountMax"].as_u64()),
        (Some("purchase"), Some(1001), Some(15000))
    );
    assert_eq!((house["date"].as_str(), house["bundled"].as_bool()), (Some("2026-09-01"), Some(false)));
    assert_eq!(
        house["provenance"],
        json!({"sourceUrl": "https://example.gov/ptr/20020001.pdf", "docId": "20020001", "date": "2026-09-20"})
    );
    let senate = &edge(&body, "traded", "member:dale-price")[0];
    assert_eq!(senate["dataset"], "senate-trades");
    assert!(senate.get("bundled").is_none());
    assert_eq!(
        senate["provenance"]["sourceUrl"], "https://example.gov/src",
        "a filing without its own address gets the dataset's; the graph never builds an official address"
    );

    let ada = &edge(&body, "insider-of", "person:ada-stone")[0];
    assert_eq!(ada["title"], "Chief Executive Officer, Director");
    assert_eq!(
        (ada["code"].as_str(), ada["filingCount"].as_u64(), ada["transactionCount"].as_u64()),
        (Some("S"), Some(2), Some(2))
    );
    assert_eq!(
        ada["provenance"],
        json!({"sourceUrl": "https://example.gov/a2", "accession": "0000000001-26-000002", "date": "2026-09-12"})
    );
    let ben = &edge(&body, "insider-of", "person:ben-ore")[0];
    assert_eq!(
        ben["provenance"]["sourceUrl"], "https://example.gov/src",
        "a row URL that is not one falls back to the dataset's"
    );

    let lobbied = edge(&body, "lobbied", "company:ACME");
    assert_eq!((lobbied[0]["year"].as_u64(), lobbied[0]["spendUsd"].as_u64()), (Some(2026), Some(30000)));
    assert_eq!(lobbied[1]["year"], 2025);
    assert_eq!(lobbied[1]["spendUsd"], 30000.5);
    assert_eq!(
        (lobbied[1]["quarters"].clone(), lobbied[1]["filingCount"].as_u64()),
        (json!(["2025-Q1", "2025-Q2"]), Some(2))
    );
    assert_eq!(lobbied[1]["provenance"], json!({"sourceUrl": "https://example.gov/src"}));

    let pac = &edge(&body, "donated", "committee:C00000001")[0];
    assert_eq!((pac["totalContributionsUsd"].as_u64(), pac["contributionCount"].as_u64()), (Some(5000), Some(3)));
    assert_eq!(
        (pac["demPct"].as_f64(), pac["repPct"].as_f64(), pac["cycle"].as_str()),
        (Some(20.0), Some(60.0), Some("2026"))
    );
    assert_eq!(
        pac["provenance"],
        json!({"sourceUrl": "https://example.gov/committee/C00000001", "docId": "C00000001"})
    );

    let dod = &edge(&body, "awarded-contract", "agency:department-of-defense");
    assert_eq!(dod.len(), 1);
    assert_eq!((dod[0]["amount"].as_f64(), dod[0]["awardId"].as_str()), (Some(1000000.46), Some("W1")));
    assert_eq!(
        dod[0]["provenance"],
        json!({"sourceUrl": "https://example.gov/src", "docId": "W1", "date": "2024-05-01"})
    );
    let bolt = ok(&p, &[("ticker", "BOLT")]);
    let bolt = &edge(&bolt, "holds", "filer:0000000777")[0];
    assert_eq!(bolt["matchedBy"], "issuer", "the holdings dataset resolved BLT MTR CP to BOLT");
}

#[test]
fn depth_two_expands_non_hub_neighbours() {
    let p = fixture_plugin();
    let body = ok(&p, &[("ticker", "ACME"), ("depth", "2")]);
    let all = triples(&body);
    assert_eq!(all.len(), 15);
    assert_eq!(
        all[12..],
        [
            t("holds", "filer:0000000777", "company:BOLT"),
            t("traded", "member:cora-vance", "company:BOLT"),
            t("awarded-contract", "agency:department-of-defense", "company:BOLT"),
        ]
    );
    let bolt = body["nodes"].as_array().unwrap().iter().find(|n| n["id"] == "company:BOLT").unwrap();
    assert_eq!(bolt["distance"], 2);
    assert_eq!(bolt["label"], "Bolt Motors Corporation", "company datasets name it before trade assets do");
    assert_eq!(ids(&body).last(), Some(&"company:BOLT"), "distance orders the nodes");
    assert_eq!(body["meta"]["depth"], 2);

    // From BOLT, depth 2 reaches ACME through the filer, the member and the Department of Defense.
    let bolt = ok(&p, &[("ticker", "BOLT"), ("depth", "2")]);
    assert_eq!(bolt["edges"].as_array().unwrap().len(), 3 + 2 + 1 + 1);
}

#[test]
fn limit_truncates_edges_and_their_nodes() {
    let p = fixture_plugin();
    let body = ok(&p, &[("ticker", "ACME"), ("limit", "3")]);
    assert_eq!(
        triples(&body),
        [
            t("holds", "filer:0000000777", "company:ACME"),
            t("holds", "filer:0000000777", "company:ACME"),
            t("granted-patent", "agency:uspto", "company:ACME"),
        ]
    );
    assert_eq!(ids(&body), ["company:ACME", "agency:uspto", "filer:0000000777"]);
    assert_eq!(body["count"], json!({"nodes": 3, "edges": 3}));
    assert_eq!((body["meta"]["truncated"].as_bool(), body["meta"]["edgesTotal"].as_u64()), (Some(true), Some(12)));
    let body = ok(&p, &[("ticker", "ACME"), ("limit", "5000")]);
    assert_eq!((body["meta"]["limit"].as_u64(), body["meta"]["truncated"].as_bool()), (Some(1000), Some(false)));
    let body = ok(&p, &[("ticker", "ACME"), ("limit", "12")]);
    assert_eq!(body["meta"]["truncated"], false);
}

#[test]
fn entity_resolution() {
    let p = fixture_plugin();
    let found = |q: &str| {
        let body = ok(&p, &[("entity", q)]);
        (body["entity"]["id"].as_str().unwrap().to_string(), body["entity"]["matchedBy"].as_str().unwrap().to_string())
    };
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(found("ADA  stone"), pair("person:ada-stone", "exact"));
    assert_eq!(found("acme"), pair("company:ACME", "exact"), "a ticker is a company's name too");
    assert_eq!(found("Acme Widgets Holdings LLC"), pair("company:ACME", "exact"), "lobbying client name");
    // Matches the company and its PAC: the only company wins.
    assert_eq!(found("acme widgets"), pair("company:ACME", "substring"));
    assert_eq!(found("Acme Widgets PAC"), pair("committee:C00000001", "exact"));
    assert_eq!(found("c00000001"), pair("committee:C00000001", "exact"));
    assert_eq!(found("defense"), pair("agency:department-of-defense", "substring"));
    assert_eq!(found("777"), pair("filer:0000000777", "exact"));
    assert_eq!(found("quarry"), pair("filer:0000000777", "substring"));
    assert_eq!(found("filer:0000000777"), pair("filer:0000000777", "exact"));
    assert_eq!(found("vance"), pair("member:cora-vance", "substring"));

    let person = ok(&p, &[("entity", "Ben Ore")]);
    assert_eq!(triples(&person), [t("insider-of", "person:ben-ore", "company:ACME")]);
    assert_eq!(ids(&person), ["person:ben-ore", "company:ACME"]);
    let member = ok(&p, &[("entity", "Cora Vance")]);
    assert_eq!(member["entity"]["type"], "member");
    assert_eq!(member["nodes"][0]["chamber"], "house");
    assert_eq!(ok(&p, &[("entity", "Dale Price")])["nodes"][0]["chamber"], "senate");

    // Several match and none (or more than one) is a company: 400 listing candidates by type and label.
    let (status, err) = get(&p, ROUTE, &[("entity", "ce")]);
    assert_eq!(status, 400);
    assert_eq!(
        err["error"],
        "entity `ce` matches several entities; give an exact name or a node id, for example: \
         Cora Vance (member:cora-vance); Dale Price (member:dale-price); General Services Administration (agency:general-services-administration); \
         United States Patent and Trademark Office (agency:uspto)"
    );
    let (status, err) = get(&p, ROUTE, &[("entity", "o")]);
    assert_eq!(status, 400, "two companies match: {err}");

    let (status, err) = get(&p, ROUTE, &[("entity", "Nobody Here")]);
    assert_eq!((status, err["error"].as_str()), (404, Some("no entity in the graph is named `Nobody Here`")));
}

#[test]
fn bad_parameters() {
    let p = fixture_plugin();
    for (query, status, message) in [
        (vec![], 400, "ticker or entity is required"),
        (vec![("ticker", " "), ("entity", "")], 400, "ticker or entity is required"),
        (vec![("depth", "2")], 400, "ticker or entity is required"),
        (vec![("ticker", "ACME"), ("entity", "acme")], 400, "give either ticker or entity, not both"),
        (vec![("ticker", "ACME"), ("depth", "3")], 400, "depth must be 1 or 2, got `3`"),
        (vec![("ticker", "ACME"), ("depth", "one")], 400, "depth must be 1 or 2, got `one`"),
        (vec![("ticker", "ACME"), ("depth", "0")], 400, "depth must be 1 or 2, got `0`"),
        (vec![("ticker", "ACME"), ("limit", "0")], 400, "limit must be a positive integer, got `0`"),
        (vec![("ticker", "A B")], 400, "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `A B`"),
        (vec![("ticker", "ZZZZ")], 404, "no dataset in the graph links ticker `ZZZZ`"),
    ] {
        let (got, body) = get(&p, ROUTE, &query);
        assert_eq!((got, body["error"].as_str()), (status, Some(message)), "{query:?}");
        assert_eq!(body["code"], status);
    }
    let long = "x".repeat(201);
    let (status, body) = get(&p, ROUTE, &[("entity", &long)]);
    assert_eq!((status, body["error"].as_str()), (400, Some("entity must be at most 200 characters")));
}

#[test]
fn missing_datasets_degrade_the_graph() {
    let host = host_with(&["insiders", "contracts"]);
    let p = host.init::<EntityGraph>().expect("init never fails on missing datasets");
    let body = ok(&p, &[("ticker", "ACME")]);
    assert_eq!(body["meta"]["datasets"], json!(["contracts", "insiders"]));
    assert_eq!(
        body["meta"]["datasetsUnavailable"],
        json!(["congress-trades", "donors", "institutional-holdings", "lobbying", "patents", "senate-trades"])
    );
    let relations: Vec<String> = triples(&body).into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(relations, ["insider-of", "insider-of", "awarded-contract", "awarded-contract"]);
    assert_eq!(body["meta"]["datasetsLinked"], json!(["contracts", "insiders"]));
    assert!(host.logs().iter().any(|l| l.contains("`lobbying` is unavailable")), "{:?}", host.logs());
    let (status, _) = get(&p, ROUTE, &[("ticker", "BOLT"), ("depth", "2")]);
    assert_eq!(status, 200);
    let (status, _) = get(&p, ROUTE, &[("entity", "Cora Vance")]);
    assert_eq!(status, 404, "no trades dataset, no member");
}

#[test]
fn unreadable_datasets_degrade_the_graph_and_additive_fields_do_not() {
    let host = host_with(&crate::READS);
    host.set_route(route_of("lobbying"), json!("not an object at all"));
    host.set_route(route_of("donors"), json!({"meta": {}, "companies": 5}));
    host.set_route(route_of("patents"), json!([1, 2]));
    // Retyped and extra fields in a record are read as absent or ignored; records that are not objects skipped.
    host.set_route(
        route_of("contracts"),
        json!({"meta": 7, "companies": [null, {"name": "Acme Widgets, Inc.", "ticker": "ACME", "newThing": [1],
           "topAwards": [{"awardId": "W9", "awardType": "A", "amount": "lots", "agency": "Department of Energy",
           "description": 5, "date": "2025-03-03"}, 17]}]}),
    );
    let p = host.init::<EntityGraph>().unwrap();
    let body = ok(&p, &[("ticker", "ACME")]);
    assert_eq!(body["meta"]["datasetsUnavailable"], json!(["donors", "lobbying", "patents"]));
    let energy = &edge(&body, "awarded-contract", "agency:department-of-energy")[0];
    assert_eq!((energy["amount"].as_u64(), energy["description"].as_str()), (Some(0), Some("")));
    assert_eq!(energy["provenance"], json!({"docId": "W9", "date": "2025-03-03"}), "no usable sourceUrl in that meta");
    assert!(host.logs().iter().any(|l| l.contains("skipped 1 records that are not objects")), "{:?}", host.logs());
    // The award `17` inside `topAwards` is counted too, not dropped unsaid.
    assert!(
        host.logs().iter().any(|l| l.contains("contracts: skipped 1 elements of nested lists")),
        "{:?}",
        host.logs()
    );
}

#[test]
fn a_meta_or_data_status_of_another_type_is_logged_not_silently_empty() {
    let host = host_with(&crate::READS);
    let mut contracts = fixture("contracts");
    contracts["meta"] = json!(7);
    contracts["dataStatus"] = json!(["demo"]);
    host.set_route(route_of("contracts"), contracts);
    let p = host.init::<EntityGraph>().unwrap();
    ok(&p, &[("ticker", "ACME")]);
    for field in ["meta", "dataStatus"] {
        let said = format!("contracts: `{field}` is of another JSON type than it should be; read as empty");
        assert!(host.logs().iter().any(|l| l.contains(&said)), "{said}: {:?}", host.logs());
    }
    assert!(!host.logs().iter().any(|l| l.contains("insiders: `meta`")), "{:?}", host.logs());
}

#[test]
fn an_empty_host_still_initialises() {
    let p = TestHost::new().init::<EntityGraph>().unwrap();
    let (status, body) = get(&p, ROUTE, &[("ticker", "NVDA")]);
    assert_eq!((status, body["error"].as_str()), (404, Some("no dataset in the graph links ticker `NVDA`")));
}

#[test]
fn the_graph_is_built_on_the_first_request_not_in_init() {
    // The other plugins may not serve yet while this one initialises: nothing is read until a request comes.
    let host = TestHost::new();
    let p = host.init::<EntityGraph>().unwrap();
    for d in crate::READS {
        host.set_route(route_of(d), fixture(d));
    }
    let body = ok(&p, &[("ticker", "ACME")]);
    assert_eq!(body["meta"]["datasetsUnavailable"], json!([]));
    assert_eq!(body["count"]["edges"], 12);
}

#[test]
fn a_source_serving_its_demo_seed_makes_the_graph_say_demo() {
    let host = host_with(&crate::READS);
    let mut donors = fixture("donors");
    donors["dataStatus"] = json!("demo");
    host.set_route(route_of("donors"), donors);
    let body = ok(&host.init::<EntityGraph>().unwrap(), &[("ticker", "ACME")]);
    assert!(body["meta"]["caveat"].as_str().unwrap().starts_with("DEMO DATA"), "{}", body["meta"]);
    assert!(body["meta"]["source"].as_str().unwrap().contains("DEMO"));
}

#[test]
fn the_openapi_example_matches_the_schema() {
    let example = EntityGraph::manifest().openapi["paths"]["/v1/entity-graph"]["get"]["responses"]["200"]["content"]
        ["application/json"]["example"]
        .clone();
    check_schema(&example);
    let text = example.to_string();
    for official in ["sec.gov", "house.gov", "senate.gov", "fec.gov", "usaspending.gov"] {
        assert!(!text.contains(official), "the example links invented facts to {official}: {text}");
    }
}

// --- A small JSON Schema validator for the subset the fragment uses ---------------------------------------

fn check_schema(body: &Value) {
    let openapi = EntityGraph::manifest().openapi;
    let schemas = &openapi["components"]["schemas"];
    let mut problems = Vec::new();
    validate(&json!({"$ref": "#/components/schemas/EntityGraphResponse"}), body, schemas, "$", &mut problems);
    assert!(problems.is_empty(), "response does not match the schema: {problems:#?}");
}

fn validate(schema: &Value, value: &Value, schemas: &Value, path: &str, problems: &mut Vec<String>) {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        return validate(&schemas[name], value, schemas, path, problems);
    }
    if let Some(options) = schema["anyOf"].as_array() {
        let ok = options.iter().any(|o| {
            let mut p = Vec::new();
            validate(o, value, schemas, path, &mut p);
            p.is_empty()
        });
        if !ok {
            problems.push(format!("{path}: matches no anyOf branch"));
        }
    }
    if let Some(clauses) = schema["allOf"].as_array() {
        for clause in clauses {
            let mut p = Vec::new();
            validate(&clause["if"], value, schemas, path, &mut p);
            if p.is_empty() {
                validate(&clause["then"], value, schemas, path, problems);
            }
        }
    }
    if let Some(c) = schema.get("const") {
        if c != value {
            problems.push(format!("{path}: not {c}"));
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !types.is_empty() {
        let fits = types.iter().any(|t| match *t {
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            "null" => value.is_null(),
            _ => false,
        });
        if !fits {
            problems.push(format!("{path}: {value} is not {types:?}"));
            return;
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        if !values.contains(value) {
            problems.push(format!("{path}: {value} not in {values:?}"));
        }
    }
    if let Some(min) = schema["minimum"].as_f64() {
        if value.as_f64().is_some_and(|v| v < min) {
            problems.push(format!("{path}: {value} below {min}"));
        }
    }
    match (schema["format"].as_str(), value.as_str()) {
        (Some("date"), Some(s)) if datahost_plugin_api::params::parse_date(s).is_none() => {
            problems.push(format!("{path}: `{s}` is not a date"))
        }
        (Some("date-time"), Some(s)) if chrono::DateTime::parse_from_rfc3339(s).is_err() => {
            problems.push(format!("{path}: `{s}` is not a date-time"))
        }
        (Some("uri"), Some(s)) if crate::names::url(s).is_none() => {
            problems.push(format!("{path}: `{s}` is not a URI"))
        }
        _ => {}
    }
    if let Some(pattern) = schema["pattern"].as_str() {
        // The only pattern in the fragment is the lobbying quarter.
        assert_eq!(pattern, "^[0-9]{4}-Q[1-4]$");
        let s = value.as_str().unwrap_or_default();
        let b = s.as_bytes();
        let fits =
            b.len() == 7 && b[..4].iter().all(u8::is_ascii_digit) && &s[4..6] == "-Q" && (b'1'..=b'4').contains(&b[6]);
        if !fits {
            problems.push(format!("{path}: `{s}` does not match {pattern}"));
        }
    }
    if let Some(items) = schema.get("items") {
        for (i, v) in value.as_array().into_iter().flatten().enumerate() {
            validate(items, v, schemas, &format!("{path}[{i}]"), problems);
        }
    }
    if let Some(obj) = value.as_object() {
        for field in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            if !obj.contains_key(field) {
                problems.push(format!("{path}: lacks required `{field}`"));
            }
        }
        if let Some(props) = schema["properties"].as_object() {
            for (k, v) in obj {
                match props.get(k) {
                    Some(s) => validate(s, v, schemas, &format!("{path}.{k}"), problems),
                    // Additional fields are allowed by the schema, but every field emitted should be documented.
                    None => problems.push(format!("{path}: `{k}` is not documented")),
                }
            }
        }
    }
}
