//! prices: a 5-year daily close price series for equities, sector funds, majors and top crypto.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` the in-memory index (seed or ingested rows), `ingest.rs` the parser
//! of Yahoo and Stooq price files, `seed.rs` the deterministic demo snapshot
//! (generated in code rather than shipped as `seed/prices.json`), `tests.rs`. The snapshot format is the
//! SDK's [`datahost_plugin_kit::market`], which the predictions plugin reads too.

mod data;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod routes;
mod schema;
pub mod seed;
#[cfg(test)]
mod tests;

use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, LogLevel, Manifest, Maturity, Plugin, Refusal,
    RequestEnvelope, Response, Seed, SourceFile,
};

pub const SLUG: &str = "prices";
pub const ROUTE: &str = "/v1/prices";

/// The plugin: an immutable index over one snapshot of the dataset.
pub struct Prices {
    index: data::Index,
}

impl Plugin for Prices {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "5-year daily close price series for equities, sector funds, majors and top crypto.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, seed::snapshot_json())]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let doc = ctx.host.load_dataset(SLUG)?;
        // Names come from the host's company list; without one (or on a failed call) a series has no name.
        let resolve = |queries: &[CompanyQuery]| -> Vec<Option<CompanyRef>> {
            ctx.host.resolve_companies(queries).unwrap_or_else(|e| {
                ctx.host.log(LogLevel::Warn, &format!("company names not resolved: {e}"));
                vec![None; queries.len()]
            })
        };
        Ok(Self { index: data::Index::load(doc, &resolve)? })
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::parse(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(Prices);
