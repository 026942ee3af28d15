//! The loaders' error: why the 13F filings cannot be loaded, from the demo seed (`data.rs`) or the ingested
//! records (`records.rs`). A row the parser cannot read is a `BadPosition` (`ingest/filing.rs`).

/// Why the 13F filings cannot be loaded (which fails `init`).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the {slug} seed is not readable: {0}", slug = crate::SLUG)]
    Seed(serde_json::Error),
    #[error("the ingested 13F records are not readable: {0}")]
    Ingested(serde_json::Error),
    #[error("filing {accession}: cik `{cik}` is not 10 digits")]
    BadCik { accession: String, cik: String },
    #[error("filing {accession}: {cusip} has putCall {put_call:?}")]
    BadPutCall { accession: String, cusip: String, put_call: Option<String> },
}
