//! The OpenAPI fragment of `/v1/property`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, Body};

pub fn fragment() -> Value {
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "County assessor record by street address",
        description: "Looks up the assessor record of one street address. The address is normalised before \
            matching: case, punctuation and whitespace are ignored, street suffixes and directionals compare in \
            their USPS abbreviations (St/Street, Ave/Avenue, Blvd, Dr, Ln, Ct, Pl, Pkwy, Hwy..., N/North...), \
            ordinal words as numbers, and the unit designators Apt, Unit, Suite, Ste and # are the same. The \
            street line must match in full (including the unit); city, state and ZIP may follow. `county` scopes \
            the lookup. The county backfill is incomplete: a county that is not yet onboarded answers 200 with \
            `record: null` (status `county-not-onboarded`), never an error; no parcel in an onboarded county is \
            also `record: null` (status `no-match`). A malformed county slug is a 400. DEMO DATA: fictional \
            owners; demo assessor IDs (`DEMO-...`), source IDs (`DEMO:...`) and source URLs \
            (`https://demo.invalid/...`) are not county records.",
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<Body>())
}

fn example() -> Value {
    json!({
        "address": "1204 Cedar Bend Lane, Austin, TX 78704",
        "county": "travis-tx",
        "record": {
            "yearBuilt": 1987,
            "bedrooms": 3,
            "bathrooms": 2.5,
            "squareFootage": 2140,
            "lotSize": 0.21,
            "assessorId": "DEMO-284611",
            "legalDescription": "LOT 14 BLK C BARTON HILLS",
            "subdivision": "Barton Hills",
            "zoning": "SF-3",
            "architectureType": "Ranch",
            "exteriorType": "Brick",
            "county": "travis-tx",
            "propertyType": "Single Family Residence",
            "ownerName": "Maura O'Brien",
            "sourceId": "DEMO:TCAD:284611",
            "sourceUrl": "https://demo.invalid/property/travis-tx/DEMO-284611",
            "lastSaleDate": "2019-06-14",
            "hoaFee": null,
            "landValue": 312500.0,
            "improvementValue": 401800.0,
            "marketValue": 714300.0,
            "fetchedAt": "2026-10-28T05:12:00Z"
        },
        "normalizedAddress": "1204 CEDAR BEND LN AUSTIN TX 78704",
        "status": "matched",
        "matchCount": 1,
        "matchedAddress": "1204 Cedar Bend Ln, Austin, TX 78704"
    })
}
