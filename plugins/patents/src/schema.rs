//! The OpenAPI fragment of `/v1/patents`: full response schema, parameter, example.

use datahost_plugin_api::companies::{company_schema, CompaniesDoc};
use datahost_plugin_api::openapi::schema::*;
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let company = company_schema(&[
        (
            "assigneeMatched",
            describe(string(), "The first-applicant name counted, as one entity (case and spacing ignored)."),
        ),
        ("note", describe(string(), "What the count covers, e.g. subsidiaries whose grants are not counted.")),
        (
            "grantedLast12mo",
            describe(integer(), "Grants in the 12 months ending at meta.generatedAt (meta.windows.last12mo)."),
        ),
        ("grantedPrior12mo", describe(integer(), "Grants in the 12 months before those (meta.windows.prior12mo).")),
    ]);
    let period =
        object(&[("start", describe(date(), "First day counted.")), ("end", describe(date(), "Last day counted."))]);
    let windows = object(&[("last12mo", reference("PatentsPeriod")), ("prior12mo", reference("PatentsPeriod"))]);
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Patents",
        operation_id: "getPatents",
        summary: "Patent grant counts per company",
        description: "Per company: patents granted in the last 12 months and in the 12 months before, counted \
            relative to the snapshot's generatedAt, on grants whose first applicant is the matched assignee name. \
            Subsidiaries filing under other names may be undercounted.",
        generated_at: datetime(),
        caveat: "States that counts match on first-applicant name as a single entity, so subsidiaries filing \
                 under other names may be undercounted.",
        extra_meta: vec![(
            "windows",
            describe(reference("PatentsWindows"), "The inclusive day ranges behind the two counts."),
        )],
        company,
        extra_schemas: vec![("PatentsPeriod", period), ("PatentsWindows", windows)],
        example: example(),
    }
    .fragment()
}

pub fn example() -> Value {
    json!({
        "meta": {
            "generatedAt": "2026-11-01T06:00:00Z",
            "source": "datahost demo seed: patent grant records at demo scale with invented numbers and titles, generated for development (not real USPTO data)",
            "sourceUrl": "https://ppubs.uspto.gov/pubwebapp/",
            "caveat": "DEMO DATA: grant records are invented. Counts match on first-applicant name as a single entity, so subsidiaries filing under other names may be undercounted.",
            "windows": {
                "last12mo": {"start": "2025-11-02", "end": "2026-11-01"},
                "prior12mo": {"start": "2024-11-02", "end": "2025-11-01"}
            }
        },
        "count": 1,
        "companies": [{
            "name": "Tesla, Inc.",
            "ticker": "TSLA",
            "assigneeMatched": "Tesla, Inc.",
            "note": "Counted on first-applicant name `Tesla, Inc.`.",
            "grantedLast12mo": 7,
            "grantedPrior12mo": 3
        }]
    })
}
