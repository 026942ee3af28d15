//! Black-box tests of `/v1/entity-graph` (pro): the graph the plugin builds from eight other plugins' public
//! routes (demo seeds, then real ingested filings), the internal route it reads that clients cannot, the
//! pro-tier gate, and the parameter errors.

use std::collections::HashSet;

use datahost_tests::{assert_envelope, corpus, Server, ServerOptions};
use serde_json::Value;

/// Official hosts: a demo graph must not cite them for invented facts.
const OFFICIAL_HOSTS: [&str; 6] = ["sec.gov", "house.gov", "senate.gov", "fec.gov", "usaspending.gov", "uspto.gov"];

#[test]
fn owner_gets_a_linked_graph() {
    let server = Server::start();
    // LMCS is the demo universe's chip maker, covered by several demo seeds.
    let (status, body) = server.get("/v1/entity-graph?ticker=lmcs&limit=1000");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["entity"]["id"], "company:LMCS");
    assert_eq!(body["entity"]["type"], "company");
    assert_eq!(body["meta"]["datasetsUnavailable"], serde_json::json!([]), "every dataset plugin is loaded");
    let linked: Vec<&str> =
        body["meta"]["datasetsLinked"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    for d in ["insiders", "institutional-holdings", "congress-trades"] {
        assert!(linked.contains(&d), "LMCS should link {d}: {linked:?}");
    }
    assert_eq!(body["dataStatus"], "demo");
    assert!(body["meta"]["caveat"].as_str().unwrap().starts_with("DEMO DATA"), "{}", body["meta"]);

    let nodes = body["nodes"].as_array().unwrap();
    let edges = body["edges"].as_array().unwrap();
    assert_eq!(body["count"]["nodes"].as_u64(), Some(nodes.len() as u64));
    assert_eq!(body["count"]["edges"].as_u64(), Some(edges.len() as u64));
    assert_eq!(nodes[0]["id"], "company:LMCS", "the focus entity comes first");
    let ids: HashSet<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
    for e in edges {
        assert!(ids.contains(e["source"].as_str().unwrap()) && ids.contains(e["target"].as_str().unwrap()), "{e}");
        assert!(e["relation"].is_string() && e["dataset"].is_string() && e["provenance"].is_object(), "{e}");
        let cited = e["provenance"]["sourceUrl"].as_str().unwrap_or_default();
        assert!(!OFFICIAL_HOSTS.iter().any(|h| cited.contains(h)), "a demo edge cites an official address: {e}");
    }
    assert!(body["meta"]["generatedAt"].is_string());

    let (status, small) = server.get("/v1/entity-graph?entity=bulwark%20ridge&depth=2&limit=5");
    assert_eq!(status, 200, "{small}");
    assert_eq!(small["entity"]["id"], "company:BWRD");
    assert_eq!(small["count"]["edges"], 5);
    assert_eq!(small["meta"]["truncated"], true);
}

#[test]
fn the_internal_route_is_not_served_over_http_nor_documented() {
    let server = Server::start();
    let (status, body) = server.get("/internal/institutional-holdings/latest-filings");
    assert_envelope(status, &body, 404);
    let (_, doc) = server.get("/openapi.json");
    let paths: Vec<&String> = doc["paths"].as_object().unwrap().keys().collect();
    assert!(paths.iter().all(|p| !p.starts_with("/internal/")), "{paths:?}");
}

/// Asks for the graph until `ready` holds (the plugins re-initialise on their own after an ingest).
fn graph_when(server: &Server, query: &str, ready: impl Fn(&Value) -> bool) -> Value {
    server.wait_for_route(&format!("/v1/entity-graph?{query}"), ready)
}

