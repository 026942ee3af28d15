//! The `meta` block most dataset snapshots carry (`{"meta": {source, sourceUrl, method, caveat,
//! generatedAt}, <records>: [...]}`), for plugins whose meta has no fields of their own. A dataset with more
//! fields `#[serde(flatten)]`s this into its own meta type.

use datahost_plugin_api::ApiSchema;
use serde::{Deserialize, Serialize};

/// The usual `meta` object of a dataset snapshot, served in the dataset's responses as `meta`. The field docs are
/// the OpenAPI descriptions: a dataset documents its `meta` by flattening this into a type of its own name
/// (component names are global, so this is never a component itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotMeta {
    /// Where the records come from; says so when they are demo data.
    pub source: String,
    /// The public source of the records.
    #[schema(format = "uri")]
    pub source_url: String,
    /// How the records were read from the source.
    pub method: String,
    /// What the data does not say; demo seeds state here that they are demo data.
    pub caveat: String,
    /// When the snapshot was generated (ISO 8601).
    #[schema(format = "date-time")]
    pub generated_at: String,
}
