//! HTTP conventions of the real server: the `/docs` page and its scripts (no key, content types, cache headers,
//! the guide with every error anchor), `HEAD` answered like `GET` without a body on every route, CORS off by
//! default and, when origins are configured, headers for allowed origins only, preflights from allowed and
//! disallowed origins, and `Vary`; 414 and 431 answered with the JSON envelope.

use datahost_tests::{assert_envelope, wait_for_window_with, Server, ServerOptions};
use reqwest::blocking::{Client, Response};
use reqwest::header::HeaderMap;
use reqwest::Method;
use serde_json::Value;

const APP: &str = "https://app.example.com";
const OTHER: &str = "https://evil.example.net";

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).map_or("", |v| v.to_str().unwrap_or(""))
}

/// Every `Vary` value, lower case, joined.
fn vary(headers: &HeaderMap) -> String {
    headers.get_all("vary").iter().map(|v| v.to_str().unwrap().to_ascii_lowercase()).collect::<Vec<_>>().join(", ")
}

fn send(server: &Server, method: Method, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut req = Client::new().request(method, server.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().unwrap()
}

fn cors_server() -> Server {
    Server::start_with(ServerOptions {
        env: vec![("DATAHOST_SERVER__CORS_ALLOWED_ORIGINS".into(), format!("[\"{APP}\", \"http://localhost:3000\"]"))],
        ..Default::default()
    })
}

/// The anchors the `docs` links of live error bodies point at.
fn anchors_of_error_links(server: &Server) -> Vec<String> {
    let free = server.issue_key("free");
    let owner = [("X-API-Key", server.owner_key.as_str())];
    let mut bodies = vec![
        server.get_with("/v1/insiders", &[]).1,
        server.get_with("/v1/entity-graph?ticker=NVDA", &[("X-API-Key", free.as_str())]).1,
        server.get_with("/v1/nowhere", &owner).1,
        server.get_with("/v1/insiders?tickr=NVDA", &owner).1,
    ];
    bodies.push(send(server, Method::DELETE, "/health", &[]).json().unwrap());
    bodies
        .iter()
        .map(|b| {
            let docs = b["docs"].as_str().unwrap_or_else(|| panic!("no docs link in {b}"));
            let (page, anchor) = docs.split_once('#').unwrap();
            assert_eq!(page, "http://localhost/docs", "{b}");
            anchor.to_string()
        })
        .collect()
}

#[test]
fn docs_page_and_its_scripts_are_served_without_a_key() {
    let server = Server::start();
    let page = send(&server, Method::GET, "/docs", &[]);
    assert_eq!(page.status(), 200);
    let h = page.headers().clone();
    assert_eq!(header(&h, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(&h, "cache-control"), "no-cache");
    assert_eq!(header(&h, "x-content-type-options"), "nosniff");
    let csp = header(&h, "content-security-policy");
    assert!(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"), "{csp}");
    let html = page.text().unwrap();
    assert!(!html.contains("https://") && !html.contains("http://"), "the page refers to nothing elsewhere: {html}");

    // The scripts the page loads, relative to /docs.
    let scripts: Vec<&str> = html.split("<script src=\"").skip(1).filter_map(|s| s.split('"').next()).collect();
    assert_eq!(scripts.len(), 2, "{html}");
    let redoc = scripts.iter().find(|s| s.starts_with("docs/redoc-")).expect("the Redoc bundle");
    let js = send(&server, Method::GET, &format!("/{redoc}"), &[]);
    assert_eq!(js.status(), 200);
    assert_eq!(header(js.headers(), "content-type"), "text/javascript; charset=utf-8");
    assert_eq!(header(js.headers(), "cache-control"), "public, max-age=31536000, immutable");
    let bundle = js.bytes().unwrap();
    assert!(bundle.len() > 500_000 && bundle.starts_with(b"/*! For license information"), "the vendored bundle");
    let text = std::str::from_utf8(&bundle).unwrap();
    assert!(!text.contains("cdn.redoc.ly"), "the bundle's remote logo is not served");
    let init = send(&server, Method::GET, "/docs/docs.js", &[]);
    assert_eq!(init.status(), 200);
    assert_eq!(header(init.headers(), "cache-control"), "no-cache");
    assert!(init.text().unwrap().contains("Redoc.init(\n    \"openapi.json\""));

    let (status, body) = server.get_with("/docs/nothing.js", &[]);
    assert_envelope(status, &body, 404);
}

#[test]
fn the_guide_in_the_document_has_a_section_for_every_error_link() {
    let server = Server::start();
    let (_, doc) = server.get_with("/openapi.json", &[]);
    let guide = doc["info"]["description"].as_str().unwrap();
    let mut anchors = anchors_of_error_links(&server);
    anchors.push("errors".into());
    for anchor in &anchors {
        assert!(guide.contains(&format!("<a id=\"{anchor}\"></a>")), "no section for #{anchor}");
    }
    for needed in ["X-API-Key", "Authorization: Bearer", "api_key", "X-Marketplace-Proxy-Secret", "`rapidapi`"] {
        assert!(guide.contains(needed), "the guide does not explain {needed}");
    }
    assert!(guide.contains("| `free` | 60 |") && guide.contains("| `pro` | 1200 |"), "tier limits");
    assert!(guide.contains("`/v1/entity-graph`"), "the endpoints that need the pro tier are named");
    assert!(guide.contains("X-RateLimit-Remaining") && guide.contains("Retry-After"));
    assert!(guide.contains("http://localhost/v1/"), "examples use the configured base address");
}

/// HEAD answers exactly as GET (status, content type, length, rate-limit accounting) with no body, on every
/// route of the document, the docs page, an unknown path and an error.
#[test]
fn head_is_answered_like_get_without_a_body_on_every_route() {
    let server = Server::start();
    let (_, doc) = server.get_with("/openapi.json", &[]);
    let mut paths: Vec<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    assert!(paths.len() > 15, "{paths:?}");
    paths.extend(
        ["/docs", "/docs/docs.js", "/v1/nowhere", "/v1/insiders?tickr=NVDA", "/v1/vin?vin=1HGCM82633A004352"]
            .map(String::from),
    );
    let owner = [("X-API-Key", server.owner_key.as_str())];
    for path in &paths {
        let get = send(&server, Method::GET, path, &owner);
        let (get_status, get_headers) = (get.status(), get.headers().clone());
        let get_len = get.bytes().unwrap().len();
        let head = send(&server, Method::HEAD, path, &owner);
        assert_eq!(head.status(), get_status, "HEAD {path}");
        let h = head.headers().clone();
        assert_eq!(header(&h, "content-type"), header(&get_headers, "content-type"), "HEAD {path}");
        assert_eq!(header(&h, "x-data-status"), header(&get_headers, "x-data-status"), "HEAD {path}");
        assert!(!header(&h, "x-request-id").is_empty(), "HEAD {path}");
        if let Some(len) = get_headers.get("content-length") {
            assert_eq!(h.get("content-length"), Some(len), "HEAD {path} announces the GET body's length");
            assert_eq!(len.to_str().unwrap(), get_len.to_string());
        }
        assert!(head.bytes().unwrap().is_empty(), "HEAD {path} has no body");
    }
    // HEAD is counted like GET.
    let free = server.issue_key("free");
    let k = [("X-API-Key", free.as_str())];
    // Both requests in one minute's window: a new window between them would count from 60 again.
    wait_for_window_with(10);
    let first = send(&server, Method::HEAD, "/v1/insiders", &k);
    assert_eq!(first.status(), 200);
    assert_eq!(header(first.headers(), "x-ratelimit-limit"), "60");
    assert_eq!(header(first.headers(), "x-ratelimit-remaining"), "59");
    let second = send(&server, Method::GET, "/v1/insiders", &k);
    assert_eq!(header(second.headers(), "x-ratelimit-remaining"), "58");
}

#[test]
fn cors_is_off_by_default_and_options_stays_a_405() {
    let server = Server::start();
    let owner = server.owner_key.clone();
    let resp = send(&server, Method::GET, "/v1/insiders", &[("Origin", APP), ("X-API-Key", &owner)]);
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("access-control-allow-origin").is_none());
    let varies = vary(resp.headers());
    // accept-encoding: the answer is large enough to be sent compressed on request (the response cache).
    assert_eq!(
        varies, "accept-encoding, authorization, x-api-key, x-marketplace-proxy-secret",
        "only by coding and credential (not origin) while CORS is off"
    );
    let (health, docs) = (send(&server, Method::GET, "/health", &[]), send(&server, Method::GET, "/docs", &[]));
    assert!(health.headers().get("vary").is_none() && docs.headers().get("vary").is_none(), "they vary by nothing");
    let preflight =
        send(&server, Method::OPTIONS, "/v1/insiders", &[("Origin", APP), ("Access-Control-Request-Method", "GET")]);
    assert_eq!(preflight.status(), 405);
    assert_eq!(header(preflight.headers(), "allow"), "GET, HEAD");
    assert!(preflight.headers().get("access-control-allow-origin").is_none());
    assert_envelope(405, &preflight.json().unwrap(), 405);
}

#[test]
fn cors_answers_allowed_origins_only() {
    let server = cors_server();
    let owner = server.owner_key.clone();
    let free = server.issue_key("free");

    // A simple request from an allowed origin: allowed, the useful headers exposed, Vary: Origin.
    let resp = send(&server, Method::GET, "/v1/insiders", &[("Origin", APP), ("X-API-Key", &free)]);
    assert_eq!(resp.status(), 200);
    let h = resp.headers();
    assert_eq!(header(h, "access-control-allow-origin"), APP);
    assert!(h.get("access-control-allow-credentials").is_none(), "no cookies: keys travel in headers");
    let exposed = header(h, "access-control-expose-headers").to_ascii_lowercase();
    for name in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "retry-after",
        "x-request-id",
        "x-data-status",
    ] {
        assert!(exposed.contains(name), "{name} not exposed: {exposed}");
    }
    let varies = vary(h);
    assert!(varies.contains("origin") && varies.contains("x-api-key"), "both reasons to vary are kept: {varies}");

    // The same request from another origin is served (CORS is enforced by browsers) but not allowed, and
    // says it varies by origin so no cache hands one origin's answer to the other.
    let resp = send(&server, Method::GET, "/v1/insiders", &[("Origin", OTHER), ("X-API-Key", &owner)]);
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("access-control-allow-origin").is_none());
    assert!(vary(resp.headers()).contains("origin"));

    // Errors carry the headers too, so a page can read the envelope.
    let resp = send(&server, Method::GET, "/v1/insiders", &[("Origin", APP)]);
    assert_eq!(resp.status(), 401);
    assert_eq!(header(resp.headers(), "access-control-allow-origin"), APP);

    // Preflight from an allowed origin for GET with a key header: answered, no body.
    let preflight = send(
        &server,
        Method::OPTIONS,
        "/v1/insiders",
        &[("Origin", APP), ("Access-Control-Request-Method", "GET"), ("Access-Control-Request-Headers", "x-api-key")],
    );
    assert_eq!(preflight.status(), 200);
    let h = preflight.headers().clone();
    assert_eq!(header(&h, "access-control-allow-origin"), APP);
    let methods = header(&h, "access-control-allow-methods").replace(' ', "");
    assert_eq!(methods, "GET,HEAD");
    assert!(header(&h, "access-control-allow-headers").to_ascii_lowercase().contains("x-api-key"));
    assert_eq!(header(&h, "access-control-max-age"), "3600");
    assert!(vary(&h).contains("origin"));
    assert!(preflight.bytes().unwrap().is_empty());

    // Preflight from a disallowed origin: a 403 envelope without any allowance.
    let preflight =
        send(&server, Method::OPTIONS, "/v1/insiders", &[("Origin", OTHER), ("Access-Control-Request-Method", "GET")]);
    assert_eq!(preflight.status(), 403);
    assert!(preflight.headers().get("access-control-allow-origin").is_none());
    assert!(vary(preflight.headers()).contains("origin"));
    let body: Value = preflight.json().unwrap();
    assert_envelope(403, &body, 403);
    assert!(body["error"].as_str().unwrap().contains(OTHER), "{body}");

    // Preflight for a write from an allowed origin: the read-only 405.
    let preflight =
        send(&server, Method::OPTIONS, "/v1/insiders", &[("Origin", APP), ("Access-Control-Request-Method", "POST")]);
    assert_eq!(preflight.status(), 405);
    assert_eq!(header(preflight.headers(), "allow"), "GET, HEAD");
    assert_envelope(405, &preflight.json().unwrap(), 405);

    // OPTIONS that is not a preflight, and any other method, stay 405.
    let plain = send(&server, Method::OPTIONS, "/v1/insiders", &[]);
    assert_eq!(plain.status(), 405);
    assert_envelope(405, &plain.json().unwrap(), 405);
    let post = send(&server, Method::POST, "/v1/insiders", &[("Origin", APP)]);
    assert_eq!(post.status(), 405);
}

