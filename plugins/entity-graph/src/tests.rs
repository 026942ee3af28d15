//! Handler tests: a small hand-made fixture of every dataset (expected nodes and edges worked out by hand),
//! degraded hosts lacking or garbling datasets, and the real seeds of the other plugins. Every response is
//! also checked against the OpenAPI fragment's schemas by a small validator below.

use datahost_plugin_api::testing::{get, manifest_problems, TestHost};
use datahost_plugin_api::{Plugin, Seed};
use serde_json::{json, Value};

use crate::{EntityGraph, ROUTE};

const META: &str = r#""meta": {"generatedAt": "2026-10-01T00:00:00Z", "source": "test fixture", "sourceUrl": "https://example.gov/src", "caveat": "fixture"}"#;

fn fixture(dataset: &str) -> String {
    let body = match dataset {
        "insiders" => {
            r#""companies": [{"ticker": "ACME", "company": "Acme Widgets, Inc.", "cik": "0000000001", "ceo": "Ada Stone"}],
            "filings": [
              {"ticker": "acme", "owner": "Ada Stone", "titles": ["Chief Executive Officer", "Director"], "code": "S",
               "accessionNumber": "0000000001-26-000002", "sourceUrl": "https://www.sec.gov/a2", "date": "2026-09-10",
               "filedDate": "2026-09-12", "shares": 100, "price": 10.0},
              {"ticker": "ACME", "owner": "Ada Stone", "titles": ["Chief Executive Officer"], "code": "M",
               "accessionNumber": "0000000001-26-000001", "sourceUrl": "https://www.sec.gov/a1", "date": "2026-08-01",
               "filedDate": "2026-08-03"},
              {"ticker": "ACME", "owner": "Ben Ore", "titles": ["Director"], "code": "P", "accessionNumber":
               "0000000001-26-000003", "sourceUrl": "not a url", "date": "2026-07-01", "filedDate": "2026-07-02",
               "someNewField": {"x": 1}},
              {"ticker": "ZZZ", "owner": "Orphan Person", "titles": [], "code": "S", "accessionNumber": "9",
               "date": "2026-07-01"},
              "not a record"
            ]"#
        }
        "lobbying" => {
            r#""companies": [{"name": "Acme Widgets Inc.", "ticker": "ACME", "clientName": "Acme Widgets Holdings LLC",
              "filings": [
                {"filingUuid": "aaaa-1", "registrant": "Acme Widgets Holdings LLC", "year": 2025, "quarter": 1,
                 "amount": 10000, "postedDate": "2025-04-20"},
                {"filingUuid": "aaaa-2", "registrant": "Outside Firm LLP", "year": 2025, "quarter": 2,
                 "amount": 20000.5, "postedDate": "2025-07-20"},
                {"filingUuid": "aaaa-3", "registrant": "Acme Widgets Holdings LLC", "year": 2026, "quarter": 1,
                 "amount": 30000, "postedDate": "2026-04-20"}]}]"#
        }
        "contracts" => {
            r#""companies": [
              {"name": "Acme Widgets, Inc.", "ticker": "ACME", "awards": [
                {"awardId": "W1", "awardType": "C", "amount": 1000000.456, "agency": "Department of Defense",
                 "description": "WIDGETS", "date": "2024-05-01"},
                {"awardId": "W0", "awardType": "D", "amount": 5, "agency": "Department of Defense",
                 "description": "BEFORE FY2024", "date": "2023-09-30"},
                {"awardId": "W2", "awardType": "IDV_A", "amount": 5, "agency": "NASA", "description": "IDV",
                 "date": "2024-06-01"},
                {"awardId": "W3", "awardType": "A", "amount": 250, "agency": "General Services Administration",
                 "description": "BPA CALL", "date": "2025-01-15"}]},
              {"name": "Bolt Motors Corporation", "ticker": "BOLT", "awards": [
                {"awardId": "B1", "awardType": "D", "amount": 7000, "agency": "Department of Defense",
                 "description": "BOLTS", "date": "2025-02-02"}]}]"#
        }
        "donors" => {
            r#""companies": [{"name": "Acme Widgets, Inc.", "ticker": "ACME", "pacName": "Acme Widgets PAC",
              "committeeId": "C00000001", "cycle": "2026", "note": "n", "contributions": [
                {"recipient": "X", "party": "D", "amount": 1000, "date": "2025-03-01"},
                {"recipient": "Y", "party": "R", "amount": 3000, "date": "2025-06-01"},
                {"recipient": "Z", "party": "I", "amount": 1000, "date": "2025-05-01"}]}]"#
        }
        "patents" => {
            r#""companies": [{"name": "Acme Widgets, Inc.", "ticker": "ACME", "assigneeMatched": "Acme Widgets, Inc.",
              "note": "n", "grants": [
                {"patentNumber": "100", "grantDate": "2026-10-01", "firstApplicant": "ACME  WIDGETS, INC."},
                {"patentNumber": "101", "grantDate": "2025-06-01", "firstApplicant": "Acme Widgets, Inc."},
                {"patentNumber": "102", "grantDate": "2025-12-01", "firstApplicant": "Acme Widgets, Inc."},
                {"patentNumber": "103", "grantDate": "2026-01-01", "firstApplicant": "Acme Subsidiary LLC"}]}]"#
        }
        "congress-trades" => {
            r#""filings": [{"member": "Cora Vance", "docId": "20020001", "year": 2026, "filedDate": "2026-09-20",
              "trades": [
                {"ticker": "acme", "asset": "Acme Widgets, Inc. - Common Stock", "type": "purchase",
                 "amountRange": "$1,001 - $15,000", "date": "2026-09-01", "bundled": false},
                {"ticker": "BOLT", "asset": "Bolt Motors Corp - Common Stock", "type": "sale",
                 "amountRange": "Over $50,000,000", "date": "2026-09-02", "bundled": true}]}]"#
        }
        "senate-trades" => {
            r#""filings": [{"member": "Dale Price", "chamber": "senate", "docId": "0a1b2c3d-0000-4000-8000-000000000001",
              "year": 2026, "filedDate": "2026-08-15", "trades": [
                {"ticker": "ACME", "asset": "Acme Widgets Inc", "type": "sale (partial)",
                 "amountRange": "$15,001 - $50,000", "date": "2026-08-01"}]}]"#
        }
        "institutional-holdings" => {
            r#""filings": [
              {"cik": "0000000777", "filer": "Quarry Lake Capital LP", "accession": "0000000777-26-000002",
               "form": "13F-HR", "periodOfReport": "2026-09-30", "filedDate": "2026-10-20", "holdings": [
                 {"nameOfIssuer": "ACME WIDGETS INC", "titleOfClass": "COM", "cusip": "000111101",
                  "valueUsd": 500000, "shares": 1000, "putCall": null},
                 {"nameOfIssuer": "ACME WDGTS INC CL B", "titleOfClass": "CL B", "cusip": "000111200",
                  "valueUsd": 20000, "shares": 100, "putCall": "Put"},
                 {"nameOfIssuer": "BOLT MTRS CORP", "titleOfClass": "COM", "cusip": "000222100",
                  "valueUsd": 300, "shares": 3, "putCall": null},
                 {"nameOfIssuer": "UNKNOWN HLDGS INC", "titleOfClass": "COM", "cusip": "999999109",
                  "valueUsd": 1, "shares": 1, "putCall": null}]},
              {"cik": "777", "filer": "Quarry Lake Capital LP", "accession": "0000000777-26-000001",
               "form": "13F-HR", "periodOfReport": "2026-06-30", "filedDate": "2026-07-20", "holdings": [
                 {"nameOfIssuer": "ACME WIDGETS INC", "titleOfClass": "COM", "cusip": "000111101",
                  "valueUsd": 1, "shares": 1, "putCall": null}]}]"#
        }
        other => panic!("no fixture for {other}"),
    };
    format!("{{{META}, {body}}}")
}

