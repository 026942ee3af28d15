//! HTTP conventions of the real server: the `/docs` page and its scripts (no key, content types, cache headers,
//! the guide with every error anchor).

use datahost_tests::{assert_envelope, Server};
use reqwest::blocking::{Client, Response};
use reqwest::header::HeaderMap;
use reqwest::Method;
use serde_json::Value;

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).map_or("", |v| v.to_str().unwrap_or(""))
}

fn send(server: &Server, method: Method, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut req = Client::new().request(method, server.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().unwrap()
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
