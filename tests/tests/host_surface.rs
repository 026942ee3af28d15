//! The contract surfaces: /health, /openapi.json (snapshot), error bodies (snapshot), 404/405, request ids,
//! metrics labels, configuration errors and graceful shutdown.

use datahost_tests::{assert_envelope, run_cli_raw, Server, ServerOptions};
use serde_json::Value;

#[test]
fn health_lists_datasets_and_engine() {
    let server = Server::start();
    let (status, body) = server.get_with("/health", &[]);
    assert_eq!(status, 200);
    assert_eq!(body["ok"], true);
    assert_eq!(body["service"], "datahost");
    assert_eq!(body["recordsEngine"], "embedded");
    let datasets = body["datasets"].as_array().unwrap();
    assert!(datasets.iter().any(|d| d == "congress-trades"));
    insta::assert_json_snapshot!("health", body, {".datasets" => "[datasets]", ".version" => "[version]"});
}

#[test]
fn openapi_is_assembled_with_maturity_tags_and_shared_errors() {
    let server = Server::start();
    let (status, doc) = server.get_with("/openapi.json", &[]);
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["servers"][0]["url"], "http://localhost");
    let schemes = doc["components"]["securitySchemes"].as_object().unwrap();
    for s in ["ApiKeyHeader", "ApiKeyQuery", "BearerAuth", "MarketplaceProxy"] {
        assert!(schemes.contains_key(s), "{s}");
    }
    let (_, health) = server.get("/health");
    // Every loaded dataset's routes are documented with maturity, tag and the shared error responses.
    let paths = doc["paths"].as_object().unwrap();
    for (path, item) in paths {
        let op = &item["get"];
        if ["/health", "/ready", "/openapi.json"].contains(&path.as_str()) {
            assert_eq!(op["security"], serde_json::json!([]));
            continue;
        }
        assert!(["stable", "beta", "pro"].contains(&op["x-maturity"].as_str().unwrap()), "{path}");
        assert!(health["datasets"].as_array().unwrap().contains(&op["tags"][0]), "{path} tag is a loaded dataset");
        for status in ["200", "400", "401", "429", "500"] {
            assert!(op["responses"].get(status).is_some(), "{path} lacks {status}");
        }
    }
    let congress = &paths["/v1/congress-trades"]["get"];
    assert_eq!(congress["x-maturity"], "stable");
    // operationIds come from the route path (the host's assembly), not from the plugin.
    assert_eq!(congress["operationId"], "getCongressTrades");
    assert_eq!(paths["/v1/edgar-search"]["get"]["operationId"], "getEdgarSearch");
    assert_eq!(doc["info"]["license"], serde_json::json!({"name": "Apache-2.0", "identifier": "Apache-2.0"}));
    // Snapshot the part of the contract this suite owns; each dataset's own tests pin its fragment.
    insta::assert_json_snapshot!("openapi_congress_trades", congress);
    insta::assert_json_snapshot!("openapi_components_responses", doc["components"]["responses"]);
    insta::assert_json_snapshot!("openapi_security", (&doc["security"], &doc["components"]["securitySchemes"]));
}

/// What generated clients (openapi-python-client, openapi-typescript) need from the whole document, every
/// plugin's fragment included: named schemas, operation ids, descriptions, examples, no enum traps. The client
/// stage (`tests/tools/clients.sh`) then generates and runs real clients.
#[test]
fn openapi_has_no_client_generator_traps() {
    let server = Server::start();
    let (_, doc) = server.get_with("/openapi.json", &[]);
    let traps = datahost_plugin_api::openapi::generator_traps(&doc);
    assert!(traps.is_empty(), "generator traps in /openapi.json:\n{}", traps.join("\n"));
}

#[test]
fn error_bodies_and_fallbacks() {
    let server = Server::start();
    let get = |path: &str, headers: &[(&str, &str)]| -> (u16, Value) { server.get_with(path, headers) };
    let key = server.owner_key.clone();
    let k = [("X-API-Key", key.as_str())];

    let (s, missing) = get("/v1/congress-trades", &[]);
    assert_envelope(s, &missing, 401);
    let (s, bad_limit) = get("/v1/congress-trades?limit=-1", &k);
    assert_envelope(s, &bad_limit, 400);
    let (s, not_found) = get("/v2/nothing", &k);
    assert_envelope(s, &not_found, 404);

    let resp = reqwest::blocking::Client::new().post(server.url("/v1/congress-trades")).send().unwrap();
    assert_eq!(resp.status().as_u16(), 405);
    assert_eq!(resp.headers()["allow"], "GET, HEAD");
    let method: Value = resp.json().unwrap();
    assert_envelope(405, &method, 405);

    insta::assert_json_snapshot!(
        "error_bodies",
        serde_json::json!({
            "401-missing": missing, "400-limit": bad_limit, "404": not_found, "405": method,
        })
    );
}

