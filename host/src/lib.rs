//! The datahost host: configuration, plugin loader, records engine, auth, tiers, rate limits, the HTTP
//! surface, OpenAPI assembly and metrics. `main.rs` is the CLI on top of it.
//!
//! The modules are folders by layer, and imports point one way (ARCHITECTURE.md, enforced by `tests/tidy.rs`):
//! `lifecycle` → `http` → `sync` → `access`, `plugins` → `engine` → `config`, `tls`.

pub mod access;
pub mod config;
pub mod engine;
pub mod http;
pub mod lifecycle;
pub mod plugins;
pub mod sync;
pub mod tls;

/// Test helper: what a piece of code logs through `tracing`, as plain text, so a test can check that a failure
/// turned into a default value was said. Here, not in a file, since every file of `src` is in a layer.
#[cfg(test)]
pub(crate) mod log_capture {
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Runs `f` on this thread with a subscriber of its own and returns its result with every line it logged.
    pub fn logged<R>(f: impl FnOnce() -> R) -> (R, String) {
        let sink = Sink::default();
        let writer = sink.clone();
        let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
        let out = tracing::subscriber::with_default(subscriber, f);
        let text = String::from_utf8_lossy(&sink.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
        (out, text)
    }
}

// The paths the tests, the fuzz targets and the tools import from, as they were before the layer folders.
pub use access::keys;
pub use engine::records;
pub use http::app::{app, Api};
pub use http::state::AppState;
pub use http::{app, openapi};

/// `datahost::ratelimit`, as the router tests import it: the in-process limiter and the `Limiter` choice.
pub mod ratelimit {
    pub use crate::access::limiter::Limiter;
    pub use crate::access::ratelimit::*;
}
