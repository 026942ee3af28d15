//! The OpenAPI fragment of `/v1/lobbying`: full response schema, parameter, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_kit::companies::{derived_company, CompaniesDoc};
use serde_json::{json, Value};

use crate::routes::{route_spec, CompanyOut};

pub fn fragment() -> Value {
    let (company, extra_schemas) = derived_company::<CompanyOut>("Lobbying");
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Lobbying",
        summary: "Lobbying disclosures per company",
        description: "Per company: lobbying spend from quarterly LD-2 reports in filing years 2025 and 2026, \
            summing every filing found for the client (its own and those of outside firms it retained), with \
            the per-quarter breakdown. Earlier filing years are not counted.",
        generated_at: datetime(),
        caveat: "States that totals sum every quarterly filing found for the client in filing years 2025 and 2026.",
        extra_meta: vec![("filingYears", describe(array(integer()), "Filing years counted: 2025 and 2026."))],
        company,
        extra_schemas,
        example: example(),
    }
    .fragment()
}

pub fn example() -> Value {
    json!({
        "meta": {
            "generatedAt": "2026-11-01T06:00:00Z",
            "source": "DEMO seed of datahost: quarterly lobbying reports of fictional companies with invented amounts and fictional outside firms, generated for development (not Senate LDA filings)",
            "sourceUrl": "https://demo.invalid/lobbying",
            "caveat": "DEMO DATA: amounts, filings and outside lobbying firms are invented. Totals sum every quarterly filing found for the client in filing years 2025 and 2026.",
            "filingYears": [2025, 2026]
        },
        "count": 1,
        "companies": [{
            "name": "Hearthmoor Health Group Inc. (demo)",
            "ticker": "HRTM",
            "clientName": "Hearthmoor Health Group Inc. Government Affairs LLC (demo)",
            "year": 2026,
            "totalSpendUsd": 10780000.0,
            "filingCount": 14,
            "quarters": [
                {"period": "2025-Q1", "amount": 1560000.0, "filingCount": 2},
                {"period": "2025-Q2", "amount": 1430000.0, "filingCount": 1},
                {"period": "2025-Q3", "amount": 1420000.0, "filingCount": 3},
                {"period": "2025-Q4", "amount": 1650000.0, "filingCount": 2},
                {"period": "2026-Q1", "amount": 1710000.0, "filingCount": 2},
                {"period": "2026-Q2", "amount": 1220000.0, "filingCount": 2},
                {"period": "2026-Q3", "amount": 1790000.0, "filingCount": 2}
            ]
        }]
    })
}
