//! The OpenAPI fragment of `/v1/property`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    // Fields a county's source may not publish are null for that county's records (PLUTO has no bedrooms,
    // sale date or market value, for example); the demo seed fills every field.
    let unpublished = "; null when the county's source does not publish it.";
    let maybe = |schema: Value, what: &str| describe(nullable(schema), &format!("{what}{unpublished}"));
    let record = object(&[
        ("yearBuilt", maybe(integer(), "Year the main building was built")),
        ("bedrooms", maybe(integer(), "Bedrooms")),
        ("squareFootage", maybe(integer(), "Building area in square feet (living area where the source gives it)")),
        ("bathrooms", maybe(number(), "Full baths count 1, half baths 0.5")),
        ("lotSize", maybe(number(), "Lot area in acres; 0 for condominium units")),
        ("assessorId", describe(string(), "The assessor's parcel number or property ID in its own format.")),
        ("legalDescription", maybe(string(), "Legal description")),
        ("subdivision", maybe(string(), "Subdivision or plat")),
        ("zoning", maybe(string(), "Zoning district")),
        ("architectureType", maybe(string(), "Architectural style")),
        ("exteriorType", maybe(string(), "Exterior wall material")),
        ("county", describe(string(), "County slug, for example travis-tx.")),
        ("propertyType", maybe(string(), "Property or building class in the source's own codes")),
        ("ownerName", describe(string(), "Owner of record on the assessor roll.")),
        (
            "sourceId",
            describe(string(), "Source system and record key, for example TCAD:284611 or NYC-PLUTO:2054800111."),
        ),
        ("sourceUrl", describe(string(), "The record's public page (the assessor's or the county's lot viewer).")),
        ("lastSaleDate", maybe(date(), "Date of the last recorded sale")),
        (
            "hoaFee",
            describe(
                nullable(number()),
                "Monthly HOA dues in USD; null when there is no association or the source does not say.",
            ),
        ),
        ("landValue", maybe(number(), "Assessed land value in USD")),
        ("improvementValue", maybe(number(), "Assessed improvement value in USD")),
        ("marketValue", maybe(number(), "Market value in USD (land plus improvements)")),
        (
            "fetchedAt",
            describe(
                datetime(),
                "When the record was read from its source (for ingested records, the dataset's last ingest).",
            ),
        ),
    ]);
    let body = object_with_optional(
        &[
            ("address", describe(string(), "The address as given (trimmed).")),
            (
                "county",
                describe(
                    string(),
                    "County slug: the `county` parameter (lowercased) when given, else the county of the matched \
                     parcel, else an empty string.",
                ),
            ),
            (
                "record",
                describe(
                    nullable(reference("PropertyRecord")),
                    "The assessor record, or null when the county is not yet onboarded or no parcel matches.",
                ),
            ),
        ],
        &[
            (
                "normalizedAddress",
                describe(string(), "The canonical match key of the address (upper case, USPS abbreviations, UNIT)."),
            ),
            (
                "status",
                describe(string_enum(&["matched", "no-match", "county-not-onboarded"]), "Why `record` is what it is."),
            ),
            (
                "matchCount",
                describe(
                    integer(),
                    "Parcels the address matched; above 1 only without `county` when the same street address \
                     exists in several counties (the first county in slug order is returned).",
                ),
            ),
            ("matchedAddress", describe(nullable(string()), "The matched parcel's situs address, or null.")),
        ],
    );
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
        response: reference("PropertyResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(vec![(crate::ROUTE, op.path_item())], vec![("PropertyRecord", record), ("PropertyResponse", body)])
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
