//! The OpenAPI fragment of `/v1/donors`: full response schema, parameter, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_kit::companies::CompaniesDoc;
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
    let company = object_with_optional(
        &[
            (
                "name",
                describe(string(), "Company name (the SEC's name when matched, else the name the FEC filing gives)."),
            ),
            (
                "ticker",
                describe(string(), "Stock ticker; empty when no listed company matched the PAC (ingested data)."),
            ),
            ("pacName", describe(string(), "Name of the company's connected political action committee.")),
            (
                "committeeId",
                with(
                    describe(
                        string(),
                        "FEC committee id of the PAC (`C` + 8 digits); `DEMO-C` + 4 digits in demo rows.",
                    ),
                    "pattern",
                    json!("^(C[0-9]{8}|DEMO-C[0-9]{4})$"),
                ),
            ),
            ("cycle", describe(string(), "Two-year election cycle, named by its final year (e.g. `2026`).")),
            ("note", describe(string(), "What the figures cover for this company.")),
            (
                "totalContributionsUsd",
                describe(number(), "Sum of the PAC's contributions to federal candidates in the cycle, USD."),
            ),
            ("demPct", pct("Democratic")),
            ("repPct", pct("Republican")),
            ("contributionCount", describe(integer(), "Number of contributions behind the totals.")),
        ],
        &[
            ("sourceUrl", describe(uri(), "The committee's page on fec.gov (ingested data).")),
            ("connectedOrganization", describe(string(), "CONNECTED_ORG_NM as filed; may be empty (ingested data).")),
            ("cik", describe(nullable(string()), "SEC CIK of the matched company, 10 digits; null when none matched.")),
            (
                "matchedBy",
                describe(
                    nullable(reference("DonorsMatchedBy")),
                    "Which filed name matched the company; null when none did.",
                ),
            ),
            (
                "unattributedUsd",
                describe(
                    number(),
                    "Contributions whose recipient's party could not be determined (in the total, in neither share).",
                ),
            ),
            (
                "reports",
                describe(
                    array(reference("DonorsReport")),
                    "The FEC reports the contributions were read from (ingested data).",
                ),
            ),
        ],
    );
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
        extra_schemas: vec![
            ("DonorsMatchedBy".into(), string_enum(&["connectedOrganization", "committeeName"])),
            (
                "DonorsReport".into(),
                object(&[
                    ("fileNumber", describe(string(), "FEC FILE_NUM of the report.")),
                    ("url", describe(uri(), "The report on docquery.fec.gov.")),
                ]),
            ),
        ],
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
