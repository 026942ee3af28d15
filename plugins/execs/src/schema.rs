//! The OpenAPI fragment of `/v1/execs`: full response schema, parameters, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_kit::companies::CompaniesDoc;
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let person = object(&[
        ("name", describe(string(), "Reporting owner's name as filed on Form 4.")),
        (
            "titles",
            describe(
                string(),
                "The person's distinct titles across their filings, comma-separated, most recent filing first \
                 (for example `Chief Executive Officer, Director`).",
            ),
        ),
        ("filingCount", describe(integer(), "Number of distinct Form 4 filings (accession numbers) by the person.")),
        ("lastFilingDate", describe(date(), "Filing date of the person's latest Form 4.")),
        (
            "lastCode",
            describe(string(), "Form 4 transaction code of the person's latest transaction (for example S, P, A)."),
        ),
    ]);
    let company = object(&[
        ("ticker", string()),
        ("company", describe(string(), "Issuer name.")),
        ("ceo", describe(string(), "The issuer's chief executive officer.")),
        (
            "execs",
            describe(array(reference("ExecsPerson")), "One entry per person, latest filing first (ties by name)."),
        ),
    ]);
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
        extra_schemas: vec![("ExecsPerson", person)],
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
