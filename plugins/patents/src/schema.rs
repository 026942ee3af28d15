//! The OpenAPI fragment of `/v1/patents`: full response schema, parameter, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_api::openapi::{components_of, ApiSchema};
use datahost_plugin_kit::companies::{derived_company, CompaniesDoc};
use serde_json::{json, Value};

use crate::data::Windows;
use crate::routes::{route_spec, CompanyOut};

/// Adds optional (not required) properties to an object schema.
fn with_optional(mut object: Value, optional: &[(&str, Value)]) -> Value {
    if let Some(props) = object.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, schema) in optional {
            props.insert((*name).to_string(), schema.clone());
        }
    }
    object
}

pub fn fragment() -> Value {
    let (company, mut extra_schemas) = derived_company::<CompanyOut>("Patents");
    extra_schemas.extend(components_of::<Windows>());
    let coverage = json!({"type": "object", "description": "Ingested data: grant records and assignee rows held, \
        grants counted, and those not counted by reason (withdrawn, individual first assignee, no assignee rows, \
        awaiting their grant record, unmatched assignee names).", "additionalProperties": {"type": "integer"}});
    let route = route_spec();
    let doc = CompaniesDoc {
        route: &route,
        prefix: "Patents",
        summary: "Patent grant counts per company",
        description: "Per company: patents granted in the last 12 months and in the 12 months before, counted on \
            grants whose first applicant (first assignee) is the matched assignee name. The windows end at the demo \
            seed's generatedAt, or for ingested PatentsView data at meta.asOf, the latest grant date held. \
            Subsidiaries filing under other names may be undercounted.",
        generated_at: datetime(),
        caveat: "States that counts match on first-applicant name as a single entity, so subsidiaries filing \
                 under other names may be undercounted.",
        extra_meta: vec![("windows", describe(Windows::schema(), "The inclusive day ranges behind the two counts."))],
        company,
        extra_schemas,
        example: example(),
    }
    .fragment();
    document_optional_meta(doc, coverage)
}

/// Documents the ingested-data meta fields (method, asOf, coverage) as optional properties of `PatentsMeta`.
fn document_optional_meta(mut doc: Value, coverage: Value) -> Value {
    if let Some(meta) = doc.pointer_mut("/components/schemas/PatentsMeta") {
        *meta = with_optional(
            meta.take(),
            &[
                ("method", describe(string(), "Ingested data: how the counts were made from the PatentsView tables.")),
                ("asOf", describe(date(), "Ingested data: the latest grant date held; the windows end there.")),
                ("coverage", coverage),
            ],
        );
    }
    doc
}

pub fn example() -> Value {
    json!({
        "meta": {
            "generatedAt": "2026-11-01T06:00:00Z",
            "source": "DEMO seed of datahost: patent grants of fictional companies at demo scale with invented numbers and titles, generated for development (not USPTO data)",
            "sourceUrl": "https://demo.invalid/patents",
            "caveat": "DEMO DATA: grant records are invented. Counts match on first-applicant name as a single entity, so subsidiaries filing under other names may be undercounted.",
            "windows": {
                "last12mo": {"start": "2025-11-02", "end": "2026-11-01"},
                "prior12mo": {"start": "2024-11-02", "end": "2025-11-01"}
            }
        },
        "count": 1,
        "companies": [{
            "name": "Quillspark Motors Inc. (demo)",
            "ticker": "QLSP",
            "assigneeMatched": "Quillspark Motors Inc. (demo)",
            "note": "Counted on first-applicant name `Quillspark Motors Inc. (demo)`.",
            "grantedLast12mo": 7,
            "grantedPrior12mo": 3
        }]
    })
}