/// One value per parameter and only the documented parameters: a misspelt filter is not silently ignored (which
/// would serve the unfiltered list), and a repeated parameter or credential is not read as either of its values.
#[test]
fn unknown_and_repeated_parameters_are_400s_naming_them() {
    let server = Server::start();
    let key = server.owner_key.clone();
    let k = [("X-API-Key", key.as_str())];

    let (s, body) = server.get_with("/v1/insiders?tickr=NVDA", &k);
    assert_envelope(s, &body, 400);
    assert_eq!(
        body["error"],
        "/v1/insiders does not know the query parameter `tickr`; it accepts ticker, limit, cursor"
    );
    let (s, body) = server.get_with("/v1/edgar-search?q=revenue&form=10-K", &k);
    assert_envelope(s, &body, 400);
    assert_eq!(
        body["error"],
        "/v1/edgar-search does not know the query parameter `form`; it accepts q, forms, from, to, limit, cursor"
    );

    for query in ["ticker=ORCH&ticker=BLFN", "limit=1&limit=2"] {
        let (s, body) = server.get_with(&format!("/v1/congress-trades?{query}"), &k);
        assert_envelope(s, &body, 400);
        assert!(body["error"].as_str().unwrap().contains("is given more than once"), "{query}: {body}");
    }
    // Two credentials, whichever comes first: refused, never served on the valid one.
    for query in [format!("api_key={key}&api_key=junk"), format!("api_key=junk&api_key={key}")] {
        let (s, body) = server.get_with(&format!("/v1/congress-trades?{query}"), &[]);
        assert_envelope(s, &body, 400);
        assert_eq!(body["error"], "the api_key query parameter is given more than once; give it once");
        assert!(!body.to_string().contains(&key), "the key is never echoed");
    }
    // Numbers are written as digits only.
    for limit in ["%2B5", "%205", "5%20"] {
        let (s, body) = server.get_with(&format!("/v1/congress-trades?limit={limit}"), &k);
        assert_envelope(s, &body, 400);
        assert!(body["error"].as_str().unwrap().starts_with("limit must be a positive integer"), "{body}");
    }
    // The credential itself is a known parameter everywhere.
    let (s, _) = server.get_with(&format!("/v1/congress-trades?api_key={key}&limit=2"), &[]);
    assert_eq!(s, 200);
}

#[test]
fn request_ids_are_set_or_propagated() {
    let server = Server::start();
    let resp = server.request("/health", &[("X-Request-Id", "trace-abc-123")]);
    assert_eq!(resp.headers()["x-request-id"], "trace-abc-123");
    let resp = server.request("/health", &[]);
    assert_eq!(resp.headers()["x-request-id"].len(), 36, "a UUID when the client sends none");
}

#[test]
fn metrics_are_labelled_by_route_template_status_and_tier() {
    let server = Server::start();
    let free = server.issue_key("free");
    assert_eq!(server.get_with("/v1/congress-trades?ticker=LMCS", &[("X-API-Key", &free)]).0, 200);
    assert_eq!(server.get_with("/v1/congress-trades?limit=0", &[("X-API-Key", &free)]).0, 400);
    let text = server.metrics_text();
    assert!(
        text.contains("datahost_http_requests_total{route=\"/v1/congress-trades\",status=\"200\",tier=\"free\"} 1"),
        "{text}"
    );
    assert!(text.contains("datahost_http_requests_total{route=\"/v1/congress-trades\",status=\"400\",tier=\"free\"} 1"));
    assert!(text.contains("datahost_http_request_duration_seconds_bucket{route=\"/v1/congress-trades\""));
    assert!(text.contains("datahost_ratelimit_decisions_total{tier=\"free\",decision=\"allowed\"} 2"));
    assert!(text.contains("datahost_plugin_loaded{plugin=\"congress-trades\"} 1"));
    assert!(text.contains("datahost_plugin_duration_seconds_bucket{plugin=\"congress-trades\""));
    assert!(!text.contains(&free), "never a key in metrics");
    assert!(!text.contains("LMCS"), "never a raw query in metrics");
    // Metrics are not on the public listener.
    assert_eq!(server.get_with("/metrics", &[]).0, 404);
}

#[test]
fn bad_config_fails_at_start_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("[server]\nlisten_port = 3\n", "listen_port"),
        ("[server]\nlisten = \"not an address\"\n", "server.listen"),
        ("[ratelimit]\nfail_mode = \"sideways\"\n", "ratelimit.fail_mode"),
        ("[engine]\nurl = \"mysql://u:pw@h/db\"\n", "engine.url"),
    ];
    for (toml, key) in cases {
        let file = dir.path().join("bad.toml");
        std::fs::write(&file, toml).unwrap();
        let (code, _, stderr) = run_cli_raw(&file, &["serve"]);
        assert_ne!(code, 0, "{toml}");
        assert!(stderr.contains(key), "error for {toml:?} should name {key}: {stderr}");
        assert!(!stderr.contains("pw@"), "no credentials in errors");
    }
}

