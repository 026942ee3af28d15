//! The OpenAPI fragment of `/v1/entity-graph`: the response schema derived from the served types
//! (`routes::Body`, with the graph's node and edge fields and provenance), the `allOf` clauses saying which
//! fields each node type and relation always carries, the parameters, the 404, and an example.

use datahost_plugin_api::openapi::{components_of, fragment_with, schema::*, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::graph::{NodeType, Relation};
use crate::routes::{route_spec, Body};

/// `then` clauses: the fields each relation's edges always carry.
const EDGE_FIELDS: [(&str, &[&str]); 7] = [
    ("traded", &["type", "asset", "amountRange", "amountMin", "amountMax"]),
    ("insider-of", &["title", "code", "filingCount", "transactionCount"]),
    ("lobbied", &["year", "spendUsd", "filingCount", "quarters"]),
    ("awarded-contract", &["amount", "description", "date"]),
    ("donated", &["cycle", "totalContributionsUsd", "demPct", "repPct"]),
    ("holds", &["valueUsd", "shares", "nameOfIssuer", "cusip", "titleOfClass", "putCall", "matchedBy"]),
    ("granted-patent", &["assigneeMatched", "grantedLast12mo", "grantedPrior12mo"]),
];

/// The fields each node type always carries besides the shared ones.
const NODE_FIELDS: [(&str, &[&str]); 3] = [("company", &["ticker"]), ("member", &["chamber"]), ("filer", &["cik"])];

/// `allOf` of `if <field> is <value> then <required>` clauses.
fn required_when(field: &str, table: &[(&str, &[&str])]) -> Value {
    let clauses: Vec<Value> = table
        .iter()
        .map(|(value, required)| {
            json!({
                "if": {"properties": {field: {"const": value}}, "required": [field]},
                "then": {"required": required},
            })
        })
        .collect();
    json!(clauses)
}

/// The `allOf` of a node: which fields each type always carries.
pub(crate) fn node_requirements() -> Value {
    required_when("type", &NODE_FIELDS)
}

/// The `allOf` of an edge: which fields each relation always carries.
pub(crate) fn edge_requirements() -> Value {
    required_when("relation", &EDGE_FIELDS)
}

/// The datasets a graph is built from: one named enum, `EntityGraphDataset`, referenced wherever a dataset is
/// named. [`fragment`] lists it by hand: the fields name it through `with`, which the derive does not follow.
pub(crate) fn dataset_schema() -> Value {
    reference("EntityGraphDataset")
}

pub(crate) fn datasets_schema() -> Value {
    array(dataset_schema())
}

/// A count: an integer of at least 0.
pub(crate) fn count_schema() -> Value {
    with(integer(), "minimum", json!(0))
}

pub(crate) fn node_type_schema() -> Value {
    string_enum(&NodeType::ALL.map(NodeType::as_str))
}

pub(crate) fn relation_schema() -> Value {
    string_enum(&Relation::ALL.map(Relation::as_str))
}

pub(crate) fn focus_match_schema() -> Value {
    string_enum(&["ticker", "exact", "substring"])
}

pub(crate) fn depth_schema() -> Value {
    json!({"type": "integer", "enum": [1, 2]})
}

pub(crate) fn chamber_schema() -> Value {
    string_enum(&["house", "senate"])
}

pub(crate) fn quarters_schema() -> Value {
    array(with(string(), "pattern", json!("^[0-9]{4}-Q[1-4]$")))
}

pub(crate) fn award_type_schema() -> Value {
    string_enum(&["A", "B", "C", "D"])
}

pub(crate) fn holding_match_schema() -> Value {
    string_enum(&["issuer", "name", "cusip"])
}

pub fn fragment() -> Value {
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "Cross-dataset relationship graph (pro)",
        description: "Typed nodes (company, person, member of Congress, agency, 13F filer, PAC committee) and typed, \
            provenance-carrying edges (traded, insider-of, lobbied, awarded-contract, donated, holds, granted-patent) \
            around one entity, built from the House and Senate trade disclosures, Form 4 insiders, lobbying, \
            contracts, PAC, patent and 13F datasets. Requires the pro tier.\n\n\
            Matching: companies are one node per normalised ticker in every dataset. A 13F holding links to the \
            company whose name matches its issuer name after the SEC's abbreviations are expanded and legal forms \
            dropped (`APPLIED MATLS INC` = `Applied Materials, Inc.`), or that another holding with the same \
            CUSIP issuer code (first six characters) matched by name; holdings matching no company are not linked. \
            Only each filer's latest 13F filing is read. Contract edges are the top awards `/v1/contracts` lists \
            (fiscal year 2024 on, award types A-D). Lobbying reports name no chamber or agency here, so clients link to one \
            `agency:federal-government` node, one edge per filing year; patents link from `agency:uspto`. A depth-2 \
            query does not expand through these two shared nodes.\n\n\
            Focus: exactly one of `ticker` or `entity` (neither or both is a 400). `entity` matches names \
            case-insensitively: an exact name (or node id, ticker, FEC committee id, CIK) first, else a unique \
            substring; when several entities match and exactly one is a company the company is chosen, otherwise \
            the 400 lists candidates. An unknown ticker or entity is a 404.\n\n\
            The graph reads the other datasets' public routes, so it holds what they serve (demo seed or ingested \
            records; `meta.caveat` says DEMO when any source is demo). Provenance addresses are the sources' own; \
            the graph builds none. A source that fails is left out of the graph and listed in \
            `meta.datasetsUnavailable`; the endpoint still answers from the rest.",
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[(404, "No dataset in the graph links the ticker or entity.")],
    };
    let mut schemas = components_of::<Body>();
    schemas.insert("EntityGraphDataset".into(), string_enum(&crate::READS));
    fragment_with(vec![(crate::ROUTE, op.path_item())], schemas)
}

