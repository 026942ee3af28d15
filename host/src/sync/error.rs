//! Why a sync source stopped before it finished (its per-file failures are not errors: they go into the report
//! and the source carries on).

/// Why a source stopped before it finished. Per-file failures are not this: they go into the report and the
/// source carries on.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The sync state (cursors, validators, kept files) cannot be read or written.
    #[error(transparent)]
    State(#[from] super::state::StateError),
    /// A request the source cannot go on without (an index page) failed.
    #[error(transparent)]
    Http(#[from] super::http::HttpError),
    /// A kept raw file the source needs cannot be read back.
    #[error("{source_name}: cannot read {}: {error}", path.display())]
    Read {
        source_name: &'static str,
        path: std::path::PathBuf,
        #[source]
        error: std::io::Error,
    },
    /// The server answered but not with the page the source starts from.
    #[error("{source_name}: GET {url} found no index page")]
    NoIndexPage { source_name: &'static str, url: String },
}

impl SourceError {
    /// `map_err` adapter for a raw file read back from disk.
    pub(super) fn read<'a>(
        source_name: &'static str,
        path: &'a std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> SourceError + 'a {
        move |error| SourceError::Read { source_name, path: path.to_path_buf(), error }
    }
}
