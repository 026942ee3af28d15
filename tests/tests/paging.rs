//! Cursor pagination on every list endpoint, black-box: each list walked page by page with a small `limit` on
//! the demo seeds gives exactly the unpaged list (same items, same order, none twice), `next` is null on the
//! last page, the `Link: rel="next"` header points at the next page (absolute, from `server.base_url`, with
//! the request's own parameters and never the key), a cursor that was altered or belongs to another query is a
//! 400 naming `cursor`, the OpenAPI document describes all of it, and a walk across a concurrent
//! `datahost ingest` of real Senate disclosures neither repeats nor skips a filing.

use std::collections::HashSet;
use std::path::PathBuf;

use datahost_tests::{assert_envelope, corpus, Server};
use reqwest::Url;
use serde_json::Value;

/// One list endpoint: its path, the filters of the walk, the array it pages, and the page size walked.
struct List {
    path: &'static str,
    params: &'static [(&'static str, &'static str)],
    items: &'static str,
    /// `limit` of the unpaged reference request; `None` where omitting `limit` returns the whole list.
    whole: Option<&'static str>,
}

const LISTS: &[List] = &[
    List { path: "/v1/congress-trades", params: &[], items: "filings", whole: Some("1000") },
    List { path: "/v1/senate-trades", params: &[], items: "filings", whole: Some("1000") },
    List { path: "/v1/insiders", params: &[], items: "companies", whole: None },
    List { path: "/v1/execs", params: &[], items: "companies", whole: Some("1000") },
    List { path: "/v1/donors", params: &[], items: "companies", whole: None },
    List { path: "/v1/contracts", params: &[], items: "companies", whole: None },
    List { path: "/v1/lobbying", params: &[], items: "companies", whole: None },
    List { path: "/v1/patents", params: &[], items: "companies", whole: None },
    List { path: "/v1/edgar-search", params: &[("q", "dividend")], items: "hits", whole: Some("100") },
    List { path: "/v1/sam-entities", params: &[("q", "services")], items: "entities", whole: Some("50") },
    List { path: "/v1/prices", params: &[], items: "tickers", whole: None },
    List {
        path: "/v1/prices",
        params: &[("ticker", "spy"), ("from", "2026-01-01"), ("to", "2026-02-15")],
        items: "series",
        whole: None,
    },
    List { path: "/v1/predictions", params: &[("open", "false")], items: "rows", whole: Some("1000") },
    List { path: "/v1/institutional-holdings", params: &[("cik", "9990307")], items: "holdings", whole: Some("1000") },
    List {
        path: "/v1/deeds",
        params: &[("county", "travis-tx"), ("query", "tx")],
        items: "deeds",
        whole: Some("1000"),
    },
    List {
        path: "/v1/liens",
        params: &[("county", "travis-tx"), ("query", "tx")],
        items: "liens",
        whole: Some("1000"),
    },
];

fn query_string(pairs: &[(&str, &str)]) -> String {
    let mut url = Url::parse("http://localhost/").unwrap();
    url.query_pairs_mut().extend_pairs(pairs);
    url.query().unwrap_or_default().to_string()
}

fn get(server: &Server, path: &str, pairs: &[(&str, &str)]) -> (u16, Value, reqwest::header::HeaderMap) {
    let resp = server.request(&format!("{path}?{}", query_string(pairs)), &[("X-API-Key", &server.owner_key)]);
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, resp.json().unwrap_or(Value::Null), headers)
}

/// The whole list in one response (asserting it is whole: `next` null, no Link).
fn unpaged(server: &Server, list: &List) -> Vec<Value> {
    let mut pairs = list.params.to_vec();
    pairs.extend(list.whole.map(|l| ("limit", l)));
    let (status, body, headers) = get(server, list.path, &pairs);
    assert_eq!(status, 200, "{} {pairs:?}: {body}", list.path);
    assert_eq!(body["next"], Value::Null, "{} {pairs:?}: the reference list must fit one page", list.path);
    assert!(headers.get("link").is_none() && headers.get("x-next-cursor").is_none(), "{}", list.path);
    body[list.items].as_array().unwrap_or_else(|| panic!("{}: no {} array: {body}", list.path, list.items)).clone()
}

