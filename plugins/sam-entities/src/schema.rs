//! The OpenAPI fragment of `/v1/sam-entities`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, DEFAULT_LIMIT, MAX_LIMIT};

pub fn fragment() -> Value {
    let entity = object(&[
        ("name", describe(string(), "Legal business name.")),
        ("uei", describe(with(string(), "pattern", json!("^[A-Z0-9]{12}$")), "SAM.gov Unique Entity ID (12 characters).")),
        ("cageCode", describe(with(string(), "pattern", json!("^[A-Z0-9]{5}$")), "Commercial and Government Entity code (5 characters).")),
        (
            "status",
            describe(
                string_enum(&["Active", "Inactive"]),
                "Registration status: Active until expirationDate, Inactive after it (registrations are renewed yearly).",
            ),
        ),
        ("city", describe(string(), "City of the physical address.")),
        ("state", describe(string(), "State or province code of the physical address.")),
        ("country", describe(string(), "Country code of the physical address (ISO 3166-1 alpha-3).")),
        ("registrationDate", describe(date(), "Date the current registration was activated.")),
        ("expirationDate", describe(date(), "Date the registration expires (or expired, for Inactive ones).")),
        (
            "businessTypes",
            describe(array(string()), "Business types and socio-economic certifications, for example Small Business, 8(a) Program Participant."),
        ),
    ]);
    let body = object_with_optional(
        &[
            ("query", describe(string(), "The `q` given, else the `uei` given, else an empty string.")),
            (
                "total",
                describe(integer(), "Number of registrations matching (all of them, not only the returned ones)."),
            ),
            ("count", describe(integer(), "Number of entities returned (at most `limit`).")),
            ("entities", array(reference("SamEntity"))),
            ("next", datahost_plugin_api::paging::next_schema()),
        ],
        &[("asOf", describe(date(), "Date the statuses refer to: a registration is Active until its expirationDate."))],
    );
    let route = route_spec();
    let description = format!(
        "Federal contractor registrations (SAM.gov entity registrations), Active and Inactive. `q` searches the \
         legal business name case-insensitively, ignoring punctuation, and ranks matches: the exact name first, \
         then names that start with `q`, then names with a word that starts with `q`, then names that contain `q` \
         inside a word; ties are in name order. `uei` is an exact, case-insensitive lookup of the 12-character \
         Unique Entity ID. With both, both must match. With neither, every registration is listed in name order. \
         `status` keeps only Active or Inactive registrations. `total` counts every match; `count` is the number \
         returned (at most `limit`, default {DEFAULT_LIMIT}, clamped at {MAX_LIMIT})."
    );
    let op = Operation {
        route: &route,
        summary: "Federal contractor registrations",
        description: &description,
        response: reference("SamEntitiesResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(vec![(crate::ROUTE, op.path_item())], vec![("SamEntity", entity), ("SamEntitiesResponse", body)])
}

fn example() -> Value {
    json!({
        "query": "acme",
        "asOf": "2026-11-01",
        "total": 6,
        "count": 1,
        "entities": [{
            "name": "Acme",
            "uei": "DEMO3B5ZXVU7",
            "cageCode": "DMO01",
            "status": "Active",
            "city": "Herndon",
            "state": "VA",
            "country": "USA",
            "registrationDate": "2026-01-20",
            "expirationDate": "2027-01-20",
            "businessTypes": ["For-Profit Organization", "Corporate Entity, Not Tax Exempt", "Small Business"]
        }]
    })
}
