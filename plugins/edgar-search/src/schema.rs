//! The OpenAPI fragment of `/v1/edgar-search`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::index::TOTAL_CAP;
use crate::routes::{route_spec, Body, MAX_LIMIT};

pub fn fragment() -> Value {
    let route = route_spec();
    let description = format!(
        "Full-text search over EDGAR filings, served from an inverted index (tantivy) with BM25 relevance \
         ranking. Query syntax: every word must match (words are lower-cased and English-stemmed, so \
         `impairments` finds `impairment`); `\"supply chain\"` matches the exact phrase; `OR` between words \
         matches either; `-word` excludes; `entity:`, `text:`, `form:` and `cik:` restrict a term to one field. \
         Malformed query syntax is a 400 naming `q`. `forms` and `from`/`to` filter inside the index, so `total` \
         is the number of matching filings (exact up to {TOTAL_CAP}; beyond, `totalIsLowerBound` is true and `total` \
         is {TOTAL_CAP}) while `count` is the number returned (at most `limit`, default \
         10, clamped at {MAX_LIMIT}). Equal scores list the newer filing first. Each hit carries its BM25 `score` \
         and a text `snippet`. The demo dataset holds synthetic filings of fictional companies (names ending \
         in `(demo)`, CIKs from 0009990001, accession numbers `DEMO-...`); production indexes filings since 2001. \
         The same engine and the same answers whichever records engine the server runs."
    );
    let op = Operation {
        route: &route,
        summary: "Full-text search over SEC filings",
        description: &description,
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<Body>())
}

/// A real response of the shipped demo seed (a unit test checks it).
fn example() -> Value {
    json!({
        "query": "\"goodwill impairment\"",
        "total": 73,
        "totalIsLowerBound": false,
        "next": "ApmcOKED-RUJWzMyMjcwMzYyNDIsMjM4XQBzZWVkLTMwML8jNZgPspBR",
        "count": 1,
        "hits": [{
            "form": "10-K",
            "entity": "Reelhouse Streaming Inc. (demo)",
            "cik": "0009990012",
            "accession": "DEMO-2022-000240",
            "url": "https://demo.invalid/edgar-search/DEMO-2022-000240",
            "filedDate": "2022-04-07",
            "score": 3.3854,
            "snippet": "activity. We recorded a goodwill impairment charge of $2144 million related to our streaming \
                        reporting unit. We continue to invest in artificial intelligence"
        }]
    })
}
