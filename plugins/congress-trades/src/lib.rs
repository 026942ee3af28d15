//! congress-trades: U.S. House member stock-trade disclosures (Periodic Transaction Reports).
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `ingest.rs` the parser of the Clerk's index and
//! PTR PDFs, `seed/` the shipped demo snapshot, `tests.rs`.

mod data;
pub mod ingest;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, Seed, SourceFile,
};
use datahost_plugin_kit::disclosure::DisclosureIndex;

pub const SLUG: &str = "congress-trades";
pub const ROUTE: &str = "/v1/congress-trades";

/// The plugin: an immutable index over one snapshot of the dataset.
pub struct CongressTrades {
    index: DisclosureIndex<data::Filing>,
    /// Ingested data: the parsed PTRs' trade rows, read from the records engine per request.
    pdf_trades: Option<data::PdfTrades>,
    /// The meta (with `filingsWithTrades`, counted at load) and the in-memory trades as the answers write them.
    written: routes::Written,
}

impl Plugin for CongressTrades {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "U.S. House member stock-trade disclosures (Periodic Transaction Reports).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // Table-backed PTR trade rows: read per served filing (DocID) or per requested ticker.
        .indexing(ingest::TRADES, &[data::DOC_ID_FIELD])
        .indexing(ingest::TRADES, &[data::TICKER_FIELD])
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/congress-trades.json"))]
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::ingest(file)
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let doc: serde_json::Value = ctx.host.load_dataset(SLUG)?;
        let loaded = data::load(doc, &ctx.host)?;
        let index = DisclosureIndex::new(loaded.filings);
        let written = routes::written(&loaded.meta, loaded.filings_with_trades, &index)?;
        Ok(Self { index, pdf_trades: loaded.pdf_trades, written })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(self, request)
    }
}

export_plugin!(CongressTrades);
