//! insiders: SEC Form 4 insider transactions, grouped by company.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`,
//! `ingest.rs` the parser of official files (with `form4.rs`, the ownershipDocument reader, and
//! `records.rs`, the ingested record shape shared with `execs`), `ingest_tests.rs`.
//! The snapshot's records carry each reporting owner's name and relationship titles, so the `execs` plugin
//! derives its rosters from this same dataset (keep the record fields it reads stable: see `data.rs`).

mod data;
mod form4;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod records;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, LogLevel, Manifest, Maturity, Plugin, Refusal,
    RequestEnvelope, Response, Seed, SourceFile,
};

pub const SLUG: &str = "insiders";
pub const ROUTE: &str = "/v1/insiders";

/// The plugin: an immutable index over one snapshot of the dataset.
pub struct Insiders {
    index: data::Index,
}

impl Plugin for Insiders {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "SEC Form 4 insider transactions (officers, directors), grouped by company.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // Table-backed rows: national Form 4 transaction rows stay in the records engine, read per issuer.
        .indexing(records::TRANSACTIONS, &[records::ISSUER_FIELD])
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/insiders.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let data::Loaded { index, orphans } = data::load(&ctx.host, SLUG)?;
        if orphans > 0 {
            ctx.host.log(LogLevel::Warn, &format!("{orphans} insider records name a ticker with no company entry"));
        }
        Ok(Self { index })
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

export_plugin!(Insiders);
