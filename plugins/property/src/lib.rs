//! property (beta): county assessor records looked up by normalised street address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records, matching rule and index, `seed/` the shipped snapshot,
//! `tests.rs`, `ingest.rs` the parser of county assessor exports read through a county column mapping
//! (`mapping.rs`, the files in `mappings/`). Address normalisation and county slugs are SDK code (`address`,
//! `county`), shared with the deeds and liens datasets. The demo seed lives in memory, whichever the records
//! engine; ingested parcels are table-backed in the records engine and looked up by their normalised street
//! line (a declared index: the plugin writes no SQL).

mod data;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
pub mod mapping;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, Seed, SourceFile,
};

pub const SLUG: &str = "property";
pub const ROUTE: &str = "/v1/property";

/// The plugin: the demo seed (an immutable index in memory), or the ingested
/// assessor records looked up in the records engine.
pub struct Property {
    parcels: data::Parcels,
}

impl Plugin for Property {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Beta,
            "County assessor property records by street address (county backfill incomplete).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // Table-backed once real assessor exports are ingested: parcels are looked up by street key.
        .indexing(ingest::PARCELS, &[ingest::STREET_KEY_FIELD])
        .indexing(ingest::PARCELS, &[ingest::COUNTY_FIELD])
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/property.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        Ok(Self { parcels: data::Parcels::load(ctx.host)? })
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::parse(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.parcels, request)
    }
}

export_plugin!(Property);
