//! The OpenAPI fragment of `/v1/donors`: full response schema, parameter, example.

use datahost_plugin_api::companies::{company_schema, CompaniesDoc};
use datahost_plugin_api::openapi::schema::*;
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let pct = |party: &str| {
        describe(
            number(),
            &format!(
                "Percent of totalContributionsUsd that went to {party} candidates, one decimal. demPct and repPct \
                 need not sum to 100: contributions to independent and other-party candidates count in the total \
                 but in neither share (and rounding each share may make a two-party split show as 100.1)."
            ),
        )
    };
    let company = company_schema(&[
        ("pacName", describe(string(), "Name of the company's connected political action committee.")),
        ("committeeId", with(describe(string(), "FEC committee id of the PAC."), "pattern", json!("^C[0-9]{8}$"))),
        ("cycle", describe(string(), "Two-year election cycle, named by its final year (e.g. `2026`).")),
        ("note", describe(string(), "What the figures cover for this company.")),
        (
            "totalContributionsUsd",
            describe(number(), "Sum of the PAC's contributions to federal candidates in the cycle, USD."),
        ),
        ("demPct", pct("Democratic")),
        ("repPct", pct("Republican")),
        ("contributionCount", describe(integer(), "Number of contributions behind the totals.")),
    ]);
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Donors",
        operation_id: "getDonors",
        summary: "Corporate PAC contributions to federal candidates",
        description: "Per company: its connected PAC, FEC committee id, cycle, total contributions to federal \
            candidates and the Democratic/Republican split, computed from the individual contributions. PAC \
            figures are not company financials and not predictive of stock performance.",
        generated_at: date(),
        caveat: "States that PAC figures are not company financials and not predictive of stock performance.",
        extra_meta: vec![],
        company,
        extra_schemas: vec![],
        example: example(),
    }
    .fragment()
}

pub fn example() -> Value {
    json!({
        "meta": {
            "generatedAt": "2026-11-01",
            "source": "datahost demo seed: corporate PAC contributions to fictional federal candidates, generated for development (not real FEC filings)",
            "sourceUrl": "https://www.fec.gov/data/receipts/",
            "caveat": "DEMO DATA with fictional candidate names and invented amounts. PAC figures are not company financials and not predictive of stock performance."
        },
        "count": 1,
        "companies": [{
            "name": "Lockheed Martin Corporation",
            "ticker": "LMT",
            "pacName": "Lockheed Martin Corporation Employees' Political Action Committee",
            "committeeId": "C00784087",
            "cycle": "2026",
            "note": "Connected PAC of Lockheed Martin Corporation; contributions to federal candidates in the 2025-2026 cycle through the snapshot date.",
            "totalContributionsUsd": 90500.0,
            "demPct": 32.0,
            "repPct": 68.0,
            "contributionCount": 23
        }]
    })
}
