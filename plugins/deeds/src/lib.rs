//! deeds (beta): county clerk deed index, searched by grantor, grantee or property address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.
//! The search rule, county slugs and the per-county index are SDK code (`address`, `county`), shared with
//! the liens dataset. The demo seed is searched in memory, whichever the records engine. Real records:
//! `ingest.rs` reads a county clerk's index tables through a clerk mapping (`mappings/`, the kit's `clerk`
//! module); they are table-backed in the records engine and searched there through the host's word index
//! (`clerk::ClerkStore`), in both engines. The plugin writes no SQL.

mod data;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::ingest::ingested_info;
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, Seed, SourceFile,
};
use datahost_plugin_kit::clerk::{self, ClerkStore};
use datahost_plugin_kit::county::CountyIndex;

pub const SLUG: &str = "deeds";
pub const ROUTE: &str = "/v1/deeds";

/// Where the deeds come from: the demo snapshot (an immutable per-county index) until clerk exports are
/// ingested, then only the ingested records (never both).
pub enum Source {
    Seed(CountyIndex<data::Deed>),
    Stored(ClerkStore),
}

/// The plugin.
pub struct Deeds {
    source: Source,
}

impl Plugin for Deeds {
    fn manifest() -> Manifest {
        let manifest = Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Beta,
            "County clerk deed index search by grantor, grantee or address (county backfill incomplete).",
            vec![routes::route_spec()],
            schema::fragment(),
        );
        // Table-backed once clerk exports are ingested (instruments, parties, parcels and search words).
        clerk::INDEXES
            .iter()
            .fold(manifest, |m, (collection, fields)| m.indexing(collection, fields))
            .word_indexing(clerk::word_index())
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/deeds.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        if ingested_info(&ctx.host, SLUG)?.is_some() {
            return Ok(Self { source: Source::Stored(ClerkStore::load(ctx.host, SLUG)?) });
        }
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { source: Source::Seed(data::index(snapshot)) })
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::parse(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.source, request)
    }
}

export_plugin!(Deeds);