#[test]
fn a_malformed_allowed_origin_stops_the_start_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("datahost.toml");
    std::fs::write(&config, "[server]\ncors_allowed_origins = [\"https://app.example.com/\"]\n").unwrap();
    let (code, _, stderr) = datahost_tests::run_cli_raw(&config, &["openapi"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("server.cors_allowed_origins") && stderr.contains("https://app.example.com"), "{stderr}");
}

#[test]
fn oversized_targets_and_headers_get_the_json_envelope() {
    let server = Server::start();
    let long = format!("/health?pad={}", "a".repeat(9000));
    let resp = send(&server, Method::GET, &long, &[]);
    assert_eq!(resp.status(), 414);
    let body: Value = resp.json().unwrap();
    assert_envelope(414, &body, 414);
    assert!(body["docs"].as_str().unwrap().ends_with("/docs#uri-too-long"));

    let big = "b".repeat(17_000);
    let resp = send(&server, Method::GET, "/health", &[("X-Padding", big.as_str())]);
    assert_eq!(resp.status(), 431);
    assert_eq!(header(resp.headers(), "content-type"), "application/json");
    let body: Value = resp.json().unwrap();
    assert_envelope(431, &body, 431);
    assert!(body["docs"].as_str().unwrap().ends_with("/docs#headers-too-large"));
}