/// Walks `list` with pages of `limit`, following each page's `Link` header; with `key_in_query` the key travels
/// as the `api_key` parameter, which the Link must not repeat. Returns the items and the number of pages.
fn walk(server: &Server, list: &List, limit: usize, key_in_query: bool) -> (Vec<Value>, usize) {
    let limit_text = limit.to_string();
    let mut asked: Vec<(String, String)> = list.params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    asked.push(("limit".into(), limit_text.clone()));
    let mut target = format!(
        "{}?{}",
        list.path,
        query_string(&list.params.iter().copied().chain([("limit", limit_text.as_str())]).collect::<Vec<_>>())
    );
    let mut items = Vec::new();
    let mut pages = 0;
    loop {
        pages += 1;
        assert!(pages <= 500, "{}: the walk does not end", list.path);
        let resp = if key_in_query {
            server.request(&format!("{target}&api_key={}", server.owner_key), &[])
        } else {
            server.request(&target, &[("X-API-Key", &server.owner_key)])
        };
        assert_eq!(resp.status().as_u16(), 200, "{target}");
        let link = resp.headers().get("link").map(|v| v.to_str().unwrap().to_string());
        let next_header = resp.headers().get("x-next-cursor").map(|v| v.to_str().unwrap().to_string());
        let body: Value = resp.json().unwrap();
        let page = body[list.items].as_array().unwrap_or_else(|| panic!("{target}: {body}"));
        if body.get("count").is_some() {
            assert_eq!(body["count"].as_u64(), Some(page.len() as u64), "{target}: count is the page's item count");
        }
        items.extend(page.iter().cloned());
        let Some(next) = body["next"].as_str() else {
            assert_eq!(body["next"], Value::Null, "{target}: `next` is always present");
            assert_eq!((link, next_header), (None, None), "{target}: the last page links nowhere");
            assert!(page.len() <= limit, "{target}");
            return (items, pages);
        };
        assert_eq!(page.len(), limit, "{target}: a page with a next page is full");
        assert_eq!(next_header.as_deref(), Some(next), "{target}: X-Next-Cursor repeats next");
        let link = link.unwrap_or_else(|| panic!("{target}: a page with a next page has a Link header"));
        assert!(!link.contains(&server.owner_key) && !link.contains("api_key"), "the key is never echoed: {link}");
        let url = link
            .strip_prefix('<')
            .and_then(|l| l.strip_suffix(">; rel=\"next\""))
            .unwrap_or_else(|| panic!("Link is `<url>; rel=\"next\"`: {link}"));
        let url = Url::parse(url).unwrap();
        assert_eq!((url.scheme(), url.host_str(), url.path()), ("http", Some("localhost"), list.path), "{link}");
        let mut linked: Vec<(String, String)> =
            url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        let mut expected = asked.clone();
        expected.push(("cursor".into(), next.to_string()));
        linked.sort();
        expected.sort();
        assert_eq!(linked, expected, "the Link keeps the request's own parameters and sets cursor: {link}");
        target = format!("{}?{}", url.path(), url.query().unwrap());
    }
}

#[test]
fn every_list_endpoint_walks_page_by_page_to_the_unpaged_list() {
    let server = Server::start();
    for list in LISTS {
        let whole = unpaged(&server, list);
        assert!(whole.len() >= 3, "{} {:?}: the seed should give a list of several pages", list.path, list.params);
        let (walked, pages) = walk(&server, list, 2, false);
        assert_eq!(walked, whole, "{} {:?}: pages of 2 give the unpaged list, in order", list.path, list.params);
        assert_eq!(pages, whole.len().div_ceil(2).max(1), "{}", list.path);
        let distinct: HashSet<String> = walked.iter().map(Value::to_string).collect();
        assert_eq!(distinct.len(), walked.len(), "{}: no item twice", list.path);
    }
}

