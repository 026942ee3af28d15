//! The OpenAPI fragment of `/v1/senate-trades`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use datahost_plugin_kit::disclosure::{amount_bound_schemas, meta_schemas, trade_schemas};
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let mut trade_optional = amount_bound_schemas().to_vec();
    trade_optional.extend([
        ("owner", describe(string(), "Whose account: `Self`, `Spouse`, `Joint` or `Child` (ingested reports).")),
        ("assetType", describe(string(), "Asset type as disclosed (`Stock`, `Municipal Security`...); may be empty.")),
        ("comment", describe(string(), "The filer's comment; empty when none (ingested reports).")),
    ]);
    let mut trade_required =
        trade_schemas("Transaction type: `purchase`, `sale` (full sale), `sale (partial)` or `exchange`.");
    for (name, schema) in &mut trade_required {
        if *name == "ticker" {
            *schema = describe(
                string(),
                "Ticker of the traded security as disclosed; empty when the report gives none (`--`).",
            );
        }
    }
    let trade = object_with_optional(&trade_required, &trade_optional);
    let filing = object_with_optional(
        &[
            ("member", describe(string(), "Senator who filed the report.")),
            ("chamber", describe(string_enum(&["senate"]), "Always `senate` for this dataset.")),
            ("docId", describe(string(), "Report identifier in the Senate eFD system (the id in its link).")),
            ("year", describe(nullable(integer()), "Calendar year of filedDate; null when filedDate is unknown.")),
            (
                "filedDate",
                describe(
                    nullable(date()),
                    "Date the report was received (eFD). Null when the ingested source does not state it; such \
                     reports are ordered by their latest trade date.",
                ),
            ),
            ("trades", array(reference("SenateTrade"))),
        ],
        &[
            (
                "sourceUrl",
                describe(
                    uri(),
                    "The report on efdsearch.senate.gov (ingested reports); in the demo seed an address under the \
                     reserved https://demo.invalid/ host.",
                ),
            ),
            (
                "paper",
                describe(
                    boolean(),
                    "True for a scanned paper report: its trades are not machine-readable, so `trades` is empty \
                     without meaning that the report has none (ingested reports).",
                ),
            ),
        ],
    );
    let meta = object(&meta_schemas());
    let body = object(&[
        ("meta", reference("SenateTradesMeta")),
        ("count", describe(integer(), "Number of filings returned.")),
        ("filings", array(reference("SenateFiling"))),
        ("next", datahost_plugin_api::paging::next_schema()),
    ]);
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "Senate member stock-trade disclosures (beta)",
        description: "Periodic Transaction Reports filed by U.S. Senators, newest filing first. With `ticker`, only \
            filings with a trade in that ticker are returned, each holding only those trades. Beta: coverage and \
            field accuracy are still being validated. These are trade disclosures, not voting records or policy \
            positions.",
        response: reference("SenateTradesResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("SenateTrade", trade),
            ("SenateFiling", filing),
            ("SenateTradesMeta", meta),
            ("SenateTradesResponse", body),
        ],
    )
}

fn example() -> Value {
    json!({
        "meta": {
            "source": "DEMO seed of datahost: fictional U.S. Senators trading fictional companies' stock, generated \
                for development (not Senate disclosures)",
            "sourceUrl": "https://demo.invalid/senate-trades",
            "method": "Periodic Transaction Reports from the Senate eFD search, parsed into transaction rows.",
            "caveat": "DEMO DATA: every senator, company and report id is fictional. BETA: coverage and field \
                accuracy are still being validated.",
            "generatedAt": "2026-11-01T06:00:00Z"
        },
        "count": 1,
        "filings": [{
            "member": "Mitchell Tarrant",
            "chamber": "senate",
            "docId": "DEMO-PTR-0058",
            "sourceUrl": "https://demo.invalid/senate-trades/DEMO-PTR-0058",
            "year": 2026,
            "filedDate": "2026-10-22",
            "trades": [{
                "ticker": "FRWF",
                "asset": "Furrowfield Farm Machinery Company (demo) - Common Stock",
                "type": "sale",
                "amountRange": "$15,001 - $50,000",
                "date": "2026-09-15",
                "amountMin": 15001.0,
                "amountMax": 50000.0
            }]
        }]
    })
}
