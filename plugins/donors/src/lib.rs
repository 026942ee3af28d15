//! donors: corporate PAC contributions to federal candidates, summarised per company.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `ingest.rs` the parser of the FEC bulk files
//! (`records.rs` what it stores), `pacs.rs` corporate PACs from ingested records, `seed/` the shipped demo
//! snapshot, `tests.rs` and `ingest_tests.rs`.

mod data;
mod error;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod pacs;
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

pub const SLUG: &str = "donors";
pub const ROUTE: &str = "/v1/donors";

/// The plugin: per-company totals computed once from the demo seed's or the ingested FEC contributions.
pub struct Donors {
    index: data::Index,
}

impl Plugin for Donors {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Corporate PAC contributions to federal candidates.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // Table-backed contributions: national itpas2 rows stay in the records engine, read per corporate PAC.
        .indexing(ingest::CONTRIBUTIONS, pacs::CONTRIBUTION_INDEX)
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/donors.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let doc: serde_json::Value = ctx.host.load_dataset(SLUG)?;
        let unreadable = error::LoadError::Unreadable;
        let index = if doc.get(INGESTED_KEY).is_some() {
            pacs::index(serde_json::from_value(doc).map_err(unreadable)?, &ctx.host)?
        } else {
            data::index(serde_json::from_value(doc).map_err(unreadable)?)?
        };
        Ok(Self { index })
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

export_plugin!(Donors);
