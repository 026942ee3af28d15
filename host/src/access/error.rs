//! The access layer's one error type: a key store that cannot be read or written, a rate-limit store (Redis)
//! that cannot be configured, reached or asked in time. `Display` is the sentence operators read in the log and
//! the CLI; the layers above wrap it (`StartupError`, the CLI's error).

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::EngineError;

/// Why a key-store or rate-limit-store call failed.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// The embedded key file (or its folder) cannot be read, created or replaced.
    #[error("{doing} {}: {source}", path.display())]
    KeyFile {
        doing: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The embedded key file is not the JSON this host writes.
    #[error("key store {} is not valid: {source}", path.display())]
    KeyFileFormat {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// The key table in PostgreSQL (engine mode).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// `ratelimit.redis_url` or its TLS settings cannot be used.
    #[error("{0}")]
    RedisConfig(String),
    /// No connection to Redis: refused, timed out, or waiting out the pause after a failure; the text says which.
    #[error("{0}")]
    RedisUnreachable(String),
    /// A Redis command failed.
    #[error("redis at {address}: {source}")]
    Redis {
        address: String,
        #[source]
        source: std::sync::Arc<redis::RedisError>,
    },
    /// Redis did not answer within `ratelimit.redis_timeout_ms`.
    #[error("redis at {address} did not answer within {} ms", after.as_millis())]
    RedisTimedOut { address: String, after: Duration },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_store_and_keep_the_cause() {
        let e = AccessError::KeyFile {
            doing: "cannot read key store",
            path: PathBuf::from("/srv/keys.json"),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert_eq!(e.to_string(), "cannot read key store /srv/keys.json: permission denied");
        assert!(std::error::Error::source(&e).is_some());
        let e = AccessError::RedisTimedOut { address: "redis://cache:6379".into(), after: Duration::from_millis(250) };
        assert_eq!(e.to_string(), "redis at redis://cache:6379 did not answer within 250 ms");
    }
}
