//! Black-box tests of `/v1/sam-entities` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};
use serde_json::Value;

fn names(body: &Value) -> Vec<&str> {
    body["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect()
}

#[test]
fn list_search_and_lookup() {
    let server = Server::start();
    let (status, all) = server.get("/v1/sam-entities");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["query"], "");
    assert_eq!(all["total"], 148);
    assert_eq!(all["count"], 20);

    let (_, acme) = server.get("/v1/sam-entities?q=ACME");
    assert_eq!(acme["total"], 6);
    assert_eq!(names(&acme)[0], "Acme");
    assert_eq!(names(&acme)[5], "Tacmetrics Inc.");

    let (_, one) = server.get("/v1/sam-entities?uei=demoaw1yz6g9");
    assert_eq!(names(&one), ["Acme Corporation"]);
    let e = &one["entities"][0];
    for field in ["name", "uei", "cageCode", "status", "city", "state", "country", "registrationDate", "expirationDate"]
    {
        assert!(e[field].is_string(), "{field} in {e}");
    }
    assert!(e["businessTypes"].is_array());

    let (_, clamped) = server.get("/v1/sam-entities?limit=500");
    assert_eq!(clamped["count"], 50);
    let (_, inactive) = server.get("/v1/sam-entities?status=inactive&limit=50");
    assert!(inactive["entities"].as_array().unwrap().iter().all(|e| e["status"] == "Inactive"));
}

#[test]
fn bad_requests_are_400_envelopes() {
    let server = Server::start();
    for bad in ["uei=SHORT", "uei=DEMOAW1YZ6G!", "q=%21%21%21", "limit=0", "status=expired"] {
        let (status, body) = server.get(&format!("/v1/sam-entities?{bad}"));
        assert_envelope(status, &body, 400);
    }
}
