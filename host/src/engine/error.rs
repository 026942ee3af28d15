//! The records engine's one error type. Every fallible engine call returns [`EngineError`]: what went wrong in
//! the engine's terms, with the failing library error kept as its `source`. Its `Display` is the sentence an
//! operator or a plugin author reads. Upper layers wrap it (`#[from]` in `StartupError`, `ServiceError`, the CLI's
//! error); tests and callers that care match the variant (a plugin's mistake, refused input, an engine that is
//! down) instead of searching the text.

use std::path::PathBuf;
use std::time::Duration;

/// Why a records-engine call failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A plugin named a dataset it neither owns nor declared in `reads`: a plugin defect, never retried.
    #[error("dataset `{0}` is neither owned nor declared in `reads` by this plugin")]
    NotReadable(String),
    /// A `records.query` or `records.words` the dataset's declared indexes cannot answer.
    #[error("{call} on `{dataset}`: {problem}")]
    Undeclared { call: &'static str, dataset: String, problem: String },
    /// The dataset has no document in the engine (no plugin ships or ingested it).
    #[error("dataset `{dataset}` is not in the records engine ({engine})")]
    NoDataset { dataset: String, engine: &'static str },
    /// What this kind of engine does not do: SQL on the embedded engine, files on an engine without a data dir.
    #[error("{0}")]
    Unsupported(&'static str),
    /// Input the engine refuses: a parser's batch that breaks the ingest rules, a malformed plugin query.
    #[error("{0}")]
    Invalid(String),
    /// Data the engine holds that it cannot read back (a stored record that is not JSON, an unknown tier).
    #[error("{0}")]
    Corrupt(String),
    /// A file or folder under `engine.data_dir`.
    #[error("{doing} {}: {source}", path.display())]
    Io {
        doing: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A statement of the embedded engine (SQLite) failed.
    #[error("embedded engine: {doing}: {source}")]
    Sqlite {
        doing: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// The embedded engine's database file cannot be opened or given its tables.
    #[error("{doing} {}: {source}", path.display())]
    SqliteFile {
        doing: &'static str,
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// A statement of the PostgreSQL engine failed.
    #[error("records engine: {doing}: {source}")]
    Postgres {
        doing: String,
        #[source]
        source: tokio_postgres::Error,
    },
    /// `engine.url` (or its TLS settings) cannot be used.
    #[error("{0}")]
    Config(String),
    /// PostgreSQL cannot be reached: no pooled connection, the LISTEN connection lost; the text says why.
    #[error("{0}")]
    Unreachable(String),
    /// PostgreSQL did not answer within the engine's query timeout.
    #[error("{what}: the records engine at {address} did not answer within {after:?}")]
    TimedOut { what: String, address: String, after: Duration },
}

/// `map_err` adapter for a failed SQLite statement.
pub(crate) fn sqlite(doing: &'static str) -> impl Fn(rusqlite::Error) -> EngineError {
    move |source| EngineError::Sqlite { doing, source }
}

/// `map_err` adapter for a failed PostgreSQL statement (the description becomes a `String` only on failure).
pub(crate) fn postgres(doing: impl Into<String>) -> impl FnOnce(tokio_postgres::Error) -> EngineError {
    move |source| EngineError::Postgres { doing: doing.into(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_the_engine_always_wrote_them() {
        assert_eq!(
            EngineError::NotReadable("vin".into()).to_string(),
            "dataset `vin` is neither owned nor declared in `reads` by this plugin"
        );
        let e = EngineError::NoDataset { dataset: "x".into(), engine: "embedded" };
        assert_eq!(e.to_string(), "dataset `x` is not in the records engine (embedded)");
        let e = EngineError::Io {
            doing: "cannot open",
            path: PathBuf::from("/nowhere/records.db"),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(e.to_string(), "cannot open /nowhere/records.db: entity not found");
        assert!(std::error::Error::source(&e).is_some(), "the io error is kept as the source");
        let e = EngineError::TimedOut {
            what: "listing datasets".into(),
            address: "postgres://db:5432/x".into(),
            after: Duration::from_secs(5),
        };
        assert_eq!(
            e.to_string(),
            "listing datasets: the records engine at postgres://db:5432/x did not answer within 5s"
        );
    }
}
