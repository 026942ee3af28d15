//! lobbying: quarterly lobbying disclosures (LD-2) per company, filing years 2025 and 2026.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.

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

pub const SLUG: &str = "lobbying";
pub const ROUTE: &str = "/v1/lobbying";

/// The plugin: per-company spend computed once from the filings of the counted years.
pub struct Lobbying {
    index: data::Index,
}

impl Plugin for Lobbying {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Quarterly lobbying disclosures per company (filing years 2025-2026).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/lobbying.json"))]
    }

    /// Serves the ingested LDA filings once there are any, else the demo seed; never both.
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

export_plugin!(Lobbying);
