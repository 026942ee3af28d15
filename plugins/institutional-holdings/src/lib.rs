//! institutional-holdings: quarterly 13F-HR holdings of institutional investment managers, latest quarter per filer.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`;
//! `ingest.rs` the parser of the official 13F files and `records.rs` the records it writes and `init` reads.

mod data;
mod error;
pub mod ingest;
mod records;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::ingest::INGESTED_KEY;
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, Seed, SourceFile,
};

pub const SLUG: &str = "institutional-holdings";
pub const ROUTE: &str = "/v1/institutional-holdings";

/// The plugin: each filer's latest filing, with its holdings sorted and totalled once at load.
pub struct InstitutionalHoldings {
    index: data::Index,
}

impl Plugin for InstitutionalHoldings {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Quarterly 13F institutional holdings by filer.",
            vec![routes::route_spec(), routes::internal_route_spec()],
            schema::fragment(),
        )
        // Table-backed holdings: national 13F information tables stay in the records engine, read per filing.
        .indexing(records::HOLDINGS, &["accession"])
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/institutional-holdings.json"))]
    }

    /// Serves the ingested records once there are any, else the demo seed; never both.
    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let document: serde_json::Value = ctx.host.load_dataset(SLUG)?;
        let index = if document.get(INGESTED_KEY).is_some() {
            records::index_from_ingested(document, &ctx.host)?
        } else {
            let snapshot: data::Snapshot = serde_json::from_value(document).map_err(error::LoadError::Seed)?;
            data::Index::new(snapshot.meta, snapshot.filings)?
        };
        Ok(Self { index })
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::formats()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::ingest(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(InstitutionalHoldings);
