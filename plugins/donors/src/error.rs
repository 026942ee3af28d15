//! The plugin's error: why the dataset cannot be loaded, from the demo seed (`data.rs`) or the ingested FEC
//! records (`pacs.rs`).

use datahost_plugin_kit::error::StoredError;

/// Why the donors dataset cannot be loaded (which fails `init`).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("donors dataset is not readable: {0}")]
    Unreadable(serde_json::Error),
    /// The ingested contributions could not be queried.
    #[error(transparent)]
    Stored(#[from] StoredError),
    /// A committee id not of the form its source has: a demo row must never pass for an FEC committee, nor
    /// the reverse.
    #[error("{ticker}: committeeId `{id}` is not of {form}")]
    CommitteeId { ticker: String, id: String, form: &'static str },
    /// A stored contribution whose cycle is not a year (ingest writes only years).
    #[error("FEC contributions of committee {committee_id}: cycle `{cycle}` is not a year")]
    Cycle { committee_id: String, cycle: String },
}
