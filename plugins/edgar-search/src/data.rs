//! The dataset's records as stored in the records engine: the demo seed `{meta, filings}`, or once EDGAR files
//! are ingested `{ingested, filings}` (never both).

use datahost_plugin_api::ingest::IngestedInfo;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub source: String,
    pub source_url: String,
    pub caveat: String,
    pub generated_at: String,
}

/// One filing. `text` is the searchable body; the other fields are what a hit returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filing {
    pub form: String,
    pub entity: String,
    /// Filer identifier, 10 digits, zero-padded.
    pub cik: String,
    pub accession: String,
    pub url: String,
    /// `YYYY-MM-DD`.
    pub filed_date: String,
    pub text: String,
}

/// The snapshot document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub filings: Vec<Filing>,
}

/// Either document as `init` reads it: only the filings matter to the index (the response carries no `meta`).
#[derive(Debug, Clone, Deserialize)]
pub struct Stored {
    #[serde(default)]
    pub meta: Option<Meta>,
    #[serde(default)]
    pub ingested: Option<IngestedInfo>,
    #[serde(default)]
    pub filings: Vec<Filing>,
}
