//! The OpenAPI fragment of `/v1/senate-trades`: the response schema derived from the served types
//! (`routes::Body`), the parameters, an example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, Body};

pub fn fragment() -> Value {
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "Senate member stock-trade disclosures (beta)",
        description: "Periodic Transaction Reports filed by U.S. Senators, newest filing first. With `ticker`, only \
            filings with a trade in that ticker are returned, each holding only those trades. Beta: coverage and \
            field accuracy are still being validated. These are trade disclosures, not voting records or policy \
            positions.",
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<Body>())
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
