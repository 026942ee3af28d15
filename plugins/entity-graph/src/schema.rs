//! The OpenAPI fragment of `/v1/entity-graph`: the full graph response (typed nodes, typed edges with
//! provenance, build meta), the parameters, the 404, and an example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::graph::{NodeType, Relation};
use crate::routes::route_spec;

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

/// The datasets a graph is built from: one named enum, referenced wherever a dataset is named.
fn datasets_enum() -> Value {
    reference("EntityGraphDataset")
}

pub fn fragment() -> Value {
    let node_types: Vec<&str> = NodeType::ALL.iter().map(|t| t.as_str()).collect();
    let relations: Vec<&str> = Relation::ALL.iter().map(|r| r.as_str()).collect();

    let entity = object_with_optional(
        &[
            ("id", describe(string(), "Node id of the focus entity.")),
            ("type", string_enum(&node_types)),
            ("label", string()),
        ],
        &[(
            "matchedBy",
            describe(
                string_enum(&["ticker", "exact", "substring"]),
                "How the focus was found: by `ticker`, by an exact `entity` name, or by a unique substring.",
            ),
        )],
    );

    let mut node = object_with_optional(
        &[
            (
                "id",
                describe(
                    string(),
                    "Stable id: `company:<TICKER>`, `person:<name-slug>`, `member:<name-slug>`, \
                     `agency:<name-slug>`, `filer:<10-digit CIK>`, `committee:<FEC committee id>`.",
                ),
            ),
            ("type", describe(string_enum(&node_types), "Node type.")),
            ("label", describe(string(), "Display name (for a company, the issuer's name; else the name as filed).")),
            ("datasets", describe(array(datasets_enum()), "Datasets the entity appears in.")),
            (
                "distance",
                describe(with(integer(), "minimum", json!(0)), "Hops from the focus entity (0 for the focus itself)."),
            ),
        ],
        &[
            ("ticker", describe(string(), "company: the normalised ticker (share classes as `BRK.B`).")),
            ("cik", describe(string(), "company (from insiders) or filer: SEC CIK, 10 digits.")),
            ("ceo", describe(string(), "company (from insiders): chief executive as listed.")),
            ("chamber", describe(string_enum(&["house", "senate"]), "member: chamber of Congress.")),
            ("committeeId", describe(string(), "committee: FEC committee id.")),
            ("form", describe(string(), "filer: form of the latest 13F filing read (`13F-HR`).")),
            ("periodOfReport", describe(date(), "filer: quarter end of the latest 13F filing read.")),
            ("note", describe(string(), "agency (shared hub nodes only): what the node stands for.")),
        ],
    );
    node["allOf"] = required_when("type", &NODE_FIELDS);

    let provenance = object_with_optional(
        &[],
        &[
            ("sourceUrl", describe(uri(), "Public address of the source record or of the dataset's source.")),
            ("accession", describe(string(), "SEC accession number (Form 4, 13F).")),
            (
                "docId",
                describe(string(), "Document id: PTR id, LD-2 filing UUID, award id, FEC committee id, patent number."),
            ),
            (
                "date",
                describe(date(), "Date of the cited record (filing, posting, award, contribution or grant date)."),
            ),
        ],
    );

    let count_field = |text: &str| describe(with(integer(), "minimum", json!(0)), text);
    let mut edge = object_with_optional(
        &[
            ("source", describe(string(), "Node id the relation starts at.")),
            ("target", describe(string(), "Node id the relation points to.")),
            (
                "relation",
                describe(
                    string_enum(&relations),
                    "`traded` member -> company (one PTR line); `insider-of` person -> company (Form 4 owner); \
                     `lobbied` company -> federal-government (one filing year); `awarded-contract` agency -> \
                     company (one award); `donated` committee -> company (the company's connected PAC and its cycle \
                     totals to federal candidates, not money paid to the company); `holds` filer -> company (one 13F \
                     information-table row); `granted-patent` USPTO -> company.",
                ),
            ),
            ("dataset", describe(datasets_enum(), "Dataset the edge comes from.")),
            ("provenance", reference("EntityGraphProvenance")),
        ],
        &[
            (
                "type",
                describe(string(), "traded: transaction type as disclosed (purchase, sale, sale (partial), exchange)."),
            ),
            ("asset", describe(string(), "traded: asset as disclosed.")),
            ("amountRange", describe(string(), "traded: bucketed amount range as disclosed.")),
            ("amountMin", describe(nullable(number()), "traded: lower bound of amountRange in USD.")),
            ("amountMax", describe(nullable(number()), "traded: upper bound in USD; null when open-ended.")),
            ("date", describe(date(), "traded: transaction date; awarded-contract: action date.")),
            ("bundled", describe(boolean(), "traded (House only): several transactions reported as one line.")),
            ("title", describe(string(), "insider-of: the person's titles, newest filing first, comma-separated.")),
            (
                "code",
                describe(string(), "insider-of: transaction code of the latest Form 4 row (P, S, A, M, F, G...)."),
            ),
            ("filingCount", count_field("insider-of: distinct Form 4 filings; lobbied: LD-2 reports in the year.")),
            ("transactionCount", count_field("insider-of: Form 4 transaction rows.")),
            ("year", describe(integer(), "lobbied: filing year.")),
            ("spendUsd", describe(number(), "lobbied: sum of the year's reported amounts in USD.")),
            (
                "quarters",
                describe(
                    array(with(string(), "pattern", json!("^[0-9]{4}-Q[1-4]$"))),
                    "lobbied: quarters reported, `<year>-Q<n>`.",
                ),
            ),
            ("amount", describe(number(), "awarded-contract: obligated amount in USD.")),
            ("awardId", describe(string(), "awarded-contract: award id (PIID).")),
            ("awardType", describe(string_enum(&["A", "B", "C", "D"]), "awarded-contract: award type code.")),
            ("description", describe(string(), "awarded-contract: award description.")),
            ("cycle", describe(string(), "donated: election cycle.")),
            ("totalContributionsUsd", describe(number(), "donated: PAC contributions to federal candidates, USD.")),
            ("contributionCount", count_field("donated: number of contributions.")),
            ("demPct", describe(number(), "donated: share to Democratic candidates, percent.")),
            ("repPct", describe(number(), "donated: share to Republican candidates, percent.")),
            ("valueUsd", describe(number(), "holds: reported value in USD.")),
            ("shares", describe(number(), "holds: shares or principal amount.")),
            ("nameOfIssuer", describe(string(), "holds: issuer name as filed.")),
            ("cusip", describe(string(), "holds: CUSIP as filed.")),
            ("titleOfClass", describe(string(), "holds: class of the security as filed.")),
            ("putCall", describe(nullable(string()), "holds: `Put` or `Call` for an option position, else null.")),
            ("periodOfReport", describe(date(), "holds: quarter end of the 13F filing.")),
            (
                "matchedBy",
                describe(
                    string_enum(&["issuer", "name", "cusip"]),
                    "holds: how the holding was linked to the company: `issuer`, the company the holdings dataset \
                     resolved the issuer to; `name`, its issuer name; `cusip`, a CUSIP issuer code that another \
                     holding linked by name.",
                ),
            ),
            ("assigneeMatched", describe(string(), "granted-patent: first-applicant name counted.")),
            (
                "grantedLast12mo",
                count_field("granted-patent: grants in the last 12 months, as `/v1/patents` counts them."),
            ),
            ("grantedPrior12mo", count_field("granted-patent: grants in the 12 months before that.")),
        ],
    );
    edge["allOf"] = required_when("relation", &EDGE_FIELDS);

    let meta = object(&[
        ("generatedAt", describe(datetime(), "The newest generatedAt among the datasets the graph was built from.")),
        ("source", describe(string(), "Where the graph comes from; says so when the sources are demo data.")),
        ("caveat", describe(string(), "What a link does and does not mean, and how entities are matched.")),
        ("datasets", describe(array(datasets_enum()), "Datasets the graph was built from.")),
        (
            "datasetsUnavailable",
            describe(
                array(datasets_enum()),
                "Datasets that were missing or unreadable when the graph was built; their links are absent.",
            ),
        ),
        ("datasetsLinked", describe(array(datasets_enum()), "Datasets the returned edges come from.")),
        ("depth", describe(integer_enum(&[1, 2]), "Hops collected.")),
        ("limit", describe(integer(), "Maximum number of edges returned.")),
        ("edgesTotal", count_field("Edges within `depth` hops before `limit` applied.")),
        ("truncated", describe(boolean(), "True when `limit` left edges out (edgesTotal > count.edges).")),
    ]);
    let count = object(&[
        ("nodes", count_field("Number of nodes returned.")),
        ("edges", count_field("Number of edges returned.")),
    ]);
    let body = object(&[
        ("entity", reference("EntityGraphEntity")),
        (
            "nodes",
            describe(
                array(reference("EntityGraphNode")),
                "The focus entity first, then every endpoint of the returned edges, by distance, type and label.",
            ),
        ),
        (
            "edges",
            describe(
                array(reference("EntityGraphEdge")),
                "The focus entity's own edges first, then (depth 2) its neighbours' edges; each group newest \
                 provenance date first.",
            ),
        ),
        ("meta", reference("EntityGraphMeta")),
        ("count", reference("EntityGraphCount")),
    ]);

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
        response: reference("EntityGraphResponse"),
        example: Some(example()),
        extra_statuses: &[(404, "No dataset in the graph links the ticker or entity.")],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("EntityGraphResponse", body),
            ("EntityGraphEntity", entity),
            ("EntityGraphNode", node),
            ("EntityGraphEdge", edge),
            ("EntityGraphProvenance", provenance),
            ("EntityGraphMeta", meta),
            ("EntityGraphCount", count),
            ("EntityGraphDataset", string_enum(&crate::READS)),
        ],
    )
}

fn integer_enum(values: &[i64]) -> Value {
    json!({"type": "integer", "enum": values})
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
