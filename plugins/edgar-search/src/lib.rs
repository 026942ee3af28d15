//! edgar-search: full-text search over SEC EDGAR filings, backed by a tantivy index.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` snapshot records, `index.rs` the full-text engine, `topk.rs` its
//! pruned ranking and capped count, `ranked.rs` a query's few matches kept in rank order, `phrase.rs` the count's
//! own check of an exact phrase on positions, `store.rs` where an ingested dataset's index lives (on disk, rebuilt
//! only when the records change), `corpus.rs` the deterministic generator of the demo seed and of load-test
//! corpora, `seed/` the shipped snapshot, `tests.rs`.
//! The same engine answers in either records engine: the ingested filings are table-backed (declared indexed
//! by accession) and indexed once per data generation into the plugin's own directory, so PostgreSQL replicas
//! each keep a local index of the same shared records.

pub mod corpus;
pub mod data;
pub mod index;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod phrase;
mod ranked;
mod routes;
mod schema;
mod snippet;
mod sources;
mod store;
#[cfg(test)]
mod tests;
mod topk;

use datahost_plugin_api::ingest::INGESTED_KEY;
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, LogLevel, Manifest, Maturity, Plugin, Refusal,
    RequestEnvelope, Response, Seed, SourceFile,
};

pub const SLUG: &str = "edgar-search";
pub const ROUTE: &str = "/v1/edgar-search";

/// The plugin: an immutable full-text index over the demo seed (in RAM) or the ingested filings (on disk).
pub struct EdgarSearch {
    index: index::SearchIndex,
    /// The data generation the index holds; a paging cursor is pinned to it.
    generation: String,
}

impl Plugin for EdgarSearch {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Full-text search over SEC EDGAR filings (BM25 relevance, phrases, form and date filters).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // Table-backed filings: the text of national filing volumes stays in the records engine; the index is
        // rebuilt from it only when it changes.
        .indexing(ingest::FILINGS, &[store::ACCESSION_FIELD])
        // Every filing the engine holds is searchable: the Form 4 and 13F filings of those datasets, once
        // ingested.
        .also_serving(sources::ALSO_SERVES)
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/edgar-search.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let doc: serde_json::Value = ctx.host.load_dataset(SLUG)?;
        let started = std::time::Instant::now();
        let others = sources::Others::load(&ctx.host)?;
        // Real filings (this dataset's or other datasets') replace the demo seed entirely.
        let (index, how, generation) = if doc.get(INGESTED_KEY).is_some() || !others.is_empty() {
            let stored: data::Stored =
                serde_json::from_value(doc).map_err(|e| format!("the {SLUG} dataset is not readable: {e}"))?;
            let generation = store::fingerprint(stored.ingested.as_ref(), &others);
            let (index, how) = store::ingested_index(&ctx.host, stored.ingested.as_ref(), &others)?;
            (index, how, generation)
        } else {
            let seed: data::Snapshot =
                serde_json::from_value(doc).map_err(|e| format!("the {SLUG} seed is not readable: {e}"))?;
            let generation = format!("seed-{}", seed.filings.len());
            (index::SearchIndex::build(seed.filings)?, "indexed the demo seed in RAM", generation)
        };
        ctx.host.log(
            LogLevel::Info,
            &format!(
                "edgar-search: {how}: {} filings in {} ms ({} bytes of index)",
                index.len(),
                started.elapsed().as_millis(),
                index.index_bytes()
            ),
        );
        Ok(Self { index, generation })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, &self.generation, request)
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::ingest(file)
    }
}

export_plugin!(EdgarSearch);