#[test]
fn the_link_never_carries_the_key_given_as_a_parameter() {
    let server = Server::start();
    let list = &LISTS[0];
    let (walked, pages) = walk(&server, list, 3, true);
    assert!(pages >= 2, "several pages");
    assert_eq!(walked, unpaged(&server, list));
}

#[test]
fn a_cursor_that_is_altered_or_belongs_to_another_query_is_a_400_naming_cursor() {
    let server = Server::start();
    let (_, first, _) = get(&server, "/v1/congress-trades", &[("limit", "1")]);
    let cursor = first["next"].as_str().expect("a next page").to_string();
    // Page size may change along a walk.
    let (status, body, _) = get(&server, "/v1/congress-trades", &[("limit", "5"), ("cursor", &cursor)]);
    assert_eq!(status, 200, "{body}");

    let mut altered: Vec<char> = cursor.chars().collect();
    let mid = altered.len() / 2;
    altered[mid] = if altered[mid] == 'A' { 'B' } else { 'A' };
    let altered: String = altered.into_iter().collect();
    let (_, senate, _) = get(&server, "/v1/senate-trades", &[("limit", "1")]);
    let senate_cursor = senate["next"].as_str().expect("a next Senate page").to_string();
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/v1/congress-trades", vec![("cursor", "not-a-cursor")]),
        ("/v1/congress-trades", vec![("cursor", "eyJ2IjoxLCJrIjo1MH0")]),
        ("/v1/congress-trades", vec![("cursor", &altered)]),
        ("/v1/congress-trades", vec![("cursor", &cursor[..cursor.len() - 4])]),
        ("/v1/congress-trades", vec![("ticker", "NVDA"), ("cursor", &cursor)]),
        ("/v1/congress-trades", vec![("cursor", &senate_cursor)]),
        ("/v1/insiders", vec![("limit", "1"), ("cursor", &cursor)]),
        ("/v1/prices", vec![("cursor", &cursor)]),
    ];
    for (path, pairs) in cases {
        let (status, body, _) = get(&server, path, &pairs);
        assert_envelope(status, &body, 400);
        let message = body["error"].as_str().unwrap();
        assert!(message.contains("cursor"), "{path} {pairs:?}: the error names cursor: {message}");
        assert!(body["docs"].is_string(), "{body}");
    }
}

/// The component schema a `$ref` names.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => doc.pointer(r.trim_start_matches('#')).unwrap_or_else(|| panic!("{r} is not in the document")),
        None => schema,
    }
}

#[test]
fn openapi_documents_cursor_next_and_the_link_header_on_every_list() {
    let server = Server::start();
    let (status, doc) = server.get_with("/openapi.json", &[]);
    assert_eq!(status, 200);
    let paths: HashSet<&str> = LISTS.iter().map(|l| l.path).collect();
    for path in paths {
        let op = &doc["paths"][path]["get"];
        let params = op["parameters"].as_array().unwrap_or_else(|| panic!("{path}: no parameters"));
        let cursor = params.iter().find(|p| p["name"] == "cursor").unwrap_or_else(|| panic!("{path}: no cursor"));
        assert_eq!(
            (&cursor["in"], &cursor["required"], &cursor["schema"]["type"]),
            (&"query".into(), &false.into(), &"string".into())
        );
        assert!(params.iter().any(|p| p["name"] == "limit"), "{path}: limit is the page size");
        let ok = &op["responses"]["200"];
        assert!(ok["headers"]["Link"].is_object(), "{path}: the Link header is documented");
        assert!(ok["headers"]["X-Next-Cursor"].is_object(), "{path}");
        let body = resolve(&doc, &ok["content"]["application/json"]["schema"]);
        let variants: Vec<&Value> = match body["anyOf"].as_array() {
            Some(v) => v.iter().map(|s| resolve(&doc, s)).collect(),
            None => vec![body],
        };
        for schema in variants {
            assert_eq!(schema["properties"]["next"]["type"], serde_json::json!(["string", "null"]), "{path}: {schema}");
            assert!(schema["required"].as_array().unwrap().contains(&"next".into()), "{path}: next is always present");
        }
        let example = &ok["content"]["application/json"]["example"];
        assert!(example.get("next").is_some(), "{path}: the example shows next");
    }
}

