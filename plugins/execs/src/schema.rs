//! The OpenAPI fragment of `/v1/execs`: full response schema, parameters, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_kit::companies::{derived_company, CompaniesDoc};
use serde_json::{json, Value};

use crate::data::CompanyRoster;
use crate::routes::route_spec;

pub fn fragment() -> Value {
    let (company, extra_schemas) = derived_company::<CompanyRoster>("Execs");
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Execs",
        summary: "Executive and board rosters",
        description: "Officers and directors of each covered company, derived from Form 4 reporting-owner \
            metadata (the same records as `/v1/insiders`): one entry per person with their merged titles, how \
            many Form 4s they filed, and their latest filing date and transaction code. Companies in ticker order; \
            `limit` caps the number of companies.",
        generated_at: datetime(),
        caveat: "Says the rosters come from Form 4 reporting owners (people who filed none are missing) and that \
            the data is demo data where it is.",
        extra_meta: vec![("derivedFrom", describe(string(), "The dataset the rosters are derived from: `insiders`."))],
        company,
        extra_schemas,
        example: example(),
    }
    .fragment()
}

fn example() -> Value {
    json!({
        "meta": {
            "generatedAt": "2026-11-01T06:00:00Z",
            "source": "Derived from the insiders dataset (DEMO seed of datahost: fictional insiders at fictional \
                issuers, generated for development (not SEC Form 4 filings))",
            "sourceUrl": "https://demo.invalid/insiders",
            "caveat": "Rosters list the reporting owners of Form 4 filings in the insiders dataset, so people who \
                filed no Form 4 in its window are missing. DEMO DATA: every issuer, insider and transaction is \
                fictional.",
            "derivedFrom": "insiders"
        },
        "count": 1,
        "companies": [{
            "ticker": "BLFN",
            "company": "Bluefin Software Corporation (demo)",
            "ceo": "Percival Ingleby",
            "execs": [{
                "name": "Percival Ingleby",
                "titles": "Chief Executive Officer, Director",
                "filingCount": 1,
                "lastFilingDate": "2026-07-22",
                "lastCode": "S"
            }, {
                "name": "Genevieve Ormsby",
                "titles": "President and Chief Operating Officer, EVP and Chief Operating Officer",
                "filingCount": 2,
                "lastFilingDate": "2026-07-01",
                "lastCode": "S"
            }]
        }]
    })
}