#[test]
fn environment_overrides_config() {
    let server = Server::start_with(ServerOptions {
        env: vec![("DATAHOST_SERVER__BASE_URL".into(), "https://api.example.test".into())],
        ..Default::default()
    });
    let (_, doc) = server.get_with("/openapi.json", &[]);
    assert_eq!(doc["servers"][0]["url"], "https://api.example.test");
}

/// Sends raw bytes on one connection and reads the whole answer (the request says `Connection: close` or the
/// server closes after an error).
fn raw_exchange(server: &Server, request: &[u8]) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(server.api).unwrap();
    stream.set_read_timeout(Some(datahost_tests::HANG_GUARD)).unwrap();
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

#[test]
fn http11_without_host_and_oversized_targets_get_the_json_envelope() {
    let server = Server::start();
    let answer = raw_exchange(&server, b"GET /health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("application/json") && answer.contains("must carry a Host header"), "{answer}");
    let answer = raw_exchange(&server, b"GET /health HTTP/1.0\r\n\r\n");
    assert!(
        answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200"),
        "HTTP/1.0 needs no Host: {answer}"
    );
    let long = format!("GET /health?pad={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "a".repeat(20_000));
    let answer = raw_exchange(&server, long.as_bytes());
    assert!(answer.starts_with("HTTP/1.1 414"), "{answer}");
    assert!(answer.contains("\"code\":414") && answer.contains("#uri-too-long"), "{answer}");
}

#[test]
fn logs_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    let server = Server::start();
    let (status, _) = server.get_with("/health", &[]);
    assert_eq!(status, 200);
    server.wait_for_output("datahost listening");
    let log = server.stderr();
    assert!(!log.contains('\u{1b}'), "ANSI escape codes in a piped log: {log}");
}

/// The server's access lines once there are at least `count` (its stderr is read as it comes).
fn access_lines(server: &Server, count: usize) -> Vec<String> {
    datahost_tests::eventually(&format!("{count} access lines"), || {
        let lines: Vec<String> =
            server.stderr().lines().filter(|l| l.contains("datahost::access")).map(str::to_string).collect();
        if lines.len() >= count {
            Ok(lines)
        } else {
            Err(lines.join("\n"))
        }
    })
}

#[test]
fn one_access_line_per_request_names_route_status_tier_and_key_id_never_the_key() {
    let server = Server::start();
    let key = server.owner_key.clone();
    let bad = "svc_live_00000000000000000000000000000000";
    assert_eq!(server.get_with("/v1/congress-trades?limit=1", &[("X-API-Key", &key)]).0, 200);
    assert_eq!(server.get_with(&format!("/v1/congress-trades?limit=1&api_key={key}"), &[]).0, 200);
    assert_eq!(server.get_with("/v1/congress-trades?limit=1", &[("X-API-Key", bad)]).0, 401);
    let lines = access_lines(&server, 3);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    for line in &lines[..2] {
        for part in
            ["method=GET", "route=/v1/congress-trades", "status=200", "tier=owner", "key_id=key_", "request_id="]
        {
            assert!(line.contains(part), "`{part}` missing from {line}");
        }
    }
    assert!(lines[2].contains("status=401") && lines[2].contains("tier=none"), "{}", lines[2]);
    let log = server.stderr();
    assert!(!log.contains("svc_live_"), "a key (valid or not) reached the log");
    assert!(!log.contains("limit=1"), "query strings stay out of the log");
}

#[test]
fn access_lines_are_json_objects_in_the_json_log_format() {
    let server = Server::start_with(ServerOptions {
        env: vec![("DATAHOST_SERVER__LOG_FORMAT".into(), "json".into())],
        ..Default::default()
    });
    assert_eq!(server.get_with("/v1/congress-trades?limit=1", &[("X-API-Key", &server.owner_key)]).0, 200);
    let lines = access_lines(&server, 1);
    let line: Value = serde_json::from_str(lines.first().expect("an access line")).expect("a JSON object");
    assert_eq!(line["target"], "datahost::access");
    let fields = &line["fields"];
    assert_eq!(
        (fields["route"].as_str(), fields["status"].as_u64()),
        (Some("/v1/congress-trades"), Some(200)),
        "{line}"
    );
    assert_eq!(fields["tier"], "owner");
    assert!(fields["key_id"].as_str().unwrap().starts_with("key_"), "{line}");
    assert!(fields["latency_ms"].as_f64().is_some(), "{line}");
}

/// What every route serves is what `/openapi.json` documents for it: each route's documented example and its
/// live 200 answers (with the required parameters' examples, then with each optional parameter's example added
/// in turn) hold to its 200 schema. Built from the document itself, so a new route is checked without a line
/// here; the schemas are declared by hand in some plugins and derived from the served types in others.
#[test]
fn every_route_serves_what_it_documents() {
    let server = Server::start();
    let checked = server.assert_documented(&[]);
    assert!(checked >= 40, "only {checked} answers checked");
}
