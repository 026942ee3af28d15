//! The plugin layer's one error type: a plugin folder that cannot be read, a library the host refuses to run, a
//! plugin entry point (`init`, `call`, `ingest`) that answered an error or panicked, and a plugin process that
//! cannot be started or asked. `Display` is the sentence operators read in the log, `/health` and `datahost
//! plugins list`. Per-file load problems stay [`super::LoadFailure`]s (one file failing never stops the others);
//! this type is for what a caller has to handle.

use std::path::PathBuf;

use datahost_plugin_api::abi::{FfiReply, ABI_MAJOR, OUTCOME_OK, OUTCOME_PANIC};

/// Why a plugin-layer call failed.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// `plugins.dir` cannot be listed: no plugin can load.
    #[error("cannot read plugins.dir {}: {source}", path.display())]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The blocking task that opens the libraries ended abnormally.
    #[error("plugin loader crashed: {0}")]
    LoaderCrashed(String),
    /// A library built for another major version of the plugin ABI.
    #[error("built for plugin ABI {found} but this host speaks {ABI_MAJOR}")]
    AbiMismatch { found: u32 },
    /// A library built with `panic = "abort"`: one panic in it would end the host.
    #[error("built with panic = \"{0}\"; plugins must unwind so a panic cannot kill the host")]
    AbortsOnPanic(String),
    /// The plugin's entry point answered an error: its own words.
    #[error("{0}")]
    Refused(String),
    /// The plugin's entry point panicked (caught at the ABI boundary): the panic message.
    #[error("panicked: {0}")]
    Panicked(String),
    /// An operating-system step of starting a plugin process failed (socket, executable, spawn, thread).
    #[error("{doing}: {source}")]
    ProcessStart {
        doing: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// The plugin process did not come up: it exited or did not connect in time; the text says which.
    #[error("{0}")]
    ProcessDown(String),
    /// The plugin process is up but cannot take the call now (starting, restarting, every connection busy).
    #[error("plugin process {0}")]
    ProcessUnavailable(String),
    /// The conversation with the plugin process broke (it is killed and restarted).
    #[error("the plugin process failed: {0}")]
    ProcessConversation(String),
}

impl PluginError {
    /// A plugin's reply (`FfiReply` or the same outcome byte and text from a plugin process) as a result.
    pub fn from_reply(outcome: u8, payload: String) -> Result<String, PluginError> {
        match outcome {
            OUTCOME_OK => Ok(payload),
            OUTCOME_PANIC => Err(PluginError::Panicked(payload)),
            _ => Err(PluginError::Refused(payload)),
        }
    }

    /// [`Self::from_reply`] for the reply of an in-process entry point.
    pub fn from_ffi(reply: FfiReply) -> Result<String, PluginError> {
        Self::from_reply(reply.outcome, reply.payload.into_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::abi::OUTCOME_ERR;

    #[test]
    fn a_reply_keeps_the_plugins_words_and_marks_a_panic() {
        assert_eq!(PluginError::from_reply(OUTCOME_OK, "{}".into()).unwrap(), "{}");
        let refused = PluginError::from_reply(OUTCOME_ERR, "no such dataset".into()).unwrap_err();
        assert!(matches!(refused, PluginError::Refused(_)));
        assert_eq!(refused.to_string(), "no such dataset");
        let panicked = PluginError::from_reply(OUTCOME_PANIC, "index out of bounds".into()).unwrap_err();
        assert_eq!(panicked.to_string(), "panicked: index out of bounds");
    }
}
