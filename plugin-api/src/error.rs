//! The SDK's errors: [`HostError`], what a call to the host ([`crate::Host`]) can fail with, and [`BoxError`],
//! what a plugin's own `init` and named calls return (any error type of the plugin's, or a message).

/// A call a plugin made to its host failed.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The host answered the call with an error: its message as it gave it (an unknown dataset, an engine
    /// that cannot run the query, an unknown named call on an older host...).
    #[error("{0}")]
    Refused(String),
    /// The host's answer to `call` is not what the call returns.
    #[error("the host's {call} answer is not readable: {source}")]
    Unreadable {
        /// The host call (`records.query`, `plugin.dir`...).
        call: String,
        /// Why it did not read.
        source: serde_json::Error,
    },
    /// The host answered `call` with a value of another kind than it returns (text for a directory...).
    #[error("the host answered {call} with {answer}")]
    UnexpectedAnswer {
        /// The host call.
        call: String,
        /// The answer, as JSON text.
        answer: String,
    },
    /// A dataset snapshot does not match the type the plugin reads it into.
    #[error("dataset `{dataset}` does not match its schema: {source}")]
    DatasetShape {
        /// The dataset.
        dataset: String,
        /// Where it does not match.
        source: serde_json::Error,
    },
    /// The call's input could not be written as JSON (a type whose `Serialize` fails).
    #[error("the {call} input is not JSON: {source}")]
    Input {
        /// The host call.
        call: String,
        /// Why it could not be written.
        source: serde_json::Error,
    },
}

/// The error of a plugin's `init` and named `call`: any error type of the plugin's (`?` converts it) or a
/// message (`Err("...".into())`); the host shows its text.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;
