//! The plugin's error: why a source is left out of the graph, reading its body (`data.rs`) or its records
//! (`graph.rs`).

use datahost_plugin_api::HostError;

/// Why a source is left out of the graph (logged, and listed in `Info::unavailable`).
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Its route failed.
    #[error(transparent)]
    Route(#[from] HostError),
    #[error("not a JSON object")]
    NotAnObject,
    /// The body lacks the array of records the source is read from (`companies`, `filings`).
    #[error("the snapshot has no `{0}` array")]
    NoArray(&'static str),
    #[error("`{0}` is not a dataset the graph knows")]
    UnknownDataset(&'static str),
}
