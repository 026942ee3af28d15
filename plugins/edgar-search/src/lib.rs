//! edgar-search: full-text search over SEC EDGAR filings, backed by an in-RAM tantivy index.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` snapshot records, `index.rs` the full-text engine, `corpus.rs` the
//! deterministic generator of the demo seed and of load-test corpora, `seed/` the shipped snapshot, `tests.rs`.

pub mod corpus;
pub mod data;
pub mod index;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, LogLevel, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "edgar-search";
pub const ROUTE: &str = "/v1/edgar-search";

/// The plugin: an immutable full-text index over one snapshot of the dataset.
pub struct EdgarSearch {
    index: index::SearchIndex,
}

impl Plugin for EdgarSearch {
    fn manifest() -> Manifest {
        Manifest {
            slug: SLUG.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            maturity: Maturity::Stable,
            description: "Full-text search over SEC EDGAR filings (BM25 relevance, phrases, form and date filters)."
                .into(),
            routes: vec![routes::route_spec()],
            openapi: schema::fragment(),
            capabilities: vec![],
            datasets: vec![SLUG.into()],
            reads: vec![],
        }
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/edgar-search.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        let started = std::time::Instant::now();
        let index = index::SearchIndex::build(snapshot.filings)?;
        ctx.host.log(
            LogLevel::Info,
            &format!(
                "edgar-search indexed {} filings in {} ms ({} bytes of index)",
                index.filings.len(),
                started.elapsed().as_millis(),
                index.index_bytes()
            ),
        );
        Ok(Self { index })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(EdgarSearch);