#[test]
fn the_graph_follows_real_filings_once_ingested() {
    let (Some(tickers), Some(form4), Some(thirteen_f)) = (
        corpus("sec-misc/company_tickers.json"),
        corpus("sec-form4/0000320193-22-000061.txt"),
        corpus("sec-13f/0001951757-25-000093.nc"),
    ) else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let server = Server::start_with(ServerOptions { data_dir: Some(data.path().to_path_buf()), ..Default::default() });
    for (dataset, file) in [("companies", &tickers), ("insiders", &form4), ("institutional-holdings", &thirteen_f)] {
        let (code, out, err) = server.ingest(dataset, &[file], &[]);
        assert_eq!(code, 0, "{dataset}: {out}{err}");
    }
    let has = |relation: &'static str| {
        move |b: &Value| b["edges"].as_array().unwrap().iter().any(|e| e["relation"] == relation)
    };
    let body = graph_when(&server, "ticker=AAPL&limit=1000", |b| has("insider-of")(b) && has("holds")(b));

    // 0000320193-22-000061.txt: Apple's Form 4 for Adams Katherine L., filed 2022-05-06 (SEC-HEADER FILED AS OF
    // DATE 20220506); the issuer is Apple Inc., CIK 0000320193.
    let insider = body["edges"].as_array().unwrap().iter().find(|e| e["relation"] == "insider-of").unwrap();
    assert_eq!(insider["source"], "person:adams-katherine-l", "{insider}");
    assert_eq!(insider["target"], "company:AAPL");
    assert_eq!(insider["provenance"]["accession"], "0000320193-22-000061");
    assert_eq!(insider["provenance"]["date"], "2022-05-06");
    assert_eq!(
        insider["provenance"]["sourceUrl"],
        "https://www.sec.gov/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.txt"
    );
    // 0001951757-25-000093.nc: ACORN CREEK CAPITAL LLC (CIK 0001994827) held APPLE INC, CUSIP 037833100, 18577
    // shares worth $4,652,092 at 2024-12-31 (a 2024 filing reports dollars).
    let holds = body["edges"].as_array().unwrap().iter().find(|e| e["relation"] == "holds").unwrap();
    assert_eq!(holds["source"], "filer:0001994827", "{holds}");
    assert_eq!((holds["shares"].as_f64(), holds["valueUsd"].as_f64()), (Some(18577.0), Some(4_652_092.0)));
    assert_eq!((holds["cusip"].as_str(), holds["matchedBy"].as_str()), (Some("037833100"), Some("issuer")));
    assert_eq!(holds["provenance"]["accession"], "0001951757-25-000093");
    let apple = body["nodes"].as_array().unwrap().iter().find(|n| n["id"] == "company:AAPL").unwrap();
    assert_eq!(apple["cik"], "0000320193");
    // The demo insiders are gone from the graph with the demo seed they came from.
    let (status, _) = server.get("/v1/entity-graph?entity=Horatio%20Coldridge");
    assert_eq!(status, 404, "a demo CEO still appears after real Form 4s were ingested");
}

#[test]
fn free_tier_is_refused_with_403() {
    let server = Server::start();
    let free = server.issue_key("free");
    let (status, body) = server.get_with("/v1/entity-graph?ticker=LMCS", &[("X-API-Key", &free)]);
    assert_envelope(status, &body, 403);
    assert!(body["error"].as_str().unwrap().contains("pro"), "{body}");

    let pro = server.issue_key("pro");
    let (status, body) = server.get_with("/v1/entity-graph?ticker=LMCS", &[("X-API-Key", &pro)]);
    assert_eq!(status, 200, "{body}");
}

#[test]
fn bad_and_unknown_input() {
    let server = Server::start();
    let (status, body) = server.get("/v1/entity-graph");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "ticker or entity is required");
    for bad in [
        "/v1/entity-graph?ticker=LMCS&entity=lumen",
        "/v1/entity-graph?ticker=LMCS&depth=3",
        "/v1/entity-graph?ticker=LMCS&limit=0",
        "/v1/entity-graph?ticker=A%20B",
    ] {
        let (status, body) = server.get(bad);
        assert_envelope(status, &body, 400);
    }
    let (status, body) = server.get("/v1/entity-graph?ticker=ZZZZZ");
    assert_envelope(status, &body, 404);
    let (status, body) = server.get("/v1/entity-graph?entity=no%20such%20entity%20anywhere");
    assert_envelope(status, &body, 404);
}

#[test]
fn documented_in_openapi_as_pro() {
    let server = Server::start();
    let (status, doc) = server.get("/openapi.json");
    assert_eq!(status, 200);
    let op = &doc["paths"]["/v1/entity-graph"]["get"];
    assert_eq!(op["x-maturity"], "pro", "{op}");
    for code in ["200", "400", "403", "404"] {
        assert!(op["responses"][code].is_object(), "missing {code}: {op}");
    }
    assert!(doc["components"]["schemas"]["EntityGraphEdge"]["properties"]["relation"]["enum"].is_array());
}
