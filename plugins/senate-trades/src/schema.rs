//! The OpenAPI fragment of `/v1/senate-trades`: full response schema, parameters, example.

use datahost_plugin_api::disclosure::{amount_bound_schemas, meta_schemas, trade_schemas};
use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let trade = object_with_optional(
        &trade_schemas("Transaction type: `purchase`, `sale` (full sale), `sale (partial)` or `exchange`."),
        &amount_bound_schemas(),
    );
    let filing = object(&[
        ("member", describe(string(), "Senator who filed the report.")),
        ("chamber", describe(string_enum(&["senate"]), "Always `senate` for this dataset.")),
        ("docId", describe(string(), "Report identifier in the Senate eFD system.")),
        ("year", describe(integer(), "Calendar year the report was filed.")),
        ("filedDate", describe(date(), "Date the report was filed.")),
        ("trades", array(reference("SenateTrade"))),
    ]);
    let meta = object(&meta_schemas());
    let body = object(&[
        ("meta", reference("SenateTradesMeta")),
        ("count", describe(integer(), "Number of filings returned.")),
        ("filings", array(reference("SenateFiling"))),
    ]);
    let route = route_spec();
    let op = Operation {
        route: &route,
        operation_id: "getSenateTrades",
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
            "source": "datahost demo seed: fictional U.S. Senators, generated for development (not real disclosures)",
            "sourceUrl": "https://efdsearch.senate.gov/search/",
            "method": "Periodic Transaction Reports from the Senate eFD search, parsed into transaction rows.",
            "caveat": "DEMO DATA with fictional senator names. BETA: coverage and field accuracy are still being \
                validated.",
            "generatedAt": "2026-11-01T06:00:00Z"
        },
        "count": 1,
        "filings": [{
            "member": "Mitchell Tarrant",
            "chamber": "senate",
            "docId": "8864de4c-1cf2-45ba-8493-f84938c6f0f7",
            "year": 2026,
            "filedDate": "2026-10-22",
            "trades": [{
                "ticker": "DE",
                "asset": "Deere & Company - Common Stock",
                "type": "sale",
                "amountRange": "$15,001 - $50,000",
                "date": "2026-09-15",
                "amountMin": 15001.0,
                "amountMax": 50000.0
            }]
        }]
    })
}