fn host_with(datasets: &[&str]) -> TestHost {
    let host = TestHost::new();
    for d in datasets {
        host.set_dataset(d, &fixture(d));
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
            t("granted-patent", "agency:uspto", "company:ACME"), // 2026-10-01
            t("traded", "member:cora-vance", "company:ACME"), // 2026-09-20
            t("insider-of", "person:ada-stone", "company:ACME"), // 2026-09-12
            t("traded", "member:dale-price", "company:ACME"), // 2026-08-15
            t("insider-of", "person:ben-ore", "company:ACME"), // 2026-07-02
            t("lobbied", "company:ACME", "agency:federal-government"), // 2026-04-20 (year 2026)
            t("lobbied", "company:ACME", "agency:federal-government"), // 2025-07-20 (year 2025)
            t("donated", "committee:C00000001", "company:ACME"), // 2025-06-01
            t("awarded-contract", "agency:general-services-administration", "company:ACME"), // 2025-01-15
            t("awarded-contract", "agency:department-of-defense", "company:ACME"), // 2024-05-01
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
        json!({"sourceUrl": "https://www.sec.gov/Archives/edgar/data/777/000000077726000002/",
               "accession": "0000000777-26-000002", "date": "2026-10-20"}),
        "the latest filing only"
    );

    let patent = &edge(&body, "granted-patent", "agency:uspto")[0];
    // Grants to `Acme Widgets, Inc.` (case and spacing ignored): 100 (2026-10-01) and 102 (2025-12-01) fall in
    // the 12 months ending 2026-10-01, 101 (2025-06-01) in the 12 before; 103 is a subsidiary's.
    assert_eq!((patent["grantCount"].as_u64(), patent["grantedLast12mo"].as_u64()), (Some(3), Some(2)));
    assert_eq!(patent["grantedPrior12mo"], 1);
    assert_eq!(patent["provenance"]["docId"], "100");

    let house = &edge(&body, "traded", "member:cora-vance")[0];
    assert_eq!(
        (house["type"].as_str(), house["amountMin"].as_u64(), house["amountMax"].as_u64()),
        (Some("purchase"), Some(1001), Some(15000))
    );
    assert_eq!((house["date"].as_str(), house["bundled"].as_bool()), (Some("2026-09-01"), Some(false)));
    assert_eq!(
        house["provenance"],
        json!({"sourceUrl": "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2026/20020001.pdf",
               "docId": "20020001", "date": "2026-09-20"})
    );
    let senate = &edge(&body, "traded", "member:dale-price")[0];
    assert_eq!(senate["dataset"], "senate-trades");
    assert!(senate.get("bundled").is_none());
    assert_eq!(
        senate["provenance"]["sourceUrl"],
        "https://efdsearch.senate.gov/search/view/ptr/0a1b2c3d-0000-4000-8000-000000000001/"
    );

    let ada = &edge(&body, "insider-of", "person:ada-stone")[0];
    assert_eq!(ada["title"], "Chief Executive Officer, Director");
    assert_eq!(
        (ada["code"].as_str(), ada["filingCount"].as_u64(), ada["transactionCount"].as_u64()),
        (Some("S"), Some(2), Some(2))
    );
    assert_eq!(
        ada["provenance"],
        json!({"sourceUrl": "https://www.sec.gov/a2", "accession": "0000000001-26-000002", "date": "2026-09-12"})
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
    assert_eq!(lobbied[1]["quarters"], json!(["2025-Q1", "2025-Q2"]));
    assert_eq!(lobbied[1]["registrants"], json!(["Acme Widgets Holdings LLC", "Outside Firm LLP"]));
    assert_eq!(
        lobbied[1]["provenance"],
        json!({"sourceUrl": "https://lda.senate.gov/filings/public/filing/aaaa-2/print/", "docId": "aaaa-2", "date": "2025-07-20"})
    );

    let pac = &edge(&body, "donated", "committee:C00000001")[0];
    // 1000 D + 3000 R + 1000 I = 5000: D 20.0 %, R 60.0 %.
    assert_eq!((pac["totalContributionsUsd"].as_u64(), pac["contributionCount"].as_u64()), (Some(5000), Some(3)));
    assert_eq!((pac["demPct"].as_f64(), pac["repPct"].as_f64()), (Some(20.0), Some(60.0)));
    assert_eq!(pac["provenance"]["sourceUrl"], "https://www.fec.gov/data/committee/C00000001/");
    assert_eq!(pac["provenance"]["date"], "2025-06-01");

    let dod = &edge(&body, "awarded-contract", "agency:department-of-defense");
    assert_eq!(dod.len(), 1, "W0 is before fiscal year 2024");
    assert_eq!((dod[0]["amount"].as_f64(), dod[0]["awardId"].as_str()), (Some(1000000.46), Some("W1")));
    assert_eq!(
        dod[0]["provenance"],
        json!({"sourceUrl": "https://example.gov/src", "docId": "W1", "date": "2024-05-01"})
    );
    assert!(edge(&body, "awarded-contract", "agency:nasa").is_empty(), "IDVs are not counted");
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
    host.set_dataset("lobbying", "not json at all");
    host.set_dataset("donors", r#"{"meta": {}, "companies": 5}"#);
    host.set_dataset("patents", r#"[1, 2]"#);
    // Retyped and extra fields in a record are read as absent or ignored; records that are not objects skipped.
    host.set_dataset(
        "contracts",
        r#"{"meta": 7, "companies": [null, {"name": "Acme Widgets, Inc.", "ticker": "ACME", "newThing": [1],
           "awards": [{"awardId": "W9", "awardType": "A", "amount": "lots", "agency": "Department of Energy",
           "description": 5, "date": "2025-03-03"}, 17]}]}"#,
    );
    let p = host.init::<EntityGraph>().unwrap();
    let body = ok(&p, &[("ticker", "ACME")]);
    assert_eq!(body["meta"]["datasetsUnavailable"], json!(["donors", "lobbying", "patents"]));
    let energy = &edge(&body, "awarded-contract", "agency:department-of-energy")[0];
    assert_eq!((energy["amount"].as_u64(), energy["description"].as_str()), (Some(0), Some("")));
    assert_eq!(energy["provenance"], json!({"docId": "W9", "date": "2025-03-03"}), "no usable sourceUrl in that meta");
}

