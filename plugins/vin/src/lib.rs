//! vin: a VIN decoder (ISO 3779 / 49 CFR 565) joined with open recall campaigns, complaint counts and a
//! theft flag.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index (seed or ingested), `ingest.rs` the parser of
//! NHTSA's recall and complaint flat files and vPIC decodes, `seed/` the shipped demo snapshot, `tests.rs`.
//! Specific to this plugin: `decode.rs` the VIN rules (check digit, model year, region) and `wmi.rs` the
//! manufacturer table.

mod data;
pub mod decode;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod routes;
mod schema;
#[cfg(test)]
mod tests;
pub mod wmi;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, Seed, SourceFile,
};

pub const SLUG: &str = "vin";
pub const ROUTE: &str = "/v1/vin";

/// The plugin: the decoder plus the vehicle data (the demo seed in memory, or the ingested NHTSA records,
/// looked up in the records engine per request).
pub struct Vin {
    vehicles: data::Vehicles,
}

impl Plugin for Vin {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "VIN decode with open recall campaigns, complaint count and theft flag.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // Table-backed: national NHTSA files stay in the records engine, looked up by these fields.
        .indexing("decodes", &["vin"])
        .indexing("recalls", &["makeKey", "modelKey"])
        .indexing("complaints", &["vin"])
        .indexing("complaints", &["makeKey", "modelKey", "year"])
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/vin.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        Ok(Self { vehicles: data::Vehicles::load(ctx.host.load_dataset(SLUG)?, ctx.host)? })
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::parse(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.vehicles, request)
    }
}

export_plugin!(Vin);
