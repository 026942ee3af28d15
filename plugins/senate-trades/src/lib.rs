//! senate-trades: U.S. Senate member stock-trade disclosures (Periodic Transaction Reports), beta.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `ingest.rs` the parser of the official source
//! files, `seed/` the shipped demo snapshot, `tests.rs` and `ingest_tests.rs`.

mod data;
mod ingest;
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
use datahost_plugin_kit::disclosure::DisclosureIndex;

pub const SLUG: &str = "senate-trades";
pub const ROUTE: &str = "/v1/senate-trades";

/// The plugin: an immutable index over one snapshot of the dataset (the demo seed or the ingested records).
pub struct SenateTrades {
    index: DisclosureIndex<data::Filing>,
    /// Ingested data: the transaction rows, read from the records engine per request.
    stored: Option<data::StoredTransactions>,
    /// The meta and the in-memory trades as the answers write them.
    written: routes::Written,
}

impl Plugin for SenateTrades {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Beta,
            "U.S. Senate member stock-trade disclosures (Periodic Transaction Reports); beta.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // Table-backed transaction rows: read per served report (docId) or per requested ticker.
        .indexing(data::TRANSACTIONS, &[data::DOC_ID_FIELD])
        .indexing(data::TRANSACTIONS, &[data::TICKER_FIELD])
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/senate-trades.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let loaded = data::load(ctx.host.load_dataset(SLUG)?, &ctx.host)?;
        let index = DisclosureIndex::new(loaded.filings);
        let written = routes::written(&loaded.meta, &index)?;
        Ok(Self { index, stored: loaded.stored, written })
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::ingest(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(self, request)
    }
}

export_plugin!(SenateTrades);
