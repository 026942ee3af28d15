//! patents: patent grant counts per company over the last and prior twelve months.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`,
//! `ingest.rs` the parser of PatentsView files (with `records.rs`, the ingested record shapes),
//! `ingest_tests.rs` its tests on real PatentsView files in `fixtures/`.

mod data;
mod ingest;
#[cfg(test)]
mod ingest_tests;
mod records;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, Seed, SourceFile,
};

pub const SLUG: &str = "patents";
pub const ROUTE: &str = "/v1/patents";

/// The plugin: per-company grant counts computed once at load (relative to the seed's date, or to the latest
/// grant date held once PatentsView files are ingested).
pub struct Patents {
    index: data::Index,
}

impl Plugin for Patents {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Patent grant counts per company over the last and prior twelve months.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/patents.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        Ok(Self { index: data::load(&ctx.host, SLUG)? })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::ingest(file)
    }
}

export_plugin!(Patents);
