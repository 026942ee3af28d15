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

// The paths the tests, the fuzz targets and the tools import from, as they were before the layer folders.
pub use access::keys;
pub use engine::records;
pub use http::app::app;
pub use http::state::AppState;
pub use http::{app, openapi};

/// `datahost::ratelimit`, as the router tests import it: the in-process limiter and the `Limiter` choice.
pub mod ratelimit {
    pub use crate::access::limiter::Limiter;
    pub use crate::access::ratelimit::*;
}
