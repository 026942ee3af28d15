//! The ingested `patents` dataset as written by `ingest.rs` and read back by `data.rs`: one `patents` record
//! per granted patent (PatentsView `g_patent` or a PatentSearch API patent with its `patent_date`) and one
//! `assignees` record per assignee row (`g_assignee_disambiguated` or a patent's `assignees[]`). The two
//! collections join on `patentId`, whichever files they came from.
//!
//! The host serves the ingested dataset as `{"ingested": {rows, files, lastIngestAt}, "patents": [...],
//! "assignees": [...]}`.

use serde::{Deserialize, Serialize};

/// Collection of granted patents, key `<patentId>`.
pub const PATENTS: &str = "patents";
/// Collection of assignee rows, key `<patentId>/<sequence>`.
pub const ASSIGNEES: &str = "assignees";

/// One granted patent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatentRecord {
    /// The USPTO patent number as PatentsView writes it (`10000000`, `D912345`, `RE49000`...).
    pub patent_id: String,
    /// `utility`, `design`, `plant`, `reissue`...; null when the source does not say.
    pub patent_type: Option<String>,
    /// Grant date, `YYYY-MM-DD`.
    pub patent_date: String,
    pub patent_title: Option<String>,
    /// Whether the USPTO withdrew the patent before issue; null when the source does not say.
    pub withdrawn: Option<bool>,
    /// The patent's public page (Google Patents, built from the patent number).
    pub source_url: String,
    /// The format the record was read from (`patentsview-g-patent-tsv`, `patentsview-api-json`).
    pub format: String,
}

/// One assignee of a patent, in the order the patent lists them (`sequence` 0 is the first assignee).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssigneeRecord {
    pub patent_id: String,
    /// PatentsView's `assignee_sequence`, 0-based.
    pub sequence: u32,
    /// PatentsView's disambiguated assignee id.
    pub assignee_id: Option<String>,
    /// The (disambiguated) organization name as PatentsView writes it; null for an individual assignee.
    pub organization: Option<String>,
    pub individual_name_first: Option<String>,
    pub individual_name_last: Option<String>,
    /// PatentsView's assignee type code (`2` US company, `3` foreign company, `4` US individual...).
    pub assignee_type: Option<String>,
    pub format: String,
}

/// The public page of a granted US patent.
pub fn patent_url(patent_id: &str) -> String {
    format!("https://patents.google.com/patent/US{patent_id}")
}

/// Where the records come from, served as `meta.sourceUrl` for ingested data.
pub const SOURCE_URL: &str = "https://patentsview.org/download/data-download-tables";
