//! The auth matrix through the real binary: each of the three key methods, missing, unknown, malformed,
//! revoked and conflicting keys, and the marketplace secret right and wrong.

use datahost_tests::{assert_envelope, Server, ServerOptions};

const ROUTE: &str = "/v1/congress-trades?limit=1";

fn assert_401(server: &Server, path: &str, headers: &[(&str, &str)], message_part: &str) {
    let resp = server.request(path, headers);
    assert_eq!(resp.status().as_u16(), 401);
    assert_eq!(resp.headers()["www-authenticate"], "Bearer realm=\"datahost\"");
    let body: serde_json::Value = resp.json().unwrap();
    assert_envelope(401, &body, 401);
    let msg = body["error"].as_str().unwrap();
    assert!(msg.contains(message_part), "`{msg}` should mention `{message_part}`");
    assert!(msg.contains("header") && msg.contains("query parameter"), "401 must say where to pass the key: {msg}");
    assert!(body["docs"].as_str().unwrap().ends_with("/docs#unauthorized"));
}

#[test]
fn three_methods_and_every_failure() {
    let server = Server::start_with(ServerOptions {
        extra_toml: "[auth]\nproxy_secret = \"market-secret-1\"\n".into(),
        ..Default::default()
    });
    let key = server.issue_key("free");
    let bearer = format!("Bearer {key}");
    let lower_bearer = format!("bearer {key}");

    assert_eq!(server.get_with(ROUTE, &[("X-API-Key", &key)]).0, 200);
    assert_eq!(server.get_with(ROUTE, &[("Authorization", &bearer)]).0, 200);
    assert_eq!(server.get_with(ROUTE, &[("Authorization", &lower_bearer)]).0, 200);
    assert_eq!(server.get_with(&format!("{ROUTE}&api_key={key}"), &[]).0, 200);
    assert_eq!(server.get_with(&format!("{ROUTE}&api_key={key}"), &[("X-API-Key", &key)]).0, 200, "same key twice");

    assert_401(&server, ROUTE, &[], "API key required");
    assert_401(&server, ROUTE, &[("X-API-Key", "svc_live_123")], "malformed");
    assert_401(&server, ROUTE, &[("X-API-Key", "svc_live_0123456789abcdef0123456789abcdef")], "invalid");
    assert_401(&server, ROUTE, &[("Authorization", "Basic dXNlcjpwYXNz")], "Bearer scheme");
    let other = server.issue_key("free");
    assert_401(&server, &format!("{ROUTE}&api_key={other}"), &[("X-API-Key", &key)], "conflicting");
    assert_401(&server, ROUTE, &[("X-API-Key", &key), ("Authorization", &format!("Bearer {other}"))], "conflicting");

    // Marketplace: the right secret is the rapidapi tier (6000/min), a wrong one is a 401, never a fall-through.
    let resp = server.request(ROUTE, &[("X-Marketplace-Proxy-Secret", "market-secret-1")]);
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["x-ratelimit-limit"], "6000");
    let wrong = server.request(ROUTE, &[("X-Marketplace-Proxy-Secret", "nope"), ("X-API-Key", &key)]);
    assert_eq!(wrong.status().as_u16(), 401);
    let body: serde_json::Value = wrong.json().unwrap();
    assert!(body["error"].as_str().unwrap().contains("marketplace proxy secret"));
    // A key presented beside the right secret must itself be valid: an invalid one is refused, not ignored.
    let secret = ("X-Marketplace-Proxy-Secret", "market-secret-1");
    for bad in ["junk", "svc_live_00000000000000000000000000000000"] {
        let resp = server.request(ROUTE, &[secret, ("X-API-Key", bad)]);
        assert_eq!(resp.status().as_u16(), 401, "{bad}");
    }
    let resp = server.request(ROUTE, &[secret, ("X-API-Key", &key)]);
    assert_eq!((resp.status().as_u16(), resp.headers()["x-ratelimit-limit"].to_str().unwrap()), (200, "6000"));

    // /health and /openapi.json need no key.
    assert_eq!(server.get_with("/health", &[]).0, 200);
    assert_eq!(server.get_with("/openapi.json", &[]).0, 200);
    // The key is never logged.
    assert!(!server.stderr().contains(&key));
}

