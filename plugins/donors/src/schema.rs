//! The OpenAPI fragment of `/v1/donors`: full response schema, parameter, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_kit::companies::{derived_company, CompaniesDoc};
use serde_json::{json, Value};

use crate::routes::{route_spec, CompanyOut};

pub fn fragment() -> Value {
    let (company, extra_schemas) = derived_company::<CompanyOut>("Donors");
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Donors",
        summary: "Corporate PAC contributions to federal candidates",
        description: "Per company: its connected PAC, FEC committee id, cycle, total contributions to federal \
            candidates and the Democratic/Republican split, computed from the individual contributions. PAC \
            figures are not company financials and not predictive of stock performance.",
        generated_at: date(),
        caveat: "States that PAC figures are not company financials and not predictive of stock performance.",
        extra_meta: vec![],
        company,
        extra_schemas,
        example: example(),
    }
    .fragment()
}

/// The demo seed's answer for one fictional company (the test `example_matches_the_real_response` checks it).
pub fn example() -> Value {
    json!({
        "meta": {
            "generatedAt": "2026-11-01",
            "source": "DEMO seed of datahost: contributions of fictional companies' PACs to fictional federal candidates, generated for development (not FEC filings)",
            "sourceUrl": "https://demo.invalid/donors",
            "caveat": "DEMO DATA: every company, PAC and candidate is fictional and every amount is invented. PAC figures are not company financials and not predictive of stock performance."
        },
        "count": 1,
        "companies": [{
            "name": "Bulwark Ridge Defense Corporation (demo)",
            "ticker": "BWRD",
            "pacName": "Bulwark Ridge Defense Corporation Employees' Political Action Committee (demo)",
            "committeeId": "DEMO-C0001",
            "cycle": "2026",
            "note": "Connected PAC of Bulwark Ridge Defense Corporation (demo); contributions to federal candidates in the 2025-2026 cycle through the snapshot date.",
            "totalContributionsUsd": 90500.0,
            "demPct": 32.0,
            "repPct": 68.0,
            "contributionCount": 23
        }]
    })
}
