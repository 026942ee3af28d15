//! The OpenAPI fragment of `/v1/congress-trades`: full response schema, parameters, example.

use datahost_plugin_api::disclosure::{amount_bound_schemas, meta_schemas, trade_schemas};
use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let mut trade_fields = trade_schemas("Transaction type; observed values: purchase, sale, exchange.");
    trade_fields
        .push(("bundled", describe(boolean(), "True when the filer reported several transactions as one line.")));
    let trade = object_with_optional(&trade_fields, &amount_bound_schemas());
    let filing = object(&[
        ("member", describe(string(), "House member who filed the report.")),
        ("docId", describe(string(), "Report identifier in the House Clerk's financial-disclosure system.")),
        ("year", describe(integer(), "Calendar year the report was filed.")),
        ("filedDate", describe(date(), "Date the report was filed.")),
        ("trades", array(reference("CongressTrade"))),
    ]);
    let mut meta_fields = meta_schemas();
    meta_fields.push(("filingsScanned", describe(integer(), "Periodic Transaction Reports read from the source.")));
    meta_fields.push(("filingsWithTrades", describe(integer(), "Filings in the snapshot holding at least one trade.")));
    let meta = object(&meta_fields);
    let body = object(&[
        ("meta", reference("CongressTradesMeta")),
        ("count", describe(integer(), "Number of filings returned.")),
        ("filings", array(reference("CongressFiling"))),
    ]);
    let route = route_spec();
    let op = Operation {
        route: &route,
        operation_id: "getCongressTrades",
        summary: "House member stock-trade disclosures",
        description: "Periodic Transaction Reports filed by members of the U.S. House, newest filing first. \
            With `ticker`, only filings with a trade in that ticker are returned, each holding only those trades. \
            Filings are disclosed on a delay of up to 45 days. These are trade disclosures, not voting records \
            or policy positions.",
        response: reference("CongressTradesResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("CongressTrade", trade),
            ("CongressFiling", filing),
            ("CongressTradesMeta", meta),
            ("CongressTradesResponse", body),
        ],
    )
}

fn example() -> Value {
    json!({
        "meta": {
            "source": "datahost demo seed: fictional House members, generated for development (not real disclosures)",
            "sourceUrl": "https://disclosures-clerk.house.gov/FinancialDisclosure",
            "method": "Periodic Transaction Reports parsed into transaction rows.",
            "caveat": "DEMO DATA with fictional member names. Filings are disclosed on a delay of up to 45 days.",
            "filingsScanned": 131,
            "filingsWithTrades": 96,
            "generatedAt": "2026-11-01T06:00:00Z"
        },
        "count": 1,
        "filings": [{
            "member": "Avery Hollister",
            "docId": "20024117",
            "year": 2026,
            "filedDate": "2026-10-02",
            "trades": [{
                "ticker": "NVDA",
                "asset": "NVIDIA Corporation - Common Stock",
                "type": "purchase",
                "amountRange": "$1,001 - $15,000",
                "date": "2026-09-12",
                "bundled": false,
                "amountMin": 1001.0,
                "amountMax": 15000.0
            }]
        }]
    })
}