#[test]
fn revoked_key_stops_working_without_restart() {
    let server = Server::start();
    let key = server.issue_key("pro");
    assert_eq!(server.get_with(ROUTE, &[("X-API-Key", &key)]).0, 200);
    let listing = server.cli(&["keys", "list"]);
    assert!(!listing.contains(&key), "keys list must never show a key");
    let id = listing.lines().find(|l| l.contains("\tpro\t")).unwrap().split('\t').next().unwrap().to_string();
    server.cli(&["keys", "revoke", &id]);
    // The server reloads the key store on its own (it watches the file) and says when the revocation took effect.
    server.wait_for_line(&format!("the revocation of {id}"), |l| l.contains("API key revoked") && l.contains(&id));
    let (status, body) = server.get_with(ROUTE, &[("X-API-Key", &key)]);
    assert_envelope(status, &body, 401);
    assert!(body["error"].as_str().unwrap().contains("revoked"), "{body}");
    let stored = std::fs::read_to_string(&server.keys_file).unwrap();
    assert!(!stored.contains(&key), "the key store holds hashes only");
}

#[test]
fn pro_endpoint_tiering_is_403_for_free() {
    // Checked against any route a plugin declares with min_tier pro; entity-graph is the one SPEC names.
    let server = Server::start();
    let doc = server.get("/openapi.json").1;
    let pro_paths: Vec<String> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| item["get"]["x-maturity"] == "pro")
        .map(|(p, _)| p.clone())
        .collect();
    let free = server.issue_key("free");
    let pro = server.issue_key("pro");
    for path in pro_paths {
        let (status, body) = server.get_with(&path, &[("X-API-Key", &free)]);
        assert_envelope(status, &body, 403);
        assert!(body["error"].as_str().unwrap().contains("pro tier"));
        let (status, _) = server.get_with(&path, &[("X-API-Key", &pro)]);
        assert_ne!(status, 403);
    }
}

/// `[auth] failed_per_minute` and `[server] trusted_proxies` as environment overrides.
fn throttled_server(trusted: &str) -> Server {
    let mut env = vec![("DATAHOST_AUTH__FAILED_PER_MINUTE".to_string(), "3".to_string())];
    if !trusted.is_empty() {
        env.push(("DATAHOST_SERVER__TRUSTED_PROXIES".into(), format!("[\"{trusted}\"]")));
    }
    Server::start_with(ServerOptions { env, ..Default::default() })
}

fn assert_throttled(resp: reqwest::blocking::Response) {
    assert_eq!(resp.status().as_u16(), 429);
    let retry: u64 = resp.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let body: serde_json::Value = resp.json().unwrap();
    assert_envelope(429, &body, 429);
    assert!(body["error"].as_str().unwrap().contains("too many failed authentication attempts"), "{body}");
    assert_eq!(body["retryAfterSec"], retry);
}

#[test]
fn failed_credentials_are_throttled_per_address_without_revealing_valid_keys() {
    let server = throttled_server("");
    let bad = "svc_live_00000000000000000000000000000000";
    datahost_tests::wait_for_window_with(20);
    for _ in 0..3 {
        assert_401(&server, ROUTE, &[("X-API-Key", bad)], "invalid");
    }
    // The fourth failure this minute, and then every credentialed request from the address, valid or not.
    assert_throttled(server.request(ROUTE, &[("X-API-Key", bad)]));
    assert_throttled(server.request(ROUTE, &[("X-API-Key", &server.owner_key)]));
    assert_throttled(server.request(ROUTE, &[("X-API-Key", "not-even-a-key")]));
    // No credential at all is no guess: still the plain 401.
    assert_401(&server, ROUTE, &[], "required");
    let metrics = server.metrics_text();
    assert!(metrics.contains("datahost_auth_failures_total{outcome=\"unauthorized\"} 3"), "{metrics}");
    assert!(metrics.contains("datahost_auth_failures_total{outcome=\"throttled\"} 1"), "{metrics}");
}

#[test]
fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget() {
    let server = throttled_server("127.0.0.1");
    let bad = "svc_live_00000000000000000000000000000000";
    datahost_tests::wait_for_window_with(20);
    let from = |client: &'static str| [("X-API-Key", bad), ("X-Forwarded-For", client)];
    for _ in 0..3 {
        assert_401(&server, ROUTE, &from("198.51.100.7"), "invalid");
    }
    assert_throttled(server.request(ROUTE, &from("198.51.100.7")));
    // Another client behind the same proxy is not affected, and its valid key works.
    assert_401(&server, ROUTE, &from("198.51.100.8"), "invalid");
    let ok = [("X-API-Key", server.owner_key.as_str()), ("X-Forwarded-For", "198.51.100.9")];
    assert_eq!(server.get_with(ROUTE, &ok).0, 200);
}
