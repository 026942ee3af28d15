//! companies: the reference dataset that ties tickers, SEC CIKs and company names together for every other
//! dataset. It has no route of its own: the host indexes it and answers `companies.resolve` for every plugin
//! (see `plugin-api/src/reference.rs`).
//!
//! File roles: `lib.rs` manifest and export, `ingest.rs` the parser of SEC `company_tickers.json` (and its
//! `company_tickers_exchange.json` twin), `tests.rs`.

mod ingest;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, IngestBatch, InitContext, Manifest, Maturity, Plugin, Refusal, RequestEnvelope,
    Response, SourceFile,
};

pub const SLUG: &str = "companies";

pub struct Companies;

impl Plugin for Companies {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Reference dataset: SEC company identities (CIK, ticker, name) that every dataset resolves companies \
             through. No route of its own.",
            Vec::new(),
            serde_json::json!({ "paths": {} }),
        )
    }

    fn ingest_formats() -> Vec<&'static str> {
        ingest::FORMATS.to_vec()
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::parse(file)
    }

    fn init(_ctx: InitContext) -> Result<Self, BoxError> {
        Ok(Companies)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        Err(ApiError::not_found(format!("the companies dataset has no route `{}`", request.route)))
    }
}

export_plugin!(Companies);