/// The DocIDs of every Senate filing served, walked in pages of 1000.
fn senate_doc_ids(server: &Server) -> Vec<String> {
    let list = List { path: "/v1/senate-trades", params: &[], items: "filings", whole: None };
    let (filings, _) = walk(server, &list, 1000, false);
    filings.iter().map(|f| f["docId"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_walk_across_a_concurrent_ingest_neither_repeats_nor_skips() {
    let Some(file) = corpus("senate-stock-watcher/all_transactions_for_senators.json") else { return };
    // The real file, split by senator: one half ingested before the walk, the other while it runs.
    let senators: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let (first, second) = senators.split_at(senators.len() / 2);
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, part: &[Value]| -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_vec(part).unwrap()).unwrap();
        path
    };
    let (first_file, second_file) = (write("first.json", first), write("second.json", second));
    // A senator of the second half whose name no senator of the first half shares: the readiness signal.
    let marker = second
        .iter()
        .filter_map(|s| s["last_name"].as_str())
        .find(|name| !first.iter().any(|s| s["last_name"].as_str().is_some_and(|n| n.contains(name))))
        .expect("a distinct surname")
        .to_string();

    let server = Server::start();
    let (code, out, err) = server.ingest("senate-trades", &[first_file.as_path()], &[]);
    assert_eq!(code, 0, "{out}{err}");
    server.wait_for_data("senate-trades", |_| true);
    let before = senate_doc_ids(&server);
    assert!(before.len() > 20, "the first half holds many filings: {}", before.len());

    // The walk begins.
    let limit = "7";
    let (status, page, _) = get(&server, "/v1/senate-trades", &[("limit", limit)]);
    assert_eq!(status, 200);
    let mut walked: Vec<String> = Vec::new();
    let mut page = page;
    // Ingest the second half between the first and second pages, and wait until the server serves it.
    let (code, out, err) = server.ingest("senate-trades", &[second_file.as_path()], &[]);
    assert_eq!(code, 0, "{out}{err}");
    let member = format!("/v1/senate-trades?member={}", marker.replace(' ', "%20"));
    server.wait_for_route(&member, |b| b["count"].as_u64().is_some_and(|c| c > 0));
    loop {
        walked.extend(page["filings"].as_array().unwrap().iter().map(|f| f["docId"].as_str().unwrap().to_string()));
        let Some(next) = page["next"].as_str().map(str::to_string) else { break };
        let (status, body, _) = get(&server, "/v1/senate-trades", &[("limit", limit), ("cursor", &next)]);
        assert_eq!(status, 200, "{body}");
        page = body;
    }
    let after = senate_doc_ids(&server);
    assert!(after.len() > before.len(), "the second half added filings: {} then {}", before.len(), after.len());

    let distinct: HashSet<&String> = walked.iter().collect();
    assert_eq!(distinct.len(), walked.len(), "no filing served twice");
    let missing: Vec<&String> = before.iter().filter(|id| !distinct.contains(id)).collect();
    assert!(missing.is_empty(), "every filing that existed when the walk began was served: missing {missing:?}");
    let now: HashSet<&String> = after.iter().collect();
    assert!(walked.iter().all(|id| now.contains(id)), "every filing served exists");
    // The walk is in the list's order: the walked DocIDs are the current list minus the filings ingested
    // before the walk's position.
    let order: Vec<&String> = after.iter().filter(|id| distinct.contains(id)).collect();
    assert_eq!(order, walked.iter().collect::<Vec<_>>(), "the walk follows the list's order");
}
