//! The kit's error: reading a dataset's stored records through the host failed.

use datahost_plugin_api::HostError;

/// Stored records could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    /// The host call failed (the records engine did not answer, an unknown collection...).
    #[error(transparent)]
    Host(#[from] HostError),
    /// A stored row does not read as the record it should be.
    #[error("a stored {what} is not readable: {source}")]
    Unreadable {
        /// What the row should be (`clerk record`, `Form 4 row`...).
        what: &'static str,
        /// Where it does not match.
        source: serde_json::Error,
    },
}
