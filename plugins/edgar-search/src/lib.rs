//! edgar-search: full-text search over SEC EDGAR filings, backed by an in-RAM tantivy index.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` snapshot records, `index.rs` the full-text engine, `corpus.rs` the
//! deterministic generator of the demo seed and of load-test corpora, `seed/` the shipped snapshot, `tests.rs`.
//! In engine mode (PostgreSQL) the filings live in the plugin's own table with a GIN-indexed `tsvector`, and
//! `sql.rs` translates each parsed query into SQL with the same matches (relevance is `ts_rank` there).

pub mod corpus;
pub mod data;
pub mod index;
pub mod ingest;
#[cfg(test)]
mod ingest_tests;
mod routes;
mod schema;
pub mod sql;
#[cfg(test)]
mod tests;

use datahost_plugin_api::sql::{load_store, Store};
use datahost_plugin_api::{
    export_plugin, ApiError, Host, IngestBatch, InitContext, LogLevel, Manifest, Maturity, Migration, Plugin, Refusal,
    RequestEnvelope, Response, Seed, SourceFile,
};

pub const SLUG: &str = "edgar-search";
pub const ROUTE: &str = "/v1/edgar-search";

/// The plugin: an immutable full-text index over one snapshot of the dataset or, in engine mode, an empty
/// index (for its query parser, analyzer and snippets) and the handle on the plugin's table.
pub struct EdgarSearch {
    index: index::SearchIndex,
    engine: Option<Host>,
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
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/edgar-search.json"))]
    }

    fn migrations() -> Vec<Migration> {
        sql::migrations()
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        // The analyzer that builds the engine-mode documents is the index's own; an empty index has it.
        let tools = index::SearchIndex::build(Vec::new())?;
        let store = load_store(
            &ctx.host,
            SLUG,
            sql::LAYOUT_VERSION,
            |s: &data::Stored| {
                vec![(sql::FILINGS_TABLE, s.filings.iter().map(|f| sql::filing_row(&tools, f)).collect())]
            },
            |s: data::Stored| s.filings,
        )?;
        let filings = match store {
            Store::Engine(host) => return Ok(Self { index: tools, engine: Some(host) }),
            Store::Memory(filings) => filings,
        };
        let started = std::time::Instant::now();
        let index = index::SearchIndex::build(filings)?;
        ctx.host.log(
            LogLevel::Info,
            &format!(
                "edgar-search indexed {} filings in {} ms ({} bytes of index)",
                index.filings.len(),
                started.elapsed().as_millis(),
                index.index_bytes()
            ),
        );
        Ok(Self { index, engine: None })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, self.engine.as_ref(), request)
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::ingest(file)
    }

    /// Answers from the engine's table are live (rows are added without a new `init`): never reused.
    fn cache_responses(&self) -> bool {
        self.engine.is_none()
    }
}

export_plugin!(EdgarSearch);
