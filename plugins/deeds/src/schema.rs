//! The OpenAPI fragment of `/v1/deeds`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use datahost_plugin_kit::clerk;
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let deed = object_with_optional(
        &[
            ("instrumentNumber", describe(string(), "The clerk's instrument or document number.")),
            ("docType", describe(string(), "Instrument type, for example WARRANTY DEED or DEED OF TRUST.")),
            ("grantor", describe(string(), "Party conveying or encumbering the property.")),
            ("grantee", describe(string(), "Party receiving (or the lender, for a deed of trust or mortgage).")),
            ("legalDescription", string()),
            ("county", describe(string(), "County slug.")),
            ("sourceUrl", describe(string(), "The instrument's page in the clerk's search.")),
            ("recordedDate", date()),
        ],
        &[("propertyAddress", describe(string(), "Situs address of the property the instrument concerns."))],
    );
    let body = object_with_optional(
        &[
            ("county", describe(string(), "The county slug searched (lowercased).")),
            ("query", describe(string(), "The query as given (trimmed).")),
            ("count", describe(integer(), "Number of deeds returned.")),
            (
                "deeds",
                describe(
                    array(reference("Deed")),
                    "Matching deeds, newest recording first (equal dates by instrument number).",
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
        summary: "County clerk deed index search",
        description: "Searches one county clerk's grantor/grantee index. Every word of `query` must appear, \
            case-insensitively and as a whole word, among the deed's grantor, grantee and property address \
            words; punctuation is ignored and address abbreviations compare equal (St/Street, Ave/Avenue, \
            N/North, Apt/Unit/#). Results are sorted by recordedDate, newest first (equal dates by \
            instrumentNumber). `county` and `query` are required (400 naming the missing one); a malformed \
            county slug is a 400; a well-formed county that is not yet onboarded answers 200 with no deeds and \
            `countyOnboarded: false`. DEMO DATA: fictional parties; demo instrument numbers (`DEMO-...`) and \
            source URLs (`https://demo.invalid/...`) are not county records.",
        response: reference("DeedsResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(vec![(crate::ROUTE, op.path_item())], vec![("Deed", deed), ("DeedsResponse", body)])
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