/// An example in the demo universe (fictional companies and people, `demo.invalid` addresses).
fn example() -> Value {
    json!({
        "entity": {"id": "company:LMCS", "type": "company", "label": "Lumen Cascade Semiconductor Inc. (demo)",
                   "matchedBy": "ticker"},
        "count": {"nodes": 5, "edges": 4},
        "nodes": [
            {"id": "company:LMCS", "type": "company", "label": "Lumen Cascade Semiconductor Inc. (demo)",
             "datasets": ["congress-trades", "insiders", "institutional-holdings", "patents", "senate-trades"],
             "distance": 0, "ticker": "LMCS", "cik": "0009990006", "ceo": "Horatio Coldridge"},
            {"id": "person:gideon-carrowmore", "type": "person", "label": "Gideon Carrowmore",
             "datasets": ["insiders"], "distance": 1},
            {"id": "member:alex-fairbanks", "type": "member", "label": "Alex Fairbanks",
             "datasets": ["congress-trades"], "distance": 1, "chamber": "house"},
            {"id": "agency:uspto", "type": "agency", "label": "United States Patent and Trademark Office",
             "datasets": ["patents"], "distance": 1,
             "note": "Grantor of the patents in the patents dataset; every covered applicant links here."},
            {"id": "filer:0009990301", "type": "filer", "label": "Granite Harbor Capital Management LLC (demo)",
             "datasets": ["institutional-holdings"], "distance": 1, "cik": "0009990301", "form": "13F-HR",
             "periodOfReport": "2026-09-30"}
        ],
        "edges": [
            {"source": "agency:uspto", "target": "company:LMCS", "relation": "granted-patent", "dataset": "patents",
             "provenance": {"sourceUrl": "https://demo.invalid/patents"},
             "assigneeMatched": "Lumen Cascade Semiconductor Inc. (demo)", "grantedLast12mo": 7,
             "grantedPrior12mo": 4},
            {"source": "filer:0009990301", "target": "company:LMCS", "relation": "holds",
             "dataset": "institutional-holdings",
             "provenance": {"sourceUrl": "https://demo.invalid/institutional-holdings",
                            "accession": "DEMO-13F-0009990301-26-000017", "date": "2026-10-25"},
             "valueUsd": 30803006, "shares": 193620, "nameOfIssuer": "LUMEN CASCADE SEMICONDUCTOR INC (DEMO)",
             "cusip": "DEMO00104", "titleOfClass": "COM", "putCall": null, "periodOfReport": "2026-09-30",
             "matchedBy": "name"},
            {"source": "member:alex-fairbanks", "target": "company:LMCS", "relation": "traded",
             "dataset": "congress-trades",
             "provenance": {"sourceUrl": "https://demo.invalid/congress-trades", "docId": "DEMO-20024516",
                            "date": "2026-10-06"},
             "type": "exchange", "asset": "Lumen Cascade Semiconductor Inc. (demo) - Common Stock",
             "amountRange": "$1,001 - $15,000", "amountMin": 1001, "amountMax": 15000, "date": "2026-09-07",
             "bundled": false},
            {"source": "person:gideon-carrowmore", "target": "company:LMCS", "relation": "insider-of",
             "dataset": "insiders",
             "provenance": {"sourceUrl": "https://demo.invalid/insiders/DEMO-F4-0009990006-26-080358",
                            "accession": "DEMO-F4-0009990006-26-080358", "date": "2026-08-14"},
             "title": "EVP Global Sales", "code": "F", "filingCount": 2, "transactionCount": 2}
        ],
        "meta": {
            "generatedAt": "2026-11-01T06:00:00Z",
            "source": "Derived from the public routes of the datasets listed in `datasets`; some of them serve DEMO data (fictional people and companies, invented amounts).",
            "caveat": "DEMO DATA: some source datasets serve their demo seed (fictional people, companies and figures); do not attribute those links to real people or companies. A link means two entities appear together in a public record; it does not imply wrongdoing, influence or coordination.",
            "datasets": ["congress-trades", "contracts", "donors", "insiders", "institutional-holdings", "lobbying", "patents", "senate-trades"],
            "datasetsUnavailable": [],
            "datasetsLinked": ["congress-trades", "insiders", "institutional-holdings", "patents"],
            "depth": 1,
            "limit": 4,
            "edgesTotal": 22,
            "truncated": true
        }
    })
}
