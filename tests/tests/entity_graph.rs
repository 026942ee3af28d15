//! Black-box tests of `/v1/entity-graph` (pro): the graph the plugin builds from eight other plugins'
//! datasets through the host's records engine, the pro-tier gate, and the parameter errors.

use std::collections::HashSet;

use datahost_tests::{assert_envelope, Server};

#[test]
fn owner_gets_a_linked_graph() {
    let server = Server::start();
    let (status, body) = server.get("/v1/entity-graph?ticker=nvda&limit=1000");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["entity"]["id"], "company:NVDA");
    assert_eq!(body["entity"]["type"], "company");
    assert_eq!(body["meta"]["datasetsUnavailable"], serde_json::json!([]), "every dataset plugin is loaded");
    let linked = body["meta"]["datasetsLinked"].as_array().unwrap();
    assert!(linked.len() >= 4, "NVDA links {linked:?}");

    let nodes = body["nodes"].as_array().unwrap();
    let edges = body["edges"].as_array().unwrap();
    assert_eq!(body["count"]["nodes"].as_u64(), Some(nodes.len() as u64));
    assert_eq!(body["count"]["edges"].as_u64(), Some(edges.len() as u64));
    assert_eq!(nodes[0]["id"], "company:NVDA", "the focus entity comes first");
    let ids: HashSet<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
    for e in edges {
        assert!(ids.contains(e["source"].as_str().unwrap()) && ids.contains(e["target"].as_str().unwrap()), "{e}");
        assert!(e["relation"].is_string() && e["dataset"].is_string() && e["provenance"].is_object(), "{e}");
    }
    assert!(body["meta"]["generatedAt"].is_string() && body["meta"]["caveat"].is_string());

    let (status, small) = server.get("/v1/entity-graph?entity=lockheed%20martin&depth=2&limit=5");
    assert_eq!(status, 200, "{small}");
    assert_eq!(small["entity"]["id"], "company:LMT");
    assert_eq!(small["count"]["edges"], 5);
    assert_eq!(small["meta"]["truncated"], true);
}

#[test]
fn free_tier_is_refused_with_403() {
    let server = Server::start();
    let free = server.issue_key("free");
    let (status, body) = server.get_with("/v1/entity-graph?ticker=NVDA", &[("X-API-Key", &free)]);
    assert_envelope(status, &body, 403);
    assert!(body["error"].as_str().unwrap().contains("pro"), "{body}");

    let pro = server.issue_key("pro");
    let (status, body) = server.get_with("/v1/entity-graph?ticker=NVDA", &[("X-API-Key", &pro)]);
    assert_eq!(status, 200, "{body}");
}

#[test]
fn bad_and_unknown_input() {
    let server = Server::start();
    let (status, body) = server.get("/v1/entity-graph");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "ticker or entity is required");
    for bad in [
        "/v1/entity-graph?ticker=NVDA&entity=nvidia",
        "/v1/entity-graph?ticker=NVDA&depth=3",
        "/v1/entity-graph?ticker=NVDA&limit=0",
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
