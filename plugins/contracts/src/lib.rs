//! contracts: federal contract obligations per company, fiscal year 2024 to present, award types A-D.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`;
//! `ingest.rs` the parser of USAspending's award responses (`ingest_tests.rs`).

mod data;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, Seed, SourceFile,
};

pub const SLUG: &str = "contracts";
pub const ROUTE: &str = "/v1/contracts";

/// The plugin: per-company obligations computed once from the in-window awards.
pub struct Contracts {
    index: data::Index,
}

impl Plugin for Contracts {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Federal contract obligations per company (fiscal year 2024 to present, award types A-D).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/contracts.json"))]
    }

    /// Serves the ingested awards once there are any, else the demo seed; never both.
    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        Ok(Self { index: data::load(&ctx.host)? })
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::ingest(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(Contracts);
