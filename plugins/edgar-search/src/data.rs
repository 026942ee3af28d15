//! The dataset's records as stored in the records engine: `{meta, filings}`.

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
