//! The OpenAPI fragment of `/v1/sam-entities`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, Body, DEFAULT_LIMIT, MAX_LIMIT};

pub fn fragment() -> Value {
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
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<Body>())
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
