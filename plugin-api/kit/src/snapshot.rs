//! The `meta` block most dataset snapshots carry (`{"meta": {source, sourceUrl, method, caveat,
//! generatedAt}, <records>: [...]}`), for plugins whose meta has no fields of their own. A dataset with more
//! fields `#[serde(flatten)]`s this into its own meta type.

use serde::{Deserialize, Serialize};

/// The usual `meta` object of a dataset snapshot, served in the dataset's responses as `meta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotMeta {
    /// Where the records come from; says DEMO for generated seeds.
    pub source: String,
    /// URL of the public source of the records (JSON `sourceUrl`).
    pub source_url: String,
    /// How the records were derived from the source.
    pub method: String,
    /// What the data does not say; demo seeds state that they are demo data here.
    pub caveat: String,
    /// Timestamp (ISO 8601) of the snapshot.
    pub generated_at: String,
}
