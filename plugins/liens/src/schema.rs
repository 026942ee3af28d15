//! The OpenAPI fragment of `/v1/liens`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use datahost_plugin_kit::clerk;
use serde_json::{json, Value};

use crate::data::LIEN_TYPES;
use crate::routes::route_spec;

pub fn fragment() -> Value {
    let lien = object_with_optional(
        &[
            ("instrumentNumber", describe(string(), "The clerk's instrument number of the lien.")),
            ("lienType", describe(string_enum(&LIEN_TYPES), "mechanic's, tax or judgment.")),
            ("claimant", describe(string(), "The lien holder: contractor, taxing authority or judgment creditor.")),
            (
                "releaseInstrument",
                describe(string(), "Instrument number of the recorded release; empty string while not released."),
            ),
            ("county", describe(string(), "County slug.")),
            ("filedDate", date()),
            (
                "amount",
                describe(nullable(number()), "Amount claimed in USD; null when the clerk's index records none."),
            ),
            (
                "released",
                describe(
                    boolean(),
                    "True once a release has been recorded in the same county. For ingested clerk records (ACRIS), \
                     releases are not yet linked to the liens they release: false.",
                ),
            ),
        ],
        &[
            ("debtor", describe(string(), "The owner the lien is filed against.")),
            ("releaseDate", describe(nullable(date()), "Recording date of the release; null while not released.")),
            ("propertyAddress", describe(string(), "Situs address of the encumbered property.")),
            ("sourceUrl", describe(string(), "The lien's page in the clerk's search.")),
        ],
    );
    let body = object_with_optional(
        &[
            ("county", describe(string(), "The county slug searched (lowercased).")),
            ("query", describe(string(), "The query as given (trimmed).")),
            ("count", describe(integer(), "Number of liens returned.")),
            (
                "liens",
                describe(
                    array(reference("Lien")),
                    "Matching liens, newest filing first (equal dates by instrument number).",
                ),
            ),
            ("next", datahost_plugin_api::paging::next_schema()),
        ],
        &[
            ("total", describe(integer(), clerk::TOTAL_DESCRIPTION)),
            ("totalIsLowerBound", describe(boolean(), clerk::TOTAL_IS_LOWER_BOUND_DESCRIPTION)),
            (
                "countyOnboarded",
                describe(boolean(), "False when the county is not yet onboarded (the result is then empty)."),
            ),
        ],
    );
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "County clerk lien index search",
        description: "Searches one county clerk's index of mechanic's, tax and judgment liens. Every word of \
            `query` must appear, case-insensitively and as a whole word, among the lien's claimant, debtor and \
            property address words; punctuation is ignored and address abbreviations compare equal (St/Street, \
            Ave/Avenue, N/North, Apt/Unit/#). `lienType` and `released` narrow the result. Results are sorted by \
            filedDate, newest first (equal dates by instrumentNumber). `county` and `query` are required (400 \
            naming the missing one); a malformed county slug is a 400; a well-formed county that is not yet onboarded answers 200 with no liens and \
            `countyOnboarded: false`. DEMO DATA: fictional parties; demo instrument numbers (`DEMO-...`) and \
            source URLs (`https://demo.invalid/...`) are not county records.",
        response: reference("LiensResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(vec![(crate::ROUTE, op.path_item())], vec![("Lien", lien), ("LiensResponse", body)])
}

fn example() -> Value {
    json!({
        "county": "travis-tx",
        "query": "O'Brien",
        "count": 3,
        "liens": [
            {
                "instrumentNumber": "DEMO-2025029056",
                "lienType": "tax",
                "claimant": "Internal Revenue Service",
                "releaseInstrument": "",
                "county": "travis-tx",
                "filedDate": "2025-11-30",
                "amount": 108201.69,
                "released": false,
                "debtor": "Maura O'Brien",
                "releaseDate": null,
                "propertyAddress": "1204 Cedar Bend Ln, Austin, TX 78704",
                "sourceUrl": "https://demo.invalid/liens/travis-tx/DEMO-2025029056"
            },
            {
                "instrumentNumber": "DEMO-2024027311",
                "lienType": "mechanic's",
                "claimant": "Cedar Bend Builders LLC",
                "releaseInstrument": "",
                "county": "travis-tx",
                "filedDate": "2024-03-11",
                "amount": 18450.0,
                "released": false,
                "debtor": "Maura O'Brien",
                "releaseDate": null,
                "propertyAddress": "1204 Cedar Bend Ln, Austin, TX 78704",
                "sourceUrl": "https://demo.invalid/liens/travis-tx/DEMO-2024027311"
            },
            {
                "instrumentNumber": "DEMO-2021104455",
                "lienType": "tax",
                "claimant": "Internal Revenue Service",
                "releaseInstrument": "DEMO-2022011847",
                "county": "travis-tx",
                "filedDate": "2021-09-02",
                "amount": 6210.55,
                "released": true,
                "debtor": "Maura O'Brien",
                "releaseDate": "2022-02-17",
                "propertyAddress": "1204 Cedar Bend Ln, Austin, TX 78704",
                "sourceUrl": "https://demo.invalid/liens/travis-tx/DEMO-2021104455"
            }
        ],
        "total": 3,
        "totalIsLowerBound": false,
        "countyOnboarded": true
    })
}