#[test]
fn an_empty_records_engine_still_initialises() {
    let p = TestHost::new().init::<EntityGraph>().unwrap();
    let (status, body) = get(&p, ROUTE, &[("ticker", "NVDA")]);
    assert_eq!((status, body["error"].as_str()), (404, Some("no dataset in the graph links ticker `NVDA`")));
}

fn real_seeds() -> TestHost {
    let seeds = [
        ("congress-trades", include_str!("../../congress-trades/seed/congress-trades.json")),
        ("senate-trades", include_str!("../../senate-trades/seed/senate-trades.json")),
        ("insiders", include_str!("../../insiders/seed/insiders.json")),
        ("lobbying", include_str!("../../lobbying/seed/lobbying.json")),
        ("contracts", include_str!("../../contracts/seed/contracts.json")),
        ("donors", include_str!("../../donors/seed/donors.json")),
        ("patents", include_str!("../../patents/seed/patents.json")),
        ("institutional-holdings", include_str!("../../institutional-holdings/seed/institutional-holdings.json")),
    ];
    TestHost::new().with_seeds(seeds.into_iter().map(|(d, s)| Seed::new(d, s)).collect())
}

#[test]
fn real_seeds_link_a_well_covered_ticker_across_datasets() {
    let host = real_seeds();
    let p = host.init::<EntityGraph>().unwrap();
    let body = ok(&p, &[("ticker", "nvda"), ("limit", "1000")]);
    assert_eq!(body["meta"]["datasetsUnavailable"], json!([]));
    let linked = body["meta"]["datasetsLinked"].as_array().unwrap();
    assert!(linked.len() >= 4, "NVDA links {linked:?}");
    for d in ["congress-trades", "senate-trades", "insiders", "institutional-holdings", "patents"] {
        assert!(linked.iter().any(|l| l == d), "NVDA should link {d}: {linked:?}");
    }
    assert_eq!(body["entity"]["label"], "NVIDIA Corporation");
    assert!(body["meta"]["caveat"].as_str().unwrap().starts_with("DEMO DATA"));
    assert!(body["meta"]["source"].as_str().unwrap().contains("DEMO"));

    // Most 13F rows of companies the other datasets know are linked, by name or by CUSIP issuer code.
    let msft = ok(&p, &[("ticker", "MSFT"), ("limit", "1000")]);
    assert!(edge(&msft, "holds", "filer:0001811234").len() == 1, "{}", msft["edges"]);
    let googl = ok(&p, &[("ticker", "GOOGL"), ("limit", "1000")]);
    let classes: std::collections::BTreeSet<&str> = googl["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["relation"] == "holds")
        .map(|e| e["cusip"].as_str().unwrap())
        .collect();
    assert!(classes.contains("02079K305"), "Alphabet class A links to GOOGL: {classes:?}");
    let lmt = ok(&p, &[("entity", "lockheed"), ("limit", "1000")]);
    assert_eq!(lmt["entity"]["id"], "company:LMT");
    let relations: std::collections::BTreeSet<&str> =
        lmt["edges"].as_array().unwrap().iter().map(|e| e["relation"].as_str().unwrap()).collect();
    for r in ["traded", "insider-of", "lobbied", "awarded-contract", "donated", "holds"] {
        assert!(relations.contains(r), "LMT lacks {r}: {relations:?}");
    }
    assert!(host.logs().iter().any(|l| l.contains("holdings linked")), "{:?}", host.logs());
}

#[test]
fn real_seed_responses_match_the_schema_everywhere() {
    let p = real_seeds().init::<EntityGraph>().unwrap();
    for query in [
        vec![("ticker", "AAPL"), ("depth", "2"), ("limit", "1000")],
        vec![("ticker", "LMT"), ("depth", "2"), ("limit", "1000")],
        vec![("ticker", "SPY"), ("depth", "2"), ("limit", "1000")],
        vec![("entity", "Department of Defense"), ("depth", "2"), ("limit", "1000")],
        vec![("entity", "Granite Harbor"), ("depth", "2"), ("limit", "1000")],
        vec![("entity", "avery hollister"), ("depth", "2"), ("limit", "1000")],
        vec![("entity", "Mitchell Tarrant"), ("depth", "2")],
        vec![("entity", "agency:uspto"), ("limit", "1000")],
        vec![("entity", "agency:federal-government")],
    ] {
        let body = ok(&p, &query);
        let nodes: std::collections::HashSet<&str> = ids(&body).into_iter().collect();
        for e in body["edges"].as_array().unwrap() {
            assert!(nodes.contains(e["source"].as_str().unwrap()) && nodes.contains(e["target"].as_str().unwrap()));
            let prov = &e["provenance"];
            assert!(prov["sourceUrl"].is_string() || prov["accession"].is_string() || prov["docId"].is_string(), "{e}");
        }
        assert_eq!(body["count"]["edges"].as_u64(), Some(body["edges"].as_array().unwrap().len() as u64));
    }
    let example = EntityGraph::manifest().openapi["paths"]["/v1/entity-graph"]["get"]["responses"]["200"]["content"]
        ["application/json"]["example"]
        .clone();
    check_schema(&example);
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
