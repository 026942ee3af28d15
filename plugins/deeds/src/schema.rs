//! The OpenAPI fragment of `/v1/deeds`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::data::Deed;
use crate::routes::{route_spec, Body};

/// The body served: deeds as stored.
type DeedsBody = Body<'static, Deed>;

pub fn fragment() -> Value {
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "County clerk deed index search",
        description: "Searches one county clerk's grantor/grantee index. Every word of `query` must appear, \
            case-insensitively and as a whole word, among the deed's grantor, grantee and property address \
            words; punctuation is ignored and address abbreviations compare equal (St/Street, Ave/Avenue, \
            N/North, Apt/Unit/#). Results are sorted by recordedDate, newest first (equal dates by \
            instrumentNumber). `county` and `query` are required (400 naming the missing one); a malformed \
            county slug is a 400; a well-formed county that is not yet onboarded answers 200 with no deeds and \
            `countyOnboarded: false`. DEMO DATA: fictional parties; demo instrument numbers (`DEMO-...`) and \
            source URLs (`https://demo.invalid/...`) are not county records.",
        response: DeedsBody::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<DeedsBody>())
}

fn example() -> Value {
    json!({
        "county": "travis-tx",
        "query": "O'Brien",
        "count": 2,
        "deeds": [
            {
                "instrumentNumber": "DEMO-2019158532",
                "docType": "DEED OF TRUST",
                "grantor": "Maura O'Brien",
                "grantee": "Harborline Bank NA",
                "legalDescription": "LOT 14 BLK C BARTON HILLS",
                "county": "travis-tx",
                "sourceUrl": "https://demo.invalid/deeds/travis-tx/DEMO-2019158532",
                "recordedDate": "2019-06-17",
                "propertyAddress": "1204 Cedar Bend Ln, Austin, TX 78704"
            },
            {
                "instrumentNumber": "DEMO-2019017733",
                "docType": "WARRANTY DEED",
                "grantor": "Noel Abernathy and Morgan Abernathy",
                "grantee": "MAURA O'BRIEN",
                "legalDescription": "LOT 14 BLK C BARTON HILLS",
                "county": "travis-tx",
                "sourceUrl": "https://demo.invalid/deeds/travis-tx/DEMO-2019017733",
                "recordedDate": "2019-06-14",
                "propertyAddress": "1204 Cedar Bend Ln, Austin, TX 78704"
            }
        ],
        "total": 2,
        "totalIsLowerBound": false,
        "countyOnboarded": true
    })
}
