//! The OpenAPI fragment of `/v1/liens`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::data::Lien;
use crate::routes::{route_spec, Body};

/// The body served: liens as stored.
type LiensBody = Body<'static, Lien>;

pub fn fragment() -> Value {
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
        response: LiensBody::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<LiensBody>())
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
